"""The figures of each dataset: one rule per figure declared with its drawing function in
ltrconv.pipeline.figures.FIGURES (Figures 1 and 2 of the paper, the training time, each
algorithm's tie orders, today's libraries), and the implementation comparison."""


for _figure in FIGURES:
    if _figure.draw is None:
        continue

    rule:
        name:
            _figure.rule
        input:
            **{t: f"{PLAN.results}/{{dataset}}/tables/{t}.tsv" for t in _figure.tables},
        output:
            **figure_output(_figure.name),
        params:
            **_figure.rule_params(PLAN),
        log:
            figure_log(_figure),
        threads: 1
        resources:
            **job_resources(_figure.rule),
        conda:
            CONDA_ENV
        script:
            "../scripts/figure.py"


rule implementation:
    input:
        per_query=f"{PLAN.results}/{{dataset}}/per_query.parquet",
        summary=f"{PLAN.results}/{{dataset}}/tables/summary.tsv",
    output:
        table=f"{PLAN.results}/{{dataset}}/tables/implementation.tsv",
        **figure_output("implementation"),
    params:
        variants=PLAN.variant_bases,
        labels=PLAN.variant_labels,
        eval_conventions=list(PLAN.figure1_eval_conventions),
        train_convention=PLAN.official,
    log:
        f"{PLAN.logs}/{{dataset}}/implementation.log",
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/implementation.tsv"
    threads: 1
    resources:
        **job_resources("implementation"),
    conda:
        CONDA_ENV
    script:
        "../scripts/implementation.py"
