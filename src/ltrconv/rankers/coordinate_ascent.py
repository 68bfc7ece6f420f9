"""Coordinate Ascent (Metzler & Croft 2007) as RankLib 2.x runs it (``CoorAscent``, ``-ranker 4``),
restart for restart: a linear ranker ``score(x) = w . x`` fitted by maximising NDCG directly.

RankLib 2.x's run, which this reproduces float for float:

* every restart starts from ``w_j = (float) 1/d`` (single-precision division, widened) and
  its training scores ``c = w . x`` (features as float32, summed in feature order);
* each pass ("sweep") visits the features in the order ``Collections.shuffle`` draws from one
  ``java.util.Random(random_state)`` shared by all restarts (:mod:`.java_random`);
* for feature j the line search tries the directions +, -, 0. A direction starts from
  ``step = 0.001 dir``, or ``step_base |w_j|`` (sign dropped) when ``0.001 > |w_j| / 2``;
  ``n_steps`` trials (RankLib's ``-i``) add ``step`` to the cached scores, the step doubling
  each time; direction 0 tries ``w_j = 0`` with the cached scores unchanged (RankLib's cache
  is not updated for it) and, when the feature fails, RankLib adds ``w_j x_j`` back to the
  cached scores all the same. Those cached scores, not ``w . x``, are what training ranks;
* a trial wins when its mean NDCG (minus ``reg * ||w/|w|_1 - u/|u|_1||_2``, ``u`` the uniform
  weights, with RankLib's ``-reg``) is strictly above the restart's best; the rest of its
  direction is still tried, the later directions are skipped; after a win ``w`` is divided by
  ``|w|_1`` and so are the cached scores;
* a restart ends when ``d - 1`` features in a row have failed, after a sweep that leaves the
  restart's best less than ``tolerance`` above its start, or after ``max_sweeps`` sweeps (no
  limit by default, as in RankLib); the kept restart is the first with the best validation
  NDCG (training NDCG without validation data).

Per-query NDCG is RankLib's float: DCG summed in rank order with ``1 / (ln(r + 1) / ln 2)``
discounts under a ``log2`` convention, divided by the ideal DCG, mean summed in query order.
Training terminates: every win raises the restart's best, and the NDCG values are finitely many.

``init="random"`` (no RankLib counterpart) starts restarts after the first from weights drawn
``U(0, 1)`` by the same generator. The restarts share the generator, so a partial fit of units
``[r, ...]`` runs restarts ``0..max(r)`` to reach their draws.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..evaluation.ties import AVERAGE, DOCID_DESC, INPUT_ORDER
from ..jit import njit
from .base import TrainingData
from .java_random import LONG_MAX, LONG_MIN, JavaRandom, java_shuffle
from .linear_objective import (Relevant, _sort, _sorted_dcg, linear_scores, ranks_before,
                               relevant_of)
from .params import Constraint, Integer, Metric, Number, Options
from .ranklib_values import as_float32_values
from .units import UnitRanker

INITS = ("uniform", "random")


class JavaSeed(Constraint):
    """A ``java.util.Random`` seed (a 64-bit long) or a numpy RandomState."""

    _long = Integer(LONG_MIN, LONG_MAX)

    def accepts(self, value) -> bool:
        return self._long.accepts(value) or isinstance(value, np.random.RandomState)

    def __str__(self) -> str:
        return f"{self._long} (java.util.Random's long seed) or a numpy RandomState"


class _State(NamedTuple):
    """A split's queries beside the convention's arrays: RankLib's ideal DCG@k of each query
    (``ideal``), its documents of non-zero gain (``rel``, a :class:`Relevant`), its ranking as
    last sorted (``order``, local indices) and its NDCG there (``cur``)."""

    ideal: np.ndarray
    rel: Relevant
    order: np.ndarray
    cur: np.ndarray


# As in linear_objective, the kernels read the tuples' arrays into locals before their loops and
# the helpers called per query and step are inlined: otherwise a restart took up to 15% longer.
@njit(nogil=True, cache=True, inline="always")
def _rank_dcg(o, s, g, rel, disc, m, tie_code, pos):
    """DCG@m of one query from its ranking ``o`` by its scores ``s`` (local arrays): in rank
    order, or :func:`_sorted_dcg` under ``average``."""
    if tie_code == AVERAGE:
        return _sorted_dcg(o, s, g, rel, disc, m, tie_code, pos)
    dcg = 0.0
    for p in range(m):
        dcg += g[o[p]] * disc[p]
    return dcg


@njit(nogil=True, cache=True, inline="always")
def _ndcg(dcg, inv, ideal, tie_code):
    """RankLib's ``DCG / ideal``; ``DCG x 1/IDCG`` under ``average``."""
    return inv * dcg if tie_code == AVERAGE else dcg / ideal


