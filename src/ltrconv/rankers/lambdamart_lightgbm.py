"""LambdaMART (Wu et al. 2010) on LightGBM: its trees fitted to λ-gradients of NDCG@k under a
convention (RankLib 2.x's own algorithm is :mod:`ltrconv.rankers.lambdamart`).

For a pair i, j of one query with l_i > l_j and scores s:
``rho = 1 / (1 + exp(sigma (s_i - s_j)))``, ``|ΔNDCG_ij| = |g_i - g_j| |d_i - d_j| / IDCG@k``
(gains g and discounts d at the current ranks, d = 0 beyond rank k, as the convention defines
them); the loss gradient gets ``-sigma |ΔNDCG| rho`` on i and ``+sigma |ΔNDCG| rho`` on j, the
Hessian ``sigma^2 |ΔNDCG| rho (1 - rho)`` on both. A query the convention scores the same
whatever the order (1/IDCG = 0) contributes nothing. Boosting rounds are chosen by early
stopping on the validation NDCG@k under the same convention.

Defaults follow the paper (Busa-Fekete et al. 2012, Sec. 4: 10 leaves, learning rate 0.1, rounds
validated) and, where it is silent, RankLib 2.x's LambdaMART defaults: up to 1000 trees, stop
after 100 rounds without validation gain, minimum leaf support 1 (``min_data_in_leaf=1``), 256
threshold candidates per feature (``max_bin=256``). ``min_data_in_leaf=50`` is the value tuned
on MQ2008 validation data in earlier versions of this project.

``min_sum_hessian_in_leaf`` is LightGBM's own default, 1e-3, not RankLib's absent floor (0):
with 0, LightGBM 4.7.0 stops at 100,000 MSLR-shaped documents
(:func:`ltrconv.data.synthetic.make_mslr_like`, 100 trees) with ``Check failed:
(best_split_info.left_count) > (0)``, while 1e-3 fits them (98 trees kept, 10.7 s of CPU). On
MQ2008 the two give the same model, every tree to the early stop, on each of Folds 1-5 under
ranklib, yahoo and letor (ranklib test NDCG@10 0.4702, 0.4572, 0.4902, 0.5536, 0.5159).
"""

from __future__ import annotations

import math

import numpy as np

from ..evaluation.scorer import NDCGScorer, rank_discounts, swap_delta
from ..jit import njit, prange
from .base import Ranker, TrainingData
from .params import COUNT_MAX, Integer, Metric, Number, RandomState

MAX_LEAVES = 131_072
"""LightGBM 4.x's own bound on ``num_leaves`` (its parameter check: 1 < num_leaves <= 131072)."""
MAX_SIGMA = 1e6
"""Largest ``sigma``: the Hessian grows as sigma^2 and LightGBM keeps it in float32 (at most
3.4e38); 1e6 (sigma^2 = 1e12) leaves ample room, against 1 in RankLib and LightGBM."""
MAX_THREADS = 1024
"""Largest ``num_threads`` (LightGBM's OpenMP threads; with 10^26 a fit on six queries had not
finished after 15 s)."""


@njit(cache=True)
def query_lambdas(arrays, scores, sigma, q, grad, hess):
    """Add the λ-gradients and Hessians of query ``q`` under the convention of ``arrays`` (a
    :class:`QueryArrays`) into ``grad`` / ``hess`` (all documents', like ``scores``; no n×n
    matrix); ``|ΔNDCG|`` from :func:`ltrconv.evaluation.scorer.swap_delta`."""
    inv_idcg = arrays.inv_idcg[q]
    if inv_idcg == 0.0:
        return
    a, b = arrays.offsets[q], arrays.offsets[q + 1]
    gains_q, scores_q, labels_q = arrays.gains[a:b], scores[a:b], arrays.labels[a:b]
    grad_q, hess_q = grad[a:b], hess[a:b]
    n = len(gains_q)
    d = rank_discounts(scores_q, labels_q, arrays.tiekey[a:b], arrays.disc, arrays.k,
                       arrays.tie_code)
    for i in range(n):
        for j in range(n):
            if labels_q[i] <= labels_q[j]:
                continue
            delta = swap_delta(gains_q, d, i, j, inv_idcg)
            if delta == 0.0:
                continue
            rho = 1.0 / (1.0 + math.exp(sigma * (scores_q[i] - scores_q[j])))
            lam = sigma * delta * rho
            h = sigma * sigma * delta * rho * (1.0 - rho)
            grad_q[i] -= lam
            grad_q[j] += lam
            hess_q[i] += h
            hess_q[j] += h


@njit(parallel=True, cache=True)
def all_lambdas(arrays, scores, sigma):
    """Loss gradient and Hessian for every document; each query writes only its own rows."""
    n = len(scores)
    grad = np.zeros(n)
    hess = np.zeros(n)
    for q in prange(len(arrays.offsets) - 1):
        query_lambdas(arrays, scores, sigma, q, grad, hess)
    return grad, hess


