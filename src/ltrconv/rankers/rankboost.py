"""RankBoost (Freund, Iyer, Schapire & Singer 2003) with threshold stumps, as RankLib 2.x runs it.

Crucial pairs are (i, j) of one query with ``l_i > l_j``; ``D`` starts uniform over them. A stump
is ``h(x) = [x_f > theta]``; its edge is ``r = sum_(i,j) D(i,j) (h(x_i) - h(x_j)) =
sum_x h(x) pi(x)`` with the potential ``pi(x) = sum_j D(x, j) - sum_i D(i, x)``. Round t keeps
the stump with, by ``objective``, the largest signed ``r`` (``"signed"``, RankLib 2.x: a stump
that ranks pairs the wrong way round is never chosen) or the largest ``|r|`` (``"abs"``, where a
negative ``alpha`` turns it round); the first in (feature, threshold from the top) order wins
ties. Then ``alpha = 0.5 ln((Z + R) / (Z - R))`` with ``R = Z r`` and ``Z`` the mass of ``D``
before the last normalisation (1 at first), i.e. ``0.5 ln((1 + r) / (1 - r))``, and
``D(i,j) <- D(i,j) exp(alpha (h(x_j) - h(x_i))) / Z``. The model is
``F(x) = sum_t alpha_t h_t(x)``.

Candidate thresholds per feature, by ``thresholds``:

* ``"ranklib"`` (RankLib 2.x): ``max - i (max - min) / n_thresholds`` for i = 0..n_thresholds-1
  over the training values, plus ``min - 1e8`` (a stump that fires on every document);
* ``"quantile"``: up to ``n_thresholds`` distinct quantiles of the training values below the
  maximum.

As in RankLib, feature values are rounded to float32, ``r`` is accumulated per feature over the
thresholds from the top, query by query, walking each query's documents in descending feature
value (so that near-equal edges are compared as RankLib compares them), and the kept model is the
prefix of rounds with the best validation NDCG@k, strictly above a record that starts at 0 (with
none, all rounds). ``log_`` holds ``(feature, threshold, R, validation NDCG)`` per round.
"""

from __future__ import annotations

import numpy as np

from ..jit import njit
from .base import Ranker, TrainingData
from .pairs import count_pairs
from .params import Integer, Metric, Options
from .ranklib_values import as_float32_values

THRESHOLDS = ("ranklib", "quantile")
OBJECTIVES = ("signed", "abs")
_R_LIMIT = 1.0 - 1e-10


@njit(cache=True)
def _pairs_in_position_order(y, offsets):
    """Crucial pairs (better row, worse row) of each query, listed as RankLib 2.x visits them.

    Positions are those of the query sorted by label, descending and stable; pairs come in
    (better position, worse position) order. Also returns the permutation that lists them in
    (worse position, better position) order.
    """
    count = count_pairs(y, offsets)
    hi = np.empty(count, dtype=np.int64)
    lo = np.empty(count, dtype=np.int64)
    by_worse = np.empty(count, dtype=np.int64)
    p = 0
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        pos = a + np.argsort(-y[a:b], kind="mergesort")
        first = p
        n = b - a
        index = -np.ones((n, n), dtype=np.int64)
        for u in range(n):
            for v in range(u + 1, n):
                if y[pos[u]] > y[pos[v]]:
                    hi[p] = pos[u]
                    lo[p] = pos[v]
                    index[u, v] = p
                    p += 1
        w = first
        for v in range(n):
            for u in range(v):
                if index[u, v] >= 0:
                    by_worse[w] = index[u, v]
                    w += 1
    return hi, lo, by_worse


@njit(cache=True)
def potentials(D, hi, lo, by_worse, n):
    """pi(x): pair mass where x is the better document minus mass where it is the worse one."""
    pi = np.zeros(n)
    for p in range(len(D)):
        pi[hi[p]] += D[p]
    for w in range(len(D)):
        p = by_worse[w]
        pi[lo[p]] -= D[p]
    return pi