@njit(nogil=True, cache=True)
def _refresh(arrays, state, c, which):
    """``state.cur[q]`` = NDCG of query q ranked by ``c``, for the queries with ``which[q]``."""
    gains, labels, tiekey, offsets, disc, k, tie_code, inv_idcg, fb = arrays
    ideal, rel, order, cur = state
    sort_code = INPUT_ORDER if tie_code == AVERAGE else tie_code
    pos = np.empty(len(c), dtype=np.int64)
    for q in range(len(offsets) - 1):
        if not which[q]:
            continue
        a, b = offsets[q], offsets[q + 1]
        o = order[a:b]
        _sort(o, c[a:b], labels[a:b], tiekey[a:b], sort_code)
        if inv_idcg[q] == 0.0:
            cur[q] = fb[q]
            continue
        dcg = _rank_dcg(o, c[a:b], gains[a:b], relevant_of(rel, q, a), disc, min(k, b - a),
                        tie_code, pos)
        cur[q] = _ndcg(dcg, inv_idcg[q], ideal[q], tie_code)


@njit(nogil=True, cache=True, inline="always")
def _pair_in_order(o, ss, labels, tiekey, tie_code, p):
    """Whether the documents ranked ``p - 1`` and ``p`` (scores ``ss`` in rank order) are in the
    order :func:`._sort` puts them in: by the tie policy, then by document index."""
    u, v = o[p - 1], o[p]
    return not ranks_before(ss[p], ss[p - 1], v, u, labels, tiekey, tie_code)


@njit(nogil=True, cache=True, inline="always")
def _tied(free, o, ss, xs, labels, tiekey, tie_code):
    """``free[p] = 0`` where the documents ranked ``p - 1`` and ``p`` have equal scores and
    equal feature values and are in order, else 1: every step of the line adds the same
    ``inc x`` to both, so such a pair stays tied and in order, and the check
    (:func:`_stands`) need not compare it."""
    free[0] = 1
    for p in range(1, len(o)):
        free[p] = 1
        if ss[p - 1] == ss[p] and xs[p - 1] == xs[p] and _pair_in_order(o, ss, labels, tiekey,
                                                                      tie_code, p):
            free[p] = 0


@njit(nogil=True, cache=True, inline="always")
def _gather(ss, xs, o, s, xq):
    """A query's scores and feature in rank order: ``ss[p] = s[o[p]]``, ``xs[p] = xq[o[p]]``."""
    for p in range(len(o)):
        ss[p] = s[o[p]]
        xs[p] = xq[o[p]]


@njit(nogil=True, cache=True, inline="always")
def _scatter(s, o, ss):
    """``s[o[p]] = ss[p]``: the rank-ordered scores back in document order."""
    for p in range(len(o)):
        s[o[p]] = ss[p]


@njit(nogil=True, cache=True, inline="always")
def _stands(ss, free, n, tie_code):
    """Whether the scores ``ss`` (rank order) fall strictly from each to the next, but for the
    tied pairs ``free`` exempts (:func:`_tied`), compared as :func:`.precedes` compares them
    (as float32 under ``docid-desc``), and none is NaN: then the ranking stands under every
    tie policy. One pass over consecutive memory, without branches.

    A NaN (``inf - inf``) unties a tied pair: :func:`.precedes` then orders it by index alone,
    so :func:`_resort` decides. ``not (above > below)`` holds for a NaN on either side, so the
    pairs checked catch every NaN but one in a run of exempt pairs; the run's documents had
    equal scores and features when exempted and have taken the same increments since, so all
    of them are NaN together, the first too, whose pair above is checked, or which is
    ``ss[0]``."""
    level = ss[0] != ss[0]
    if tie_code == DOCID_DESC:
        for p in range(1, n):
            level += free[p] * (not (np.float32(ss[p - 1]) > np.float32(ss[p])))
    else:
        for p in range(1, n):
            level += free[p] * (not (ss[p - 1] > ss[p]))
    return level == 0


