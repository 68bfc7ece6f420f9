"""Numba kernels: one query at a time, plus parallel wrappers over all queries.

Tie codes: 0 input-order, 1 docid-desc (float32 scores), 2 average, 3 pessimistic,
4 optimistic. ``tiekey`` is the docid's byte-order rank (used by code 1 only).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

TIE_CODES = {"input-order": 0, "docid-desc": 1, "average": 2, "pessimistic": 3, "optimistic": 4}


@njit(cache=True)
def rank_order(scores, labels, tiekey, tie_code):
    """Permutation sorting one query by score descending under the tie policy."""
    if tie_code == 1:
        first = np.argsort(-tiekey, kind="mergesort")
        s32 = scores.astype(np.float32)[first]
        return first[np.argsort(-s32, kind="mergesort")]
    if tie_code == 3:
        first = np.argsort(labels, kind="mergesort")
        return first[np.argsort(-scores[first], kind="mergesort")]
    if tie_code == 4:
        first = np.argsort(-labels, kind="mergesort")
        return first[np.argsort(-scores[first], kind="mergesort")]
    return np.argsort(-scores, kind="mergesort")


@njit(cache=True)
def group_ends(sorted_scores, tie_code):
    """end[p] = one past the last position tied with p (p itself unless tie_code is average)."""
    n = len(sorted_scores)
    end = np.empty(n, dtype=np.int64)
    if tie_code != 2:
        for p in range(n):
            end[p] = p + 1
        return end
    i = 0
    while i < n:
        j = i + 1
        while j < n and sorted_scores[j] == sorted_scores[i]:
            j += 1
        for p in range(i, j):
            end[p] = j
        i = j
    return end


@njit(cache=True)
def expected_by_position(values, ends):
    """Each position's value replaced by the mean over its tie group."""
    out = values.copy()
    n = len(values)
    i = 0
    while i < n:
        j = ends[i]
        if j - i > 1:
            m = values[i:j].mean()
            for p in range(i, j):
                out[p] = m
        i = j
    return out


@njit(cache=True)
def ideal_dcg(gains_q, disc, k):
    """DCG@k of the ideal order (gains descending)."""
    g = np.sort(gains_q)[::-1]
    m = min(k, len(g))
    total = 0.0
    for p in range(m):
        total += g[p] * disc[p]
    return total


@njit(cache=True)
def query_metrics(labels, scores, tiekey, gain_table, disc, cutoffs, tie_code, empty,
                  short_zero, rel, pk_k, err_max, out):
    """All metrics of one query into ``out``.

    Layout with C = len(cutoffs): NDCG[C], DCG[C], P[C], ERR[C], AP, RR. Under tie code 2
    (average) every value is the expectation over the orders of tied documents; ERR is NaN
    there (no closed form).
    """
    n = len(labels)
    C = len(cutoffs)
    order = rank_order(scores, labels, tiekey, tie_code)
    ls = labels[order]
    ends = group_ends(scores[order], tie_code)
    g_raw = np.empty(n)
    r_raw = np.empty(n)
    for p in range(n):
        g_raw[p] = gain_table[ls[p]]
        r_raw[p] = 1.0 if ls[p] >= rel else 0.0
    g = expected_by_position(g_raw, ends)
    r = expected_by_position(r_raw, ends)
    ideal = np.sort(g_raw)[::-1]
    kmax = cutoffs.max()
    m = min(n, kmax)
    cdcg = np.zeros(m)
    cidcg = np.zeros(m)
    crel = np.zeros(m)
    cerr = np.zeros(m)
    acc_d = 0.0
    acc_i = 0.0
    acc_r = 0.0
    acc_e = 0.0
    p_cont = 1.0
    for p in range(m):
        acc_d += g[p] * disc[p]
        acc_i += ideal[p] * disc[p]
        acc_r += r[p]
        stop = (2.0 ** ls[p] - 1.0) / (2.0 ** err_max)
        acc_e += p_cont * stop / (p + 1.0)
        p_cont *= 1.0 - stop
        cdcg[p] = acc_d
        cidcg[p] = acc_i
        crel[p] = acc_r
        cerr[p] = acc_e
    for c in range(C):
        k = cutoffs[c]
        last = min(k, n) - 1
        idcg = cidcg[last]
        if idcg <= 0.0:
            ndcg = empty
        elif short_zero and n < k:
            ndcg = 0.0
        else:
            ndcg = cdcg[last] / idcg
        out[c] = ndcg
        out[C + c] = cdcg[last]
        out[2 * C + c] = crel[last] / (k if pk_k else min(k, n))
        out[3 * C + c] = np.nan if tie_code == 2 else cerr[last]
    # AP and RR, exact expectations over tie groups (groups of one when not averaging).
    n_rel = r_raw.sum()
    ap = 0.0
    rr = 0.0
    seen_rel = 0.0
    found = False
    i = 0
    while i < n:
        j = ends[i]
        size = j - i
        grel = 0.0
        for p in range(i, j):
            grel += r_raw[p]
        if grel > 0:
            for t in range(1, size + 1):
                within = 0.0 if size == 1 else (t - 1) * (grel - 1.0) / (size - 1.0)
                ap += (grel / size) * (seen_rel + 1.0 + within) / (i + t)
            if not found:
                p_none = 1.0
                for t in range(1, size + 1):
                    left = size - t + 1.0
                    hit = grel / left
                    rr += p_none * hit / (i + t)
                    p_none *= 1.0 - hit
                found = True
        seen_rel += grel
        i = j
    out[4 * C] = ap / n_rel if n_rel > 0 else 0.0
    out[4 * C + 1] = rr


