"""The paper's claims checked against this run, as Markdown (rule claims)."""

import pandas as pd

from _job import run
from ltrconv import study
from ltrconv.data import atomic_path


def main(smk, log):
    read = lambda p: pd.read_csv(p, sep="\t")  # noqa: E731
    text = study.claims_markdown(read(smk.input.summary), read(smk.input.ttests),
                                 read(smk.input.order), study.audit_from_table(read(smk.input.audit)),
                                 smk.wildcards.dataset)
    with atomic_path(smk.output[0]) as tmp:
        tmp.write_text(text)


run(snakemake, main)  # noqa: F821
