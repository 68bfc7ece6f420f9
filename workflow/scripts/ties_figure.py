"""One algorithm's NDCG@k band over tie orders (rule ties_figure)."""

from ltrconv.pipeline.job import read_tsv, run
from ltrconv.study import figures


def main(smk, log):
    summary = read_tsv(smk.input.summary)
    figures.ties_figure(summary, str(smk.output.png)[: -len(".png")], smk.wildcards.algorithm,
                        train_conventions=smk.params.train_conventions)


run(snakemake, main)  # noqa: F821
