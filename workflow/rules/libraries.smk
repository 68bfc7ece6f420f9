"""Today's libraries (extensions.libraries): what each library's NDCG reports for the same models,
their spread, the order of the algorithms under each, and what training with a library's NDCG
does to the models."""


rule library_tables:
    input:
        summary=f"{PLAN.results}/{{dataset}}/tables/summary.tsv",
        per_query=f"{PLAN.results}/{{dataset}}/per_query.parquet",
    output:
        **{t: f"{PLAN.results}/{{dataset}}/tables/{t}.tsv" for t in LIBRARY_TABLES},
    params:
        algorithms=PLAN.base_algorithms,
        libraries=PLAN.library_eval_conventions,
        trained=PLAN.library_train_conventions,
        reference=PLAN.reference,
        official=PLAN.official,
    log:
        f"{PLAN.logs}/{{dataset}}/library_tables.log",
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/library_tables.tsv"
    threads: 1
    resources:
        **job_resources("library_tables"),
    conda:
        CONDA_ENV
    script:
        "../scripts/library_tables.py"


rule library_order:
    input:
        expand(f"{PLAN.results}/{{dataset}}/tables/fold_means.tsv", dataset=PLAN.datasets),
    output:
        winning=f"{PLAN.results}/{STUDY}/tables/library_winning.tsv",
        flips=f"{PLAN.results}/{STUDY}/tables/library_flips.tsv",
    params:
        algorithms=PLAN.base_algorithms,
        libraries=PLAN.library_eval_conventions,
        reference=PLAN.reference,
        official=PLAN.official,
    log:
        f"{PLAN.logs}/{STUDY}/library_order.log",
    threads: 1
    resources:
        **job_resources("library_order"),
    conda:
        CONDA_ENV
    script:
        "../scripts/library_order.py"
