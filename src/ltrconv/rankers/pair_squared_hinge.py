"""The pairwise squared-hinge objective of linear RankSVM, counted per document.

    f(w) = 1/2 |w|^2 + C sum_{(i,j) in P} max(0, 1 - (s_i - s_j))^2,   s = X w,

over the preference pairs P = {(i, j): same query, l_i > l_j}. Pair (i, j) is active when
``s_i - s_j < 1``. With, for each document k, A+_k = {j: l_j < l_k, s_k - s_j < 1} (the
documents it should beat by the margin and does not) and A-_k = {i: l_i > l_k, s_i - s_k < 1}:

    loss = sum_k sum_{j in A+_k} (1 - s_k + s_j)^2
    grad f = w + 2C X^T a,   a_k = sum_{A+_k} (s_k - s_j - 1) - sum_{A-_k} (s_i - s_k - 1)
    H v    = v + 2C X^T b,   b_k = (|A+_k| + |A-_k|) u_k - sum_{A+_k} u_j - sum_{A-_k} u_i,  u = X v

(H is the generalized Hessian: the active set is that of the last gradient). Each sum is a count
or sum over documents of lower (higher) label whose score lies above (below) a threshold: a
query's documents are sorted by score once per w, and two sweeps over that order with a Fenwick
tree over the query's label levels give every sum in O(n_q log n_q), never O(pairs)
(Chapelle & Keerthi 2010, "Efficient algorithms for ranking with SVMs", Inf. Retr. 13(3);
Lee & Lin 2014, "Large-scale linear RankSVM", Neural Comput. 26(4), with order-statistic trees
for many levels). Scores and directions are centred per query before the sums, which leaves
every difference unchanged and keeps the expanded squares from cancelling.
"""

from __future__ import annotations

import numpy as np
from ..jit import njit


@njit(nogil=True, cache=True)
def _label_levels(y, offsets):
    """Each document's rank among its query's distinct labels, and each query's number of levels."""
    lev = np.empty(len(y), dtype=np.int64)
    nlev = np.zeros(len(offsets) - 1, dtype=np.int64)
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        if b == a:
            continue
        order = np.argsort(y[a:b], kind="mergesort")
        level = 0
        lev[a + order[0]] = 0
        for t in range(1, b - a):
            if y[a + order[t]] != y[a + order[t - 1]]:
                level += 1
            lev[a + order[t]] = level
        nlev[q] = level + 1
    return lev, nlev


@njit(nogil=True, cache=True)
def _fenwick_add(tree, level, col, value):
    i = level + 1
    while i < tree.shape[0]:
        tree[i, col] += value
        i += i & (-i)


@njit(nogil=True, cache=True)
def _fenwick_below(tree, level, col):
    """Sum over the levels < ``level``."""
    total = 0.0
    i = level
    while i > 0:
        total += tree[i, col]
        i -= i & (-i)
    return total


