"""Per-query NDCG@k, P@k and MAP of one model under every evaluation convention (rule evaluate)."""

import numpy as np
import pandas as pd

from _job import run
from ltrconv.data import Dataset, atomic_path
from ltrconv.metrics import evaluate_dataset

COLUMNS = ["dataset", "fold", "algorithm", "train_convention", "eval_convention", "metric", "k",
           "qid", "value"]


def tidy(evaluations: dict, wc) -> pd.DataFrame:
    frames = []
    for conv, ev in evaluations.items():
        keep = [c for c in ev.columns if c.startswith(("NDCG@", "P@")) or c == "MAP"]
        idx = [ev.columns.index(c) for c in keep]
        metric = [c.split("@")[0] for c in keep]
        k = [int(c.split("@")[1]) if "@" in c else 0 for c in keep]
        nq = len(ev.qids)
        frames.append(pd.DataFrame({
            "eval_convention": conv,
            "metric": np.tile(metric, nq),
            "k": np.tile(k, nq).astype(np.int64),
            "qid": np.repeat(ev.qids.astype(str), len(keep)),
            "value": ev.values[:, idx].reshape(-1).astype(np.float64),
        }))
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "train_convention", wc.train_convention)
    out.insert(0, "algorithm", wc.algorithm)
    out.insert(0, "fold", np.int64(int(wc.fold)))
    out.insert(0, "dataset", wc.dataset)
    return out[COLUMNS]


def main(smk, log):
    test = Dataset.load(smk.input.test)
    scores = np.load(smk.input.scores)
    evals = evaluate_dataset(test, scores, conventions=smk.params.conventions,
                             cutoffs=smk.params.cutoffs, max_label=smk.params.max_label)
    frame = tidy(evals, smk.wildcards)
    with atomic_path(smk.output[0]) as tmp:
        frame.to_parquet(tmp, index=False)
    log.info(f"{len(frame)} rows, {frame['qid'].nunique()} queries")


run(snakemake, main)  # noqa: F821
