"""Numba kernels: one query at a time, plus wrappers over all queries.

Each wrapper exists serial and parallel (``*_parallel``, ``prange`` over queries); on small
data such as MQ2008 (~1 ms a call) the serial one is faster, and threads only pay off on
large collections, so callers dispatch on the number of documents
(:func:`ltrconv.jit.use_parallel`).

Tie policies by their codes in :mod:`ltrconv.evaluation.ties`; ``tiekey`` is the docid's byte-order rank
under ``DOCID_DESC`` (highest first), a document's place in a sort artefact's order under the
``KEYED`` codes (lowest first), and unused otherwise.
"""

from __future__ import annotations

import numpy as np
from ..jit import njit, prange, serial_and_parallel

from .ties import AVERAGE, DOCID_DESC, INPUT_ORDER, KEYED, OPTIMISTIC, PESSIMISTIC

INSERTION_MAX = 48


@njit(cache=True)
def precedes(si, sj, li, lj, ki, kj, tie_code):
    """True when a document (score si, label li, tie key ki) goes strictly before another
    (sj, lj, kj) under the tie policy. Scalars only, so it compiles inline into loops."""
    if tie_code == DOCID_DESC:
        si = np.float32(si)
        sj = np.float32(sj)
    if si != sj:
        return si > sj
    if tie_code == DOCID_DESC:
        return ki > kj
    if tie_code == PESSIMISTIC:
        return li < lj
    if tie_code == OPTIMISTIC:
        return li > lj
    if tie_code >= KEYED:
        return ki < kj
    return False


@njit(cache=True)
def insertion_sort(order, scores, labels, tiekey, tie_code):
    """Stable insertion sort of ``order`` under the tie policy; O(n + inversions)."""
    for i in range(1, len(order)):
        cur = order[i]
        j = i - 1
        sc, lc, kc = scores[cur], labels[cur], tiekey[cur]
        while j >= 0:
            o = order[j]
            if not precedes(sc, scores[o], lc, labels[o], kc, tiekey[o], tie_code):
                break
            order[j + 1] = o
            j -= 1
        order[j + 1] = cur


@njit(cache=True)
def rank_order_into(order, scores, labels, tiekey, tie_code):
    """Fill ``order`` (length n) with the stable permutation sorting one query by score
    descending under the tie policy; remaining ties keep input order.

    Short queries use an insertion sort in place; longer ones a stable merge sort by score,
    then :func:`sort_tied_runs`.
    """
    n = len(scores)
    if n <= INSERTION_MAX:
        for i in range(n):
            order[i] = i
        insertion_sort(order, scores, labels, tiekey, tie_code)
        return
    order[:] = np.argsort(-scores, kind="mergesort")
    sort_tied_runs(order, scores, labels, tiekey, tie_code)


@njit(cache=True)
def sort_tied_runs(order, scores, labels, tiekey, tie_code):
    """Reorder the tied runs of ``order`` (already a stable ranking by score, descending)
    by the tie policy's secondary key, stably; O(n log n) however long the runs are.

    Ties are equal float32 scores under ``DOCID_DESC``, equal scores otherwise;
    ``INPUT_ORDER`` and ``AVERAGE`` leave the order as it is. Short runs use the insertion sort, long ones a merge sort by key.
    """
    if tie_code == INPUT_ORDER or tie_code == AVERAGE:
        return
    n = len(order)
    i = 0
    while i < n:
        si = scores[order[i]]
        j = i + 1
        if tie_code == DOCID_DESC:
            while j < n and np.float32(scores[order[j]]) == np.float32(si):
                j += 1
        else:
            while j < n and scores[order[j]] == si:
                j += 1
        if 1 < j - i <= INSERTION_MAX:
            insertion_sort(order[i:j], scores, labels, tiekey, tie_code)
        elif j - i > INSERTION_MAX:
            run = order[i:j].copy()
            if tie_code == DOCID_DESC:
                key = -tiekey[run]
            elif tie_code >= KEYED:
                key = tiekey[run]
            elif tie_code == PESSIMISTIC:
                key = labels[run].astype(np.int64)
            else:
                key = -labels[run].astype(np.int64)
            order[i:j] = run[np.argsort(key, kind="mergesort")]
        i = j


