"""NDCG@k of linear scores, for the listwise linear rankers.

:class:`LinearObjective` evaluates the NDCG of an :class:`~ltrconv.evaluation.scorer.NDCGScorer` (same
convention, same floats) for one score vector (AdaRank's weak rankers, a model's training
NDCG) and for the whole line ``s + delta x`` at many ``delta`` at once (Coordinate Ascent's
line search). Document i's rank is its place in the convention's tie order, then the index;
DCG@k sums ``gain * disc[rank]`` over the relevant documents in index order.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..evaluation.scorer import NDCGScorer, precedes
from ..evaluation.ties import AVERAGE, DOCID_DESC, INPUT_ORDER
from ..jit import njit

# Relative margins of _stays_until: far above the rounding error of
# b + d*x (a few 2^-53 in float64; 2^-24 where scores are compared as float32, docid-desc).
_MARGIN64, _MARGIN32, _TINY32, _HUGE32, _HUGE64 = 1e-9, 1e-5, 1e-30, 1e37, 1e300
# |b| below this share of |fl(d x)| vanishes in fl(b + fl(d x)), for that and every larger |d|.
_ABSORBED = 2.0 ** -60
_SHORT = 16  # queries up to this length start sorting from the identity
# The kernels read a tuple's arrays into locals before their loops, and the helpers that take a
# tuple inside a loop (relevant_of, _stays_until, _pair_until) are inlined (inline="always"):
# read or passed in the loops, the tuples doubled the time of LinearObjective.line on MQ2008.


class Relevant(NamedTuple):
    """The documents of non-zero gain, query by query: query q's are ``idx[off[q]:off[q + 1]]``
    (indices into all documents, ascending: the order DCG sums in)."""

    off: np.ndarray
    idx: np.ndarray

    @classmethod
    def of(cls, gains: np.ndarray, offsets: np.ndarray) -> Relevant:
        """The documents of ``gains`` > 0 of the queries ``offsets`` delimits."""
        rel = gains > 0
        counts = np.add.reduceat(rel.astype(np.int64), offsets[:-1])
        return cls(np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
                   np.flatnonzero(rel).astype(np.int64))


class _Ray(NamedTuple):
    """One query of a line search ``s = base + d x`` (local arrays): ``order`` its ranking at
    the step being evaluated, ``s`` its scores there, ``base`` and ``x``; the query's ``labels``
    and ``tiekey`` and the convention's ``tie_code``; ``m`` = min(k, n), the depth NDCG@k reads;
    ``sign`` of the steps d and ``t_max`` the largest |d|."""

    order: np.ndarray
    s: np.ndarray
    base: np.ndarray
    x: np.ndarray
    labels: np.ndarray
    tiekey: np.ndarray
    tie_code: int
    m: int
    sign: float
    t_max: float


@njit(nogil=True, cache=True, inline="always")
def relevant_of(rel, q, a):
    """Local indices (query q's documents start at ``a``) of query q's documents in ``rel``
    (a :class:`Relevant`)."""
    return rel.idx[rel.off[q]:rel.off[q + 1]] - a


@njit(nogil=True, cache=True, inline="always")
def ranks_before(sc, so, cur, o, labels, tiekey, tie_code):
    """Whether document ``cur`` (score ``sc``) ranks above document ``o`` (score ``so``): first
    by the tie policy (:func:`.precedes`, with their ``labels`` and ``tiekey``), then by
    index."""
    lc, lo, kc, ko = labels[cur], labels[o], tiekey[cur], tiekey[o]
    return precedes(sc, so, lc, lo, kc, ko, tie_code) or (
        cur < o and not precedes(so, sc, lo, lc, ko, kc, tie_code))


@njit(nogil=True, cache=True)
def _sort(order, s, labels, tiekey, tie_code):
    """Insertion sort of ``order`` by the tie policy, then document index (a total order);
    returns the number of documents moved.

    O(n + inversions): nearly free when ``order`` is already the ranking of nearby scores.
    """
    moved = 0
    for p in range(1, len(order)):
        cur = order[p]
        sc = s[cur]
        q = p - 1
        while q >= 0:
            o = order[q]
            if not ranks_before(sc, s[o], cur, o, labels, tiekey, tie_code):
                break
            order[q + 1] = o
            q -= 1
        if q + 1 != p:
            order[q + 1] = cur
            moved += 1
    return moved


@njit(nogil=True, cache=True)
def _sorted_dcg(order, s, gains, rel, disc, m, tie_code, pos):
    """DCG@m of one query from its ranking ``order`` (local indices); ``rel`` lists the local
    indices of the documents with non-zero gain in index order, and the sum runs in that
    order, so the value is the same float whatever computed the ranking.

    Under ``average`` a relevant document tied with ``same - 1`` others below ``above``
    documents earns ``gain * sum(disc[above:min(above + same, m)]) / same``.
    """
    n = len(order)
    for p in range(n):
        pos[order[p]] = p
    total = 0.0
    for t in range(len(rel)):
        i = rel[t]
        p = pos[i]
        if tie_code != AVERAGE:
            if p < m:
                total += gains[i] * disc[p]
            continue
        si = s[i]
        lo = p
        while lo > 0 and s[order[lo - 1]] == si:
            lo -= 1
        if lo >= m:
            continue
        hi = p + 1
        while hi < n and s[order[hi]] == si:
            hi += 1
        same = hi - lo
        acc = 0.0
        for r in range(lo, min(hi, m)):
            acc += disc[r]
        total += gains[i] * acc / same
    return total


@njit(nogil=True, cache=True, inline="always")
def _stays_until(ray, u, v, t):
    """A bound T such that document u, ranked above v at ``s = b + d x`` with ``|d| = t``
    (``ray``: a :class:`_Ray`), stays above v for every ``d`` of the same sign with
    ``t <= |d| < T`` (strictly above under ``average``, unless their scores are equal for every
    d); ``T = t`` promises nothing and ``T = inf`` everything. ``y = sign(d) x`` is the slope
    of a score in ``|d|``.

    Scores are rounded: ``fl(b + fl(d x))`` is monotone in d, so a document of slope >= 0
    never falls below one of slope <= 0, and equal slopes give equal products, so the larger
    ``b`` stays ahead or ties. Otherwise the exact gap ``(bu - bv) + |d| (yu - yv)`` must
    exceed a bound on the rounding error that is linear in |d| too; T is where it stops.
    """
    su, sv, bu, bv = ray.s[u], ray.s[v], ray.base[u], ray.base[v]
    yu, yv = ray.sign * ray.x[u], ray.sign * ray.x[v]
    lu, lv, ku, kv = ray.labels[u], ray.labels[v], ray.tiekey[u], ray.tiekey[v]
    tie_code, t_max = ray.tie_code, ray.t_max
    if yu == yv:
        if bu == bv or yu == 0.0 or (su == sv and max(abs(bu), abs(bv)) < abs(su) * _ABSORBED):
            return np.inf  # equal or constant scores, or b lost in the rounding of d x
        if bu > bv and tie_code != AVERAGE and (
                precedes(su, su, lu, lv, ku, kv, tie_code)
                or (u < v and not precedes(su, su, lv, lu, kv, ku, tie_code))):
            return np.inf  # a tie may come, and the tie order keeps u first
    elif yu >= 0.0 and yv <= 0.0:
        if tie_code != AVERAGE or su > sv:
            return np.inf
        return t
    if tie_code == DOCID_DESC:
        margin, tiny, huge = _MARGIN32, _TINY32, _HUGE32
    else:
        margin, tiny, huge = _MARGIN64, 0.0, _HUGE64
    g0 = (bu - bv) - margin * (abs(bu) + abs(bv)) - tiny
    g1 = (yu - yv) - margin * (abs(yu) + abs(yv))
    if not g0 + t * g1 > 0.0:
        return t
    until = np.inf if g1 >= 0.0 else g0 / -g1
    if not abs(bu) + abs(bv) + min(until, t_max) * (abs(yu) + abs(yv)) < huge:
        return t
    return until


@njit(nogil=True, cache=True, inline="always")
def _pair_until(ray, p, t):
    """:func:`_stays_until` for the p-th pair of :func:`_order_until`."""
    order, m = ray.order, ray.m
    u = order[p] if p < m - 1 else order[m - 1]
    return _stays_until(ray, u, order[p + 1], t)


@njit(nogil=True, cache=True)
def _order_until(ray, t, t_next, first):
    """``(T, p)``: the top ``m`` of ``ray.order`` (its members, their order and, under
    ``average``, their ties) stays as it is for steps ``t <= |d| < T``, because each adjacent
    pair of the top ``m`` stays in order and the m-th document stays above every one below
    it; ``p`` is the pair that set T. Gives up (T <= t_next) as soon as one pair stops
    before the next step ``t_next``; pair ``first`` is tried first.
    """
    n = len(ray.order)
    until, arg = np.inf, -1
    if 0 <= first < n - 1:
        until = _pair_until(ray, first, t)
        arg = first
        if until <= t_next:
            return until, arg
    for p in range(n - 1):
        bound = _pair_until(ray, p, t)
        if bound < until:
            until, arg = bound, p
            if until <= t_next:
                break
    return until, arg


@njit(nogil=True, cache=True)
def _monotone(deltas):
    """Whether ``deltas`` share one sign (zeros aside) and never shrink in magnitude."""
    sign = 0.0
    for c in range(len(deltas)):
        d = deltas[c]
        if not np.isfinite(d) or (c > 0 and abs(d) < abs(deltas[c - 1])):
            return 0.0
        if d != 0.0:
            if sign == 0.0:
                sign = 1.0 if d > 0.0 else -1.0
            elif (d > 0.0) != (sign > 0.0):
                return 0.0
    return sign


@njit(nogil=True, cache=True)
def _start(order, base, x, d):
    """A first ranking to repair: ``order`` by ``base + d x`` descending (stable)."""
    n = len(order)
    if n <= _SHORT:
        for i in range(n):
            order[i] = i
    else:
        order[:] = np.argsort(-(base + d * x), kind="mergesort")


@njit(nogil=True, cache=True)
def _per_query(arrays, rel, scores):
    """NDCG@k of each query under the convention of ``arrays`` (a :class:`QueryArrays`;
    ``rel`` its :class:`Relevant`), each ranked from scratch."""
    gains, labels, tiekey, offsets, disc, k, tie_code, inv_idcg, fallback = arrays
    nq = len(offsets) - 1
    out = np.empty(nq)
    top = max_size(offsets)
    order = np.empty(top, dtype=np.int64)
    pos = np.empty(top, dtype=np.int64)
    sort_code = INPUT_ORDER if tie_code == AVERAGE else tie_code
    for q in range(nq):
        if inv_idcg[q] == 0.0:
            out[q] = fallback[q]
            continue
        a, b = offsets[q], offsets[q + 1]
        n = b - a
        s = scores[a:b]
        _start(order[:n], s, s, 0.0)
        _sort(order[:n], s, labels[a:b], tiekey[a:b], sort_code)
        out[q] = inv_idcg[q] * _sorted_dcg(order[:n], s, gains[a:b], relevant_of(rel, q, a),
                                           disc, min(k, n), tie_code, pos)
    return out


@njit(nogil=True, cache=True)
def max_size(offsets):
    top = 0
    for q in range(len(offsets) - 1):
        top = max(top, offsets[q + 1] - offsets[q])
    return top


@njit(nogil=True, cache=True)
def _line(arrays, rel, base, step, deltas, queries):
    """``out[c] = sum_{q in queries} NDCG_q(base + deltas[c] * step)`` (fixed order of sums)
    under the convention of ``arrays`` (a :class:`QueryArrays`; ``rel`` its :class:`Relevant`).

    Each query's ranking is carried from one delta to the next and repaired by insertion
    sort; an unchanged ranking reuses the last value. When ``deltas`` is monotone (one
    sign, growing magnitude, as in a line search), the deltas over which a query's top k
    provably cannot change (:func:`_order_until`) are not evaluated at all. Values equal
    those of ranking every candidate from scratch, bit for bit.
    """
    gains, labels, tiekey, offsets, disc, k, tie_code, inv_idcg, _ = arrays
    nc = len(deltas)
    out = np.zeros(nc)
    top = max_size(offsets)
    buf = np.empty(top)
    order = np.empty(top, dtype=np.int64)
    pos = np.empty(top, dtype=np.int64)
    sign = _monotone(deltas)
    t_max = abs(deltas[nc - 1]) if nc else 0.0
    sort_code = INPUT_ORDER if tie_code == AVERAGE else tie_code
    for q in queries:
        a, b = offsets[q], offsets[q + 1]
        n = b - a
        m = min(k, n)
        s = buf[:n]
        o = order[:n]
        bq = base[a:b]
        xq = step[a:b]
        gq = gains[a:b]
        lq = labels[a:b]
        kq = tiekey[a:b]
        rq = relevant_of(rel, q, a)
        ray = _Ray(o, s, bq, xq, lq, kq, tie_code, m, sign, t_max)
        _start(o, bq, xq, deltas[0] if nc else 0.0)
        value = 0.0
        until = 0.0
        hint = -1
        for c in range(nc):
            d = deltas[c]
            if abs(d) < until:
                out[c] += value
                continue
            for i in range(n):
                s[i] = bq[i] + d * xq[i]
            moved = _sort(o, s, lq, kq, sort_code)
            if c == 0 or moved or tie_code == AVERAGE:
                value = inv_idcg[q] * _sorted_dcg(o, s, gq, rq, disc, m, tie_code, pos)
            out[c] += value
            if sign != 0.0 and c + 1 < nc:
                until, hint = _order_until(ray, abs(d), abs(deltas[c + 1]), hint)
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
    """Per-query NDCG@k of an :class:`NDCGScorer` (same convention) for linear scores.

    ``per_query(s)`` equals ``scorer.per_query(s)`` up to rounding; ``line(s, x, deltas)``
    returns the summed NDCG of the non-fixed queries for every ``s + delta x`` at once. A query
    ``empty=skip`` leaves out is fixed (NaN) and not ``counted`` in :meth:`mean`.
    Nothing here is parallel, and the GIL is released, so threads may share one instance.
    """

    def __init__(self, scorer: NDCGScorer):
        self.arrays = scorer.arrays
        (self.gains, self.labels, self.tiekey, self.offsets, self.disc, self.k, self.tie_code,
         self.inv_idcg, self.fallback) = self.arrays
        self.rel = Relevant.of(self.gains, self.offsets)
        self.rel_off, self.rel_idx = self.rel
        self.active = np.flatnonzero(self.inv_idcg != 0.0).astype(np.int64)
        self.n_queries = len(self.offsets) - 1
        self.counted = ~np.isnan(self.fallback)  # all but the queries empty=skip leaves out
        self.skips = not self.counted.all()

    def per_query(self, scores: np.ndarray) -> np.ndarray:
        return _per_query(self.arrays, self.rel, scores)

    def counted_per_query(self, scores: np.ndarray) -> np.ndarray:
        """:meth:`per_query` of the counted queries only."""
        per_query = self.per_query(scores)
        return per_query[self.counted] if self.skips else per_query

    def mean(self, scores: np.ndarray) -> float:
        """Mean NDCG@k over the counted queries."""
        return float(self.counted_per_query(scores).mean())

    def varying(self, x: np.ndarray) -> np.ndarray:
        """Non-fixed queries on which ``x`` is not constant (others cannot change order)."""
        a = self.offsets[self.active]
        b = self.offsets[self.active + 1]
        lo = np.minimum.reduceat(x, self.offsets[:-1])[self.active]
        hi = np.maximum.reduceat(x, self.offsets[:-1])[self.active]
        return self.active[(hi > lo) & (b - a > 1)]

    def line(self, base, step, deltas, queries=None) -> np.ndarray:
        queries = self.active if queries is None else queries
        return _line(self.arrays, self.rel, base, step, np.asarray(deltas, dtype=np.float64),
                     queries)


