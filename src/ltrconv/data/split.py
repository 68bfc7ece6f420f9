"""A validation split drawn from a training file by query, for datasets that ship none."""

from __future__ import annotations

from dataclasses import replace

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
    return replace(data, X=data.X[rows], y=data.y[rows], qid=data.qid[rows],
                   offsets=np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
                   docid=data.docid[rows], lines=None)


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


def check_labels(data: Dataset, path, labels) -> None:
    """Refuse labels outside the configured scale ``labels`` (InputError naming ``path``)."""
    extra = sorted(set(np.unique(data.y).tolist()) - set(labels))
    if extra:
        raise InputError(f"labels {extra} are outside the configured label scale {labels}",
                         str(path))


def check_disjoint(fold: dict, paths: dict) -> list[str]:
    """Refuse a fold (``{split: Dataset}``) whose splits share a query: a test query seen in
    training (or validation) makes every test score of that fold optimistic.

    Queries numbered by a sizes file (``Dataset.groups``: a file without qids) have no identity
    beyond their file, so a pair of splits one of which is numbered so cannot be compared;
    the pairs left unchecked are returned, one line each, for the log."""
    unchecked = []
    for later, earlier in (("test", "train"), ("test", "vali"), ("vali", "train")):
        if fold[later].groups != fold[earlier].groups:  # equal: one file's numbers, comparable
            by = " and ".join(fold[s].groups for s in (earlier, later) if fold[s].groups)
            unchecked.append(f"{later} and {earlier} not checked for shared queries: their "
                             f"queries are numbered by {by}, not named by qids")
            continue
        shared = np.intersect1d(fold[later].query_ids, fold[earlier].query_ids)
        if len(shared):
            raise InputError(
                f"{len(shared)} {later} quer{'y' if len(shared) == 1 else 'ies'} also in "
                f"{paths[earlier]} (e.g. qid {shared[0]}): the splits of a fold must not share "
                "queries", str(paths[later]))
    return unchecked


def after(data: Dataset, before: list[Dataset]) -> Dataset:
    """``data`` as it follows ``before`` in one cache (the whole dataset's): queries numbered
    by a sizes file, 1, 2, ... in each file, are shifted past the largest qid of ``before``,
    so that two files' numbers do not make one query; qids read from a file are kept."""
    if data.groups is None or not before:
        return data
    shift = max(0, *(int(p.qid.max()) for p in before))
    return replace(data, qid=data.qid + shift)
