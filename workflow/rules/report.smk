"""The claims, tables and figures as HTML pages: what `snakemake --report` shows."""


rule report_pages:
    input:
        **{key: f"{PLAN.results}/{{dataset}}/{page['source']}" for key, page in REPORT_PAGES.items()},
    output:
        **{
            key: report(
                f"{PLAN.results}/{{dataset}}/report/{key}.html",
                caption=f"../report/{page['caption']}.rst",
                category=page["category"],
                subcategory="{dataset}",
                labels={"name": page["title"]},
            )
            for key, page in REPORT_PAGES.items()
        },
    params:
        titles={key: page["title"] for key, page in REPORT_PAGES.items()},
        facts=caption_facts(),
    log:
        f"{PLAN.logs}/{{dataset}}/report_pages.log",
    threads: 1
    resources:
        **job_resources("report_pages"),
    conda:
        CONDA_ENV
    script:
        "../scripts/report_pages.py"
