"""Beyond the paper: each seed's results, the tie-order ranges, winning numbers across datasets."""


rule seed_tables:
    input:
        f"{RESULTS}/{{dataset}}/per_query.parquet",
    output:
        fold_means=f"{RESULTS}/{{dataset}}/tables/seed_fold_means.tsv",
        ttests=f"{RESULTS}/{{dataset}}/tables/seed_ttests.tsv",
    log:
        f"{LOGS}/{{dataset}}/seed_tables.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/seed_tables.tsv"
    threads: 1
    resources:
        **job_resources("seed_tables"),
    conda:
        CONDA_ENV
    script:
        "../scripts/seed_tables.py"


rule ties_table:
    input:
        f"{RESULTS}/{{dataset}}/per_query.parquet",
    output:
        f"{RESULTS}/{{dataset}}/tables/ties.tsv",
    params:
        cutoff=TRAIN_CUTOFF,
    log:
        f"{LOGS}/{{dataset}}/ties_table.log",
    benchmark:
        f"{RESULTS}/{{dataset}}/bench/ties_table.tsv"
    threads: 1
    resources:
        **job_resources("ties_table"),
    conda:
        CONDA_ENV
    script:
        "../scripts/ties_table.py"


rule ties_figure:
    input:
        summary=f"{RESULTS}/{{dataset}}/tables/summary.tsv",
    output:
        png=f"{RESULTS}/{{dataset}}/figures/ties/{{algorithm}}.png",
        pdf=f"{RESULTS}/{{dataset}}/figures/ties/{{algorithm}}.pdf",
    params:
        train_conventions=TRAIN_CONVENTIONS,
    log:
        f"{LOGS}/{{dataset}}/ties_figure/{{algorithm}}.log",
    threads: 1
    resources:
        **job_resources("ties_figure"),
    conda:
        CONDA_ENV
    script:
        "../scripts/ties_figure.py"


rule winning:
    input:
        expand(f"{RESULTS}/{{dataset}}/tables/fold_means.tsv", dataset=DATASETS),
    output:
        table=f"{RESULTS}/{STUDY}/tables/winning.tsv",
        png=f"{RESULTS}/{STUDY}/figures/winning.png",
        pdf=f"{RESULTS}/{STUDY}/figures/winning.pdf",
    params:
        algorithms=BASE_ALGORITHMS,
        eval_conventions=FIGURE2_EVAL_CONVENTIONS,
        train_convention=OFFICIAL,
    log:
        f"{LOGS}/{STUDY}/winning.log",
    threads: 1
    resources:
        **job_resources("winning"),
    conda:
        CONDA_ENV
    script:
        "../scripts/winning.py"


rule study_report_pages:
    input:
        **{key: f"{RESULTS}/{STUDY}/{page['source']}" for key, page in STUDY_PAGES.items()},
    output:
        **{
            key: report(
                f"{RESULTS}/{STUDY}/report/{key}.html",
                caption=f"../report/{page['caption']}.rst",
                category=page["category"],
                subcategory="all datasets",
                labels={"name": page["title"]},
            )
            for key, page in STUDY_PAGES.items()
        },
    params:
        titles={key: page["title"] for key, page in STUDY_PAGES.items()},
        facts=caption_facts(),
        scope="all datasets",
    log:
        f"{LOGS}/{STUDY}/report_pages.log",
    threads: 1
    resources:
        **job_resources("study_report_pages"),
    conda:
        CONDA_ENV
    script:
        "../scripts/report_pages.py"