@njit(nogil=True, cache=True)
def _resort(o, ss, xs, labels, tiekey, tie_code):
    """:func:`._sort` of the ranking ``o`` carried out on the rank-ordered scores ``ss`` and
    feature ``xs``, which move with it: the same insertion sort (by the tie policy, then the
    document index), the same ranking; returns the first position (0 the top) a document moved
    to, ``len(o)`` when none moved."""
    top = len(o)
    for p in range(1, len(o)):
        sc = ss[p]
        if (np.float32(ss[p - 1]) > np.float32(sc) if tie_code == DOCID_DESC
                else ss[p - 1] > sc):
            continue  # strictly below the one above: stays
        cur, xc = o[p], xs[p]
        q = p - 1
        while q >= 0:
            u = o[q]
            su = ss[q]
            if not ranks_before(sc, su, cur, u, labels, tiekey, tie_code):
                break
            o[q + 1], ss[q + 1], xs[q + 1] = u, su, xs[q]
            q -= 1
        if q + 1 != p:
            o[q + 1], ss[q + 1], xs[q + 1] = cur, sc, xc
            top = min(top, q + 1)
    return top


@njit(nogil=True, cache=True, inline="always")
def _unranked(c, x, incs, totals, a, b, moved, value):
    """A query (documents ``a:b``) that a line search does not rank: no relevant document, not
    counted, or ``x`` all 0 there. Where ``moved``, its cached scores still take every
    increment; its NDCG ``value`` (NaN: not counted) adds to every step's sum."""
    if moved:
        for t in range(len(incs)):
            for i in range(a, b):
                c[i] = c[i] + incs[t] * x[i]
    if not np.isnan(value):
        for t in range(len(incs)):
            totals[t] += value


@njit(nogil=True, cache=True)
def _line(arrays, state, c, x, moves, incs):
    """Summed NDCG (counted queries, query order) after each of the increments ``incs`` is added
    in turn to the cached scores (``c += inc * x``, as RankLib's cache does); ``c`` is left with
    every increment added. Queries without ``moves[q]`` (x all 0 there) keep ``state.cur[q]``.

    A query's scores and feature are stepped in rank order (``ss``, ``xs``: contiguous, each
    score the same ``s + inc * x`` as in document order), so that the check that the ranking
    still stands (:func:`_stands`) is one pass over consecutive memory; where it fails (18% of
    the steps of an MQ2008 fold's first restart, 11% moving a document) :func:`_resort` sorts
    them in place, and the scores go back to document order for the NDCG under ``average``
    and at the end. The NDCG is computed anew only when a document moved into the top ``m``
    ranks (or on the first step, or under ``average``, which reads every score)."""
    gains, labels, tiekey, offsets, disc, k, tie_code, inv_idcg, fb = arrays
    ideal, rel, order, cur = state
    nt = len(incs)
    totals = np.zeros(nt)
    sort_code = INPUT_ORDER if tie_code == AVERAGE else tie_code
    pos = np.empty(len(c), dtype=np.int64)
    longest = 0
    for q in range(len(offsets) - 1):
        longest = max(longest, offsets[q + 1] - offsets[q])
    ss = np.empty(longest)
    xs = np.empty(longest)
    free = np.empty(longest, dtype=np.int64)
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        if np.isnan(fb[q]) or not moves[q] or inv_idcg[q] == 0.0:
            _unranked(c, x, incs, totals, a, b, moves[q], fb[q] if np.isnan(fb[q]) else cur[q])
            continue
        o = order[a:b]
        s = c[a:b]
        xq = x[a:b]
        gq, lq, kq = gains[a:b], labels[a:b], tiekey[a:b]
        m = min(k, b - a)
        rq = relevant_of(rel, q, a)
        n = b - a
        _gather(ss, xs, o, s, xq)
        _tied(free, o, ss, xs, lq, kq, sort_code)
        v = 0.0
        for t in range(nt):
            d = incs[t]
            for p in range(n):
                ss[p] = ss[p] + d * xs[p]
            top = n
            if not _stands(ss, free, n, sort_code):
                top = _resort(o, ss[:n], xs[:n], lq, kq, sort_code)
                if top < n:
                    _tied(free, o, ss, xs, lq, kq, sort_code)
            if t == 0 or top < m or tie_code == AVERAGE:  # the DCG@m reads ranks 0..m-1
                if tie_code == AVERAGE:
                    _scatter(s, o, ss)
                v = _ndcg(_rank_dcg(o, s, gq, rq, disc, m, tie_code, pos), inv_idcg[q], ideal[q],
                          tie_code)
            totals[t] += v
        _scatter(s, o, ss)
    return totals


