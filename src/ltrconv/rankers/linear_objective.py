"""NDCG@k of linear scores without sorting, for the listwise linear rankers.

The DCG@k of a query only needs the ranks of its documents with non-zero gain, and the rank
of document i is the number of documents placed before it under the convention's tie policy.
:class:`LinearObjective` evaluates the NDCG of an :class:`~ltrconv.metrics.NDCGScorer` that
way, and the whole line ``s + delta x`` for many ``delta`` at once (Coordinate Ascent's line
search, AdaRank's weak rankers).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..metrics import NDCGScorer


@njit(nogil=True, cache=True)
def _is_before(sj, si, j, i, lj, li, kj, ki, tie_code):
    """Whether document j is ranked above document i (scores sj, si) under the tie policy."""
    if tie_code == 1:
        fj = np.float32(sj)
        fi = np.float32(si)
        if fj != fi:
            return fj > fi
        if kj != ki:
            return kj > ki
        return j < i
    if sj != si:
        return sj > si
    if tie_code == 3 and lj != li:
        return lj < li
    if tie_code == 4 and lj != li:
        return lj > li
    return j < i


@njit(nogil=True, cache=True)
def _query_dcg(s, a, b, gains, labels, tiekey, rel_idx, r0, r1, disc, k, tie_code):
    """DCG@k of the documents a..b-1 scored ``s[0:b-a]``, summed over the relevant ones."""
    m = min(k, b - a)
    total = 0.0
    for t in range(r0, r1):
        i = rel_idx[t]
        si = s[i - a]
        if tie_code == 2:
            above = 0
            same = 0
            for j in range(a, b):
                sj = s[j - a]
                if sj > si:
                    above += 1
                elif sj == si:
                    same += 1
            if above < m:
                acc = 0.0
                for p in range(above, min(above + same, m)):
                    acc += disc[p]
                total += gains[i] * acc / same
            continue
        pos = 0
        for j in range(a, b):
            if j != i and _is_before(s[j - a], si, j, i, labels[j], labels[i], tiekey[j],
                                     tiekey[i], tie_code):
                pos += 1
                if pos >= m:
                    break
        if pos < m:
            total += gains[i] * disc[pos]
    return total


@njit(nogil=True, cache=True)
def _per_query(scores, offsets, gains, labels, tiekey, rel_off, rel_idx, disc, k, tie_code,
               inv_idcg, fallback):
    nq = len(offsets) - 1
    out = np.empty(nq)
    for q in range(nq):
        a, b = offsets[q], offsets[q + 1]
        if inv_idcg[q] == 0.0:
            out[q] = fallback[q]
        else:
            out[q] = inv_idcg[q] * _query_dcg(scores[a:b], a, b, gains, labels, tiekey, rel_idx,
                                              rel_off[q], rel_off[q + 1], disc, k, tie_code)
    return out


@njit(nogil=True, cache=True)
def max_size(offsets):
    top = 0
    for q in range(len(offsets) - 1):
        top = max(top, offsets[q + 1] - offsets[q])
    return top


@njit(nogil=True, cache=True)
def _line(base, step, deltas, queries, offsets, gains, labels, tiekey, rel_off, rel_idx, disc,
          k, tie_code, inv_idcg):
    """``out[c] = sum_{q in queries} NDCG_q(base + deltas[c] * step)`` (fixed order of sums)."""
    nc = len(deltas)
    out = np.zeros(nc)
    buf = np.empty(max_size(offsets))
    for q in queries:
        a, b = offsets[q], offsets[q + 1]
        for c in range(nc):
            d = deltas[c]
            for i in range(a, b):
                buf[i - a] = base[i] + d * step[i]
            out[c] += inv_idcg[q] * _query_dcg(buf, a, b, gains, labels, tiekey, rel_idx,
                                               rel_off[q], rel_off[q + 1], disc, k, tie_code)
    return out


@njit(nogil=True, cache=True)
def linear_scores(X, w):
    """``X @ w`` row by row in a fixed summation order (bit-reproducible)."""
    n, d = X.shape
    out = np.empty(n)
    for i in range(n):
        acc = 0.0
        for j in range(d):
            if w[j] != 0.0:
                acc += X[i, j] * w[j]
        out[i] = acc
    return out


class LinearObjective:
    """Per-query NDCG@k of an :class:`NDCGScorer` (same convention), evaluated by rank counting.

    ``per_query(s)`` equals ``scorer.per_query(s)`` up to rounding; ``line(s, x, deltas)``
    returns the summed NDCG of the non-fixed queries for every ``s + delta x`` at once.
    Nothing here is parallel, and the GIL is released, so threads may share one instance.
    """

    def __init__(self, scorer: NDCGScorer):
        self.offsets = scorer.offsets
        self.gains = scorer.gains
        self.labels = scorer.y
        self.tiekey = scorer.tiekey
        self.disc = scorer.disc
        self.k = scorer.k
        self.tie_code = scorer.tie_code
        self.inv_idcg = scorer.inv_idcg
        self.fallback = scorer.fallback
        rel = self.gains > 0
        counts = np.add.reduceat(rel.astype(np.int64), self.offsets[:-1])
        self.rel_off = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        self.rel_idx = np.flatnonzero(rel).astype(np.int64)
        self.active = np.flatnonzero(self.inv_idcg != 0.0).astype(np.int64)
        self.n_queries = len(self.offsets) - 1

    def per_query(self, scores: np.ndarray) -> np.ndarray:
        return _per_query(scores, self.offsets, self.gains, self.labels, self.tiekey,
                          self.rel_off, self.rel_idx, self.disc, self.k, self.tie_code,
                          self.inv_idcg, self.fallback)

    def mean(self, scores: np.ndarray) -> float:
        return float(self.per_query(scores).mean())

    def varying(self, x: np.ndarray) -> np.ndarray:
        """Non-fixed queries on which ``x`` is not constant (others cannot change order)."""
        a = self.offsets[self.active]
        b = self.offsets[self.active + 1]
        lo = np.minimum.reduceat(x, self.offsets[:-1])[self.active]
        hi = np.maximum.reduceat(x, self.offsets[:-1])[self.active]
        return self.active[(hi > lo) & (b - a > 1)]

    def line(self, base, step, deltas, queries=None) -> np.ndarray:
        queries = self.active if queries is None else queries
        return _line(base, step, np.asarray(deltas, dtype=np.float64), queries, self.offsets,
                     self.gains, self.labels, self.tiekey, self.rel_off, self.rel_idx, self.disc,
                     self.k, self.tie_code, self.inv_idcg)