def lambda_gradients(scorer: NDCGScorer, scores: np.ndarray, sigma: float = 1.0):
    """(grad, hess) of the LambdaMART loss at ``scores`` under ``scorer``'s convention and k."""
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    return all_lambdas(scorer.arrays, scores, float(sigma))


class LambdaMARTLightGBM(Ranker):
    """Gradient-boosted regression trees on λ-gradients of the training convention's NDCG@k.

    ``random_state`` is LightGBM's ``seed``; ``num_threads`` does not change the model
    (``deterministic=True``).
    """

    name = "lambdamart_lightgbm"
    _parameter_constraints = {
        "metric": [Metric()],
        "n_estimators": [Integer(1, COUNT_MAX)],
        "learning_rate": [Number(0, 1, lo_open=True)],
        "num_leaves": [Integer(2, MAX_LEAVES)],
        "min_data_in_leaf": [Integer(1, COUNT_MAX)],
        "min_sum_hessian_in_leaf": [Number(0)],
        "early_stopping_rounds": [Integer(1, COUNT_MAX)],
        "sigma": [Number(0, MAX_SIGMA, lo_open=True)],
        "hess_floor": [Number(0, 1, lo_open=True, hi_open=True)],
        "max_bin": [Integer(2, COUNT_MAX)],
        "num_threads": [Integer(1, MAX_THREADS)],
        "random_state": [None, RandomState()],
    }
    _selects = "the number of trees (early stopping)"

    def _selected(self) -> str:
        return f"{self.best_iteration_} trees"

    def __init__(self, *, metric: str = "ndcg@10:ranklib", n_estimators: int = 1000,
                 learning_rate: float = 0.1, num_leaves: int = 10, min_data_in_leaf: int = 1,
                 min_sum_hessian_in_leaf: float = 1e-3, early_stopping_rounds: int = 100,
                 sigma: float = 1.0, hess_floor: float = 1e-6, max_bin: int = 256,
                 num_threads: int = 2, random_state: int | np.random.RandomState | None = 0):
        self.metric = metric
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.min_data_in_leaf = min_data_in_leaf
        self.min_sum_hessian_in_leaf = min_sum_hessian_in_leaf
        self.early_stopping_rounds = early_stopping_rounds
        self.sigma = sigma
        self.hess_floor = hess_floor
        self.max_bin = max_bin
        self.num_threads = num_threads
        self.random_state = random_state

    def _lgb_params(self, objective, seed: int) -> dict:
        return {
            "objective": objective, "metric": "None", "learning_rate": float(self.learning_rate),
            "num_leaves": int(self.num_leaves), "min_data_in_leaf": int(self.min_data_in_leaf),
            "min_sum_hessian_in_leaf": float(self.min_sum_hessian_in_leaf), "max_bin": int(self.max_bin),
            "seed": seed, "deterministic": True, "force_col_wise": True,
            "num_threads": int(self.num_threads), "verbose": -1, "feature_pre_filter": False,
        }

    def objective(self, scorer: NDCGScorer):
        """LightGBM objective callable ``(preds, data) -> (grad, hess)`` for the training set."""
        sigma, floor = float(self.sigma), float(self.hess_floor)

        def fobj(preds, _data):
            grad, hess = lambda_gradients(scorer, preds, sigma)
            return grad, np.maximum(hess, floor)

        return fobj

    @staticmethod
    def feval(scorer: NDCGScorer, name: str):
        """LightGBM evaluation callable: mean NDCG@k of ``scorer`` (higher is better)."""

        def feval(preds, _data):
            return name, scorer.mean(preds), True

        return feval

    def _fit(self, data: TrainingData) -> None:
        # imported here: LightGBM loads scikit-learn, which checking parameters does not need
        import lightgbm as lgb

        name = str(self.metric_spec)
        params = self._lgb_params(self.objective(data.scorer), self._seed())
        dtrain = lgb.Dataset(data.X, label=data.y.astype(np.float64),
                             params={"verbose": -1, "max_bin": int(self.max_bin)},
                             free_raw_data=False)
        dval = lgb.Dataset(data.X_val, label=data.y_val.astype(np.float64), reference=dtrain)
        record: dict = {}
        booster = lgb.train(
            params, dtrain, num_boost_round=int(self.n_estimators), valid_sets=[dval],
            valid_names=["val"], feval=self.feval(data.val_scorer, name),
            callbacks=[lgb.early_stopping(int(self.early_stopping_rounds), verbose=False),
                       lgb.record_evaluation(record)],
        )
        self.history_ = [float(v) for v in record["val"][name]]
        best = int(booster.best_iteration) or len(self.history_)
        self.best_iteration_ = best
        self.val_score_ = self.history_[best - 1]
        self.model_str_ = booster.model_to_string(num_iteration=best)
        self._booster = lgb.Booster(model_str=self.model_str_)

    def _predict(self, X) -> np.ndarray:
        return np.asarray(self._booster.predict(X, num_threads=int(self.num_threads)),
                          dtype=np.float64)

    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: the live booster stays
        state.pop("_booster", None)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "model_str_" in state:
            import lightgbm as lgb

            self._booster = lgb.Booster(model_str=state["model_str_"])
