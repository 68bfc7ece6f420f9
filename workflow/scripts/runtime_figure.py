"""Training time of every model (rule runtime_figure)."""

import pandas as pd

from _job import run
from ltrconv.study import figures


def main(smk, log):
    figures.runtime_figure(pd.read_csv(smk.input.runtime, sep="\t"),
                           str(smk.output.png)[: -len(".png")])


run(snakemake, main)  # noqa: F821
