"""The paper's claims checked against this run, as Markdown (rule claims)."""

import pandas as pd

from _job import run
from ltrconv import study
from ltrconv.audit import audit
from ltrconv.data import Dataset, atomic_path


def main(smk, log):
    read = lambda p: pd.read_csv(p, sep="\t")  # noqa: E731
    text = study.claims_markdown(read(smk.input.summary), read(smk.input.ttests),
                                 read(smk.input.order), audit(Dataset.load(smk.input.full)),
                                 smk.wildcards.dataset)
    with atomic_path(smk.output[0]) as tmp:
        tmp.write_text(text if text.endswith("\n") else text + "\n")


run(snakemake, main)  # noqa: F821
