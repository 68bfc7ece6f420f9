"""Least-squares regression trees on threshold histograms, grown as RankLib 2.x grows them.

The rules, as RankLib 2.x's ``learning/tree`` package applies them (``LambdaMART.init``,
``FeatureHistogram``, ``RegressionTree``, ``Split``):

* Features are float32. A feature's split candidates are its sorted distinct training values
  when there are at most ``n_thresholds`` of them, else ``n_thresholds`` float32 points
  ``c_0 = min``, ``c_j = c_{j-1} + (max - min) / n_thresholds`` (accumulated in float32); a
  last candidate ``FLT_MAX`` closes the list. A document falls in bin ``t``, the first
  candidate with ``x <= c_t``; it goes left of split ``(f, t)`` when its bin is ``<= t``.
* A node's histogram holds, per feature and candidate, the cumulative sum of the responses
  and the count of its documents. The root's sums are summed in document order; a split
  builds the left child's histogram from its documents and the right child's as the parent's
  minus the left's (sums, counts, sum and sum of squares of the responses alike).
* The best split maximises ``S = L^2 / n_L + R^2 / n_R`` (L, R: sums of responses on either
  side, both sides at least ``min_leaf`` documents), features and candidates scanned in order,
  the first maximum kept. A node whose deviance ``sum r^2 - (sum r)^2 / n`` is exactly 0, or
  with fewer than ``2 min_leaf`` documents, stays a leaf.
* Leaves wait in a queue by deviance, largest first, a new node going before those of equal
  deviance (left child queued before right); the head is split next while the leaves already
  final plus those queued are fewer than ``num_leaves``. The root is always tried first.

Trees are stored as node arrays (``feature`` -1 marks a leaf); an ensemble concatenates them.
"""

from __future__ import annotations

import numpy as np

from ..jit import njit

FLT_MAX = np.float32(np.finfo(np.float32).max)


def threshold_candidates(X32: np.ndarray, n_thresholds: int) -> tuple[np.ndarray, np.ndarray]:
    """``(thresholds, n_bins)``: row f of the float32 matrix ``thresholds`` holds feature f's
    ``n_bins[f]`` candidates (the rule above), padded with ``FLT_MAX``."""
    n_features = X32.shape[1]
    cands = []
    for f in range(n_features):
        values = np.unique(X32[:, f])
        if len(values) <= n_thresholds:
            c = np.append(values, FLT_MAX).astype(np.float32)
        else:
            lo, hi = values[0], values[-1]
            step = np.float32(abs(np.float32(hi - lo)) / np.float32(n_thresholds))
            c = np.empty(n_thresholds + 1, dtype=np.float32)
            c[0] = lo
            for j in range(1, n_thresholds):
                c[j] = np.float32(c[j - 1] + step)
            c[n_thresholds] = FLT_MAX
        cands.append(c)
    n_bins = np.array([len(c) for c in cands], dtype=np.int64)
    thresholds = np.full((n_features, int(n_bins.max(initial=1))), FLT_MAX, dtype=np.float32)
    for f, c in enumerate(cands):
        thresholds[f, :len(c)] = c
    return thresholds, n_bins


def bin_index(X32: np.ndarray, thresholds: np.ndarray, n_bins: np.ndarray) -> np.ndarray:
    """Documents x features (uint16): the first candidate ``t`` with ``x <= thresholds[f, t]``."""
    out = np.empty(X32.shape, dtype=np.uint16)
    for f in range(X32.shape[1]):
        out[:, f] = np.searchsorted(thresholds[f, :n_bins[f]], X32[:, f], side="left")
    return out


@njit(cache=True)
def bin_counts(bins, n_bins, tmax):
    """Cumulative count of all documents per feature and candidate (the root's, every tree)."""
    n, nf = bins.shape
    cnt = np.zeros((nf, tmax), dtype=np.int64)
    for k in range(n):
        for f in range(nf):
            cnt[f, bins[k, f]] += 1
    for f in range(nf):
        for t in range(1, n_bins[f]):
            cnt[f, t] += cnt[f, t - 1]
    return cnt


@njit(cache=True)
def _root_histogram(bins, n_bins, r, hsum):
    """Cumulative sums of all documents' responses, each bin summed in document order;
    return (sum r, sum r^2) in that order."""
    n, nf = bins.shape
    for f in range(nf):
        hsum[f, :n_bins[f]] = 0.0
    s = 0.0
    sq = 0.0
    for k in range(n):
        rk = r[k]
        for f in range(nf):
            hsum[f, bins[k, f]] += rk
        s += rk
        sq += rk * rk
    for f in range(nf):
        for t in range(1, n_bins[f]):
            hsum[f, t] += hsum[f, t - 1]
    return s, sq


