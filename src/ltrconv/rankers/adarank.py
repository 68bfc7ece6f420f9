"""AdaRank (Xu & Li 2007) with single-feature weak rankers, as RankLib 2.x runs it.

Round t picks the feature ``h_t`` maximising ``sum_q P_q m_q(h_t)``, where ``m_q(h)`` is the
training NDCG@k of query q ranked by feature value alone (a table computed once), and adds it to
the ensemble ``f_t = f_{t-1} + alpha_t h_t`` with

    alpha_t = 0.5 ln( sum_q P_q (1 + m_q(h_t)) / sum_q P_q (1 - m_q(h_t)) ).

Query weights start uniform and, with ``weighting``:

* ``"cumulative"`` (RankLib 2.x): ``P_q <- P_q exp(-alpha_t m_q(f_t)) / sum_r exp(-alpha_t m_r(f_t))``
  (RankLib's normaliser is the unweighted sum; neither the argmax nor alpha depends on the scale);
* ``"ensemble"`` (the formula of Xu & Li): ``P_q = exp(-m_q(f_t)) / Z``.

``weak_ties`` sets the order in which a weak ranker places documents with equal feature values,
which the convention's own tie rule does not decide for RankLib: ``"selection"`` (default) is the
order of RankLib 2.x's ``Sorter.sort(double[], false)``, a descending selection sort that is not
stable; ``"convention"`` uses the training convention's tie rule (input order for ``ranklib``,
which is what RankLib uses to rank by a whole model); ``"average"`` scores each weak ranker with the
expected NDCG over all orders of its tied documents.

Control flow, as in RankLib 2.x ``AdaRank.learn`` (rounds are numbered from 1, at most
``n_rounds``):

* the training score is the mean NDCG@k of the ensemble; a round whose score is not above the
  previous one minus ``tolerance`` fails: it is still validated (and may be kept as the best
  model), then dropped, and the phase stops;
* with ``enqueue``, a first phase forbids repeats: a feature chosen right after itself undoes the
  previous round (weights and training score restored, the validation record reset to 0) and is
  benched. Benched features then return one at a time, last benched first, each followed by a
  phase without that rule, which starts at the round number where the previous phase stopped;
* without the enqueue rule, a feature chosen again while the training score is unchanged counts
  towards ``max_consecutive``; at that count it is left out until the score changes or another
  feature is chosen;
* a round whose alpha is not finite (the query weights, which RankLib's normaliser shrinks by
  about 1/#queries per round, have underflowed to 0) fails without being validated;
* the kept model is the ensemble with the best validation NDCG (strictly above the record, which
  starts at 0); with no such round, the final ensemble.

Feature values are rounded to float32, as RankLib 2.x stores them. Sums over queries run in query order and the ensemble's scores accumulate round by round, as
RankLib's do, so that near-ties are broken the same way. ``log_`` lists every round as RankLib
prints it: ``(round, feature, train, val, status)`` with status ``OK``, ``DAMN`` (failed),
``ROLLBACK`` (undone) or ``F. REM.`` (feature left out); ``rounds_`` holds the kept model's
``(feature, alpha)`` pairs and ``coef_`` their sum per feature.
"""

from __future__ import annotations

import numpy as np

from ..evaluation.scorer import NDCGScorer
from ..jit import njit
from .base import Ranker, TrainingData
from .params import Boolean, Integer, Metric, Number, Options
from .linear_objective import LinearObjective
from .ranklib_values import as_float32_values

WEIGHTINGS = ("cumulative", "ensemble")
WEAK_TIES = ("selection", "convention", "average")


@njit(cache=True)
def selection_sort_ranks(x, offsets):
    """Scores ``n..1`` placing each query's documents in the order of a descending selection sort.

    Position i takes the first maximum (strictly greater wins) among positions i..n-1 of the
    current permutation and swaps it into place (RankLib 2.x ``Sorter.sort(double[], false)``).
    """
    out = np.empty(len(x))
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        n = b - a
        idx = np.arange(n)
        for i in range(n - 1):
            top = i
            for j in range(i + 1, n):
                if x[a + idx[top]] < x[a + idx[j]]:
                    top = j
            tmp = idx[i]
            idx[i] = idx[top]
            idx[top] = tmp
        for r in range(n):
            out[a + idx[r]] = n - r
    return out


