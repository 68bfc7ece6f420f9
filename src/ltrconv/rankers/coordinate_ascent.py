"""Coordinate Ascent (Metzler & Croft 2007): a linear ranker fitted by maximising NDCG directly.

Model: ``score(x) = w . x`` with ``sum_j |w_j| = 1``. One restart starts from ``w0`` and runs
at most ``n_iterations`` sweeps; a sweep visits every feature once in a random order and
performs a line search on ``w_j``: the training objective ``sum_q NDCG@k_q(s + delta x_j)``
is evaluated for ``delta`` in {0, -w_j} and ``+-step * 2^i`` (``i < n_steps``,
``step = max(step_base |w_j|, 0.001)``), both directions at once (RankLib grows its steps the
same way but stops at the first direction that helps). The best strictly improving ``delta``
is taken and ``w`` renormalised to unit L1 norm. A restart ends when a sweep gains less than
``tolerance`` in mean training NDCG. Restart 0 starts from uniform weights, the others from
``U(0, 1)`` weights drawn from ``random_state``; the restart with the best validation NDCG is
kept.

Every NDCG here is the ranker's ``metric``. It is computed by :class:`LinearObjective`
without sorting: the DCG@k of a query only needs the rank of its documents with non-zero
gain, and the rank of document i is the number of documents placed before it under the
convention's tie policy.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ..metrics import NDCGScorer
from .base import ParamError, Ranker


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


def _candidates(wj: float, step_base: float, n_steps: int) -> np.ndarray:
    """Line-search steps, smallest first: 0, -wj (drop the feature), +-step * 2^i."""
    step = max(step_base * abs(wj), 1e-3)
    grow = step * np.exp2(np.arange(n_steps))
    deltas = [0.0]
    if wj != 0.0:
        deltas.append(-wj)
    deltas.extend(np.column_stack((grow, -grow)).ravel().tolist())
    return np.array(deltas)


def _ascend(obj: LinearObjective, X: np.ndarray, Xt: np.ndarray, varying: list, w0: np.ndarray,
            rng: np.random.Generator, n_iterations: int, tolerance: float, step_base: float,
            n_steps: int) -> tuple[np.ndarray, float, int]:
    """One restart: returns (weights, mean training NDCG, sweeps run)."""
    w = w0 / np.abs(w0).sum()
    s = linear_scores(X, w)
    cur = obj.mean(s)
    sweeps = 0
    for _ in range(n_iterations):
        sweeps += 1
        start = cur
        for j in rng.permutation(len(w)):
            if len(varying[j]) == 0:
                continue
            deltas = _candidates(w[j], step_base, n_steps)
            vals = obj.line(s, Xt[j], deltas, varying[j])
            gain = vals - vals[0]
            for c in np.argsort(-gain, kind="stable"):
                if gain[c] <= 1e-12:
                    break
                trial = w.copy()
                trial[j] += deltas[c]
                norm = np.abs(trial).sum()
                if norm > 0.0:
                    w = trial / norm
                    s = linear_scores(X, w)
                    cur = obj.mean(s)
                    break
        if cur - start < tolerance:
            break
    return w, cur, sweeps


class CoordinateAscent(Ranker):
    """Linear ranker; coordinate-wise line search on the training NDCG, restarts kept on validation.

    ``n_iterations`` is the maximum number of sweeps over all features per restart.
    """

    name = "coordinate_ascent"

    def __init__(self, metric: str = "ndcg@10:ranklib", n_restarts: int = 30,
                 n_iterations: int = 100, tolerance: float = 0.001, step_base: float = 0.05,
                 n_steps: int = 25, n_jobs: int | None = -1, random_state: int = 0):
        self.metric = metric
        self.n_restarts = n_restarts
        self.n_iterations = n_iterations
        self.tolerance = tolerance
        self.step_base = step_base
        self.n_steps = n_steps
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _check_params(self) -> int:
        def positive_int(name, lo=1):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise ParamError(f"{self.name}: {name} must be an integer >= {lo}, got {v!r}")

        positive_int("n_restarts")
        positive_int("n_iterations")
        positive_int("n_steps")
        for name in ("tolerance", "step_base"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not np.isfinite(v) or v < 0:
                raise ParamError(f"{self.name}: {name} must be a finite number >= 0, got {v!r}")
        if isinstance(self.random_state, bool) or not isinstance(self.random_state, (int, np.integer)) \
                or self.random_state < 0:
            raise ParamError(f"{self.name}: random_state must be an integer >= 0, got {self.random_state!r}")
        nj = self.n_jobs
        if nj is None:
            return 1
        if isinstance(nj, bool) or not isinstance(nj, (int, np.integer)) or nj == 0 or nj < -1:
            raise ParamError(f"{self.name}: n_jobs must be -1 (all cores), None or an integer >= 1, got {nj!r}")
        return (os.cpu_count() or 1) if nj == -1 else int(nj)

    def fit(self, X, y, qid, *, X_val=None, y_val=None, qid_val=None, docid=None, docid_val=None):
        n_jobs = self._check_params()
        X, y, off, Xv, yv, offv, train_scorer, val_scorer = self._prepare(
            X, y, qid, X_val, y_val, qid_val, docid, docid_val)
        obj = LinearObjective(train_scorer)
        val_obj = LinearObjective(val_scorer)
        X = np.ascontiguousarray(X)
        Xt = np.ascontiguousarray(X.T)
        varying = [obj.varying(Xt[j]) for j in range(X.shape[1])]
        seeds = np.random.SeedSequence(self.random_state).spawn(self.n_restarts)

        def run(r):
            rng = np.random.default_rng(seeds[r])
            w0 = np.ones(X.shape[1]) if r == 0 else rng.uniform(0.0, 1.0, X.shape[1])
            if not np.any(w0):
                w0 = np.ones(X.shape[1])
            return _ascend(obj, X, Xt, varying, w0, rng, self.n_iterations, float(self.tolerance),
                           float(self.step_base), int(self.n_steps))

        if n_jobs > 1 and self.n_restarts > 1:
            with ThreadPoolExecutor(max_workers=min(n_jobs, self.n_restarts)) as pool:
                results = list(pool.map(run, range(self.n_restarts)))
        else:
            results = [run(r) for r in range(self.n_restarts)]

        Xv = np.ascontiguousarray(Xv)
        self.history_ = [val_obj.mean(linear_scores(Xv, w)) for w, _, _ in results]
        best = int(np.argmax(self.history_))
        self.best_restart_ = best
        self.val_score_ = self.history_[best]
        self.train_scores_ = [float(t) for _, t, _ in results]
        self.train_score_ = self.train_scores_[best]
        self.n_sweeps_ = [int(n) for _, _, n in results]
        self.coef_ = np.array(results[best][0], dtype=np.float64)
        self.fitted_ = True
        return self

    def predict(self, X) -> np.ndarray:
        X = self._check_fitted(X)
        return linear_scores(np.ascontiguousarray(X), self.coef_)
