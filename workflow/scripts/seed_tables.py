"""Each seed's fold means and paired t-tests (rule seed_tables)."""

from ltrconv.pipeline.job import read_parquet, run, write_tsv
from ltrconv.study import seeds


def main(smk, log):
    per_query = read_parquet(smk.input[0])
    write_tsv(seeds.seed_fold_means(per_query), smk.output.fold_means)
    write_tsv(seeds.seed_ttests(per_query), smk.output.ttests)


run(snakemake, main)  # noqa: F821