@njit(nogil=True, cache=True)
def _add(c, x, delta):
    for i in range(len(c)):
        c[i] = c[i] + delta * x[i]


@njit(nogil=True, cache=True)
def _distance(w, u):
    """RankLib's ``getDistance``: ``|| w / |w|_1 - u / |u|_1 ||_2``."""
    s1 = 0.0
    s2 = 0.0
    for i in range(len(w)):
        s1 += abs(w[i])
        s2 += abs(u[i])
    dist = 0.0
    for i in range(len(w)):
        t = w[i] / s1 - u[i] / s2
        dist += t * t
    return np.sqrt(dist)


class _Queries:
    """One split's queries as RankLib scores them (see the module docstring)."""

    def __init__(self, scorer, n_docs: int):
        arrays = scorer.arrays
        if scorer.convention.disc == "log2":  # RankLib's SimpleMath.logBase2, float for float
            r = np.arange(1, len(arrays.disc) + 1, dtype=np.float64)
            arrays = arrays._replace(disc=1.0 / (np.log(r + 1.0) / np.log(2.0)))
        self.arrays = arrays
        self.offsets, disc, k = arrays.offsets, arrays.disc, arrays.k
        nq = len(self.offsets) - 1
        ideal = np.zeros(nq)
        for q in range(nq):
            gq = np.sort(arrays.gains[self.offsets[q]:self.offsets[q + 1]])[::-1]
            total = 0.0
            for p in range(min(k, len(gq))):
                total += float(gq[p]) * float(disc[p])
            ideal[q] = total
        self.counted = ~np.isnan(arrays.fallback)
        self.n_counted = int(self.counted.sum())
        order = np.concatenate([np.arange(b - a) for a, b in
                                zip(self.offsets[:-1], self.offsets[1:])]).astype(np.int64)
        self.state = _State(ideal, Relevant.of(arrays.gains, self.offsets), order, np.zeros(nq))
        self.cur = self.state.cur
        self.all = np.ones(nq, dtype=np.bool_)

    def refresh(self, c, which=None) -> None:
        _refresh(self.arrays, self.state, c, self.all if which is None else which)

    def line(self, c, x, moves, incs) -> np.ndarray:
        """:func:`_line`: the summed NDCG after each increment of ``incs``; ``c`` moves."""
        return _line(self.arrays, self.state, c, x, moves, incs)

    def mean(self) -> float:
        """RankLib's ``MetricScorer.score(List)``: the sum in query order over the count."""
        total = 0.0
        for v in self.cur[self.counted]:
            total += float(v)
        return total / self.n_counted

    def score(self, c) -> float:
        self.refresh(c)
        return self.mean()


MAX_RESTARTS = 100_000
"""Largest ``n_restarts`` (RankLib 2.x: 5; each restart is a whole coordinate ascent)."""
MAX_STEPS = 1000
MAX_STEP_BASE = 1e6
"""Largest ``n_steps`` and ``step_base`` (RankLib 2.x: 25 and 0.05): the step doubles at each
trial, so the last is max(0.001, 0.002 step_base) 2^(n_steps - 1) <= 2000 x 2^999 = 1.1e304,
still finite (with n_steps 1100 the weights became nan and the model was saved)."""


