"""NDCG@k of the same models as each library computes it, one panel per algorithm (rule
library_figure)."""

from ltrconv.pipeline.job import read_tsv, run
from ltrconv.study import library_figures


def main(smk, log):
    p = smk.params
    library_figures.libraries_figure(read_tsv(smk.input.summary),
                                     str(smk.output.png)[: -len(".png")], algorithms=p.algorithms,
                                     conventions=p.libraries, reference=p.reference,
                                     train_convention=p.official)


run(snakemake, main)  # noqa: F821