@njit(nogil=True, cache=True)
def _active_sets(s, lev, nlev, offsets, order, up, down, count, alpha):
    """Loss and gradient coefficients ``alpha`` at scores ``s``; fills the state Hv replays:
    ``order`` (each query's documents by ascending score), ``up[k]``/``down[k]`` (where the two
    sweeps stood when document k was read) and ``count[k] = |A+_k| + |A-_k|``."""
    loss = 0.0
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        m = b - a
        L = nlev[q]
        if L < 2:
            for k in range(a, b):
                order[k] = k
                count[k] = 0.0
                alpha[k] = 0.0
            continue
        centre = 0.0
        for k in range(a, b):
            centre += s[k]
        centre /= m
        local = np.argsort(s[a:b], kind="mergesort")
        for t in range(m):
            order[a + t] = a + local[t]
        tree = np.zeros((L + 1, 3))
        # Descending sweep: j joins once s_k - s_j < 1 for the current k, and stays (s_k falls).
        p = m - 1
        for t in range(m - 1, -1, -1):
            k = order[a + t]
            while p >= 0 and s[k] - s[order[a + p]] < 1.0:
                j = order[a + p]
                tj = s[j] - centre
                _fenwick_add(tree, lev[j], 0, 1.0)
                _fenwick_add(tree, lev[j], 1, tj)
                _fenwick_add(tree, lev[j], 2, tj * tj)
                p -= 1
            up[k] = p
            c = _fenwick_below(tree, lev[k], 0)
            s1 = _fenwick_below(tree, lev[k], 1)
            s2 = _fenwick_below(tree, lev[k], 2)
            e = 1.0 - (s[k] - centre)
            loss += c * e * e + 2.0 * e * s1 + s2
            count[k] = c
            alpha[k] = -c * e - s1
        tree[:, :] = 0.0
        # Ascending sweep: i joins once s_i - s_k < 1, and stays (s_k rises).
        p = 0
        for t in range(m):
            k = order[a + t]
            while p < m and s[order[a + p]] - s[k] < 1.0:
                i = order[a + p]
                _fenwick_add(tree, lev[i], 0, 1.0)
                _fenwick_add(tree, lev[i], 1, s[i] - centre)
                p += 1
            down[k] = p
            c = _fenwick_below(tree, L, 0) - _fenwick_below(tree, lev[k] + 1, 0)
            s1 = _fenwick_below(tree, L, 1) - _fenwick_below(tree, lev[k] + 1, 1)
            count[k] += c
            alpha[k] += c * (s[k] - centre + 1.0) - s1
    return loss


@njit(nogil=True, cache=True)
def _hessian_coefficients(u, lev, nlev, offsets, order, up, down, count, beta):
    """``beta`` of H v from ``u = X v``, replaying the sweeps recorded by :func:`_active_sets`."""
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        m = b - a
        L = nlev[q]
        if L < 2:
            for k in range(a, b):
                beta[k] = 0.0
            continue
        centre = 0.0
        for k in range(a, b):
            centre += u[k]
        centre /= m
        tree = np.zeros((L + 1, 1))
        p = m - 1
        for t in range(m - 1, -1, -1):
            k = order[a + t]
            while p > up[k]:
                j = order[a + p]
                _fenwick_add(tree, lev[j], 0, u[j] - centre)
                p -= 1
            beta[k] = count[k] * (u[k] - centre) - _fenwick_below(tree, lev[k], 0)
        tree[:, :] = 0.0
        p = 0
        for t in range(m):
            k = order[a + t]
            while p < down[k]:
                i = order[a + p]
                _fenwick_add(tree, lev[i], 0, u[i] - centre)
                p += 1
            beta[k] -= _fenwick_below(tree, L, 0) - _fenwick_below(tree, lev[k] + 1, 0)


