"""LambdaMART (Wu et al. 2010) as RankLib 2.x implements it, under an NDCG convention.

Each round ranks every training query by the current scores (the convention's tie order;
``average`` ranks tied documents in input order), then for every pair of positions
``p < q`` with ``p < k`` and documents a (at p) and b (at q) of different labels takes

    |ΔNDCG_ab| = |(d_p - d_q) (g_a - g_b) / IDCG@k|

(gains g and discounts d of the convention; d_q is the discount of position q even beyond k,
as in RankLib's ``NDCGScorer.swapChange``), and with the more relevant document i, the other j:

    rho = 1 / (1 + exp(s_i - s_j)),   λ_i += rho |ΔNDCG|,  λ_j -= rho |ΔNDCG|,
    w_i += rho (1 - rho) |ΔNDCG|,     w_j += rho (1 - rho) |ΔNDCG|.

Pairs are visited as RankLib visits them (positions j, then k, both from the top, skipping the
rest of a row once both pass k), so that λ and w are summed in its order. A query whose NDCG the
convention fixes (IDCG = 0, or n < k under ``short=zero``) gets no λ. The discounts of |ΔNDCG|
and its IDCG@k are computed as RankLib computes them, ``1 / (ln(r + 1) / ln 2)`` (see
:func:`swap_discounts`).

A regression tree (:mod:`ltrconv.rankers.regression_tree`) is fitted to λ, each leaf's output
is the Newton step ``sum λ / sum w`` in float32, and every score moves by ``learning_rate x
output`` (the rate a float32, as in RankLib). After each round the validation score is the mean
NDCG@k of the convention over the validation queries, summed and divided in float32 as RankLib
does; a round is the best when it scores strictly higher than every earlier round and than 0.
Training stops once more than ``early_stopping_rounds`` rounds have passed since the best one,
and the model keeps the trees up to the best round (all of them when no round scores above 0).

Every ``exp`` of ρ and every ``ln`` of the discounts is the C library's (``libm="system"``),
which is what a default JVM's ``Math.log`` gives at every rank (checked up to 2,000) and its
``Math.exp`` on all but about 0.24% of arguments: there the two differ in the last bit (the JVM's
exp is HotSpot's own, not the C library's), λ moves by an ulp, and two split candidates whose
``S`` is equal but for rounding can swap (the split rule itself is RankLib's, see
:mod:`ltrconv.rankers.regression_tree`). ``libm="fdlibm"`` computes both with fdlibm
(:mod:`ltrconv.rankers.fdlibm`, Java's ``StrictMath``), which is RankLib's ``Math`` on a JVM run
with ``-XX:+UnlockDiagnosticVMOptions -XX:-UseLibmIntrinsic``: then the model is that run's on
any data.

``predict`` sums ``learning_rate x output`` over the trees with the running sum rounded to
float32 (RankLib's ``Ensemble.eval``); features are compared as float32.

Defaults are RankLib 2.x's (``-ranker 6``): 1000 trees, 10 leaves, 256 threshold candidates,
minimum leaf support 1, learning rate 0.1, early stop after 100 rounds; the paper's settings
(Busa-Fekete et al. 2012, Sec. 4: 10 leaves, learning rate 0.1, rounds validated) agree.
"""

from __future__ import annotations

import math

import numpy as np

from ..evaluation.scorer import NDCGScorer, ideal_dcg, rank_order
from ..evaluation.ties import AVERAGE, INPUT_ORDER
from ..jit import njit, prange, serial_and_parallel, use_parallel
from . import regression_tree as RT
from .base import Ranker, TrainingData
from .fdlibm import fdlibm_exp, fdlibm_log
from .params import COUNT_MAX, Integer, Metric, Number, Options, ParamError

_NO_BEST = 2**31 - 3  # RankLib's initial best round (Integer.MAX_VALUE - 2): never stops early
# documents x trees up to which predict walks the trees with NumPy: loading the compiled kernel
# costs ~0.25 s of CPU, more than NumPy takes for an MQ2008 test split (2,874 x 34)
_NUMPY_PREDICT_MAX = 2_000_000


