"""Fit one ranker under one training convention on each fold its rule lists (rules train,
fit_fold, fit_unit); record each fit's wall time and peak memory.

Inputs ``train``, ``vali`` and, when the models score the test split, ``test``: one file per
fold of ``params.folds``; outputs ``models``, with a test split ``scores``, one file per fold,
and ``fits``, the table of the fits (a ``fold`` column first with ``params.fold_column``).
``params.unit``, when given, is the one restart or architecture to fit (a partial model,
ltrconv.rankers.units); ``params.model_threads``, when given, the ranker's thread parameter in
place of the rule's threads.
"""

import time

import numpy as np

from ltrconv.pipeline.job import (THREAD_PARAMS, cap_threads, load_conventions, peak_rss_mb,
                                  reset_peak_rss, run)
from ltrconv import rankers
from ltrconv.data.letor import Dataset
from ltrconv.outputs import atomic_path


def fit(smk, log, i: int, fold, params: dict, metric) -> tuple[float, float]:
    """Fit fold ``fold`` (the rule's ``i``-th): save its model (and its test scores); return
    the seconds of fit and scoring, and the peak memory (MiB) until then."""
    unit = smk.params.get("unit")
    tests = smk.input.get("test")
    train, vali = Dataset.load(smk.input.train[i]), Dataset.load(smk.input.vali[i])
    test = None if tests is None else Dataset.load(tests[i])
    model = rankers.make(smk.params.ranker, metric=metric, **params)
    what = f"fold {fold}" + ("" if unit is None else f", {model.unit} {unit}")
    log.info(f"{what}: {model!r}\ntrain {train.n_queries} queries, vali {vali.n_queries}"
             + ("" if test is None else f", test {test.n_queries}"))
    reset_peak_rss()
    start = time.perf_counter()
    model.fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid,
              docid=train.docid, docid_val=vali.docid,
              **({} if unit is None else {"units": [unit]}))
    if test is not None:
        scores = np.asarray(model.predict(test.X), dtype=np.float64)
        if scores.shape != (test.n_docs,) or not np.all(np.isfinite(scores)):
            raise ValueError(f"fold {fold}: predict returned shape {scores.shape} or "
                             "non-finite scores")
    seconds, peak = time.perf_counter() - start, peak_rss_mb()
    log.info(f"{what}: fit{'' if test is None else ' and predict'} in {seconds:.1f} s, "
             f"validation score {model.val_score_:.6f}")
    model.save(smk.output.models[i])
    if test is not None:
        with atomic_path(smk.output.scores[i]) as tmp, open(tmp, "wb") as fh:
            np.save(fh, scores)
    return seconds, peak


def main(smk, log):
    threads = smk.params.get("model_threads", smk.threads)
    params = cap_threads(dict(smk.params.hyperparams),
                         [n for n in THREAD_PARAMS if n in rankers.param_names(smk.params.ranker)],
                         threads, log)
    metric = load_conventions(smk).ranker_metric(smk.params.metric)
    by_fold = smk.params.get("fold_column", False)
    records = ["fold\ts\tmax_rss" if by_fold else "s\tmax_rss"]
    for i, fold in enumerate(smk.params.folds):
        seconds, peak = fit(smk, log, i, fold, params, metric)
        records.append((f"{fold}\t" if by_fold else "") + f"{seconds:.4f}\t{peak:.2f}")
    with atomic_path(smk.output.fits) as tmp, open(tmp, "w") as fh:
        fh.write("\n".join(records) + "\n")


run(snakemake, main)  # noqa: F821
