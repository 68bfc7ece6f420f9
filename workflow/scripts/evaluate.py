"""Per-query NDCG@k, P@k and MAP of one model under every evaluation convention (rule evaluate)."""

import numpy as np

from _job import run
from ltrconv.data import Dataset, atomic_path
from ltrconv.metrics import evaluate_dataset
from ltrconv.study import per_query_frame


def main(smk, log):
    test = Dataset.load(smk.input.test)
    scores = np.load(smk.input.scores)
    evals = evaluate_dataset(test, scores, conventions=smk.params.conventions,
                             cutoffs=smk.params.cutoffs, max_label=smk.params.max_label)
    wc = smk.wildcards
    frame = per_query_frame(evals, dataset=wc.dataset, fold=int(wc.fold), algorithm=wc.algorithm,
                            train_convention=wc.train_convention,
                            seed=smk.params.get("seed", smk.config["seeds"][0]))
    with atomic_path(smk.output[0]) as tmp:
        frame.to_parquet(tmp, index=False)
    log.info(f"{len(frame)} rows, {frame['qid'].nunique()} queries")


run(snakemake, main)  # noqa: F821