@njit(cache=True)
def query_lambdas(arrays, scores, idcg, query, lam, w, fdlibm):
    """Add the λ and w (module docstring) of query ``query`` into ``lam`` / ``w`` (all documents',
    like ``scores``): the convention of ``arrays`` (a :class:`QueryArrays` whose ``disc`` are
    :func:`swap_discounts`), ``idcg`` the query's IDCG@k under those discounts; ``exp`` is
    fdlibm's when ``fdlibm``, else the C library's."""
    lo, hi = arrays.offsets[query], arrays.offsets[query + 1]
    gains_q, scores_q, labels_q = arrays.gains[lo:hi], scores[lo:hi], arrays.labels[lo:hi]
    lam_q, w_q = lam[lo:hi], w[lo:hi]
    disc, k, tie_code = arrays.disc, arrays.k, arrays.tie_code
    n = len(scores_q)
    order = rank_order(scores_q, labels_q, arrays.tiekey[lo:hi],
                       INPUT_ORDER if tie_code == AVERAGE else tie_code)
    size = min(k, n)
    for j in range(n):
        a = order[j]
        for kk in range(n):
            if j > k and kk > k:
                break
            b = order[kk]
            if labels_q[a] <= labels_q[b]:
                continue
            p, q = (j, kk) if j < kk else (kk, j)
            if p >= size:
                continue
            delta = abs((disc[p] - disc[q]) * (gains_q[order[p]] - gains_q[order[q]]) / idcg)
            if delta > 0.0:
                x = scores_q[a] - scores_q[b]
                rho = 1.0 / (1.0 + (fdlibm_exp(x) if fdlibm else math.exp(x)))
                lam = rho * delta
                lam_q[a] += lam
                lam_q[b] -= lam
                h = rho * (1.0 - rho) * delta
                w_q[a] += h
                w_q[b] += h


def _all_lambdas(arrays, scores, idcg, fdlibm):
    n = len(scores)
    lam = np.zeros(n)
    w = np.zeros(n)
    for q in prange(len(arrays.offsets) - 1):
        if idcg[q] > 0.0:
            query_lambdas(arrays, scores, idcg[q], q, lam, w, fdlibm)
    return lam, w


all_lambdas, all_lambdas_parallel = serial_and_parallel(_all_lambdas)


def swap_discounts(scorer: NDCGScorer, libm: str = "system") -> np.ndarray:
    """The convention's discounts at ranks 1..len(scorer.disc), ``1 / log2(x)`` evaluated as
    ``1 / (ln x / ln 2)`` like RankLib 2.x's ``DCGScorer`` (``SimpleMath.logBase2``), each
    ``ln`` computed by ``libm`` (:class:`LambdaMART`).

    ``np.log2`` rounds differently in the last bit at some ranks (2, 8, 9, 10, 11, 16, ...);
    λ then moves by an ulp, and among split candidates that divide a node's documents the same
    way (their S equal but for rounding) another one can win: RankLib's trees need its bits.
    """
    if scorer.convention.disc not in ("log2", "letor"):  # no logarithm to round (1/r)
        return np.asarray(scorer.disc, dtype=np.float64).copy()
    n = len(scorer.disc)
    r = np.arange(1, n + 1)
    x = r + 1 if scorer.convention.disc == "log2" else r
    log = fdlibm_log if libm == "fdlibm" else math.log
    ln2 = log(2.0)
    out = np.array([1.0 / (log(float(v)) / ln2) if v > 1 else 1.0 for v in x])
    if scorer.convention.disc == "letor":
        out[:2] = 1.0
    return out


def ideal_dcgs(scorer: NDCGScorer, disc: np.ndarray) -> np.ndarray:
    """IDCG@k of each query under discounts ``disc``, 0 where the convention fixes the
    query's NDCG."""
    arrays = scorer.arrays
    out = np.zeros(len(arrays.inv_idcg))
    for q in np.flatnonzero(arrays.inv_idcg > 0):
        a, b = arrays.offsets[q], arrays.offsets[q + 1]
        out[q] = ideal_dcg(arrays.gains[a:b], disc, arrays.k)
    return out


