"""What each dataset's results were made with: provenance.json, written once every claim, table
and figure of the dataset is (ltrconv.pipeline.provenance)."""


rule provenance:
    input:
        manifest=f"{PLAN.resources}/{{dataset}}/manifest.tsv",
        # after every result of the dataset: the record is of the environment that made them
        results=lambda wc: provenance_inputs(wc.dataset),
    output:
        provenance_file("{dataset}"),
    params:
        run=PROVENANCE_PARAMS,
        repo=Untracked(str(REPO)),  # the checkout whose commit is recorded; moving it changes nothing
    log:
        f"{PLAN.logs}/{{dataset}}/provenance.log",
    threads: 1
    resources:
        **job_resources("provenance"),
    conda:
        CONDA_ENV
    script:
        "../scripts/provenance.py"
