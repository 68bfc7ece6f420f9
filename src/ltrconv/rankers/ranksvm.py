"""RankSVM (Herbrich et al. 2000): a linear SVM on within-query pairwise differences.

The objective is liblinear-ranksvm's (Lee & Lin 2014, "Large-scale linear RankSVM", Neural
Comput. 26(4); ``train -s 8``), with its C:

    min_w 1/2 |w|^2 + C sum_{l_i > l_j, same query} max(0, 1 - w.(x_i - x_j))^2

(no intercept, as liblinear-ranksvm's default ``-B -1``). The score is ``w.x``. C runs over a
log grid and the w with the best validation NDCG@k under the training convention is kept (first
best on ties). The paper's protocol (Busa-Fekete et al. 2012, Sec. 4): linear kernel, tolerance
0.001, C validated on a logarithmic grid over [1e-6, 1e4] (here every power of ten).

Solvers (``solver="auto"`` picks the first for the squared hinge, the second for the hinge):
``"newton"`` (squared hinge only) minimises that objective by liblinear-ranksvm's trust-region
Newton method (:mod:`.trust_region`) with its stopping rule ``|grad f(w)| <= tol |grad f(0)|``
(``-e``, default 0.001), its loss, gradient and Hessian-vector products counting the pairs per
document after sorting each query by score with Lee & Lin's selection tree, summed in the tool's
order (:class:`~.pair_squared_hinge.RankSVMObjective`): O(n log n) work and O(n) memory per product
instead of O(pairs). On MQ2008 (every fold, C = 1e-6..1e4) its w equals the tool's to ~1e-16
relative, at the default tolerance and at 1e-9 alike.
``"liblinear"`` fits scikit-learn's ``LinearSVC`` on the materialised differences (2 x pairs x
features float64, both signs, so at ``C / 2`` for the same objective; its own stopping rule);
``loss="hinge"`` needs it (liblinear's dual coordinate descent), so the hinge loss keeps
O(pairs) memory.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .base import Ranker, TrainingData
from .params import Check, Integer, Metric, Number, Options, ParamError, RandomState

# The pair kernels and the trust-region solver load numba; they are imported where a fit
# needs them, so that loading a model and predicting (a dot product) does not.

DEFAULT_C_GRID = tuple(10.0 ** e for e in range(-6, 5))


def pairwise_differences(X, y, offsets) -> tuple[np.ndarray, np.ndarray]:
    """(D, t): ``x_i - x_j`` with t = +1 then ``x_j - x_i`` with t = -1, for l_i > l_j in a query."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    from .pairs import crucial_pairs

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
    """Linear pairwise SVM, C chosen on validation NDCG@k of the training convention.

    ``max_iter`` bounds the Newton steps (``solver="newton"`` and liblinear's primal solver) or
    the dual solver's passes (``loss="hinge"``); ``converged_[c]`` is False when a fit used them
    all. ``random_state`` is liblinear's, which shuffles the dual solver's coordinates
    (``loss="hinge"``); the primal solvers draw nothing.

    The metric does not steer training (``shared_training``): each C's weights minimise the
    pairwise hinge loss, and the validation NDCG only picks the C, so :meth:`fit_many` solves
    each C once for several metrics.
    """

    name = "ranksvm"
    _parameter_constraints = {
        "metric": [Metric()],
        "C_grid": [Check(_grid_ok, "a non-empty list of finite numbers C > 0")],
        "tol": [Number(0, lo_open=True)],
        "loss": [Options("hinge", "squared_hinge")],
        "max_iter": [Integer(1)],
        "random_state": [None, RandomState()],
        "solver": [Options("auto", "newton", "liblinear")],
    }
    _selects = "C"
    # liblinear-ranksvm's train options by their names there, and what stands for each here
    _removed_params = {
        "C": "liblinear-ranksvm's -c C is C_grid=[C]", "c": "liblinear-ranksvm's -c C is C_grid=[C]",
        "e": "liblinear-ranksvm's -e is tol", "eps": "liblinear-ranksvm's -e is tol",
        "B": "liblinear-ranksvm's -B (a bias feature) has no counterpart: the model has no "
             "intercept, as the tool's default -B -1",
        "bias": "liblinear-ranksvm's -B (a bias feature) has no counterpart: the model has no "
                "intercept, as the tool's default -B -1",
        "s": "liblinear-ranksvm's -s 8 is this ranker (loss='squared_hinge', solver='newton')",
    }

    def _selected(self) -> str:
        return f"C = {self.best_C_:g}"

    def __init__(self, *, metric: str = "ndcg@10:ranklib", C_grid=DEFAULT_C_GRID, tol: float = 1e-3,
                 loss: str = "squared_hinge", max_iter: int = 1000,
                 random_state: int | np.random.RandomState | None = 0, solver: str = "auto"):
        self.metric = metric
        self.C_grid = C_grid
        self.tol = tol
        self.loss = loss
        self.max_iter = max_iter
        self.random_state = random_state
        self.solver = solver

    @classmethod
    def validate_params(cls, params) -> None:
        super().validate_params(params)
        if params.get("loss", "squared_hinge") == "hinge" and params.get("solver", "auto") == "newton":
            raise ParamError(f"{cls.name}: loss='hinge' needs solver='liblinear' (the Newton solver "
                             "needs the differentiable squared hinge)", param="solver")

    def __setstate__(self, state):
        # a model saved before the Newton solver existed was fitted by liblinear
        super().__setstate__({"solver": "liblinear", **state})

    def _solver(self) -> str:
        """``auto``: Newton for the squared hinge, liblinear's dual solver for the hinge."""
        if self.solver == "auto":
            return "liblinear" if self.loss == "hinge" else "newton"
        return self.solver

    def _svc(self, C: float, seed: int):
        from sklearn.svm import LinearSVC

        # The primal solver exists for squared hinge only; hinge needs the dual one.
        return LinearSVC(C=C / 2.0, loss=self.loss, dual=self.loss == "hinge", tol=float(self.tol),
                         fit_intercept=False, max_iter=int(self.max_iter), random_state=seed)

    def _fit(self, data: TrainingData) -> None:
        self._fit_shared([self], [data])

    def _fit_shared(self, models: list["RankSVM"], datas: list[TrainingData]) -> None:
        """Each C's weights once; each model keeps the C of its own best validation score."""
        data = datas[0]
        grid = np.asarray(self.C_grid, dtype=np.float64).ravel()
        if self._solver() == "newton":
            from .pairs import count_pairs

            first = {"n_pairs_": int(count_pairs(data.y, data.offsets))}
            fits = (self._newton(data, float(C)) for C in grid)
            last = {}
        else:
            D, t = pairwise_differences(data.X, data.y, data.offsets)
            fits = self._liblinear(D, t, grid)
            first, last = {}, {"n_pairs_": len(t) // 2}
        for model in models:  # the attributes in the order a single fit has always set them
            model.__dict__.update(first)
            model.val_scores_, model.converged_, model.n_iter_ = [], [], []
            model.__dict__.update(last)
        best = [-math.inf] * len(models)
        for i_C, (C, (w, n_iter)) in enumerate(zip(grid, fits), start=1):
            scores = data.X_val @ w
            for i, (model, d) in enumerate(zip(models, datas)):
                model.converged_.append(n_iter < self.max_iter)
                model.n_iter_.append(n_iter)
                score = d.val_scorer.mean(scores)
                model.val_scores_.append(score)
                if score > best[i]:
                    best[i], model.coef_, model.best_C_ = score, w.copy(), float(C)
            data.progress.step(i_C, len(grid),
                               lambda: f"C = {C:g} ({i_C} of {len(grid)})", best)
        for model, score in zip(models, best):
            model.val_score_ = score

    def _newton(self, data: TrainingData, C: float) -> tuple[np.ndarray, int]:
        """w and its Newton steps (liblinear-ranksvm's objective and stopping rule)."""
        from .pair_squared_hinge import RankSVMObjective
        from .trust_region import tron

        obj = RankSVMObjective(data.X, data.y, data.offsets, C)
        res = tron(obj, data.X.shape[1], float(self.tol), int(self.max_iter))
        return res.w, res.n_iter

    def _liblinear(self, D, t, grid):
        """w and liblinear's iterations for each C of ``grid`` on the pair differences ``D``
        and their signs ``t``."""
        from sklearn.exceptions import ConvergenceWarning

        seed = self._seed()
        for C in grid:
            with warnings.catch_warnings():
                # not converging is recorded in converged_ (n_iter_ reaches max_iter)
                warnings.simplefilter("ignore", ConvergenceWarning)
                svc = self._svc(float(C), seed).fit(D, t)
            yield svc.coef_.ravel().astype(np.float64), int(svc.n_iter_)

    def _predict(self, X) -> np.ndarray:
        return X @ self.coef_