def direction_steps(orig: float, sign: int, step_base: float, n_steps: int):
    """One direction of RankLib's line search: the increments added to the cached scores trial
    by trial, the total step of each trial, and the total RankLib undoes afterwards.

    ``step = 0.001 sign``, or ``step_base |orig|`` when ``0.001 > |orig| / 2``; it doubles after
    each of ``n_steps`` trials but the last. Direction 0 is one trial at total ``-orig`` whose
    increment is 0 (RankLib leaves its cache unchanged for it)."""
    step = 0.001 * sign
    if orig != 0.0 and abs(step) > 0.5 * abs(orig):
        step = step_base * abs(orig)
    total = step
    num = n_steps
    if sign == 0:
        num, total = 1, -orig
    incs, totals = [], []
    for j in range(num):
        incs.append(step)
        totals.append(total)
        if j < n_steps - 1:
            step *= 2.0
            total += step
    return incs, totals, total


def _restart(X, Xt, nz, tq: _Queries, w, rnd: JavaRandom, n_steps: int, tolerance: float,
             step_base: float, reg: float | None, max_sweeps: int | None):
    """One restart of RankLib's ``CoorAscent.learn``: (weights, best training NDCG, sweeps)."""
    d = len(w)
    reg_vec = np.full(d, 1.0 / d)
    c = linear_scores(X, w)
    start = best = tq.score(c)
    best_w = w.copy()
    log = []
    fails = sweeps = 0
    n = float(tq.n_counted)
    while (fails < d - 1) if d > 1 else (fails == 0):
        if max_sweeps is not None and sweeps >= max_sweeps:
            break
        sweeps += 1
        fids = list(range(d))
        java_shuffle(fids, rnd)
        for f in fids:
            x = Xt[f]
            orig = float(w[f])
            succeeds, best_total, total = False, 0.0, 0.0
            for s_i, sign in enumerate((1, -1, 0)):
                incs, totals, total = direction_steps(orig, sign, step_base, n_steps)
                sums = tq.line(c, x, nz[f], np.array(incs))
                for j in range(len(incs)):
                    score = float(sums[j]) / n
                    if reg is not None:
                        w[f] = orig + totals[j]
                        score -= reg * _distance(w, reg_vec)
                    if score > best:
                        best, best_total, succeeds = score, totals[j], True
                        log.append((f + 1, orig + totals[j], score))
                if succeeds:
                    break
                if s_i < 2:
                    _add(c, x, -total)
                    w[f] = orig
            if succeeds:
                _add(c, x, best_total - total)
                w[f] = orig + best_total
                fails = 0
                norm = 0.0  # RankLib's normalize(): the sum in index order
                for v in w:
                    norm += abs(float(v))
                if norm > 0:
                    w /= norm
                else:
                    norm = 1.0
                    w[:] = 1.0 / d
                c /= norm
                tq.refresh(c)
                best_w = w.copy()
            else:
                fails += 1
                _add(c, x, -total)
                w[f] = orig
                tq.refresh(c, nz[f])
        if best - start < tolerance:
            break
    return best_w, best, sweeps, log


