"""The claims, every result table and every figure of a dataset as HTML pages for the Snakemake
report (rules report_pages, study_report_pages). Inputs and outputs share their keys: claims,
table_NAME, figure_NAME."""

from pathlib import Path

from ltrconv.pipeline.job import read_tsv, run
from ltrconv.study import report_pages as pages


def main(smk, log):
    scope = smk.params.get("scope") or smk.wildcards.dataset  # a dataset, or all of them
    titles = dict(smk.params.titles)
    for key, out in smk.output.items():
        src = Path(smk.input[key])
        title = f"{titles[key]} ({scope})"
        if key == "claims":
            text = pages.claims_page(src.read_text(encoding="utf-8"), title)
        elif key.startswith("table_"):
            frame = read_tsv(src)
            text = pages.table_page(frame, title, src.name, src.read_bytes())
        else:
            text = pages.figure_page(src.read_bytes(), title)
        pages.write(text, out)
    log.info(f"{len(smk.output)} pages")


run(snakemake, main)  # noqa: F821
