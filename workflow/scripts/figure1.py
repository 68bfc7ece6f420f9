"""Figure 1 of the paper: training convention x evaluation convention (rule figure1)."""

from ltrconv.pipeline.job import read_tsv, run
from ltrconv.study import figures


def main(smk, log):
    p = smk.params
    figures.figure1(read_tsv(smk.input.summary), str(smk.output.png)[: -len(".png")],
                    algorithms=p.algorithms, eval_conventions=p.eval_conventions,
                    train_conventions=p.train_conventions)


run(snakemake, main)  # noqa: F821