def lambdas(scorer: NDCGScorer, scores: np.ndarray, disc: np.ndarray | None = None,
            idcg: np.ndarray | None = None, libm: str = "system"):
    """``(λ, w)`` of every document at ``scores`` under ``scorer``'s convention and k
    (``disc`` and ``idcg`` default to :func:`swap_discounts` and :func:`ideal_dcgs` under
    ``libm``), each ``exp`` computed by ``libm`` (:class:`LambdaMART`)."""
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    if disc is None:
        disc = swap_discounts(scorer, libm)
    if idcg is None:
        idcg = ideal_dcgs(scorer, disc)
    kernel = all_lambdas_parallel if use_parallel(len(scores)) else all_lambdas
    return kernel(scorer.arrays._replace(disc=disc), scores, idcg, libm == "fdlibm")


@njit(cache=True)
def _float32_mean(values):
    s = np.float32(0.0)
    for v in values:
        s = np.float32(np.float64(s) + v)
    return np.float32(s / np.float32(len(values)))


def float32_mean(values: np.ndarray) -> float:
    """``sum(values) / len(values)``, the running sum and the quotient rounded to float32."""
    return float(_float32_mean(np.asarray(values, dtype=np.float64)))


LIBMS = ("system", "fdlibm")
"""The ``libm`` choices: the C library's ``exp`` and ``log``, or fdlibm's (Java's ``StrictMath``)."""

MAX_LEAVES = 1 << 16
MAX_THRESHOLDS = 100_000
"""Upper bounds of ``num_leaves`` and ``n_thresholds`` (RankLib 2.x: 10 and 256); within them,
:func:`_check_tree_memory` checks the tree's working memory against the data's width."""

TREE_MEMORY_LIMIT = 4 << 30
"""Bytes a tree may take while it grows (split histograms and node arrays)."""


def _check_tree_memory(num_leaves: int, n_features: int, n_candidates: int) -> None:
    """Refuse ``num_leaves`` whose split histograms, (num_leaves + 2) x features x threshold
    candidates of a float64 sum and an int64 count, exceed :data:`TREE_MEMORY_LIMIT`."""
    need = (num_leaves + 2) * n_features * n_candidates * 16 + (2 * num_leaves + 1) * 81
    if need > TREE_MEMORY_LIMIT:
        raise ParamError(
            f"lambdamart: num_leaves={num_leaves} with {n_features} features and "
            f"{n_candidates} threshold candidates each needs {need / 2**30:.1f} GiB for its "
            f"split histograms, above the {TREE_MEMORY_LIMIT >> 30} GiB a tree may take; lower "
            "num_leaves or n_thresholds", param="num_leaves")


