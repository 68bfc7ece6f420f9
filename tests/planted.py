"""Tables with planted results, so that every table, figure and claim has something to show.

Scores are noisy linear scorers on :func:`ltrconv.data.synthetic.make_letor` data: the noise level of
each algorithm sets its quality (coordinate_ascent best, adarank worst) and training with letor
makes adarank, lambdamart and coordinate_ascent noisier. Metrics are real
(:func:`ltrconv.evaluation.metrics.evaluate_dataset`), so the conventions' differences are exact.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ltrconv.rankers.registry import ORDER
from ltrconv.evaluation.metrics import evaluate_dataset
from ltrconv.study.tables import PER_QUERY_COLUMNS, TRAIN_ORDER, per_query_frame
from ltrconv.data.synthetic import make_letor

NOISE = {"coordinate_ascent": 0.55, "lambdamart": 0.65, "rankboost": 0.64, "ranksvm": 0.66,
         "ranknet": 0.8, "adarank": 1.4}
TRAIN_FACTOR = {"letor": 1.6, "yahoo": 0.97}  # noise factor of the NDCG-trained algorithms
NDCG_TRAINED = {"adarank", "lambdamart", "coordinate_ascent"}


def planted_per_query(n_queries: int = 90, n_folds: int = 3, algorithms=ORDER,
                      train_conventions=TRAIN_ORDER,
                      eval_conventions=("ranklib", "trec", "yahoo", "letor"),
                      cutoffs=range(1, 11), dataset: str = "synthetic",
                      seed: int = 0) -> pd.DataFrame:
    """The per-query table of every (algorithm, training convention); query q is tested in
    fold ``q mod n_folds + 1``."""
    data = make_letor(n_queries=n_queries, n_features=9, min_docs=5, max_docs=16,
                      empty_share=0.28, noise=0.4, seed=seed)
    rng = np.random.default_rng(seed + 1)
    base = data.X[:, :3].sum(axis=1)
    fold_of = dict(zip(data.query_ids.astype(str), np.arange(data.n_queries) % n_folds + 1))
    frames = []
    for alg in algorithms:
        z = rng.standard_normal(data.n_docs)
        for tc in train_conventions:
            factor = TRAIN_FACTOR.get(tc, 1.0) if alg in NDCG_TRAINED else 1.0
            jitter = 0.02 * rng.standard_normal(data.n_docs)
            scores = base + NOISE.get(alg, 0.7) * factor * z + jitter
            evals = evaluate_dataset(data, scores, conventions=eval_conventions, cutoffs=list(cutoffs))
            frames.append(per_query_frame(evals, dataset=dataset, fold=0, algorithm=alg,
                                          train_convention=tc))
    out = pd.concat(frames, ignore_index=True)
    out["fold"] = out["qid"].map(fold_of).astype(np.int64)
    return out[PER_QUERY_COLUMNS]


def summary_rows(means: dict, ev: str, train="ranklib", k=10, stderr=0.01) -> pd.DataFrame:
    """Summary-table rows of NDCG@k with the given mean per algorithm."""
    return pd.DataFrame([{"dataset": "toy", "algorithm": a, "train_convention": train,
                          "eval_convention": ev, "metric": "NDCG", "k": k, "mean": m,
                          "stderr": stderr, "n_folds": 5, "n_queries": 100}
                         for a, m in means.items()])