@njit(cache=True)
def top_order_into(order, scores, labels, tiekey, k):
    """Fill ``order[:m]`` with the first m places of :func:`rank_order_into`'s ``INPUT_ORDER``
    ranking and return m: the documents whose float32 score reaches the k-th largest, so every
    tie group that reaches rank k, under any policy, is complete. O(n + m log m); the whole
    ranking (m = n) for queries of at most ``max(k, INSERTION_MAX)`` documents."""
    n = len(scores)
    if n <= k or n <= INSERTION_MAX:
        rank_order_into(order, scores, labels, tiekey, INPUT_ORDER)
        return n
    kth = -np.partition(-scores.astype(np.float32), k - 1)[k - 1]
    m = 0
    for i in range(n):
        if np.float32(scores[i]) >= kth:
            order[m] = i
            m += 1
    if m <= INSERTION_MAX:
        insertion_sort(order[:m], scores, labels, tiekey, INPUT_ORDER)
    else:
        top = order[:m].copy()
        order[:m] = top[np.argsort(-scores[top], kind="mergesort")]
    return m


@njit(cache=True)
def rank_order(scores, labels, tiekey, tie_code):
    """The permutation of :func:`rank_order_into`, as a new array."""
    order = np.empty(len(scores), dtype=np.int64)
    rank_order_into(order, scores, labels, tiekey, tie_code)
    return order


@njit(cache=True)
def group_ends_into(ends, scores, order):
    """ends[p] = one past the last ranked position tied with position p."""
    n = len(order)
    i = 0
    while i < n:
        j = i + 1
        while j < n and scores[order[j]] == scores[order[i]]:
            j += 1
        for p in range(i, j):
            ends[p] = j
        i = j


@njit(cache=True)
def group_ends(sorted_scores, tie_code):
    """Tie-group ends of already sorted scores; empty unless the policy is ``AVERAGE``."""
    if tie_code != AVERAGE:
        return np.empty(0, dtype=np.int64)
    ends = np.empty(len(sorted_scores), dtype=np.int64)
    group_ends_into(ends, sorted_scores, np.arange(len(sorted_scores)))
    return ends


@njit(cache=True)
def expected_by_position(values, ends):
    """Each position's value replaced by the mean over its tie group."""
    out = values.copy()
    average_in_place(out, ends)
    return out


@njit(cache=True)
def average_in_place(values, ends):
    n = len(values)
    i = 0
    while i < n:
        j = ends[i]
        if j - i > 1:
            m = values[i:j].mean()
            for p in range(i, j):
                values[p] = m
        i = j


