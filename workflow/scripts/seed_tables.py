"""Each seed's fold means and paired t-tests (rule seed_tables)."""

from ltrconv.pipeline.job import run, write_tsv
from ltrconv.study import per_query_store


def main(smk, log):
    fold_means, ttests = per_query_store.seed_tables(smk.input[0])
    write_tsv(fold_means, smk.output.fold_means)
    write_tsv(ttests, smk.output.ttests)


run(snakemake, main)  # noqa: F821
