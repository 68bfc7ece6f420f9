"""Fit one ranker under one training convention on every fold; score each fold's test split, and
record each fit's wall time and peak memory in fits.tsv (rule train)."""

import time

import numpy as np

from ltrconv.pipeline.job import (THREAD_PARAMS, cap_threads, load_conventions, peak_rss_mb,
                                  reset_peak_rss, run)
from ltrconv import rankers
from ltrconv.data.letor import Dataset
from ltrconv.outputs import atomic_path


def main(smk, log):
    params = cap_threads(dict(smk.params.hyperparams),
                         [n for n in THREAD_PARAMS if n in rankers.param_names(smk.params.ranker)],
                         smk.threads, log)
    metric = load_conventions(smk).ranker_metric(smk.params.metric)
    records = ["fold\ts\tmax_rss"]
    for i, fold in enumerate(smk.params.folds):
        train, vali, test = (Dataset.load(getattr(smk.input, split)[i])
                             for split in ("train", "vali", "test"))
        model = rankers.make(smk.params.ranker, metric=metric, **params)
        log.info(f"fold {fold}: {model!r}\ntrain {train.n_queries} queries, vali {vali.n_queries}, "
                 f"test {test.n_queries}")
        reset_peak_rss()
        start = time.perf_counter()
        model.fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid,
                  docid=train.docid, docid_val=vali.docid)
        scores = np.asarray(model.predict(test.X), dtype=np.float64)
        seconds = time.perf_counter() - start
        if scores.shape != (test.n_docs,) or not np.all(np.isfinite(scores)):
            raise ValueError(f"fold {fold}: predict returned shape {scores.shape} or "
                             "non-finite scores")
        log.info(f"fold {fold}: fit and predict in {seconds:.1f} s")
        records.append(f"{fold}\t{seconds:.4f}\t{peak_rss_mb():.2f}")
        model.save(smk.output.models[i])
        with atomic_path(smk.output.scores[i]) as tmp, open(tmp, "wb") as fh:
            np.save(fh, scores)
    with atomic_path(smk.output.fits) as tmp, open(tmp, "w") as fh:
        fh.write("\n".join(records) + "\n")


run(snakemake, main)  # noqa: F821
