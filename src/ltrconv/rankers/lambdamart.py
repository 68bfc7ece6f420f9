"""LambdaMART (Wu et al. 2010): LightGBM trees fitted to λ-gradients of NDCG@k under a convention.

For a pair i, j of one query with l_i > l_j and scores s:
``rho = 1 / (1 + exp(sigma (s_i - s_j)))``, ``|ΔNDCG_ij| = |g_i - g_j| |d_i - d_j| / IDCG@k``
(gains g and discounts d at the current ranks, d = 0 beyond rank k, as the convention defines
them); the loss gradient gets ``-sigma |ΔNDCG| rho`` on i and ``+sigma |ΔNDCG| rho`` on j, the
Hessian ``sigma^2 |ΔNDCG| rho (1 - rho)`` on both. A query the convention scores the same
whatever the order (1/IDCG = 0) contributes nothing. Boosting rounds are chosen by early
stopping on the validation NDCG@k under the same convention.

Defaults follow the paper (Busa-Fekete et al. 2012, Sec. 4: 10 leaves, learning rate 0.1, rounds
validated) and, where it is silent, RankLib 2.x's LambdaMART defaults: up to 1000 trees, stop
after 100 rounds without validation gain, minimum leaf support 1 (``min_data_in_leaf=1`` with no
Hessian floor per leaf, ``min_sum_hessian_in_leaf=0``), 256 threshold candidates per feature
(``max_bin=256``). ``min_data_in_leaf=50`` is the value tuned on MQ2008 validation data in
earlier versions of this project.
"""

from __future__ import annotations

import math

import lightgbm as lgb
import numpy as np
from numba import njit, prange

from .. import _kernels as K
from ..metrics import NDCGScorer
from .base import ParamError, Ranker


