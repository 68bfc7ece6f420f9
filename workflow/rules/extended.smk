"""Beyond the paper: each seed's results, the tie-order ranges, winning numbers across datasets."""


rule seed_tables:
    input:
        f"{PLAN.results}/{{dataset}}/per_query.parquet",
    output:
        fold_means=f"{PLAN.results}/{{dataset}}/tables/seed_fold_means.tsv",
        ttests=f"{PLAN.results}/{{dataset}}/tables/seed_ttests.tsv",
    log:
        f"{PLAN.logs}/{{dataset}}/seed_tables.log",
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/seed_tables.tsv"
    threads: 1
    resources:
        **job_resources("seed_tables"),
    conda:
        CONDA_ENV
    script:
        "../scripts/seed_tables.py"


rule ties_table:
    input:
        f"{PLAN.results}/{{dataset}}/per_query.parquet",
    output:
        f"{PLAN.results}/{{dataset}}/tables/ties.tsv",
    params:
        cutoff=PLAN.train_cutoff,
    log:
        f"{PLAN.logs}/{{dataset}}/ties_table.log",
    benchmark:
        f"{PLAN.results}/{{dataset}}/bench/ties_table.tsv"
    threads: 1
    resources:
        **job_resources("ties_table"),
    conda:
        CONDA_ENV
    script:
        "../scripts/ties_table.py"


rule winning:
    input:
        expand(f"{PLAN.results}/{{dataset}}/tables/fold_means.tsv", dataset=PLAN.datasets),
    output:
        table=f"{PLAN.results}/{STUDY}/tables/winning.tsv",
        png=f"{PLAN.results}/{STUDY}/figures/winning.png",
        pdf=f"{PLAN.results}/{STUDY}/figures/winning.pdf",
    params:
        algorithms=PLAN.base_algorithms,
        eval_conventions=list(PLAN.figure2_eval_conventions),
        train_convention=PLAN.official,
    log:
        f"{PLAN.logs}/{STUDY}/winning.log",
    threads: 1
    resources:
        **job_resources("winning"),
    conda:
        CONDA_ENV
    script:
        "../scripts/winning.py"


rule study_report_pages:
    input:
        **{key: f"{PLAN.results}/{STUDY}/{page['source']}" for key, page in STUDY_PAGES.items()},
    output:
        **{
            key: report(
                f"{PLAN.results}/{STUDY}/report/{key}.html",
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
        f"{PLAN.logs}/{STUDY}/report_pages.log",
    threads: 1
    resources:
        **job_resources("study_report_pages"),
    conda:
        CONDA_ENV
    script:
        "../scripts/report_pages.py"