class CoordinateAscent(UnitRanker):
    """Linear ranker; RankLib 2.x's coordinate ascent on the training NDCG, restarts kept on
    validation.

    Parameters map to RankLib's options: ``n_restarts`` (``-r``), ``n_steps`` (``-i``),
    ``tolerance`` (``-tolerance``), ``reg`` (``-reg``; None: RankLib's default, no
    regularisation), ``random_state`` (the seed of ``java.util.Random``). ``step_base`` is
    RankLib's constant ``stepBase``; ``max_sweeps`` and ``init="random"`` have no RankLib
    counterpart. Restarts run in sequence (they share the generator); ``n_jobs`` is accepted
    for compatibility and changes nothing.
    """

    name = "coordinate_ascent"
    _parameter_constraints = {
        "metric": [Metric()],
        "n_restarts": [Integer(1, MAX_RESTARTS)],
        "n_steps": [Integer(1, MAX_STEPS)],
        "tolerance": [Number(0)],
        "step_base": [Number(0, MAX_STEP_BASE)],
        "reg": [None, Number(0)],
        "init": [Options(*INITS)],
        "max_sweeps": [None, Integer(1)],
        "n_jobs": [None, Integer(-1, -1), Integer(1)],
        "random_state": [None, JavaSeed()],
    }
    _selects = "the restart"
    unit = "restart"
    # RankLib 2.x's CoorAscent options by their names there, and what stands for each here
    _removed_params = {
        "r": "RankLib's -r is n_restarts", "i": "RankLib's -i is n_steps",
        "slack": "RankLib's -reg SLACK is reg=SLACK", "regularized": "RankLib's -reg is reg",
        "step_scale": "RankLib's stepScale (2.0) is set by no RankLib option and has no "
                      "counterpart here: steps double",
        "seed": "the seed of java.util.Random is random_state",
    }

    def _selected(self) -> str:
        return f"restart {self.best_restart_ + 1} of {len(self.history_)}"

    def __init__(self, *, metric: str = "ndcg@10:ranklib", n_restarts: int = 30,
                 n_steps: int = 100, tolerance: float = 0.001, step_base: float = 0.05,
                 reg: float | None = None, init: str = "uniform", max_sweeps: int | None = None,
                 n_jobs: int | None = -1, random_state: int | np.random.RandomState | None = 0):
        self.metric = metric
        self.n_restarts = n_restarts
        self.n_steps = n_steps
        self.tolerance = tolerance
        self.step_base = step_base
        self.reg = reg
        self.init = init
        self.max_sweeps = max_sweeps
        self.n_jobs = n_jobs
        self.random_state = random_state

    def n_units(self) -> int:
        """The restarts of a fit: ``n_restarts``."""
        self._validate_params()
        return int(self.n_restarts)

    def _fit_units(self, datas: list[TrainingData],
                   units: tuple[int, ...]) -> tuple[dict, list[list[dict]]]:
        """Run restarts ``0..max(units)`` in order; each of ``units``'s weights, validation and
        training NDCG, sweeps. The metric steers every step (one ``datas``)."""
        data, = datas
        max_sweeps = None if self.max_sweeps is None else int(self.max_sweeps)
        reg = None if self.reg is None else float(self.reg)
        X = as_float32_values(data.X)
        Xt = np.ascontiguousarray(X.T)
        Xv = as_float32_values(data.X_val)
        d = X.shape[1]
        tq = _Queries(data.scorer, len(X))
        vq = _Queries(data.val_scorer, len(Xv)) if data.held_out else None
        nz = np.array([np.maximum.reduceat(Xt[j] != 0, tq.offsets[:-1]) for j in range(d)],
                      dtype=np.bool_).reshape(d, -1)
        rnd = JavaRandom(self._seed())
        wanted = set(units)
        found, best = {}, -np.inf
        for r in range(max(units) + 1):
            w0 = np.full(d, float(np.float32(1.0) / np.float32(d)))
            if self.init == "random" and r > 0:
                w0 = np.array([rnd.next_double() for _ in range(d)])
                if not np.any(w0):
                    w0[:] = 1.0 / d
            w, t, n, log = _restart(X, Xt, nz, tq, w0, rnd, int(self.n_steps), float(self.tolerance),
                               float(self.step_base), reg, max_sweeps)
            if r in wanted:
                val = vq.score(linear_scores(Xv, w)) if vq is not None else t
                found[r] = {"coef": w, "val_score": float(val), "train_score": float(t),
                            "sweeps": int(n), "log": log}
                best = max(best, float(val))
            data.progress.step(r + 1, max(units) + 1,
                               lambda: f"restart {r + 1} of {max(units) + 1}",
                               None if best == -np.inf else best)
        return {}, [[found[r] for r in units]]

    def _select(self, units: tuple[int, ...], shared: dict, records: list[dict]) -> None:
        """Keep the restart with the best validation NDCG, the first on ties."""
        self.history_ = [r["val_score"] for r in records]
        best = int(np.argmax(self.history_))
        self.best_restart_ = units[best]
        self.val_score_ = self.history_[best]
        self.train_scores_ = [r["train_score"] for r in records]
        self.train_score_ = self.train_scores_[best]
        self.n_sweeps_ = [r["sweeps"] for r in records]
        # every win of every restart as RankLib logs it: (feature id, weight, training NDCG)
        self.log_ = [r["log"] for r in records]
        # a copy holding numpy's own float64 dtype object (see RankNet._select)
        self.coef_ = np.asarray(records[best]["coef"]).astype(np.float64)

    def _predict(self, X) -> np.ndarray:
        # writable weights (a model unpickled from a memory map holds read-only ones, which
        # numba would compile a kernel for anew)
        return linear_scores(as_float32_values(X), np.require(self.coef_, np.float64, ["C", "W"]))
