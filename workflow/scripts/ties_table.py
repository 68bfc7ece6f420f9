"""Per model, NDCG@k over the orders of tied scores: worst-first, expected, best-first, input
order (rule ties_table)."""

from ltrconv.pipeline.job import run, write_tsv
from ltrconv.study import per_query_store


def main(smk, log):
    table = per_query_store.tie_table(smk.input[0], k=smk.params.cutoff)
    write_tsv(table, smk.output[0])
    log.info(f"{len(table)} models")


run(snakemake, main)  # noqa: F821
