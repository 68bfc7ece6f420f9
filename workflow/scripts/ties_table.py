"""Per model, NDCG@k over the orders of tied scores: worst-first, expected, best-first, input
order (rule ties_table)."""

from ltrconv.pipeline.job import read_parquet, run, write_tsv
from ltrconv.study import tie_ranges


def main(smk, log):
    table = tie_ranges.tie_table(read_parquet(smk.input[0]), k=smk.params.cutoff)
    write_tsv(table, smk.output[0])
    log.info(f"{len(table)} models")


run(snakemake, main)  # noqa: F821