class PairwiseSquaredHinge:
    """``fun``, ``grad`` and ``hess_vec`` of the module's objective for data ``X`` (rows grouped
    by query as ``offsets`` says; used as float64), labels ``y`` and pair weight ``C``.

    ``hess_vec`` uses the active set of the last ``grad`` call, whatever ``fun`` evaluated since
    (a trust-region Newton method tries steps with ``fun`` and may reject them); ``grad`` at the
    point of the last ``fun`` reuses that evaluation.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, offsets: np.ndarray, C: float):
        self.X = np.ascontiguousarray(X, dtype=np.float64)  # no copy when it already is
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.C = float(C)
        self.lev, self.nlev = _label_levels(np.asarray(y, dtype=np.int64), self.offsets)
        self._trial = self._state(X.shape[0])  # written by fun
        self._active = self._state(X.shape[0])  # of the last grad, read by hess_vec
        self._beta = np.empty(X.shape[0])

    @staticmethod
    def _state(n: int) -> dict:
        return {"order": np.empty(n, dtype=np.int64), "up": np.empty(n, dtype=np.int64),
                "down": np.empty(n, dtype=np.int64), "count": np.empty(n),
                "alpha": np.empty(n), "w": None}

    def _evaluate(self, w: np.ndarray, st: dict) -> float:
        st["w"] = None
        loss = _active_sets(self.X @ w, self.lev, self.nlev, self.offsets, st["order"], st["up"],
                            st["down"], st["count"], st["alpha"])
        st["w"] = w.copy()
        return loss

    def fun(self, w: np.ndarray) -> float:
        w = np.asarray(w, dtype=np.float64)
        return 0.5 * float(w @ w) + self.C * self._evaluate(w, self._trial)

    def grad(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=np.float64)
        if self._trial["w"] is not None and np.array_equal(self._trial["w"], w):
            self._trial, self._active = self._active, self._trial
        else:
            self._evaluate(w, self._active)
        return w + 2.0 * self.C * (self.X.T @ self._active["alpha"])

    def hess_vec(self, v: np.ndarray) -> np.ndarray:
        st = self._active
        if st["w"] is None:
            raise RuntimeError("hess_vec needs a grad call first (it fixes the active set)")
        _hessian_coefficients(self.X @ v, self.lev, self.nlev, self.offsets, st["order"], st["up"],
                              st["down"], st["count"], self._beta)
        return v + 2.0 * self.C * (self.X.T @ self._beta)


# --- the same objective in liblinear-ranksvm's arithmetic ---------------------------------------
# Lee & Lin 2014's selection tree (``ranksvm.cpp`` of liblinear-ranksvm): leaves are a query's label
# levels 1..k, heap-numbered after ``2^ceil(log2 k) - 1`` inner nodes; inserting adds a value to a
# leaf and its ancestors, and a query sums the siblings to the right (left) along the path up.
# Sums run in liblinear-ranksvm's order, uncentred, so that w agrees with the tool's to rounding
# along a whole trust-region path (the path amplifies 1e-14 differences at a loose tolerance).

@njit(nogil=True, cache=True)
def _xv(X, v, out):
    """``out = X v``, each row summed over the features in order; four rows at a time, so that
    their independent sums overlap (each row's sum is the same as alone)."""
    n, d = X.shape
    i = 0
    while i + 4 <= n:
        a0 = a1 = a2 = a3 = 0.0
        for j in range(d):
            vj = v[j]
            a0 += vj * X[i, j]
            a1 += vj * X[i + 1, j]
            a2 += vj * X[i + 2, j]
            a3 += vj * X[i + 3, j]
        out[i], out[i + 1], out[i + 2], out[i + 3] = a0, a1, a2, a3
        i += 4
    for r in range(i, n):
        acc = 0.0
        for j in range(d):
            acc += v[j] * X[r, j]
        out[r] = acc


@njit(nogil=True, cache=True)
def _xtv(X, v, out):
    out[:] = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            out[j] += v[i] * X[i, j]


@njit(nogil=True, cache=True)
def _tree_query(xv, size, key, nonleaves, larger):
    """Sum and count over the levels above (``larger``) or below ``key``."""
    tot = 0.0
    cnt = 0
    key += nonleaves
    while key > 1:
        if larger and key % 2 == 0:
            tot += xv[key + 1]
            cnt += size[key + 1]
        elif not larger and key % 2 == 1:
            tot += xv[key - 1]
            cnt += size[key - 1]
        key //= 2
    return tot, cnt


@njit(nogil=True, cache=True)
def _tree_sum(xv, key, nonleaves, larger):
    """:func:`_tree_query`'s sum alone."""
    tot = 0.0
    key += nonleaves
    while key > 1:
        if larger and key % 2 == 0:
            tot += xv[key + 1]
        elif not larger and key % 2 == 1:
            tot += xv[key - 1]
        key //= 2
    return tot


@njit(nogil=True, cache=True)
def _tree_insert(xv, size, key, nonleaves, value):
    key += nonleaves
    while key > 0:
        xv[key] += value
        size[key] += 1
        key //= 2


@njit(nogil=True, cache=True)
def _tree_add(xv, key, nonleaves, value):
    key += nonleaves
    while key > 0:
        xv[key] += value
        key //= 2


@njit(nogil=True, cache=True)
def _tree_shape(k):
    """Inner nodes above ``k`` leaves, ``2^ceil(log2 k) - 1``."""
    inner = 1
    while inner < k:
        inner *= 2
    return inner - 1


@njit(nogil=True, cache=True)
def _sweeps(z, ylev, nlev, offsets, order, out_l, out_g, fwd, bwd, xv, size):
    """The two sweeps of ``fun`` over each query sorted by z ascending (``order``, stable):
    counts and sums of z over the active pairs, the first sweep's into ``out_g[:n]`` and
    ``out_l[:n]``, the second's after them. ``fwd``/``bwd`` record where each sweep's insertion
    pointer stood, for :func:`_hess_sweeps`. ``xv`` and ``size`` hold the trees
    (:func:`_tree_length` entries at least)."""
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        n = b - a
        if n == 0:
            continue
        order[a:b] = a + np.argsort(z[a:b], kind="mergesort")
        k = nlev[q]
        nonleaves = _tree_shape(k)
        xv[:nonleaves + 1 + k] = 0.0
        size[:nonleaves + 1 + k] = 0
        j = 0
        for i in range(n):
            oi = order[a + i]
            while j < n and (1.0 - z[order[a + j]] + z[oi] > 0):
                oj = order[a + j]
                _tree_insert(xv, size, ylev[oj], nonleaves, z[oj])
                j += 1
            fwd[a + i] = j
            if ylev[oi] >= k:
                out_g[oi], out_l[oi] = 0.0, 0
            else:
                out_g[oi], out_l[oi] = _tree_query(xv, size, ylev[oi], nonleaves, True)
        xv[:nonleaves + 1 + k] = 0.0
        size[:nonleaves + 1 + k] = 0
        j = n - 1
        for i in range(n - 1, -1, -1):
            oi = order[a + i]
            while j >= 0 and (1.0 - z[oi] + z[order[a + j]] > 0):
                oj = order[a + j]
                _tree_insert(xv, size, ylev[oj], nonleaves, z[oj])
                j -= 1
            bwd[a + i] = j
            if ylev[oi] <= 1:
                g, c = 0.0, 0
            else:
                g, c = _tree_query(xv, size, ylev[oi], nonleaves, False)
            out_g[len(z) + oi] = g
            out_l[len(z) + oi] = c


@njit(nogil=True, cache=True)
def _hess_sweeps(vals, ylev, nlev, offsets, order, fwd, bwd, out_g, xv):
    """The sweeps of ``Hv``: ``fun``'s two sweeps replayed (its order and pointers) summing
    ``vals`` instead of z, both sweeps' sums added into ``out_g``."""
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        n = b - a
        if n == 0:
            continue
        k = nlev[q]
        nonleaves = _tree_shape(k)
        xv[:nonleaves + 1 + k] = 0.0
        j = 0
        for i in range(n):
            oi = order[a + i]
            while j < fwd[a + i]:
                oj = order[a + j]
                _tree_add(xv, ylev[oj], nonleaves, vals[oj])
                j += 1
            out_g[oi] = 0.0 if ylev[oi] >= k else _tree_sum(xv, ylev[oi], nonleaves, True)
        xv[:nonleaves + 1 + k] = 0.0
        j = n - 1
        for i in range(n - 1, -1, -1):
            oi = order[a + i]
            while j > bwd[a + i]:
                oj = order[a + j]
                _tree_add(xv, ylev[oj], nonleaves, vals[oj])
                j -= 1
            out_g[oi] += 0.0 if ylev[oi] <= 1 else _tree_sum(xv, ylev[oi], nonleaves, False)


@njit(nogil=True, cache=True)
def _levels_from_1(y, offsets):
    lev, nlev = _label_levels(y, offsets)
    return lev + 1, nlev


def _tree_length(nlev) -> int:
    """Entries of the largest query's selection tree: ``2^ceil(log2 k) + k`` for k levels."""
    k = int(nlev.max(initial=1))
    return (1 << max(k - 1, 0).bit_length()) + k


@njit(nogil=True, cache=True)
def _hess_vec(X, v, ylev, nlev, offsets, order, fwd, bwd, lsum, C, wa, gpm, xv, out):
    """``v + 2C X^T (l_i (Xv)_i - gamma_i)`` at the state of the last ``fun``."""
    _xv(X, v, wa)
    _hess_sweeps(wa, ylev, nlev, offsets, order, fwd, bwd, gpm, xv)
    for i in range(len(wa)):
        wa[i] = wa[i] * lsum[i] - gpm[i]
    _xtv(X, wa, out)
    return _plus_2c(v, out, C)


class RankSVMObjective:
    """:class:`PairwiseSquaredHinge`'s objective computed as liblinear-ranksvm computes it:
    ``f = |w|^2 / 2 + C sum_i (z_i (ATAXw_i - 2 ATe_i) + l-_i)``, ``g = w + 2C X^T (ATAXw - ATe)``,
    ``Hv = v + 2C X^T (l_i (Xv)_i - gamma_i)``, every sum in the tool's order. ``grad`` and
    ``hess_vec`` use the state of the last ``fun`` call (as the tool's do)."""

    def __init__(self, X: np.ndarray, y: np.ndarray, offsets: np.ndarray, C: float):
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.C = float(C)
        self.lev, self.nlev = _levels_from_1(np.asarray(y, dtype=np.int64), self.offsets)
        n = self.X.shape[0]
        self.z = np.empty(n)
        self.order = np.empty(n, dtype=np.int64)
        self.lcount = np.empty(2 * n, dtype=np.int64)
        self.gam = np.empty(2 * n)
        self.ataxw = np.empty(n)
        self.ate = np.empty(n)
        self.nw = self.X.shape[1]
        self.lsum = np.empty(n)
        # work space of hess_vec
        self._wa, self._gpm = np.empty(n), np.empty(n)
        self._fwd = np.empty(n, dtype=np.int64)
        self._bwd = np.empty(n, dtype=np.int64)
        self._tree_sums = np.empty(_tree_length(self.nlev))
        self._tree_counts = np.empty(len(self._tree_sums), dtype=np.int64)

    def fun(self, w: np.ndarray) -> float:
        n = len(self.z)
        _xv(self.X, w, self.z)
        _sweeps(self.z, self.lev, self.nlev, self.offsets, self.order, self.lcount, self.gam,
                self._fwd, self._bwd, self._tree_sums, self._tree_counts)
        lp, lm = self.lcount[:n], self.lcount[n:]
        gp, gm = self.gam[:n], self.gam[n:]
        np.add(lp, lm, out=self.lsum, casting="unsafe")
        return _fun_total(w, self.z, lp, lm, gp, gm, self.ataxw, self.ate, self.C)

    def grad(self, w: np.ndarray) -> np.ndarray:
        g = np.empty(self.nw)
        _xtv(self.X, self.ataxw - self.ate, g)
        return _plus_2c(w, g, self.C)

    def hess_vec(self, v: np.ndarray) -> np.ndarray:
        return _hess_vec(self.X, v, self.lev, self.nlev, self.offsets, self.order, self._fwd,
                         self._bwd, self.lsum, self.C, self._wa, self._gpm, self._tree_sums,
                         np.empty(self.nw))


@njit(nogil=True, cache=True)
def _fun_total(w, z, lp, lm, gp, gm, ataxw, ate, C):
    f = 0.0
    for i in range(len(w)):
        f += w[i] * w[i]
    f /= 2.0
    for i in range(len(z)):
        ataxw[i] = (lp[i] + lm[i]) * z[i] - gp[i] - gm[i]
        ate[i] = lm[i] - lp[i]
    for i in range(len(z)):
        f += C * (z[i] * (ataxw[i] - 2 * ate[i]) + lm[i])
    return f


@njit(nogil=True, cache=True)
def _plus_2c(w, g, C):
    out = np.empty(len(w))
    for i in range(len(w)):
        out[i] = w[i] + 2 * C * g[i]
    return out
