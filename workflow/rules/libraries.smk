"""Today's libraries (extensions.libraries): what each library's NDCG reports for the same models,
their spread, the order of the algorithms under each, and what training with a library's NDCG
does to the models."""


rule library_tables:
    input:
        summary=f"{RESULTS}/{{dataset}}/tables/summary.tsv",
        per_query=f"{RESULTS}/{{dataset}}/per_query.parquet",
    output:
        **{t: f"{RESULTS}/{{dataset}}/tables/{t}.tsv" for t in LIBRARY_TABLES},
    params:
        algorithms=BASE_ALGORITHMS,
        libraries=LIBRARY_EVAL_CONVENTIONS,
        trained=LIBRARY_TRAIN_CONVENTIONS,
        reference=REFERENCE_CONVENTION,
        official=OFFICIAL,
    log:
        f"{LOGS}/{{dataset}}/library_tables.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/library_tables.tsv"
    threads: 1
    resources:
        **job_resources("library_tables"),
    conda:
        CONDA_ENV
    script:
        "../scripts/library_tables.py"


rule library_figure:
    input:
        summary=f"{RESULTS}/{{dataset}}/tables/summary.tsv",
    output:
        **figure_output("libraries"),
    params:
        algorithms=BASE_ALGORITHMS,
        libraries=LIBRARY_EVAL_CONVENTIONS,
        reference=REFERENCE_CONVENTION,
        official=OFFICIAL,
    log:
        f"{LOGS}/{{dataset}}/library_figure.log",
    threads: 1
    resources:
        **job_resources("library_figure"),
    conda:
        CONDA_ENV
    script:
        "../scripts/library_figure.py"


rule library_order:
    input:
        expand(f"{RESULTS}/{{dataset}}/tables/fold_means.tsv", dataset=DATASETS),
    output:
        winning=f"{RESULTS}/{STUDY}/tables/library_winning.tsv",
        flips=f"{RESULTS}/{STUDY}/tables/library_flips.tsv",
    params:
        algorithms=BASE_ALGORITHMS,
        libraries=LIBRARY_EVAL_CONVENTIONS,
        reference=REFERENCE_CONVENTION,
        official=OFFICIAL,
    log:
        f"{LOGS}/{STUDY}/library_order.log",
    threads: 1
    resources:
        **job_resources("library_order"),
    conda:
        CONDA_ENV
    script:
        "../scripts/library_order.py"