@njit(cache=True)
def _child_histogram(bins, n_bins, r, docs, hsum, hcnt):
    """Cumulative sums and counts of the documents ``docs``, each bin summed in the order of
    ``docs``; return (sum r, sum r^2) in that order."""
    nf = bins.shape[1]
    for f in range(nf):
        hsum[f, :n_bins[f]] = 0.0
        hcnt[f, :n_bins[f]] = 0
    s = 0.0
    sq = 0.0
    for k in docs:
        rk = r[k]
        for f in range(nf):
            t = bins[k, f]
            hsum[f, t] += rk
            hcnt[f, t] += 1
        s += rk
        sq += rk * rk
    for f in range(nf):
        for t in range(1, n_bins[f]):
            hsum[f, t] += hsum[f, t - 1]
            hcnt[f, t] += hcnt[f, t - 1]
    return s, sq


@njit(cache=True)
def _best_split(hsum, hcnt, n_bins, total_sum, min_leaf):
    """(feature, candidate) of the largest ``S``; (-1, -1) when no candidate qualifies."""
    total = hcnt[0, n_bins[0] - 1]
    best_s = -1.0
    bf = -1
    bt = -1
    for f in range(len(n_bins)):
        for t in range(n_bins[f]):
            cl = hcnt[f, t]
            cr = total - cl
            if cl < min_leaf or cr < min_leaf:
                continue
            sl = hsum[f, t]
            sr = total_sum - sl
            s = sl * sl / cl + sr * sr / cr
            if best_s < s:
                best_s = s
                bf = f
                bt = t
    return bf, bt


@njit(cache=True)
def fit_tree(bins, n_bins, thresholds, root_counts, r, num_leaves, min_leaf, perm, work):
    """Grow one tree on responses ``r``; return its node arrays
    ``(feature, threshold, left, right, start, size)``.

    ``bins`` from :func:`bin_index`, ``root_counts`` from :func:`bin_counts`. ``perm``
    (length n) ends holding every leaf's documents in ascending order at
    ``perm[start:start + size]``; ``work`` is scratch of the same length.
    """
    n, nf = bins.shape
    tmax = thresholds.shape[1]
    max_nodes = 2 * num_leaves + 1
    feature = np.full(max_nodes, -1, dtype=np.int64)
    threshold = np.zeros(max_nodes, dtype=np.float32)
    left = np.full(max_nodes, -1, dtype=np.int64)
    right = np.full(max_nodes, -1, dtype=np.int64)
    start = np.zeros(max_nodes, dtype=np.int64)
    size = np.zeros(max_nodes, dtype=np.int64)
    deviance = np.zeros(max_nodes)
    rsum = np.zeros(max_nodes)
    rsq = np.zeros(max_nodes)
    slot = np.full(max_nodes, -1, dtype=np.int64)
    # histograms of the nodes that may still be split: at most num_leaves + 1 at once
    n_slots = num_leaves + 2
    hsum = np.empty((n_slots, nf, tmax))
    hcnt = np.empty((n_slots, nf, tmax), dtype=np.int64)
    free = list(range(n_slots - 1, -1, -1))

    for k in range(n):
        perm[k] = k
    slot[0] = free.pop()
    hcnt[slot[0]] = root_counts
    rsum[0], rsq[0] = _root_histogram(bins, n_bins, r, hsum[slot[0]])
    size[0] = n
    deviance[0] = np.float64(FLT_MAX)
    n_nodes = 1

    queue = [0]
    queue.pop()
    taken = 0
    node = 0
    first = True
    while first or (taken + len(queue) < num_leaves and len(queue) > 0):
        if first:
            first = False
        else:
            node = queue.pop(0)
            if size[node] < 2 * min_leaf:
                taken += 1
                free.append(slot[node])
                continue
        split_ok = False
        h = slot[node]
        if deviance[node] != 0.0:
            bf, bt = _best_split(hsum[h], hcnt[h], n_bins, rsum[node], min_leaf)
            if bf >= 0:
                split_ok = True
        if not split_ok:
            taken += 1
            free.append(h)
            continue
        a, m = start[node], size[node]
        nl = 0
        nr = 0
        for i in range(a, a + m):
            k = perm[i]
            if bins[k, bf] <= bt:
                perm[a + nl] = k
                nl += 1
            else:
                work[nr] = k
                nr += 1
        perm[a + nl:a + m] = work[:nr]
        lo, hi = n_nodes, n_nodes + 1
        n_nodes += 2
        feature[node] = bf
        threshold[node] = thresholds[bf, bt]
        left[node], right[node] = lo, hi
        start[lo], size[lo] = a, nl
        start[hi], size[hi] = a + nl, nr
        slot[lo] = free.pop()
        hl, hp = slot[lo], h
        rsum[lo], rsq[lo] = _child_histogram(bins, n_bins, r, perm[a:a + nl], hsum[hl], hcnt[hl])
        # the right child takes over the parent's histogram: parent minus left
        for f in range(nf):
            for t in range(n_bins[f]):
                hsum[hp, f, t] -= hsum[hl, f, t]
                hcnt[hp, f, t] -= hcnt[hl, f, t]
        slot[hi] = hp
        rsum[hi] = rsum[node] - rsum[lo]
        rsq[hi] = rsq[node] - rsq[lo]
        deviance[lo] = rsq[lo] - rsum[lo] * rsum[lo] / nl
        deviance[hi] = rsq[hi] - rsum[hi] * rsum[hi] / nr
        for child in (lo, hi):
            i = 0
            while i < len(queue) and deviance[queue[i]] > deviance[child]:
                i += 1
            queue.insert(i, child)
    return feature[:n_nodes], threshold[:n_nodes], left[:n_nodes], right[:n_nodes], \
        start[:n_nodes], size[:n_nodes]


