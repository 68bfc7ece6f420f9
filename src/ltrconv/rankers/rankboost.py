"""RankBoost (Freund, Iyer, Schapire & Singer 2003) with threshold stumps.

Crucial pairs are (i, j) of one query with ``l_i > l_j``; ``D`` starts uniform over them.
Round t picks the stump ``h(x) = [x_f > theta]`` maximising ``|r|`` with
``r = sum_(i,j) D(i,j) (h(x_i) - h(x_j)) = sum_x h(x) pi(x)``, where the potential
``pi(x) = sum_j D(x, j) - sum_i D(i, x)`` (mass where x is the better minus the worse
document), so a round costs O(docs x features + pairs). Then ``alpha = 0.5 ln((1+r)/(1-r))``
and ``D(i,j) <- D(i,j) exp(alpha (h(x_j) - h(x_i))) / Z``. The model is
``F(x) = sum_t alpha_t h_t(x)``; the number of rounds is the prefix with the best validation
NDCG@k under the training convention.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import InputError
from .base import ParamError, Ranker
from .pairs import crucial_pairs

_R_LIMIT = 1.0 - 1e-10


@njit(cache=True)
def potentials(D, hi, lo, n):
    """pi(x) = D-mass of pairs where x is better minus D-mass where x is worse."""
    pi = np.zeros(n)
    for p in range(len(D)):
        pi[hi[p]] += D[p]
        pi[lo[p]] -= D[p]
    return pi


@njit(cache=True)
def best_stump(bins, pi, n_thr):
    """Stump (feature, threshold index, r) maximising |r|; the first in (f, t) order wins ties.

    ``bins[x, f]`` counts the thresholds of feature f strictly below ``x_f``, so the stump
    with threshold index t fires on x iff ``bins[x, f] > t`` and
    ``r(f, t) = sum_{x: bins[x, f] > t} pi(x)`` (a suffix sum of the per-bin potentials).
    """
    n, d = bins.shape
    best_f, best_t, best_r = -1, -1, 0.0
    for f in range(d):
        m = n_thr[f]
        if m == 0:
            continue
        hist = np.zeros(m + 1)
        for x in range(n):
            hist[bins[x, f]] += pi[x]
        suffix = np.zeros(m)
        acc = 0.0
        for t in range(m - 1, -1, -1):
            acc += hist[t + 1]
            suffix[t] = acc
        for t in range(m):
            if abs(suffix[t]) > abs(best_r):
                best_f, best_t, best_r = f, t, suffix[t]
    return best_f, best_t, best_r


@njit(cache=True)
def reweight(D, hi, lo, fires, alpha):
    """D(i,j) <- D(i,j) exp(alpha (h_j - h_i)), renormalised to sum 1."""
    up = np.exp(alpha)
    down = np.exp(-alpha)
    total = 0.0
    for p in range(len(D)):
        diff = fires[lo[p]] - fires[hi[p]]
        if diff > 0:
            D[p] *= up
        elif diff < 0:
            D[p] *= down
        total += D[p]
    for p in range(len(D)):
        D[p] /= total


def candidate_thresholds(X: np.ndarray, n_thresholds: int) -> list[np.ndarray]:
    """Per feature, distinct quantiles of the training values below the maximum (ascending)."""
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


def bin_features(X: np.ndarray, thresholds: list[np.ndarray]) -> np.ndarray:
    """bins[x, f] = number of thresholds of feature f strictly below X[x, f]."""
    bins = np.empty(X.shape, dtype=np.int64)
    for f, thr in enumerate(thresholds):
        bins[:, f] = np.searchsorted(thr, X[:, f], side="left")
    return bins


class RankBoost(Ranker):
    """Pairwise boosting of threshold stumps; rounds chosen on validation NDCG@k.

    The algorithm is deterministic; ``random_state`` exists for the common interface only.
    """

    name = "rankboost"

    def __init__(self, n_rounds: int = 300, n_thresholds: int = 10,
                 metric: str = "ndcg@10:ranklib", random_state: int = 0):
        self.n_rounds = n_rounds
        self.n_thresholds = n_thresholds
        self.metric = metric
        self.random_state = random_state

    def _check_params(self) -> None:
        for pname, lo in (("n_rounds", 1), ("n_thresholds", 1)):
            v = getattr(self, pname)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < lo:
                raise ParamError(f"{self.name}: {pname} must be an integer >= {lo}, got {v!r}")
        self.metric_spec  # raises ParamError on a bad metric

    def fit(self, X, y, qid, *, X_val=None, y_val=None, qid_val=None, docid=None, docid_val=None):
        self._check_params()
        X, y, off, Xv, yv, offv, _, val_scorer = self._prepare(
            X, y, qid, X_val, y_val, qid_val, docid, docid_val)
        thresholds = candidate_thresholds(X, int(self.n_thresholds))
        n_thr = np.array([len(t) for t in thresholds], dtype=np.int64)
        bins = bin_features(X, thresholds)
        hi, lo = crucial_pairs(y, off)
        if len(hi) == 0:
            raise InputError(f"{self.name}: no query of the training data has two different labels")
        feats, thetas, alphas, history = [], [], [], []
        D = np.full(len(hi), 1.0 / len(hi))
        F_val = np.zeros(len(yv))
        for _ in range(int(self.n_rounds)):
            pi = potentials(D, hi, lo, len(y))
            f, t, r = best_stump(bins, pi, n_thr)
            if f < 0 or r == 0.0:
                break
            r = float(np.clip(r, -_R_LIMIT, _R_LIMIT))
            alpha = 0.5 * np.log((1.0 + r) / (1.0 - r))
            theta = float(thresholds[f][t])
            fires = (bins[:, f] > t).astype(np.int64)
            reweight(D, hi, lo, fires, alpha)
            F_val += alpha * (Xv[:, f] > theta)
            feats.append(int(f))
            thetas.append(theta)
            alphas.append(float(alpha))
            history.append(val_scorer.mean(F_val))
        self.history_ = history
        self.best_iteration_ = int(np.argmax(history)) + 1 if history else 0
        self.val_score_ = float(history[self.best_iteration_ - 1]) if history else val_scorer.mean(
            np.zeros(len(yv)))
        keep = self.best_iteration_
        self.features_ = np.array(feats[:keep], dtype=np.int64)
        self.thresholds_ = np.array(thetas[:keep], dtype=np.float64)
        self.alphas_ = np.array(alphas[:keep], dtype=np.float64)
        self.fitted_ = True
        return self

    def predict(self, X) -> np.ndarray:
        """F(x) = sum_t alpha_t [x_{f_t} > theta_t]."""
        X = self._check_fitted(X)
        out = np.zeros(X.shape[0])
        for f, theta, a in zip(self.features_, self.thresholds_, self.alphas_):
            out += a * (X[:, f] > theta)
        return out
