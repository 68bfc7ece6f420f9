"""Figures 1 and 2 of the paper, the training-time figure and the implementation comparison."""


rule figure1:
    input:
        summary=f"{RESULTS}/{{dataset}}/tables/summary.tsv",
    output:
        **figure_output("figure1"),
    params:
        algorithms=FIGURE1_ALGORITHMS,
        eval_conventions=FIGURE1_EVAL_CONVENTIONS,
        train_conventions=TRAIN_CONVENTIONS,
    log:
        f"{LOGS}/{{dataset}}/figure1.log",
    threads: 1
    resources:
        **job_resources("figure1"),
    conda:
        CONDA_ENV
    script:
        "../scripts/figure1.py"


rule figure2:
    input:
        summary=f"{RESULTS}/{{dataset}}/tables/summary.tsv",
    output:
        **figure_output("figure2"),
    params:
        algorithms=BASE_ALGORITHMS,
        eval_conventions=FIGURE2_EVAL_CONVENTIONS,
        train_convention=OFFICIAL,
    log:
        f"{LOGS}/{{dataset}}/figure2.log",
    threads: 1
    resources:
        **job_resources("figure2"),
    conda:
        CONDA_ENV
    script:
        "../scripts/figure2.py"


rule runtime_figure:
    input:
        runtime=f"{RESULTS}/{{dataset}}/tables/runtime.tsv",
    output:
        **figure_output("runtime"),
    log:
        f"{LOGS}/{{dataset}}/runtime_figure.log",
    threads: 1
    resources:
        **job_resources("runtime_figure"),
    conda:
        CONDA_ENV
    script:
        "../scripts/runtime_figure.py"


rule implementation:
    input:
        per_query=f"{RESULTS}/{{dataset}}/per_query.parquet",
        summary=f"{RESULTS}/{{dataset}}/tables/summary.tsv",
    output:
        table=f"{RESULTS}/{{dataset}}/tables/implementation.tsv",
        **figure_output("implementation"),
    params:
        variants=VARIANT_BASES,
        labels=VARIANT_LABELS,
        eval_conventions=FIGURE1_EVAL_CONVENTIONS,
        train_convention=OFFICIAL,
    log:
        f"{LOGS}/{{dataset}}/implementation.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/implementation.tsv"
    threads: 1
    resources:
        **job_resources("implementation"),
    conda:
        CONDA_ENV
    script:
        "../scripts/implementation.py"