@njit(cache=True)
def newton_outputs(feature, start, size, perm, lam, weight):
    """Leaf outputs ``sum lam / sum weight`` over each leaf's documents (ascending), both sums
    accumulated in float32 and divided in float32 (0 when the weights sum to 0); 0 at inner
    nodes."""
    out = np.zeros(len(feature), dtype=np.float32)
    for node in range(len(feature)):
        if feature[node] != -1:
            continue
        s1 = np.float32(0.0)
        s2 = np.float32(0.0)
        for i in range(start[node], start[node] + size[node]):
            k = perm[i]
            s1 = np.float32(np.float64(s1) + lam[k])
            s2 = np.float32(np.float64(s2) + weight[k])
        if s2 != 0.0:
            out[node] = np.float32(s1 / s2)
    return out


@njit(cache=True)
def tree_values(X32, feature, threshold, left, right, value):
    """Each row's leaf value: left where ``x[feature] <= threshold``."""
    n = X32.shape[0]
    out = np.empty(n, dtype=value.dtype)
    for i in range(n):
        node = 0
        while feature[node] != -1:
            if X32[i, feature[node]] <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
        out[i] = value[node]
    return out


@njit(cache=True)
def ensemble_scores(X32, offsets, feature, threshold, left, right, value, weight):
    """Scores of an ensemble whose tree t holds nodes ``offsets[t]:offsets[t+1]`` (child
    indices relative to the tree): ``s = sum_t weight * value_t(x)``, each product in float64
    and the running sum rounded to float32 (RankLib 2.x ``Ensemble.eval``)."""
    n = X32.shape[0]
    out = np.empty(n)
    w = np.float64(weight)
    for i in range(n):
        s = np.float32(0.0)
        for t in range(len(offsets) - 1):
            base = offsets[t]
            node = 0
            while feature[base + node] != -1:
                if X32[i, feature[base + node]] <= threshold[base + node]:
                    node = left[base + node]
                else:
                    node = right[base + node]
            s = np.float32(np.float64(s) + np.float64(value[base + node]) * w)
        out[i] = s
    return out


def ensemble_scores_numpy(X32, offsets, feature, threshold, left, right, value, weight):
    """:func:`ensemble_scores` with NumPy, tree by tree over all rows at once: the same numbers,
    without loading the compiled kernel (worth it for small inputs)."""
    n = X32.shape[0]
    rows = np.arange(n)
    w = np.float64(weight)
    s = np.zeros(n, dtype=np.float32)
    for t in range(len(offsets) - 1):
        base = offsets[t]
        node = np.zeros(n, dtype=np.int64)
        inner = feature[base + node] != -1
        while inner.any():
            at = base + node[inner]
            go_left = X32[rows[inner], feature[at]] <= threshold[at]
            node[inner] = np.where(go_left, left[at], right[at])
            inner = feature[base + node] != -1
        s = (s.astype(np.float64) + value[base + node].astype(np.float64) * w).astype(np.float32)
    return s.astype(np.float64)