@njit(cache=True)
def best_stump(values, sorted_rows, offsets, thr, thr_off, pi, signed):
    """(feature, threshold, r) of the best stump; ``thr[thr_off[f]:thr_off[f+1]]`` descending.

    ``sorted_rows`` and ``values`` come from :func:`_sorted_columns`: the walk down a feature
    reads its values in order instead of one row of X (a cache line) per document."""
    nq = len(offsets) - 1
    best_f, best_t, best_r = -1, 0.0, -10.0 if signed else 0.0
    last = np.empty(nq, dtype=np.int64)
    for f in range(values.shape[0]):
        last[:] = -1
        r = 0.0
        for c in range(thr_off[f], thr_off[f + 1]):
            t = thr[c]
            for q in range(nq):
                a, b = offsets[q], offsets[q + 1]
                pos = last[q] + 1
                while pos < b - a:
                    if values[f, a + pos] > t:
                        r += pi[sorted_rows[f, a + pos]]
                        last[q] = pos
                        pos += 1
                    else:
                        break
            if (r > best_r) if signed else (abs(r) > abs(best_r)):
                best_f, best_t, best_r = f, t, r
    return best_f, best_t, best_r


@njit(cache=True)
def reweight(D, hi, lo, fires, alpha):
    """D(i,j) <- D(i,j) exp(alpha (h_j - h_i)); returns the new mass Z (D is not normalised)."""
    total = 0.0
    for p in range(len(D)):
        D[p] = D[p] * np.exp(alpha * (fires[lo[p]] - fires[hi[p]]))
        total += D[p]
    return total


@njit(cache=True)
def _sorted_columns(X, offsets):
    """Per feature, each query's rows by descending value (stable) and their values in that
    order."""
    rows = np.empty((X.shape[1], X.shape[0]), dtype=np.int64)
    values = np.empty((X.shape[1], X.shape[0]))
    for f in range(X.shape[1]):
        for q in range(len(offsets) - 1):
            a, b = offsets[q], offsets[q + 1]
            order = a + np.argsort(-X[a:b, f], kind="mergesort")
            rows[f, a:b] = order
            for i in range(b - a):
                values[f, a + i] = X[order[i], f]
    return rows, values


def ranklib_thresholds(X: np.ndarray, n_thresholds: int) -> list[np.ndarray]:
    """Per feature: ``max - i step`` for i < n_thresholds, step = (max - min) / n, then ``min - 1e8``."""
    out = []
    for f in range(X.shape[1]):
        hi, lo = float(X[:, f].max()), float(X[:, f].min())
        step = abs(hi - lo) / n_thresholds
        thr = np.empty(n_thresholds + 1)
        thr[0] = hi
        for i in range(1, n_thresholds):
            thr[i] = thr[i - 1] - step
        thr[n_thresholds] = lo - 1.0e8
        out.append(thr)
    return out


def quantile_thresholds(X: np.ndarray, n_thresholds: int) -> list[np.ndarray]:
    """Per feature, distinct quantiles of the training values below the maximum."""
    qs = np.linspace(0.0, 1.0, n_thresholds + 2)[1:-1]
    out = []
    for f in range(X.shape[1]):
        col = X[:, f]
        uniq = np.unique(col)
        if len(uniq) - 1 <= n_thresholds:
            thr = uniq[:-1]
        else:
            thr = np.unique(np.quantile(col, qs, method="lower"))
            thr = thr[thr < uniq[-1]]
        out.append(thr.astype(np.float64))
    return out


MAX_THRESHOLDS = 100_000
"""Upper bound of ``n_thresholds`` (RankLib 2.x: 10): the candidates of every feature are held
at once, one float per candidate and feature."""


