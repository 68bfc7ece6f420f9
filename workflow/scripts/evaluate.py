"""Per-query NDCG@k, P@k and MAP of each model of one algorithm (every training convention and
fold) under every evaluation convention (rule evaluate)."""

import numpy as np

from _job import run
from ltrconv.data import Dataset, atomic_path
from ltrconv.metrics import evaluate_dataset
from ltrconv.study import per_query_frame


def main(smk, log):
    tests = {}
    seed = smk.params.get("seed", smk.config["seeds"][0])
    for model, scores_path, out in zip(smk.params.models, smk.input.scores, smk.output):
        fold = int(model["fold"])
        if fold not in tests:
            tests[fold] = Dataset.load(smk.input.tests[smk.params.folds.index(fold)])
        evals = evaluate_dataset(tests[fold], np.load(scores_path),
                                 conventions=smk.params.conventions, cutoffs=smk.params.cutoffs,
                                 max_label=smk.params.max_label)
        frame = per_query_frame(evals, dataset=smk.wildcards.dataset, fold=fold,
                                algorithm=smk.wildcards.algorithm,
                                train_convention=model["train_convention"], seed=seed)
        with atomic_path(out) as tmp:
            frame.to_parquet(tmp, index=False)
        log.info(f"{out}: {len(frame)} rows, {frame['qid'].nunique()} queries")


run(snakemake, main)  # noqa: F821
