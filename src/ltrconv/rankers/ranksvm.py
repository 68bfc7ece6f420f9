"""RankSVM (Herbrich et al. 2000): a linear SVM on within-query pairwise differences.

For every pair i, j of one query with l_i > l_j the examples ``(x_i - x_j, +1)`` and
``(x_j - x_i, -1)`` enter liblinear's ``min_w 1/2 |w|^2 + C sum_p loss(y_p w.d_p)`` (no
intercept). The score is ``w.x``. C runs over a log grid and the w with the best validation
NDCG@k under the training convention is kept (first best on ties). The paper's protocol
(Busa-Fekete et al. 2012, Sec. 4): linear kernel, tolerance 0.001, C validated on a logarithmic
grid over [1e-6, 1e4] (here every power of ten).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from .base import Ranker, TrainingData
from .pairs import crucial_pairs
from .params import Check, Integer, Metric, Number, Options, RandomState

DEFAULT_C_GRID = tuple(10.0 ** e for e in range(-6, 5))


def pairwise_differences(X, y, offsets) -> tuple[np.ndarray, np.ndarray]:
    """(D, t): ``x_i - x_j`` with t = +1 then ``x_j - x_i`` with t = -1, for l_i > l_j in a query."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    hi, lo = crucial_pairs(y, offsets)
    n = len(hi)
    pos = X[hi] - X[lo]
    D = np.concatenate([pos, -pos])
    t = np.concatenate([np.ones(n, dtype=np.int64), -np.ones(n, dtype=np.int64)])
    return D, t


def _grid_ok(value) -> bool:
    """A non-empty list, tuple or 1-D array of finite numbers C > 0."""
    return (isinstance(value, (list, tuple, np.ndarray)) and np.ndim(value) == 1
            and len(value) > 0 and all(Number(0, lo_open=True).accepts(c) for c in value))


class RankSVM(Ranker):
    """Linear pairwise SVM (liblinear), C chosen on validation NDCG@k of the training convention.

    ``random_state`` is liblinear's, which shuffles the dual solver's coordinates
    (``loss="hinge"``); the primal solver used for ``"squared_hinge"`` does not use it.
    """

    name = "ranksvm"
    _parameter_constraints = {
        "metric": [Metric()],
        "C_grid": [Check(_grid_ok, "a non-empty list of finite numbers C > 0")],
        "tol": [Number(0, lo_open=True)],
        "loss": [Options("hinge", "squared_hinge")],
        "max_iter": [Integer(1)],
        "random_state": [None, RandomState()],
    }
    _selects = "C"

    def _selected(self) -> str:
        return f"C = {self.best_C_:g}"

    def __init__(self, *, metric: str = "ndcg@10:ranklib", C_grid=DEFAULT_C_GRID, tol: float = 1e-3,
                 loss: str = "squared_hinge", max_iter: int = 1000,
                 random_state: int | np.random.RandomState | None = 0):
        self.metric = metric
        self.C_grid = C_grid
        self.tol = tol
        self.loss = loss
        self.max_iter = max_iter
        self.random_state = random_state

    def _svc(self, C: float, seed: int) -> LinearSVC:
        # The primal solver exists for squared hinge only; hinge needs the dual one.
        return LinearSVC(C=C, loss=self.loss, dual=self.loss == "hinge", tol=float(self.tol),
                         fit_intercept=False, max_iter=int(self.max_iter), random_state=seed)

    def _fit(self, data: TrainingData) -> None:
        grid = np.asarray(self.C_grid, dtype=np.float64).ravel()
        D, t = pairwise_differences(data.X, data.y, data.offsets)
        self.n_pairs_ = len(t) // 2
        seed = self._seed()
        Xv, val_scorer = data.X_val, data.val_scorer
        self.val_scores_, self.converged_ = [], []
        best = -math.inf
        for C in grid:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                w = self._svc(float(C), seed).fit(D, t).coef_.ravel().astype(np.float64)
            self.converged_.append(not any(issubclass(c.category, ConvergenceWarning) for c in caught))
            score = val_scorer.mean(Xv @ w)
            self.val_scores_.append(score)
            if score > best:
                best, self.coef_, self.best_C_ = score, w.copy(), float(C)
        self.val_score_ = best

    def _predict(self, X) -> np.ndarray:
        return X @ self.coef_