@njit(cache=True)
def query_lambdas(gains_q, scores_q, labels_q, tiekey_q, disc, k, tie_code, inv_idcg, sigma,
                  grad_q, hess_q):
    """Add one query's λ-gradients and Hessians into ``grad_q`` / ``hess_q`` (no n×n matrix)."""
    n = len(gains_q)
    if inv_idcg == 0.0:
        return
    order = K.rank_order(scores_q, labels_q, tiekey_q, 0 if tie_code == 2 else tie_code)
    d = np.zeros(n)
    for p in range(min(k, n)):
        d[order[p]] = disc[p]
    for i in range(n):
        for j in range(n):
            if labels_q[i] <= labels_q[j]:
                continue
            delta = abs((gains_q[i] - gains_q[j]) * (d[i] - d[j])) * inv_idcg
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
def all_lambdas(gains, scores, labels, tiekey, offsets, disc, k, tie_code, inv_idcg, sigma):
    """Loss gradient and Hessian for every document; each query writes only its own rows."""
    n = len(scores)
    grad = np.zeros(n)
    hess = np.zeros(n)
    for q in prange(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        query_lambdas(gains[a:b], scores[a:b], labels[a:b], tiekey[a:b], disc, k, tie_code,
                      inv_idcg[q], sigma, grad[a:b], hess[a:b])
    return grad, hess


def lambda_gradients(scorer: NDCGScorer, scores: np.ndarray, sigma: float = 1.0):
    """(grad, hess) of the LambdaMART loss at ``scores`` under ``scorer``'s convention and k."""
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    return all_lambdas(scorer.gains, scores, scorer.y, scorer.tiekey, scorer.offsets,
                       scorer.disc, scorer.k, scorer.tie_code, scorer.inv_idcg, float(sigma))


class LambdaMART(Ranker):
    """Gradient-boosted regression trees on λ-gradients of the training convention's NDCG@k."""

    name = "lambdamart"

    def __init__(self, metric: str = "ndcg@10:ranklib", n_estimators: int = 1000,
                 learning_rate: float = 0.1, num_leaves: int = 10, min_data_in_leaf: int = 1,
                 min_sum_hessian_in_leaf: float = 0.0, early_stopping_rounds: int = 100,
                 sigma: float = 1.0, hess_floor: float = 1e-6, max_bin: int = 256, num_threads: int = 2, random_state: int = 0):
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

    def _check_params(self) -> None:
        def need(cond: bool, param: str, allowed: str) -> None:
            if not cond:
                raise ParamError(f"{self.name}: {param}={getattr(self, param)!r}; allowed: {allowed}")

        def is_int(v) -> bool:
            return isinstance(v, (int, np.integer)) and not isinstance(v, bool)

        def is_num(v) -> bool:
            return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)

        need(is_int(self.n_estimators) and self.n_estimators >= 1, "n_estimators", "integer >= 1")
        need(is_num(self.learning_rate) and 0 < self.learning_rate <= 1, "learning_rate", "0 < x <= 1")
        need(is_int(self.num_leaves) and self.num_leaves >= 2, "num_leaves", "integer >= 2")
        need(is_int(self.min_data_in_leaf) and self.min_data_in_leaf >= 1, "min_data_in_leaf",
             "integer >= 1")
        need(is_num(self.min_sum_hessian_in_leaf) and 0 <= self.min_sum_hessian_in_leaf < math.inf,
             "min_sum_hessian_in_leaf", "finite x >= 0")
        need(is_int(self.early_stopping_rounds) and self.early_stopping_rounds >= 1,
             "early_stopping_rounds", "integer >= 1")
        need(is_num(self.sigma) and 0 < self.sigma < math.inf, "sigma", "finite x > 0")
        need(is_num(self.hess_floor) and 0 < self.hess_floor < 1, "hess_floor", "0 < x < 1")
        need(is_int(self.max_bin) and self.max_bin >= 2, "max_bin", "integer >= 2")
        need(is_int(self.num_threads) and self.num_threads >= 1, "num_threads", "integer >= 1")
        need(is_int(self.random_state) and self.random_state >= 0, "random_state", "integer >= 0")

    def _lgb_params(self, objective) -> dict:
        return {
            "objective": objective, "metric": "None", "learning_rate": float(self.learning_rate),
            "num_leaves": int(self.num_leaves), "min_data_in_leaf": int(self.min_data_in_leaf),
            "min_sum_hessian_in_leaf": float(self.min_sum_hessian_in_leaf), "max_bin": int(self.max_bin),
            "seed": int(self.random_state), "deterministic": True, "force_col_wise": True,
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

    def fit(self, X, y, qid, *, X_val=None, y_val=None, qid_val=None, docid=None, docid_val=None):
        self._check_params()
        X, y, off, Xv, yv, offv, train_scorer, val_scorer = self._prepare(
            X, y, qid, X_val, y_val, qid_val, docid, docid_val)
        name = str(self.metric_spec)
        params = self._lgb_params(self.objective(train_scorer))
        dtrain = lgb.Dataset(X, label=y.astype(np.float64), params={"verbose": -1,
                             "max_bin": int(self.max_bin)}, free_raw_data=False)
        dval = lgb.Dataset(Xv, label=yv.astype(np.float64), reference=dtrain)
        record: dict = {}
        booster = lgb.train(
            params, dtrain, num_boost_round=int(self.n_estimators), valid_sets=[dval],
            valid_names=["val"], feval=self.feval(val_scorer, name),
            callbacks=[lgb.early_stopping(int(self.early_stopping_rounds), verbose=False),
                       lgb.record_evaluation(record)],
        )
        self.history_ = [float(v) for v in record["val"][name]]
        best = int(booster.best_iteration) or len(self.history_)
        self.best_iteration_ = best
        self.val_score_ = self.history_[best - 1]
        self.model_str_ = booster.model_to_string(num_iteration=best)
        self._booster = lgb.Booster(model_str=self.model_str_)
        self.fitted_ = True
        return self

    def predict(self, X) -> np.ndarray:
        X = self._check_fitted(X)
        return np.asarray(self._booster.predict(X, num_threads=int(self.num_threads)),
                          dtype=np.float64)

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_booster", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "model_str_" in state:
            self._booster = lgb.Booster(model_str=state["model_str_"])
