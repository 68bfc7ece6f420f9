"""Figure 2 of the paper: the algorithms trained with the official convention, under each
evaluation convention (rule figure2)."""

import pandas as pd

from _job import run
from ltrconv.study import figures


def main(smk, log):
    p = smk.params
    figures.figure2(pd.read_csv(smk.input.summary, sep="\t"), str(smk.output.png)[: -len(".png")],
                    eval_conventions=p.eval_conventions, algorithms=p.algorithms,
                    train_convention=p.train_convention)


run(snakemake, main)  # noqa: F821
