"""Training time of every model (rule runtime_figure)."""

from ltrconv.pipeline.job import read_tsv, run
from ltrconv.study import figures


def main(smk, log):
    figures.runtime_figure(read_tsv(smk.input.runtime),
                           str(smk.output.png)[: -len(".png")])


run(snakemake, main)  # noqa: F821
