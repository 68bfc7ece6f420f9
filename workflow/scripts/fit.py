"""Fit one ranker on each fold its rule lists, under one training convention (rules train,
fit_fold, fit_unit) or under several at once (rules train_shared, fit_fold_shared,
fit_unit_shared: a ranker whose training the convention does not steer is trained once and
selects under each, ltrconv.rankers.base.Ranker.fit_many); record each fit's wall time and peak
memory.

Inputs ``train``, ``vali`` and, when the models score the test split, ``test``: one file per
fold of ``params.folds``. ``params.metrics``: one training metric per convention of the
outputs. Outputs ``models``, with a test split ``scores``: one file per convention and fold
(each convention, then each fold); ``fits``: one table per convention, of the fits (a ``fold``
column first with ``params.fold_column``); a shared fit's seconds and peak are those of the one
training, in each convention's table. ``params.unit``, when given, is the one restart or
architecture to fit (a partial model, ltrconv.rankers.units). The ranker's thread parameter
is set to the rule's threads (a model file holds its default, ltrconv.rankers.modelfile).
"""

import time

import numpy as np

from ltrconv.pipeline.job import (cap_threads, load_conventions, peak_rss_mb, reset_peak_rss,
                                  run, thread_params)
from ltrconv import rankers
from ltrconv.data.letor import Dataset
from ltrconv.outputs import atomic_path


def fit(smk, log, i: int, fold, params: dict, metrics: list[str]) -> tuple[float, float]:
    """Fit fold ``fold`` (the rule's ``i``-th) under every metric of ``metrics``: save each
    metric's model (and its test scores); return the seconds of fit and scoring, and the peak
    memory (MiB) until then."""
    unit = smk.params.get("unit")
    tests = smk.input.get("test")
    n_folds = len(smk.params.folds)
    train, vali = Dataset.load(smk.input.train[i]), Dataset.load(smk.input.vali[i])
    test = None if tests is None else Dataset.load(tests[i])
    ranker = rankers.make(smk.params.ranker, metric=metrics[0], **params)
    what = f"fold {fold}" + ("" if unit is None else f", {ranker.unit} {unit}")
    distinct = list(dict.fromkeys(metrics))  # two conventions may name one definition
    log.info(f"{what}: {ranker!r}" + (f" under {', '.join(distinct)}" if len(metrics) > 1
                                      else "")
             + f"\ntrain {train.n_queries} queries, vali {vali.n_queries}"
             + ("" if test is None else f", test {test.n_queries}"))
    reset_peak_rss()
    start = time.perf_counter()
    models = ranker.fit_many(distinct, train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y,
                             qid_val=vali.qid, docid=train.docid, docid_val=vali.docid,
                             verbose=lambda line: log.info(f"{what}: {line}"),
                             **({} if unit is None else {"units": [unit]}))
    scores = {}
    if test is not None:
        for metric, model in models.items():
            scores[metric] = np.asarray(model.predict(test.X), dtype=np.float64)
            if scores[metric].shape != (test.n_docs,) or not np.all(np.isfinite(scores[metric])):
                raise ValueError(f"fold {fold}: predict returned shape {scores[metric].shape} "
                                 "or non-finite scores")
    seconds, peak = time.perf_counter() - start, peak_rss_mb()
    for c, metric in enumerate(metrics):
        model = models[metric]
        log.info(f"{what}: {metric}: fit{'' if test is None else ' and predict'} in "
                 f"{seconds:.1f} s, validation score {model.val_score_:.6f}")
        model.save(smk.output.models[c * n_folds + i])
        if test is not None:
            with atomic_path(smk.output.scores[c * n_folds + i]) as tmp, open(tmp, "wb") as fh:
                np.save(fh, scores[metric])
    return seconds, peak


def main(smk, log):
    params = cap_threads(dict(smk.params.hyperparams),
                         thread_params(smk.params.ranker),
                         smk.threads, log)
    conventions = load_conventions(smk)
    metrics = [conventions.ranker_metric(m) for m in smk.params.metrics]
    by_fold = smk.params.get("fold_column", False)
    records = ["fold\ts\tmax_rss" if by_fold else "s\tmax_rss"]
    for i, fold in enumerate(smk.params.folds):
        seconds, peak = fit(smk, log, i, fold, params, metrics)
        records.append((f"{fold}\t" if by_fold else "") + f"{seconds:.4f}\t{peak:.2f}")
    for path in smk.output.fits:
        with atomic_path(path) as tmp, open(tmp, "w") as fh:
            fh.write("\n".join(records) + "\n")


run(snakemake, main)  # noqa: F821
