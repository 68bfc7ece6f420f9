"""Fit one fold of a scattered dataset (rules fit_fold and fit_unit): the whole fit, with its
model and test scores (fit_fold), or one restart or architecture, a partial model (fit_unit;
ltrconv.rankers.units); the fit's wall time and peak memory in a one-row table."""

import time

import numpy as np

from ltrconv.pipeline.job import (THREAD_PARAMS, cap_threads, load_conventions, peak_rss_mb,
                                  reset_peak_rss, run)
from ltrconv import rankers
from ltrconv.data.letor import Dataset
from ltrconv.outputs import atomic_path


def main(smk, log):
    unit = int(smk.wildcards.unit) if smk.rule == "fit_unit" else None
    # a unit's job runs on one thread; its ranker keeps a train job's thread parameter
    threads = smk.params.get("model_threads", smk.threads)
    params = cap_threads(dict(smk.params.hyperparams),
                         [n for n in THREAD_PARAMS if n in rankers.param_names(smk.params.ranker)],
                         threads, log)
    train, vali = Dataset.load(smk.input.train), Dataset.load(smk.input.vali)
    metric = load_conventions(smk).ranker_metric(smk.params.metric)
    model = rankers.make(smk.params.ranker, metric=metric, **params)
    what = "whole" if unit is None else f"{model.unit} {unit}"
    log.info(f"fold {smk.wildcards.fold}, {what}: {model!r}\ntrain {train.n_queries} queries, "
             f"vali {vali.n_queries}")
    reset_peak_rss()
    start = time.perf_counter()
    model.fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid,
              docid=train.docid, docid_val=vali.docid,
              **({} if unit is None else {"units": [unit]}))
    if unit is None:
        test = Dataset.load(smk.input.test)
        scores = np.asarray(model.predict(test.X), dtype=np.float64)
        if scores.shape != (test.n_docs,) or not np.all(np.isfinite(scores)):
            raise ValueError(f"predict returned shape {scores.shape} or non-finite scores")
    seconds = time.perf_counter() - start
    log.info(f"fold {smk.wildcards.fold}, {what}: fit{'' if unit is not None else ' and predict'} "
             f"in {seconds:.1f} s, validation score {model.val_score_:.6f}")
    model.save(smk.output.model)
    if unit is None:
        with atomic_path(smk.output.scores) as tmp, open(tmp, "wb") as fh:
            np.save(fh, scores)
    with atomic_path(smk.output.fit) as tmp, open(tmp, "w") as fh:
        fh.write(f"s\tmax_rss\n{seconds:.4f}\t{peak_rss_mb():.2f}\n")


run(snakemake, main)  # noqa: F821
