"""Figures 1 and 2 of the paper, the training-time figure and the implementation comparison."""


rule figure1:
    input:
        summary=f"{PLAN.results}/{{dataset}}/tables/summary.tsv",
    output:
        **figure_output("figure1"),
    params:
        algorithms=list(PLAN.figure1_algorithms),
        eval_conventions=list(PLAN.figure1_eval_conventions),
        train_conventions=list(PLAN.train_conventions),
    log:
        f"{PLAN.logs}/{{dataset}}/figure1.log",
    threads: 1
    resources:
        **job_resources("figure1"),
    conda:
        CONDA_ENV
    script:
        "../scripts/figure1.py"


rule figure2:
    input:
        summary=f"{PLAN.results}/{{dataset}}/tables/summary.tsv",
    output:
        **figure_output("figure2"),
    params:
        algorithms=PLAN.base_algorithms,
        eval_conventions=list(PLAN.figure2_eval_conventions),
        train_convention=PLAN.official,
    log:
        f"{PLAN.logs}/{{dataset}}/figure2.log",
    threads: 1
    resources:
        **job_resources("figure2"),
    conda:
        CONDA_ENV
    script:
        "../scripts/figure2.py"


rule runtime_figure:
    input:
        runtime=f"{PLAN.results}/{{dataset}}/tables/runtime.tsv",
    output:
        **figure_output("runtime"),
    log:
        f"{PLAN.logs}/{{dataset}}/runtime_figure.log",
    threads: 1
    resources:
        **job_resources("runtime_figure"),
    conda:
        CONDA_ENV
    script:
        "../scripts/runtime_figure.py"


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
