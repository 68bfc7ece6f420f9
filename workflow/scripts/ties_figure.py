"""One algorithm's NDCG@k band over tie orders (rule ties_figure)."""

import pandas as pd

from _job import run
from ltrconv.study import figures


def main(smk, log):
    summary = pd.read_csv(smk.input.summary, sep="\t")
    figures.ties_figure(summary, str(smk.output.png)[: -len(".png")], smk.wildcards.algorithm,
                        train_conventions=smk.params.train_conventions)


run(snakemake, main)  # noqa: F821
