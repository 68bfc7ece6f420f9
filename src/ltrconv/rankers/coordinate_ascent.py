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

Every NDCG here is the ranker's ``metric``, computed without sorting by
:class:`~ltrconv.rankers.linear_objective.LinearObjective`.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .base import ParamError, Ranker
from .linear_objective import LinearObjective, linear_scores


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
