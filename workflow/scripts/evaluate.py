"""Per-query NDCG@k, P@k and MAP of each model of one algorithm (every training convention and
fold) under every evaluation convention (rule evaluate)."""

from itertools import product

from ltrconv.pipeline.job import load_conventions, load_scores, run
from ltrconv.data.letor import Dataset
from ltrconv.outputs import atomic_path
from ltrconv.evaluation.metrics import evaluate_dataset
from ltrconv.study.tables import per_query_frame


def main(smk, log):
    tests = [Dataset.load(path) for path in smk.input.tests]  # one per fold
    seed = smk.params.seed
    convention_set = load_conventions(smk)
    models = product(smk.params.train_conventions, zip(smk.params.folds, tests))
    for (convention, (fold, test)), scores_path, out in zip(models, smk.input.scores, smk.output):
        evals = evaluate_dataset(test, load_scores(scores_path, test.n_docs), conventions=smk.params.conventions,
                                 cutoffs=smk.params.cutoffs, max_label=smk.params.max_label,
                                 convention_set=convention_set)
        frame = per_query_frame(evals, dataset=smk.wildcards.dataset, fold=int(fold),
                                algorithm=smk.wildcards.algorithm, train_convention=convention,
                                seed=seed)
        with atomic_path(out) as tmp:
            frame.to_parquet(tmp, index=False)
        log.info(f"{out}: {len(frame)} rows, {frame['qid'].nunique()} queries")


run(snakemake, main)  # noqa: F821
