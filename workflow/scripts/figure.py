"""Draw one figure from the result tables (rules figure1, figure2, runtime_figure)."""

import pandas as pd

from _job import run
from ltrconv.study import figures


def main(smk, log):
    stem = str(smk.output.png)[: -len(".png")]
    if smk.rule == "runtime_figure":
        figures.runtime_figure(pd.read_csv(smk.input.runtime, sep="\t"), stem)
        return
    summary = pd.read_csv(smk.input.summary, sep="\t")
    p = smk.params
    if smk.rule == "figure1":
        figures.figure1(summary, stem, algorithms=p.algorithms, eval_conventions=p.eval_conventions,
                        train_conventions=p.train_conventions)
    else:
        figures.figure2(summary, stem, eval_conventions=p.eval_conventions, algorithms=p.algorithms,
                        train_convention=p.train_convention)


run(snakemake, main)  # noqa: F821