@njit(cache=True)
def sorted_query_metrics(ls, ends, counts, comp, c, cutoffs, work, out):
    """All metrics of one query under convention ``c`` of ``comp`` (a :class:`~ltrconv.
    evaluation.compiled.Compiled`), given the labels of its first m ranks in ranked order
    (``ls``) and the number of documents of each label (``counts``, summing to the query's n >=
    m).

    ``ends`` marks tie groups (used under ``AVERAGE`` only); ``cutoffs`` ascending; ``work`` is
    a pair of scratch buffers (length >= m). Layout with C = len(cutoffs): IDCG[C], DCG[C],
    P[C], ERR[C], AP, RR; NDCG@k is made of DCG@k and IDCG@k by
    :func:`ltrconv.evaluation.compiled.ndcg`, the one place its rule is written. The cutoff
    metrics need m >= min(n, last cutoff) and whole tie groups; AP and RR need the whole
    ranking (m = n) and are NaN otherwise. Under ``AVERAGE`` every value is the expectation
    over the orders of tied documents; ERR is NaN there (it has no closed form).
    """
    gain_table, ideal_labels, disc = comp.gains[c], comp.ideal[c], comp.discs[c]
    tie_code, rel, pk_k, err_stop = comp.ties[c], comp.rels[c], comp.pk_k[c], comp.err_stop
    g, r = work
    n = 0
    for lab in range(len(counts)):
        n += counts[lab]
    m = len(ls)
    C = len(cutoffs)
    avg = tie_code == AVERAGE
    if avg:
        for p in range(m):
            g[p] = gain_table[ls[p]]
            r[p] = 1.0 if ls[p] >= rel else 0.0
        average_in_place(g[:m], ends)
        average_in_place(r[:m], ends)
    ideal_i = 0
    ideal_left = counts[ideal_labels[0]]
    acc_d = 0.0
    acc_i = 0.0
    acc_r = 0.0
    acc_e = 0.0
    p_cont = 1.0
    j = 0  # the next cutoff
    for p in range(min(n, cutoffs[C - 1])):
        if avg:
            acc_d += g[p] * disc[p]
            acc_r += r[p]
        else:
            acc_d += gain_table[ls[p]] * disc[p]
            acc_r += 1.0 if ls[p] >= rel else 0.0
            stop = err_stop[ls[p]]
            acc_e += p_cont * stop / (p + 1.0)
            p_cont *= 1.0 - stop
        while ideal_left == 0:
            ideal_i += 1
            ideal_left = counts[ideal_labels[ideal_i]]
        acc_i += gain_table[ideal_labels[ideal_i]] * disc[p]
        ideal_left -= 1
        while j < C and (cutoffs[j] == p + 1 or (p == n - 1 and cutoffs[j] > n)):
            k = cutoffs[j]
            out[j] = acc_i
            out[C + j] = acc_d
            out[2 * C + j] = acc_r / (k if pk_k else min(k, n))
            out[3 * C + j] = np.nan if avg else acc_e
            j += 1
    if m < n:
        out[4 * C] = np.nan
        out[4 * C + 1] = np.nan
        return
    # AP and RR, exact expectations over tie groups (groups of one when not averaging).
    n_rel = 0.0
    for lab in range(rel, len(gain_table)):
        n_rel += counts[lab]
    ap = 0.0
    rr = 0.0
    seen_rel = 0.0
    found = False
    i = 0
    while i < n and seen_rel < n_rel:
        end = ends[i] if avg else i + 1
        size = end - i
        grel = 0.0
        for p in range(i, end):
            grel += 1.0 if ls[p] >= rel else 0.0
        if grel > 0:
            for t in range(1, size + 1):
                within = 0.0 if size == 1 else (t - 1) * (grel - 1.0) / (size - 1.0)
                ap += (grel / size) * (seen_rel + 1.0 + within) / (i + t)
            if not found:
                p_none = 1.0
                for t in range(1, size + 1):
                    hit = grel / (size - t + 1.0)
                    rr += p_none * hit / (i + t)
                    p_none *= 1.0 - hit
                found = True
        seen_rel += grel
        i = end
    out[4 * C] = ap / n_rel if n_rel > 0 else 0.0
    out[4 * C + 1] = rr


@njit(cache=True)
def sorted_query_rankdcg(ls, ends, tie_code, empty, counts, relp, disc, g):
    """rankDCG of one query, given its labels in ranked order (Katerenchuk & Rosenberg,
    "RankDCG: Rank-Ordering Evaluation Measure", Sec. 4).

    With m distinct labels in the query, ``rel'(l)`` = number of distinct labels <= l (m for
    the highest, 1 for the lowest); the discount of position p is ``D_p`` = number of distinct
    labels >= the label at p in the ideal order (1 for the top group, m for the bottom one).
    ``DCG' = sum_p rel'(l_p) / D_p``; ``rankDCG = (DCG' - min) / (max - min)``, max from the
    ideal order (labels descending), min from its reverse. A query with m <= 1 has no order to
    judge and scores ``empty``. Under ``AVERAGE``, the expectation over the orders of
    tied documents (``ends`` marks the tie groups); the authors' package orders tied scores
    worst-first (``PESSIMISTIC``). ``counts`` holds the number of documents of each label (as
    :func:`sorted_query_metrics` takes it); ``relp`` (length >= number of labels), ``disc``,
    ``g`` (lengths >= n) are scratch buffers.
    """
    n = len(ls)
    m = 0
    for lab in range(len(counts)):
        if counts[lab] > 0:
            m += 1
            relp[lab] = m
    if m <= 1:
        return empty
    best = 0.0
    p = 0
    for lab in range(len(counts) - 1, -1, -1):
        for _ in range(counts[lab]):
            disc[p] = m + 1.0 - relp[lab]
            best += relp[lab] / disc[p]
            p += 1
    worst = 0.0
    p = 0
    for lab in range(len(counts)):
        for _ in range(counts[lab]):
            worst += relp[lab] / disc[p]
            p += 1
    for p in range(n):
        g[p] = relp[ls[p]]
    if tie_code == AVERAGE:
        average_in_place(g[:n], ends)
    got = 0.0
    for p in range(n):
        got += g[p] / disc[p]
    # the ideal and reversed orders reproduce best and worst exactly; averages may round
    return min(max((got - worst) / (best - worst), 0.0), 1.0)


