"""Each implementation variant against its base algorithm, query by query (rule
implementation): tables/implementation.tsv. Its figure is drawn from the summary by rule
implementation_figure (ltrconv.pipeline.figures.FIGURES), so that this table, which needs the
per-query table alone, is made beside the aggregates."""

from ltrconv.pipeline.job import run, write_tsv
from ltrconv.study import per_query_store


def main(smk, log):
    variants = dict(smk.params.variants)
    table = per_query_store.implementation_table(smk.input[0], variants)
    write_tsv(table, smk.output[0])
    log.info(f"{len(table)} comparisons of {len(variants)} variant(s)")


run(snakemake, main)  # noqa: F821