@njit(parallel=True, cache=True)
def all_query_metrics(labels, scores, tiekey, offsets, gain_table, disc, cutoffs, tie_code,
                      empty, short_zero, rel, pk_k, err_max):
    nq = len(offsets) - 1
    out = np.empty((nq, 4 * len(cutoffs) + 2))
    for q in prange(nq):
        a, b = offsets[q], offsets[q + 1]
        query_metrics(labels[a:b], scores[a:b], tiekey[a:b], gain_table, disc, cutoffs,
                      tie_code, empty, short_zero, rel, pk_k, err_max, out[q])
    return out


@njit(cache=True)
def query_ndcg(gains_q, scores_q, labels_q, tiekey_q, disc, k, tie_code, inv_idcg, fallback):
    """NDCG@k of one query given 1/IDCG@k (0 when the convention fixes the value)."""
    if inv_idcg == 0.0:
        return fallback
    order = rank_order(scores_q, labels_q, tiekey_q, tie_code)
    g = gains_q[order]
    if tie_code == 2:
        g = expected_by_position(g, group_ends(scores_q[order], tie_code))
    m = min(k, len(g))
    total = 0.0
    for p in range(m):
        total += g[p] * disc[p]
    return total * inv_idcg


@njit(parallel=True, cache=True)
def all_query_ndcg(gains, scores, labels, tiekey, offsets, disc, k, tie_code, inv_idcg, fallback):
    nq = len(offsets) - 1
    out = np.empty(nq)
    for q in prange(nq):
        a, b = offsets[q], offsets[q + 1]
        out[q] = query_ndcg(gains[a:b], scores[a:b], labels[a:b], tiekey[a:b], disc, k,
                            tie_code, inv_idcg[q], fallback[q])
    return out


@njit(cache=True)
def swap_deltas(gains_q, scores_q, labels_q, tiekey_q, disc, k, tie_code, inv_idcg):
    """|NDCG@k change| of swapping the ranks of documents i and j, as an (n, n) matrix.

    Ranks come from the current scores under the tie policy (input order for ``average``).
    Positions beyond k have discount 0; ``inv_idcg`` = 0 gives an all-zero matrix.
    """
    n = len(gains_q)
    out = np.zeros((n, n))
    if inv_idcg == 0.0:
        return out
    order = rank_order(scores_q, labels_q, tiekey_q, 0 if tie_code == 2 else tie_code)
    d = np.zeros(n)
    for p in range(min(k, n)):
        d[order[p]] = disc[p]
    for i in range(n):
        for j in range(i + 1, n):
            v = abs((gains_q[i] - gains_q[j]) * (d[i] - d[j])) * inv_idcg
            out[i, j] = v
            out[j, i] = v
    return out
