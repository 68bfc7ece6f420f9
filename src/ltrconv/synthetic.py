"""Small synthetic LETOR data with a known signal, for tests and smoke runs.

Labels come from a hidden linear utility plus noise, cut into grades 0..max_label; a share of
queries has no relevant document and query sizes vary around the cutoff, like MQ2008.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .data import Dataset, atomic_path


def make_letor(
    n_queries: int = 60,
    n_features: int = 10,
    min_docs: int = 5,
    max_docs: int = 30,
    max_label: int = 2,
    empty_share: float = 0.25,
    noise: float = 0.5,
    seed: int = 0,
) -> Dataset:
    """A dataset whose first features carry the signal; features scaled to [0, 1] per query."""
    rng = np.random.default_rng(seed)
    w = np.zeros(n_features)
    w[: max(1, n_features // 3)] = rng.uniform(0.5, 1.5, max(1, n_features // 3))
    Xs, ys, qs, ds = [], [], [], []
    for q in range(n_queries):
        n = int(rng.integers(min_docs, max_docs + 1))
        X = rng.random((n, n_features))
        util = X @ w + noise * rng.standard_normal(n)
        if rng.random() < empty_share:
            y = np.zeros(n, dtype=np.int64)
        else:
            cuts = np.quantile(util, np.linspace(0.6, 0.95, max_label))
            y = np.searchsorted(cuts, util, side="right").astype(np.int64)
            if y.max() == 0:
                y[int(np.argmax(util))] = 1
        lo, hi = X.min(axis=0), X.max(axis=0)
        X = np.round((X - lo) / np.where(hi > lo, hi - lo, 1.0), 6)
        Xs.append(X)
        ys.append(y)
        qs.append(np.full(n, 1000 + q, dtype=np.int64))
        ds.append(np.array([f"S{q:04d}-{i:03d}" for i in range(n)]))
    qid = np.concatenate(qs)
    offsets = np.concatenate(([0], np.cumsum([len(y) for y in ys]))).astype(np.int64)
    return Dataset(X=np.vstack(Xs), y=np.concatenate(ys), qid=qid, offsets=offsets,
                   docid=np.concatenate(ds), source="synthetic")


def write_letor(data: Dataset, path: str | Path) -> None:
    """Write ``data`` in LETOR text format (``#docid = ...`` comments), atomically."""
    with atomic_path(path) as tmp, open(tmp, "w") as fh:
        for i in range(data.n_docs):
            feats = " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(data.X[i]))
            fh.write(f"{data.y[i]} qid:{data.qid[i]} {feats} #docid = {data.docid[i]}\n")


def split(data: Dataset, query_index: np.ndarray) -> Dataset:
    """The sub-dataset of the given queries (by position), in that order."""
    rows = np.concatenate([np.arange(data.offsets[q], data.offsets[q + 1]) for q in query_index])
    sizes = np.diff(data.offsets)[query_index]
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    return Dataset(X=data.X[rows], y=data.y[rows], qid=data.qid[rows], offsets=offsets,
                   docid=data.docid[rows], source=data.source)


def make_folds(data: Dataset, n_parts: int = 5, seed: int = 0) -> list[Dataset]:
    """Partition the queries into ``n_parts`` parts S1..Sn (LETOR-style)."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(data.n_queries)
    return [split(data, np.sort(part)) for part in np.array_split(perm, n_parts)]