@njit(cache=True)
def _weighted_sums(m, P, allowed):
    """``sum_q m[f, q] P[q]`` in query order for each allowed feature f; -inf elsewhere."""
    nf, nq = m.shape
    out = np.full(nf, -np.inf)
    for f in range(nf):
        if allowed[f]:
            acc = 0.0
            for q in range(nq):
                acc += m[f, q] * P[q]
            out[f] = acc
    return out


@njit(cache=True)
def _seq_sum(a):
    acc = 0.0
    for v in a:
        acc += v
    return acc


def _accumulate(X, rounds):
    """Scores of the ensemble ``rounds`` summed round by round."""
    X = as_float32_values(X)
    s = np.zeros(X.shape[0])
    for f, alpha in rounds:
        s += alpha * X[:, f]
    return s


class AdaRank(Ranker):
    """Listwise boosting of single features; the model is the list of rounds ``rounds_``.

    Deterministic, as RankLib 2.x runs it, so there is no ``random_state``.
    """

    name = "adarank"
    _parameter_constraints = {
        "metric": [Metric()],
        "n_rounds": [Integer(1)],
        "tolerance": [Number(0)],
        "max_consecutive": [Integer(1)],
        "enqueue": [Boolean()],
        "weighting": [Options(*WEIGHTINGS)],
        "weak_ties": [Options(*WEAK_TIES)],
    }
    _removed_params = {"random_state": "AdaRank is deterministic; the parameter had no effect "
                                       "and was removed"}
    _selects = "the kept rounds"

    def _selected(self) -> str:
        return f"{len(self.rounds_)} rounds"

    def __init__(self, *, metric: str = "ndcg@10:ranklib", n_rounds: int = 500,
                 tolerance: float = 0.002, max_consecutive: int = 5, enqueue: bool = True,
                 weighting: str = "cumulative", weak_ties: str = "selection"):
        self.metric = metric
        self.n_rounds = n_rounds
        self.tolerance = tolerance
        self.max_consecutive = max_consecutive
        self.enqueue = enqueue
        self.weighting = weighting
        self.weak_ties = weak_ties

    def _weak_table(self, X, scorer: NDCGScorer, obj: LinearObjective) -> np.ndarray:
        """``m[f, q]``: training NDCG of query q ranked by feature f under ``weak_ties``."""
        if self.weak_ties == "average":
            obj = LinearObjective(scorer.with_convention(scorer.convention.with_(ties="average")))
        cols = (np.ascontiguousarray(X[:, f]) for f in range(X.shape[1]))
        if self.weak_ties == "selection":
            cols = (selection_sort_ranks(c, scorer.offsets) for c in cols)
        return np.array([obj.counted_per_query(c) for c in cols])

    def _fit(self, data: TrainingData) -> None:
        X, Xv = as_float32_values(data.X), as_float32_values(data.X_val)
        obj, val_obj = LinearObjective(data.scorer), LinearObjective(data.val_scorer)
        run = _Run(self, X, Xv, obj, val_obj, self._weak_table(X, data.scorer, obj))
        t = run.phase(1, bool(self.enqueue))
        while run.queue:
            run.queue.pop()
            t = run.phase(t, False)
        rounds = run.best if run.best else run.rounds
        self.rounds_ = [(int(f), float(a)) for f, a in rounds]
        self.coef_ = np.zeros(X.shape[1])
        for f, a in self.rounds_:
            self.coef_[f] += a
        self.log_ = run.log
        self.val_score_ = run.best_val
        if not run.best or run.best_val == 0.0:
            # A rollback zeroes RankLib's best validation score (as its AdaRank does) while the
            # kept rounds stay: the model's own score on the validation data is the one to report.
            val_q = val_obj.counted_per_query(_accumulate(data.X_val, self.rounds_))
            self.val_score_ = _seq_sum(val_q) / len(val_q)

    def _predict(self, X) -> np.ndarray:
        return _accumulate(X, self.rounds_)


