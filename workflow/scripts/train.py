"""Fit one ranker on one fold under one training convention; score the test split (rule train)."""

import time

import numpy as np

from _job import cap_threads, run
from ltrconv import rankers
from ltrconv.data import Dataset, atomic_path

THREAD_PARAMS = ("num_threads", "n_jobs")


def main(smk, log):
    params = cap_threads(dict(smk.params.hyperparams),
                         [n for n in THREAD_PARAMS if n in rankers.param_names(smk.params.ranker)],
                         smk.threads, log)
    model = rankers.make(smk.params.ranker, metric=smk.params.metric, **params)
    train, vali, test = (Dataset.load(p) for p in (smk.input.train, smk.input.vali, smk.input.test))
    log.info(f"{model!r}\ntrain {train.n_queries} queries, vali {vali.n_queries}, test {test.n_queries}")
    start = time.perf_counter()
    model.fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid,
              docid=train.docid, docid_val=vali.docid)
    log.info(f"fit in {time.perf_counter() - start:.1f} s")
    scores = np.asarray(model.predict(test.X), dtype=np.float64)
    if scores.shape != (test.n_docs,) or not np.all(np.isfinite(scores)):
        raise ValueError(f"predict returned shape {scores.shape} or non-finite scores")
    model.save(smk.output.model)
    with atomic_path(smk.output.scores) as tmp, open(tmp, "wb") as fh:
        np.save(fh, scores)


run(snakemake, main)  # noqa: F821
