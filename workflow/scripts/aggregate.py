"""Summary, fold means, paired t-tests and the algorithm order (rule aggregate)."""

from ltrconv.pipeline.job import read_parquet, run, write_tsv
from ltrconv.study import tables as study


def main(smk, log):
    per_query = read_parquet(smk.input[0])
    folds = study.fold_stats(per_query)
    summary = study.summarise(folds=folds)
    write_tsv(summary, smk.output.summary)
    write_tsv(study.fold_means(folds=folds), smk.output.fold_means)
    write_tsv(study.ttests(per_query), smk.output.ttests)
    base = summary[summary["algorithm"].isin(smk.params.algorithms)]
    order = study.algorithm_order(base, train_convention=smk.params.official, metric="NDCG",
                                  k=smk.params.cutoff)
    write_tsv(order, smk.output.algorithm_order)
    log.info(f"{len(summary)} summary rows")


run(snakemake, main)  # noqa: F821