class _Run:
    """The state of one RankLib 2.x AdaRank training run."""

    def __init__(self, model: AdaRank, X, Xv, obj, val_obj, m):
        self.p, self.X, self.Xv, self.obj, self.val_obj, self.m = model, X, Xv, obj, val_obj, m
        nq = m.shape[1]
        self.P = np.full(nq, float(np.float32(1.0) / np.float32(nq)))
        self.P_backup = self.P.copy()
        self.score, self.score_backup = -1.0, 0.0
        self.s, self.sv = np.zeros(X.shape[0]), np.zeros(Xv.shape[0])
        self.undo = None
        self.rounds: list[tuple[int, float]] = []
        self.best: list[tuple[int, float]] = []
        self.best_val = 0.0
        self.last, self.count = -1, 0
        self.queue: list[int] = []
        self.removed: set[int] = set()
        self.log: list[tuple] = []

    def _pick(self) -> int:
        allowed = np.ones(self.m.shape[0], dtype=np.bool_)
        allowed[list(set(self.queue) | self.removed)] = False
        sums = _weighted_sums(self.m, self.P, allowed)
        f = int(np.argmax(sums))
        return f if np.isfinite(sums[f]) else -1

    def phase(self, t: int, enqueue: bool) -> int:
        """Rounds from ``t`` until a stop rule fires; returns the round number it stopped at."""
        p, m = self.p, self.m
        n_rounds, tolerance = int(p.n_rounds), float(p.tolerance)
        max_consecutive = int(p.max_consecutive)
        while t <= n_rounds:
            f = self._pick()
            if f < 0:
                break
            if enqueue:
                if f == self.last:
                    self.queue.append(f)
                    self.rounds.pop()
                    self.s, self.sv = self.undo
                    self.P = self.P_backup.copy()
                    self.best_val = 0.0
                    self.score = self.score_backup
                    self.log.append((t, f, None, None, "ROLLBACK"))
                    t += 1
                    continue
                self.last = f
                self.P_backup = self.P.copy()
                self.score_backup = self.score
            num = _seq_sum(self.P * (1.0 + m[f]))
            den = _seq_sum(self.P * (1.0 - m[f]))
            with np.errstate(divide="ignore", invalid="ignore"):
                alpha = 0.5 * np.log(np.float64(num) / np.float64(den))
            if not np.isfinite(alpha):
                # The weights have underflowed to 0 (each round scales them by about
                # 1/#queries): RankLib's alpha is then 0/0 and its round fails.
                self.log.append((t, f, None, None, "DAMN"))
                break
            self.undo = (self.s, self.sv)
            self.s = self.s + alpha * self.X[:, f]
            self.sv = self.sv + alpha * self.Xv[:, f]
            self.rounds.append((f, alpha))
            per_q = self.obj.counted_per_query(self.s)
            train = _seq_sum(per_q) / len(per_q)
            ok = train + tolerance - self.score > 0
            status = "OK" if ok else "DAMN"
            if not enqueue:
                if train != self.score:
                    self.count = 0
                    self.removed.clear()
                elif self.last == f:
                    self.count += 1
                    if self.count == max_consecutive:
                        status = "F. REM."
                        self.count = 0
                        self.removed.add(f)
                else:
                    self.count = 0
                    self.removed.clear()
                self.last = f
            val_q = self.val_obj.counted_per_query(self.sv)
            val = _seq_sum(val_q) / len(val_q)
            if val > self.best_val:
                self.best_val, self.best = val, list(self.rounds)
            self.log.append((t, f, train, val, status))
            if not ok:
                self.rounds.pop()
                self.s, self.sv = self.undo
                break
            self.score = train
            if p.weighting == "cumulative":
                e = np.exp(-alpha * per_q)
                self.P = self.P * (e / _seq_sum(e))
            else:
                e = np.exp(-per_q)
                self.P = e / _seq_sum(e)
            t += 1
        return t
