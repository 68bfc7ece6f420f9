"""A validation split drawn from a training file by query, for datasets that ship none."""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .letor import Dataset


def n_drawn(n_queries: int, fraction: float) -> int:
    """round(fraction x n_queries), kept within 1 .. n_queries - 1 (both splits non-empty)."""
    return min(max(int(round(fraction * n_queries)), 1), n_queries - 1)


def take_queries(data: Dataset, keep: np.ndarray) -> Dataset:
    """The queries (blocks of rows) where ``keep`` (one flag per query) is set, in file order."""
    rows = np.repeat(keep, data.sizes)
    sizes = data.sizes[keep]
    return Dataset(X=data.X[rows], y=data.y[rows], qid=data.qid[rows],
                   offsets=np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
                   docid=data.docid[rows], source=data.source)


def draw_validation(train: Dataset, fraction: float, seed: int
                    ) -> tuple[Dataset, Dataset, np.ndarray]:
    """(reduced training set, validation set, drawn qids): the distinct training qids in
    file order, permuted by ``numpy.random.default_rng(seed)``; the first
    :func:`n_drawn` of them (every row of each) are the validation queries, listed in drawn
    order. A file with fewer than two queries cannot be split (:class:`InputError`)."""
    _, first = np.unique(train.query_ids, return_index=True)
    qids = train.query_ids[np.sort(first)]
    if len(qids) < 2:
        raise InputError(f"has {len(qids)} quer{'y' if len(qids) == 1 else 'ies'}: a "
                         "validation split needs at least two training queries", train.source)
    drawn = qids[np.random.default_rng(seed).permutation(len(qids))[:n_drawn(len(qids), fraction)]]
    vali = np.isin(train.query_ids, drawn)
    return take_queries(train, ~vali), take_queries(train, vali), drawn