class RankBoost(Ranker):
    """Pairwise boosting of threshold stumps; rounds chosen on validation NDCG@k.

    Deterministic, as RankLib 2.x runs it, so there is no ``random_state``. The metric does not
    steer training (``shared_training``): each round's stump and weight follow the pair
    distribution alone, and the validation NDCG only picks how many rounds to keep, so
    :meth:`fit_many` runs the rounds once for several metrics.
    """

    name = "rankboost"
    _parameter_constraints = {
        "metric": [Metric()],
        "n_rounds": [Integer(1)],
        "n_thresholds": [Integer(1, MAX_THRESHOLDS)],
        "thresholds": [Options(*THRESHOLDS)],
        "objective": [Options(*OBJECTIVES)],
    }
    _removed_params = {"random_state": "RankBoost is deterministic; the parameter had no "
                                       "effect and was removed"}
    _selects = "the number of rounds"

    def _selected(self) -> str:
        return f"{self.best_iteration_} rounds"

    def __init__(self, *, metric: str = "ndcg@10:ranklib", n_rounds: int = 300,
                 n_thresholds: int = 10, thresholds: str = "ranklib", objective: str = "signed"):
        self.metric = metric
        self.n_rounds = n_rounds
        self.n_thresholds = n_thresholds
        self.thresholds = thresholds
        self.objective = objective

    def _fit(self, data: TrainingData) -> None:
        self._fit_shared([self], [data])

    def _fit_shared(self, models: list["RankBoost"], datas: list[TrainingData]) -> None:
        """The rounds once; each model keeps the rounds up to its own best validation score."""
        data = datas[0]
        X, Xv = as_float32_values(data.X), as_float32_values(data.X_val)
        y, off = data.y, data.offsets
        hi, lo, by_worse = _pairs_in_position_order(y, off)
        make = ranklib_thresholds if self.thresholds == "ranklib" else quantile_thresholds
        per_feature = [np.sort(t)[::-1] for t in make(X, int(self.n_thresholds))]
        thr = np.concatenate(per_feature)
        thr_off = np.concatenate(([0], np.cumsum([len(t) for t in per_feature]))).astype(np.int64)
        rows, values = _sorted_columns(X, off)
        signed = self.objective == "signed"
        D = np.full(len(hi), 1.0 / len(hi))
        Z = 1.0
        F_val = np.zeros(len(data.y_val))
        rounds = []
        picks = [{"scorer": d.val_scorer, "log": [], "best": 0, "best_val": 0.0} for d in datas]
        for _ in range(int(self.n_rounds)):
            pi = potentials(D, hi, lo, by_worse, len(y))
            f, theta, r = best_stump(values, rows, off, thr, thr_off, pi, signed)
            if f < 0:
                break
            R = Z * float(np.clip(r, -_R_LIMIT, _R_LIMIT))
            alpha = 0.5 * np.log((Z + R) / (Z - R))
            fires = (X[:, f] > theta).astype(np.float64)
            Z = reweight(D, hi, lo, fires, alpha)
            F_val += alpha * (Xv[:, f] > theta)
            rounds.append((int(f), float(theta), float(alpha)))
            for pick in picks:
                val = pick["scorer"].mean(F_val)
                pick["log"].append((int(f), float(theta), R, val))
                if val > pick["best_val"]:
                    pick["best"], pick["best_val"] = len(rounds), val
            data.progress.step(len(rounds), int(self.n_rounds),
                               lambda: f"round {len(rounds)} of {self.n_rounds}",
                               [pick["best_val"] for pick in picks])
            D /= Z
        for model, pick in zip(models, picks):
            best, log = pick["best"], pick["log"]
            keep = best if best else len(rounds)
            model.log_ = log
            model.best_iteration_ = keep
            model.val_score_ = pick["best_val"] if best else (log[-1][3] if log else 0.0)
            model.features_ = np.array([r[0] for r in rounds[:keep]], dtype=np.int64)
            model.thresholds_ = np.array([r[1] for r in rounds[:keep]], dtype=np.float64)
            model.alphas_ = np.array([r[2] for r in rounds[:keep]], dtype=np.float64)

    def _predict(self, X) -> np.ndarray:
        """F(x) = sum_t alpha_t [x_{f_t} > theta_t], summed round by round."""
        X = as_float32_values(X)
        out = np.zeros(X.shape[0])
        for f, theta, a in zip(self.features_, self.thresholds_, self.alphas_):
            out += a * (X[:, f] > theta)
        return out
