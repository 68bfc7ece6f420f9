"""Synthetic LETOR data with a known signal, for tests, smoke runs and scale benchmarks.

:func:`make_letor` makes small MQ2008-like data: labels from a hidden linear utility plus noise,
cut into grades 0..max_label; a share of queries has no relevant document and query sizes vary
around the cutoff. :func:`make_mslr_like` makes data of MSLR-WEB10K's shape at any size, up to
MSLR-WEB30K's 3.7M documents, in float32.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .letor import Dataset
from .writer import write_letor  # noqa: F401  (kept importable from here)

# MSLR-WEB10K (Microsoft Research, "Microsoft Learning to Rank Datasets", 2010): 10,000 queries,
# 1,200,192 query-url pairs, 136 features, labels 0 (irrelevant) to 4 (perfectly relevant).
# MSLR-WEB30K: 31,531 queries, 3,771,125 pairs. Both average about 120 documents per query.
MSLR_WEB10K_DOCS = 1_200_192
MSLR_WEB30K_DOCS = 3_771_125
MSLR_FEATURES = 136
MSLR_DOCS_PER_QUERY = 120.0
# Share of documents per label 0..4, as commonly reported for MSLR-WEB10K (rounded to whole
# percent; the dataset page does not tabulate them): 52%, 32%, 13%, 2%, 1%.
MSLR_LABEL_SHARES = (0.52, 0.32, 0.13, 0.02, 0.01)
# Assumed, not tabulated by the dataset page: the share of queries without a relevant document,
# the spread of query sizes (log-normal, sigma below) and the largest query.
MSLR_EMPTY_SHARE = 0.03
MSLR_SIZE_SIGMA = 0.6
MSLR_MAX_DOCS = 1251
_BLOCK_DOCS = 1 << 16  # documents generated at once (whole queries): bounds the scratch memory


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


def _query_sizes(n_docs: int, mean: float, sigma: float, max_docs: int,
                 rng: np.random.Generator) -> np.ndarray:
    """Log-normal query sizes (mean ``mean`` before clipping to [1, max_docs]) summing to
    ``n_docs``; the last query is cut to fit."""
    mu = np.log(mean) - sigma ** 2 / 2  # E[exp(N(mu, sigma^2))] = exp(mu + sigma^2 / 2)
    sizes = np.empty(0, dtype=np.int64)
    while sizes.sum() < n_docs:
        more = int((n_docs - sizes.sum()) / mean) + 16
        draw = np.clip(np.rint(rng.lognormal(mu, sigma, more)), 1, max_docs).astype(np.int64)
        sizes = np.concatenate((sizes, draw))
    ends = np.cumsum(sizes)
    last = int(np.searchsorted(ends, n_docs))
    sizes = sizes[: last + 1]
    sizes[last] -= int(ends[last]) - n_docs
    return sizes


def make_mslr_like(
    n_docs: int = MSLR_WEB10K_DOCS,
    *,
    n_features: int = MSLR_FEATURES,
    label_shares=MSLR_LABEL_SHARES,
    empty_share: float = MSLR_EMPTY_SHARE,
    mean_docs: float = MSLR_DOCS_PER_QUERY,
    size_sigma: float = MSLR_SIZE_SIGMA,
    max_docs: int = MSLR_MAX_DOCS,
    signal: float = 0.5,
    seed: int = 0,
) -> Dataset:
    """``n_docs`` documents shaped like MSLR-WEB10K; the same arguments give the same data.

    Query sizes are log-normal with mean ``mean_docs``. A share ``empty_share`` of the queries
    (rounded) has every label 0; the other queries draw labels independently with shares
    ``p'_l = (p_l - e [l = 0]) / (1 - e)`` so that the whole set keeps ``label_shares`` p, and a
    non-empty query that drew only zeros gets one label 1. Features: a third are informative,
    ``x = signal * w_j * l + N(0, 1) + c_qj`` with a per-query shift ``c_qj ~ N(0, 1)``; the others
    are noise plus the shift; every third feature is made count-like, ``floor(exp(x))``, so
    that it holds many ties. ``X`` is float32 and filled block by block in place (peak memory
    about ``4 n_docs n_features`` bytes plus a block); ``docid`` holds empty strings.
    """
    p = np.asarray(label_shares, dtype=np.float64)
    if n_docs < 1:
        raise InputError(f"n_docs must be >= 1, got {n_docs}")
    if p.ndim != 1 or len(p) < 2 or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise InputError(f"label_shares must be >= 2 non-negative shares summing to 1, got {label_shares}")
    if not 0.0 <= empty_share <= p[0]:
        raise InputError(f"empty_share must lie in [0, label 0's share {p[0]:g}], got {empty_share}")
    if not (n_features >= 1 and mean_docs >= 1 and max_docs >= 1 and size_sigma >= 0):
        raise InputError("n_features, mean_docs and max_docs must be >= 1 and size_sigma >= 0")
    root = np.random.SeedSequence(seed)
    rng = np.random.default_rng(root.spawn(1)[0])
    sizes = _query_sizes(int(n_docs), float(mean_docs), float(size_sigma), int(max_docs), rng)
    nq = len(sizes)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    empty = np.zeros(nq, dtype=bool)
    empty[rng.permutation(nq)[: int(round(empty_share * nq))]] = True
    cum = np.cumsum(p.copy())
    if empty_share < 1.0:
        q = p.copy()
        q[0] -= empty_share
        cum = np.cumsum(q / (1.0 - empty_share))
    cum[-1] = 1.0
    w = np.zeros(n_features, dtype=np.float32)
    informative = rng.permutation(n_features)[: max(1, n_features // 3)]
    w[informative] = rng.uniform(0.5, 1.5, len(informative)) * signal
    counts = np.arange(n_features) % 3 == 2

    X = np.empty((int(n_docs), n_features), dtype=np.float32)
    y = np.empty(int(n_docs), dtype=np.int64)
    # Blocks of whole queries, each with its own generator: the data do not depend on how
    # the work is cut, only on the block boundaries, which depend on the sizes alone.
    starts = [0]
    for qi in range(nq):
        if offsets[qi + 1] - offsets[starts[-1]] > _BLOCK_DOCS and qi > starts[-1]:
            starts.append(qi)
    starts.append(nq)
    block_seeds = root.spawn(len(starts))[1:]
    for q0, q1, bs in zip(starts[:-1], starts[1:], block_seeds):
        g = np.random.default_rng(bs)
        a, b = offsets[q0], offsets[q1]
        qsizes = sizes[q0:q1]
        yb = np.searchsorted(cum, g.random(b - a), side="right").astype(np.int64)
        yb[np.repeat(empty[q0:q1], qsizes)] = 0
        local = offsets[q0:q1] - a
        top = np.maximum.reduceat(yb, local)
        for j in np.flatnonzero((top == 0) & ~empty[q0:q1]):
            yb[local[j] + int(g.integers(qsizes[j]))] = 1
        y[a:b] = yb
        Xb = X[a:b]
        g.standard_normal(out=Xb, dtype=np.float32)
        Xb += np.repeat(g.standard_normal((q1 - q0, n_features), dtype=np.float32), qsizes, axis=0)
        Xb += yb.astype(np.float32)[:, None] * w[None, :]
        Xb[:, counts] = np.floor(np.exp(Xb[:, counts]))
    qid = np.repeat(np.arange(1, nq + 1, dtype=np.int64), sizes)
    return Dataset(X=X, y=y, qid=qid, offsets=offsets, docid=np.zeros(int(n_docs), dtype="U1"),
                   source=f"mslr-like(n_docs={int(n_docs)}, seed={seed})")