class LambdaMART(Ranker):
    """Gradient-boosted regression trees on λ-gradients of the training convention's NDCG@k,
    RankLib 2.x's algorithm (module docstring). Deterministic: nothing is drawn."""

    name = "lambdamart"
    _parameter_constraints = {
        "metric": [Metric()],
        "n_estimators": [Integer(1)],
        "learning_rate": [Number(0, 1, lo_open=True)],
        "num_leaves": [Integer(2, MAX_LEAVES)],
        "n_thresholds": [Integer(1, MAX_THRESHOLDS)],
        "min_data_in_leaf": [Integer(1, COUNT_MAX)],
        "early_stopping_rounds": [Integer(1)],
        "libm": [Options(*LIBMS)],
    }
    _removed_params = {
        "random_state": "RankLib's LambdaMART is deterministic; the parameter had no effect "
                        "and was removed",
        "num_threads": "the kernels run on numba's threads (NUMBA_NUM_THREADS)",
        "max_bin": "RankLib's candidates are n_thresholds, not LightGBM's bins",
        **{p: "a LightGBM parameter (lambdamart_lightgbm has it)"
           for p in ("sigma", "hess_floor", "min_sum_hessian_in_leaf")},
    }
    _selects = "the number of trees (early stopping)"

    def _selected(self) -> str:
        return f"{self.best_iteration_} trees"

    def __setstate__(self, state: dict) -> None:
        # a model saved before libm existed computed with the C library
        super().__setstate__({"libm": "system", **state})

    def __init__(self, *, metric: str = "ndcg@10:ranklib", n_estimators: int = 1000,
                 learning_rate: float = 0.1, num_leaves: int = 10, n_thresholds: int = 256,
                 min_data_in_leaf: int = 1, early_stopping_rounds: int = 100,
                 libm: str = "system"):
        self.metric = metric
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.num_leaves = num_leaves
        self.n_thresholds = n_thresholds
        self.min_data_in_leaf = min_data_in_leaf
        self.early_stopping_rounds = early_stopping_rounds
        self.libm = libm

    def _fit(self, data: TrainingData) -> None:
        X32 = data.X.astype(np.float32)
        Xv32 = data.X_val.astype(np.float32)
        thresholds, n_bins = RT.threshold_candidates(X32, int(self.n_thresholds))
        _check_tree_memory(int(self.num_leaves), X32.shape[1], thresholds.shape[1])
        bins = RT.bin_index(X32, thresholds, n_bins)
        root_counts = RT.bin_counts(bins, n_bins, thresholds.shape[1])
        rate32 = np.float32(self.learning_rate)
        rate = np.float64(rate32)
        scorer, val_scorer = data.scorer, data.val_scorer
        disc = swap_discounts(scorer, self.libm)
        idcg = ideal_dcgs(scorer, disc)
        n = len(data.y)
        scores = np.zeros(n)
        val_scores = np.zeros(len(data.y_val))
        perm = np.empty(n, dtype=np.int64)
        work = np.empty(n, dtype=np.int64)
        trees, train_hist, val_hist = [], [], []
        best, best_score = _NO_BEST, 0.0
        for m in range(int(self.n_estimators)):
            lam, w = lambdas(scorer, scores, disc, idcg, self.libm)
            feature, threshold, left, right, start, size = RT.fit_tree(
                bins, n_bins, thresholds, root_counts, lam, int(self.num_leaves),
                int(self.min_data_in_leaf), perm, work)
            value = RT.newton_outputs(feature, start, size, perm, lam, w)
            for node in np.flatnonzero(feature == -1):
                docs = perm[start[node]:start[node] + size[node]]
                scores[docs] += rate * np.float64(value[node])
            trees.append((feature, threshold, left, right, value))
            val_scores += rate * RT.tree_values(Xv32, feature, threshold, left, right,
                                                value).astype(np.float64)
            train_hist.append(float32_mean(scorer.per_query(scores)))
            v = float32_mean(val_scorer.per_query(val_scores))
            val_hist.append(v)
            if v > best_score:
                best, best_score = m, v
            data.progress.step(m + 1, int(self.n_estimators),
                               lambda: f"tree {m + 1} of at most {self.n_estimators}", best_score)
            if m - best > int(self.early_stopping_rounds):
                break
        kept = len(trees) if best == _NO_BEST else best + 1
        self.train_history_ = train_hist
        self.history_ = val_hist
        self.best_iteration_ = kept
        self.val_score_ = val_hist[kept - 1]
        self.rate_ = rate32
        self._store(trees[:kept])

    def _store(self, trees) -> None:
        sizes = [len(t[0]) for t in trees]
        self.tree_offsets_ = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.feature_, self.threshold_, self.left_, self.right_, self.value_ = (
            np.concatenate([t[i] for t in trees]) for i in range(5))

    def _predict(self, X) -> np.ndarray:
        X32 = np.ascontiguousarray(X, dtype=np.float32)
        small = X32.shape[0] * (len(self.tree_offsets_) - 1) <= _NUMPY_PREDICT_MAX
        kernel = RT.ensemble_scores_numpy if small else RT.ensemble_scores
        return kernel(X32, self.tree_offsets_, self.feature_, self.threshold_, self.left_,
                      self.right_, self.value_, self.rate_)

    def trees(self) -> list[dict]:
        """The fitted trees as node arrays (``feature`` 0-based, -1 at leaves; ``left`` /
        ``right`` child indices; ``threshold`` float32; ``value`` the leaf outputs)."""
        out = []
        for a, b in zip(self.tree_offsets_[:-1], self.tree_offsets_[1:]):
            out.append({key: getattr(self, key + "_")[a:b].copy()
                        for key in ("feature", "threshold", "left", "right", "value")})
        return out
