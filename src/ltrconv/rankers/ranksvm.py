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

from .base import ParamError, Ranker
from .pairs import crucial_pairs

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


class RankSVM(Ranker):
    """Linear pairwise SVM (liblinear), C chosen on validation NDCG@k of the training convention."""

    name = "ranksvm"

    def __init__(self, metric: str = "ndcg@10:ranklib", C_grid=DEFAULT_C_GRID, tol: float = 1e-3,
                 loss: str = "squared_hinge", max_iter: int = 1000, random_state: int = 0):
        self.metric = metric
        self.C_grid = C_grid
        self.tol = tol
        self.loss = loss
        self.max_iter = max_iter
        self.random_state = random_state

    def _check_params(self) -> np.ndarray:
        def bad(param: str, allowed: str) -> ParamError:
            return ParamError(f"{self.name}: {param}={getattr(self, param)!r}; allowed: {allowed}")

        try:
            grid = np.asarray(self.C_grid, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            raise bad("C_grid", "non-empty list of finite C > 0") from None
        if grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
            raise bad("C_grid", "non-empty list of finite C > 0")
        num = (int, float, np.integer, np.floating)
        if isinstance(self.tol, bool) or not isinstance(self.tol, num) or not 0 < self.tol < math.inf:
            raise bad("tol", "finite x > 0")
        if self.loss not in ("hinge", "squared_hinge"):
            raise bad("loss", "'hinge' or 'squared_hinge'")
        for p in ("max_iter", "random_state"):
            v = getattr(self, p)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < (p == "max_iter"):
                raise bad(p, "integer >= 1" if p == "max_iter" else "integer >= 0")
        return grid

    def _svc(self, C: float) -> LinearSVC:
        # The primal solver exists for squared hinge only; hinge needs the dual one.
        return LinearSVC(C=C, loss=self.loss, dual=self.loss == "hinge", tol=float(self.tol),
                         fit_intercept=False, max_iter=int(self.max_iter),
                         random_state=int(self.random_state))

    def fit(self, X, y, qid, *, X_val=None, y_val=None, qid_val=None, docid=None, docid_val=None):
        grid = self._check_params()
        X, y, off, Xv, yv, offv, _, val_scorer = self._prepare(
            X, y, qid, X_val, y_val, qid_val, docid, docid_val)
        D, t = pairwise_differences(X, y, off)
        self.n_pairs_ = len(t) // 2
        if self.n_pairs_ == 0:
            self.coef_ = np.zeros(X.shape[1])
            self.best_C_, self.val_scores_, self.converged_ = float(grid[0]), [], []
            self.val_score_ = val_scorer.mean(Xv @ self.coef_)
            self.fitted_ = True
            return self
        self.val_scores_, self.converged_ = [], []
        best = -math.inf
        for C in grid:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                w = self._svc(float(C)).fit(D, t).coef_.ravel().astype(np.float64)
            self.converged_.append(not any(issubclass(c.category, ConvergenceWarning) for c in caught))
            score = val_scorer.mean(Xv @ w)
            self.val_scores_.append(score)
            if score > best:
                best, self.coef_, self.best_C_ = score, w.copy(), float(C)
        self.val_score_ = best
        self.fitted_ = True
        return self

    def predict(self, X) -> np.ndarray:
        X = self._check_fitted(X)
        return X @ self.coef_
