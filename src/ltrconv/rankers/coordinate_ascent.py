"""Coordinate Ascent (Metzler & Croft 2007) as RankLib 2.x runs it: a linear ranker fitted by
maximising NDCG directly.

Model: ``score(x) = w . x`` with ``sum_j |w_j| = 1``. A restart starts from ``w_j = 1/d``
(``init="uniform"``, RankLib 2.x: restarts differ only in the order features are visited) and
sweeps over the features in a random order. For feature j with weight ``w_j`` the line search
tries, direction by direction in the order +, -, 0 (RankLib ``CoorAscent.learn``):

* ``+`` and ``-``: ``w_j + T_i`` for ``i < n_steps`` (RankLib's ``-i``; the paper's T = 100),
  ``T_i = step (2^(i+1) - 1)`` (the step doubles each time), ``step = +-0.001``, or
  ``step_base |w_j|`` (sign dropped, as RankLib does) when ``0.001 > |w_j| / 2``;
* ``0``: ``w_j = 0``.

Within a direction the best value strictly above the current training NDCG wins (the first on
ties) and the later directions are skipped; the weights are then renormalised to unit L1 norm.
A restart ends when ``d - 1`` features in a row have failed to improve, or after a sweep whose
training NDCG is less than ``tolerance`` above the restart's start (or after ``max_sweeps``
sweeps, unlimited by default as in RankLib). The restart with the best validation NDCG is kept
(the first on ties). ``init="random"`` starts restarts after the first from ``U(0, 1)`` weights
instead, which explores more of the simplex than shuffling alone.

Every NDCG here is the ranker's ``metric``, computed by
:class:`~ltrconv.rankers.linear_objective.LinearObjective` (whose line search skips the
steps that provably change no query's top k); features are used as given (RankLib
reads them as float32, which changes no order on the LETOR datasets).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .base import TrainingData
from .linear_objective import LinearObjective, linear_scores
from .params import Integer, Metric, Number, Options, RandomState
from .units import UnitRanker

INITS = ("uniform", "random")


def _direction_steps(wj: float, sign: int, step_base: float, n_steps: int) -> np.ndarray:
    """Total steps ``T_i`` tried in one direction (RankLib 2.x's doubling line search)."""
    step = 0.001 * sign
    if wj != 0.0 and abs(step) > 0.5 * abs(wj):
        step = step_base * abs(wj)
    return step * (np.exp2(np.arange(1, n_steps + 1)) - 1.0)


def _ascend(obj: LinearObjective, X: np.ndarray, Xt: np.ndarray, varying: list, w0: np.ndarray,
            rng: np.random.Generator, n_steps: int, tolerance: float, step_base: float,
            max_sweeps: int | None) -> tuple[np.ndarray, float, int]:
    """One restart: returns (weights, mean training NDCG, sweeps run)."""
    d = len(w0)
    w = w0 / np.abs(w0).sum()
    s = linear_scores(X, w)
    start = cur = obj.mean(s)
    fails, sweeps = 0, 0
    while (fails < d - 1) if d > 1 else (fails == 0):
        if max_sweeps is not None and sweeps >= max_sweeps:
            break
        sweeps += 1
        for j in rng.permutation(d):
            best = None
            if len(varying[j]):
                for sign in (1, -1, 0):
                    if sign == 0:
                        if w[j] == 0.0:
                            continue
                        steps = np.array([-w[j]])
                    else:
                        steps = _direction_steps(w[j], sign, step_base, n_steps)
                    vals = obj.line(s, Xt[j], np.concatenate(([0.0], steps)), varying[j])
                    i = int(np.argmax(vals[1:]))
                    if vals[1 + i] > vals[0]:
                        best = steps[i]
                        break
            if best is None:
                fails += 1
                continue
            fails = 0
            w = w.copy()
            w[j] += best
            w /= np.abs(w).sum()
            s = linear_scores(X, w)
            cur = obj.mean(s)
        if cur - start < tolerance:
            break
    return w, cur, sweeps


class CoordinateAscent(UnitRanker):
    """Linear ranker; coordinate-wise line search on the training NDCG, restarts kept on validation.

    ``n_steps`` is the number of doubling steps tried in each direction (RankLib's ``-i``).
    ``random_state`` shuffles the feature order of each restart (and draws the starting weights
    with ``init="random"``); restarts run on ``n_jobs`` threads (-1: all cores) with the same
    result whatever the number. The restarts are independent units: ``fit(..., units=[r, ...])``
    runs some of them and :meth:`~ltrconv.rankers.units.UnitRanker.gather` joins such partial
    fits into this fit's model (:mod:`ltrconv.rankers.units`).
    """

    name = "coordinate_ascent"
    _parameter_constraints = {
        "metric": [Metric()],
        "n_restarts": [Integer(1)],
        "n_steps": [Integer(1)],
        "tolerance": [Number(0)],
        "step_base": [Number(0)],
        "init": [Options(*INITS)],
        "max_sweeps": [None, Integer(1)],
        "n_jobs": [None, Integer(-1, -1), Integer(1)],
        "random_state": [None, RandomState()],
    }
    _selects = "the restart"
    unit = "restart"

    def _selected(self) -> str:
        return f"restart {self.best_restart_ + 1} of {len(self.history_)}"

    def __init__(self, *, metric: str = "ndcg@10:ranklib", n_restarts: int = 30,
                 n_steps: int = 100, tolerance: float = 0.001, step_base: float = 0.05,
                 init: str = "uniform", max_sweeps: int | None = None, n_jobs: int | None = -1,
                 random_state: int | np.random.RandomState | None = 0):
        self.metric = metric
        self.n_restarts = n_restarts
        self.n_steps = n_steps
        self.tolerance = tolerance
        self.step_base = step_base
        self.init = init
        self.max_sweeps = max_sweeps
        self.n_jobs = n_jobs
        self.random_state = random_state

    def n_units(self) -> int:
        """The restarts of a fit: ``n_restarts``."""
        self._validate_params()
        return int(self.n_restarts)

    def _fit_units(self, data: TrainingData, units: tuple[int, ...]) -> tuple[dict, list[dict]]:
        """Run restarts ``units``; each one's weights, validation and training NDCG, sweeps."""
        nj = self.n_jobs
        n_jobs = 1 if nj is None else (os.cpu_count() or 1) if nj == -1 else int(nj)
        max_sweeps = None if self.max_sweeps is None else int(self.max_sweeps)
        obj = LinearObjective(data.scorer)
        val_obj = LinearObjective(data.val_scorer)
        X = np.ascontiguousarray(data.X)
        Xt = np.ascontiguousarray(X.T)
        varying = [obj.varying(Xt[j]) for j in range(X.shape[1])]
        seeds = np.random.SeedSequence(self._seed()).spawn(int(self.n_restarts))

        def run(r):
            rng = np.random.default_rng(seeds[r])
            w0 = np.ones(X.shape[1])
            if self.init == "random" and r > 0:
                w0 = rng.uniform(0.0, 1.0, X.shape[1])
                if not np.any(w0):
                    w0 = np.ones(X.shape[1])
            return _ascend(obj, X, Xt, varying, w0, rng, int(self.n_steps), float(self.tolerance),
                           float(self.step_base), max_sweeps)

        if n_jobs > 1 and len(units) > 1:
            with ThreadPoolExecutor(max_workers=min(n_jobs, len(units))) as pool:
                results = list(pool.map(run, units))
        else:
            results = [run(r) for r in units]

        Xv = np.ascontiguousarray(data.X_val)
        return {}, [{"coef": w, "val_score": val_obj.mean(linear_scores(Xv, w)),
                     "train_score": float(t), "sweeps": int(n)} for w, t, n in results]

    def _select(self, units: tuple[int, ...], shared: dict, records: list[dict]) -> None:
        """Keep the restart with the best validation NDCG, the first on ties."""
        self.history_ = [r["val_score"] for r in records]
        best = int(np.argmax(self.history_))
        self.best_restart_ = units[best]
        self.val_score_ = self.history_[best]
        self.train_scores_ = [r["train_score"] for r in records]
        self.train_score_ = self.train_scores_[best]
        self.n_sweeps_ = [r["sweeps"] for r in records]
        # a copy holding numpy's own float64 dtype object (see RankNet._select)
        self.coef_ = np.asarray(records[best]["coef"]).astype(np.float64)

    def _predict(self, X) -> np.ndarray:
        return linear_scores(np.ascontiguousarray(X), self.coef_)