def _all_query_metrics(lists, comp, cutoffs, rankdcg, top_only, n_chunks):
    """Metrics of every query of ``lists`` (a :class:`~ltrconv.evaluation.compiled.Lists`)
    under every convention of ``comp`` (a :class:`~ltrconv.evaluation.compiled.Compiled`):
    out[convention, query, metric], in :func:`sorted_query_metrics`' layout.

    The conventions of ``comp`` are sorted by tie code; those that share a tie policy share one
    sort of each query. ``rankdcg`` adds a last column, :func:`sorted_query_rankdcg`.
    ``top_only`` ranks only as far as the last cutoff (:func:`top_order_into`), leaving AP and
    RR NaN. Queries are split into ``n_chunks`` runs, each with its own scratch buffers (the
    parallel unit).
    """
    labels, scores, tiekey, offsets = lists
    tie_codes = comp.ties
    nq = len(offsets) - 1
    nc = len(tie_codes)
    n_labels = comp.gains.shape[1]
    width = 4 * len(cutoffs) + 2
    out = np.empty((nc, nq, width + 1 if rankdcg else width))
    n_max = 0
    for q in range(nq):
        n_max = max(n_max, offsets[q + 1] - offsets[q])
    bounds = np.linspace(0, nq, n_chunks + 1).astype(np.int64)
    for ch in prange(n_chunks):
        base = np.empty(n_max, dtype=np.int64)
        order = np.empty(n_max, dtype=np.int64)
        ls = np.empty(n_max, dtype=labels.dtype)
        ends = np.empty(n_max, dtype=np.int64)
        counts = np.empty(n_labels, dtype=np.int64)
        work = (np.empty(n_max), np.empty(n_max))
        relp = np.empty(n_labels if rankdcg else 0, dtype=np.int64)
        rdisc = np.empty(n_max if rankdcg else 0)
        for q in range(bounds[ch], bounds[ch + 1]):
            a, b = offsets[q], offsets[q + 1]
            n = b - a
            if top_only:
                m = top_order_into(base[:n], scores[a:b], labels[a:b], tiekey[a:b], cutoffs[-1])
            else:
                m = n
                rank_order_into(base[:n], scores[a:b], labels[a:b], tiekey[a:b], INPUT_ORDER)
            counts[:] = 0
            for p in range(a, b):
                counts[labels[p]] += 1
            first = 0
            while first < nc:
                code = tie_codes[first]
                order[:m] = base[:m]
                sort_tied_runs(order[:m], scores[a:b], labels[a:b], tiekey[a:b], code)
                for p in range(m):
                    ls[p] = labels[a + order[p]]
                if code == AVERAGE:
                    group_ends_into(ends[:m], scores[a:b], order[:m])
                c = first
                while c < nc and tie_codes[c] == code:
                    sorted_query_metrics(ls[:m], ends[:m], counts, comp, c, cutoffs, work,
                                         out[c, q])
                    if rankdcg:
                        out[c, q, width] = sorted_query_rankdcg(ls[:n], ends[:n], code,
                                                                comp.empties[c], counts, relp,
                                                                rdisc, work[0])
                    c += 1
                first = c
    return out


all_query_metrics, all_query_metrics_parallel = serial_and_parallel(_all_query_metrics)

