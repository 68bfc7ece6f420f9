"""Figure 1 of the paper: training convention x evaluation convention (rule figure1)."""

import pandas as pd

from _job import run
from ltrconv.study import figures


def main(smk, log):
    p = smk.params
    figures.figure1(pd.read_csv(smk.input.summary, sep="\t"), str(smk.output.png)[: -len(".png")],
                    algorithms=p.algorithms, eval_conventions=p.eval_conventions,
                    train_conventions=p.train_conventions)


run(snakemake, main)  # noqa: F821
