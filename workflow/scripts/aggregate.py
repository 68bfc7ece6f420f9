"""Summary, fold means, paired t-tests and the algorithm order (rule aggregate)."""

from ltrconv.pipeline.job import run, write_tsv
from ltrconv.study import per_query_store, tables as study


def main(smk, log):
    folds, ttests = per_query_store.aggregate(smk.input[0])
    summary = study.summarise(folds=folds)
    write_tsv(summary, smk.output.summary)
    write_tsv(study.fold_means(folds=folds), smk.output.fold_means)
    write_tsv(ttests, smk.output.ttests)
    base = summary[summary["algorithm"].isin(smk.params.algorithms)]
    order = study.algorithm_order(base, train_convention=smk.params.official, metric="NDCG",
                                  k=smk.params.cutoff)
    write_tsv(order, smk.output.algorithm_order)
    log.info(f"{len(summary)} summary rows")


run(snakemake, main)  # noqa: F821
