"""Figure 2 of the paper: the algorithms trained with the official convention, under each
evaluation convention (rule figure2)."""

from ltrconv.pipeline.job import read_tsv, run
from ltrconv.study import figures


def main(smk, log):
    p = smk.params
    figures.figure2(read_tsv(smk.input.summary), str(smk.output.png)[: -len(".png")],
                    eval_conventions=p.eval_conventions, algorithms=p.algorithms,
                    train_convention=p.train_convention)


run(snakemake, main)  # noqa: F821
