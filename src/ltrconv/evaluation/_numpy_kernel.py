"""The evaluation kernel in numpy: :func:`all_query_metrics` of :mod:`ltrconv.evaluation._kernels`,
bit for bit, without numba's start-up (about a second per process for ``import numba`` and
loading the compiled kernel, against milliseconds of work on a file such as MQ2008).

Every value is computed by the same floating-point operations in the same order as the numba
kernel: a running sum over a query's ranks is kept as one accumulator per query, advanced rank
by rank over the queries still running (queries sorted longest first, so those are a prefix).
numpy's pairwise ``sum``/``mean``/``reduceat`` would round differently and are not used on
floats. Tie codes as in :mod:`ltrconv.evaluation.ties`.
"""

from __future__ import annotations

import numpy as np

from .sortkeys import score_order
from .ties import AVERAGE, DOCID_DESC, INPUT_ORDER, KEYED, OPTIMISTIC, PESSIMISTIC


def rank_order(scores: np.ndarray, labels: np.ndarray, tiekey: np.ndarray, qpos: np.ndarray,
               code: int, offsets: np.ndarray | None = None) -> np.ndarray:
    """Permutation ranking every query (kept in file order) by score, highest first.

    Remaining ties keep input order (np.lexsort is stable), as the kernel's stable sorts do.
    With ``offsets`` (the queries' boundaries), ``docid-desc``, ``input-order`` and
    ``average`` take one sort of packed keys where they fit
    (:func:`~ltrconv.evaluation.sortkeys.score_order`), for the same order.
    """
    if offsets is not None and code in (DOCID_DESC, INPUT_ORDER, AVERAGE):
        if code == DOCID_DESC:
            packed = score_order(qpos, offsets, scores, float32=True, tiekey=tiekey)
        else:
            packed = score_order(qpos, offsets, scores, float32=False)
        if packed is not None:
            return packed
    neg = -scores
    if code == DOCID_DESC:  # float32 score, then docid rank (highest first), then float64 score
        with np.errstate(over="ignore"):  # beyond float32's range: +-inf, as float32 code has
            return np.lexsort((neg, -tiekey, -scores.astype(np.float32), qpos))
    if code == PESSIMISTIC:
        return np.lexsort((labels, neg, qpos))
    if code == OPTIMISTIC:
        return np.lexsort((-labels, neg, qpos))
    if code >= KEYED:  # a sort artefact's place, lowest first
        return np.lexsort((tiekey, neg, qpos))
    return np.lexsort((neg, qpos))


def sequential_sums(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``values[s:s+l]`` summed left to right from 0.0 for each segment (s, l)."""
    out = np.zeros(len(starts))
    if len(starts) == 0 or lengths.max() == 0:
        return out
    by_len = np.argsort(-lengths, kind="stable")
    st, ln = starts[by_len], lengths[by_len]
    alive = len(st) - np.cumsum(np.bincount(ln))  # alive[j]: segments longer than j
    acc = np.zeros(len(st))
    for j in range(int(ln[0])):
        m = alive[j]
        acc[:m] += values[st[:m] + j]
    out[by_len] = acc
    return out


def all_query_metrics(lists, comp, cutoffs, orders: dict[int, np.ndarray] | None = None,
                      list_ideal: bool = True):
    """out[convention, query, metric], the arguments (``lists``, ``comp``, ``cutoffs``) and
    layout of the numba kernel (without its ``rankdcg``, ``top_only`` and ``n_chunks``).
    ``orders``: the ranking of some tie codes, made by the caller (as :func:`rank_order`
    makes it); the others are sorted here, once per code. Without ``list_ideal`` the IDCG@k
    columns are left 0 (a caller with the ideal from elsewhere: a run's qrels)."""
    labels, scores, tiekey, offsets = lists
    tie_codes = comp.ties
    nq, nc, C = len(offsets) - 1, len(tie_codes), len(cutoffs)
    out = np.empty((nc, nq, 4 * C + 2))
    sizes = np.diff(offsets)
    qpos = np.repeat(np.arange(nq), sizes)
    pos = np.arange(len(labels)) - offsets[qpos]  # rank - 1 of each ranked slot
    by_size = np.argsort(-sizes, kind="stable")
    q = Queries(offsets[:-1][by_size], sizes[by_size])
    ideals: dict[tuple, np.ndarray] = {}  # each ideal label order's arrangement, made once
    for code in sorted(set(tie_codes.tolist())):
        order = (orders or {}).get(code)
        if order is None:
            order = rank_order(scores, labels, tiekey, qpos, code, offsets)
        ranked = labels[order]
        groups = None  # ties averaged: the runs of equal scores; otherwise every slot alone
        if code == AVERAGE:
            first = np.ones(len(labels), dtype=bool)  # slots that open a tie group
            first[1:] = scores[order][1:] != scores[order][:-1]
            first[offsets[:-1]] = True
            groups = TieGroups(first, qpos, pos)
        del order
        for c in np.flatnonzero(tie_codes == code):
            # the ideal order: each query's labels by their place in comp.ideal[c]
            key_ideal = tuple(comp.ideal[c].tolist()) if list_ideal else None
            if key_ideal is not None and key_ideal not in ideals:
                n_labels = len(comp.ideal[c])
                rank_of_label = np.empty(n_labels, dtype=np.int64)
                rank_of_label[comp.ideal[c]] = np.arange(n_labels)
                key = np.sort(qpos * n_labels + rank_of_label[labels])  # queries stay in place
                ideals[key_ideal] = comp.ideal[c][key - qpos * n_labels]
            ideal = ideals.get(key_ideal)
            vals = np.empty((nq, 4 * C + 2))
            vals[by_size, :4 * C] = cutoff_metrics(q, ranked, ideal, groups, comp, c, cutoffs)
            if groups is None:
                vals[:, 4 * C], vals[:, 4 * C + 1] = ap_rr_ranked(ranked, comp.rels[c], nq, qpos,
                                                                  pos)
            else:
                vals[:, 4 * C], vals[:, 4 * C + 1] = ap_rr(ranked, groups, comp.rels[c], nq, qpos)
            out[c] = vals
    return out


class Queries:
    """Queries longest first: ``start``, ``size``, and ``running[p]``, how many have more than
    p documents (the prefix still running at rank p + 1)."""

    def __init__(self, start: np.ndarray, size: np.ndarray):
        self.start, self.size = start, size
        self.n_max = int(size[0]) if len(size) else 0
        self.running = len(size) - np.cumsum(np.bincount(size, minlength=self.n_max + 1))


class TieGroups:
    """Runs of equal scores in ranked order (single documents unless the policy is ``average``).

    Per slot: ``gid``; per group: ``first`` slot, ``size``, ``start`` (its rank - 1).
    """

    def __init__(self, first: np.ndarray, qpos: np.ndarray, pos: np.ndarray):
        self.gid = np.cumsum(first) - 1
        self.first = np.flatnonzero(first)
        self.size = np.diff(np.append(self.first, len(first)))
        self.start = pos[self.first]
        self.query = qpos[self.first]


def cutoff_metrics(q: Queries, ranked, ideal, groups: TieGroups, comp, c, cutoffs) -> np.ndarray:
    """IDCG, DCG, P and ERR at each cutoff under convention ``c`` of ``comp`` for the queries
    of ``q`` (longest first)."""
    gain_table, disc, err_stop = comp.gains[c], comp.discs[c], comp.err_stop
    avg, rel, pk_k = comp.ties[c] == AVERAGE, comp.rels[c], comp.pk_k[c]
    C = len(cutoffs)
    g = gain_table[ranked]
    r = np.where(ranked >= rel, 1.0, 0.0)
    if avg:  # each slot's gain and relevance replaced by its tie group's mean
        big = np.flatnonzero(groups.size > 1)
        slots = np.flatnonzero(groups.size[groups.gid] > 1)
        for v in (g, r):
            mean = sequential_sums(v, groups.first[big], groups.size[big]) / groups.size[big]
            v[slots] = np.repeat(mean, groups.size[big])
    nq = len(q.size)
    acc_d, acc_i, acc_r, acc_e, p_cont = (np.zeros(nq), np.zeros(nq), np.zeros(nq), np.zeros(nq),
                                          np.ones(nq))
    res = np.empty((nq, 4 * C))

    def record(lo: int, hi: int, c_lo: int, c_hi: int) -> None:
        """Values at cutoffs c_lo:c_hi of queries lo:hi, whose last rank for them is this one."""
        k = cutoffs[c_lo:c_hi]
        n = q.size[lo:hi, None]
        res[lo:hi, c_lo:c_hi] = acc_i[lo:hi, None]
        res[lo:hi, C + c_lo:C + c_hi] = acc_d[lo:hi, None]
        res[lo:hi, 2 * C + c_lo:2 * C + c_hi] = acc_r[lo:hi, None] / (k if pk_k else np.minimum(k, n))
        res[lo:hi, 3 * C + c_lo:3 * C + c_hi] = np.nan if avg else acc_e[lo:hi, None]

    for j in range(min(q.n_max, int(cutoffs[-1]))):
        m = q.running[j]
        at = q.start[:m] + j
        acc_d[:m] += g[at] * disc[j]
        acc_r[:m] += r[at]
        if not avg:
            stop = err_stop[ranked[at]]
            acc_e[:m] += p_cont[:m] * stop / (j + 1.0)
            p_cont[:m] *= 1.0 - stop
        if ideal is not None:
            acc_i[:m] += gain_table[ideal[at]] * disc[j]
        at_k = int(np.searchsorted(cutoffs, j + 1))  # cutoffs[at_k:] >= j + 1
        if at_k < C and cutoffs[at_k] == j + 1:  # every running query ends k = j + 1 here
            record(0, m, at_k, at_k + 1)
            at_k += 1
        if at_k < C and q.running[j + 1] < m:  # queries of j + 1 documents end every larger k
            record(q.running[j + 1], m, at_k, C)
    return res


def ap_rr_ranked(ranked, rel, nq: int, qpos, pos) -> tuple[np.ndarray, np.ndarray]:
    """AP and RR of every query (file order) when no tie is averaged: :func:`ap_rr` with every
    tie group a single document, whose terms reduce to ``(seen + 1.0) / (i + 1)`` for AP (the
    relevant document at rank i + 1 after ``seen`` relevant ones) and ``1.0 / (i + 1)`` for RR
    (the first relevant one), summed in rank order from 0.0 as the kernel sums them."""
    isrel = ranked >= rel
    slots = np.flatnonzero(isrel)
    q_of = qpos[slots]
    n_rel = np.bincount(q_of, minlength=nq).astype(np.float64)
    first = np.ones(len(slots), dtype=bool)  # each query's first relevant slot
    first[1:] = q_of[1:] != q_of[:-1]
    at = np.flatnonzero(first)
    seen = np.arange(len(slots)) - np.repeat(at, np.diff(np.append(at, len(slots))))
    rank = (pos[slots] + 1).astype(np.float64)
    terms = (seen.astype(np.float64) + 1.0) / rank
    ap = np.bincount(q_of, weights=terms, minlength=nq)  # in rank order within each query
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = np.where(n_rel > 0, ap / n_rel, 0.0)
    rr = np.zeros(nq)
    rr[q_of[at]] = 1.0 / rank[at]
    return ap, rr


def ap_rr(ranked, groups: TieGroups, rel, nq: int, qpos) -> tuple[np.ndarray, np.ndarray]:
    """AP and RR of every query (file order), exact expectations over tie groups.

    A tie group of ``size`` documents, ``grel`` of them relevant, starting at rank i + 1 after
    ``seen`` relevant ones, adds for t = 1..size ``(grel / size) (seen + 1 + within_t) / (i + t)``
    to AP, with ``within_t = (t - 1)(grel - 1) / (size - 1)``; RR comes from the first group
    with a relevant document.
    """
    isrel = ranked >= rel
    n_rel = np.bincount(qpos, weights=isrel, minlength=nq)  # integral counts, exact
    count = np.cumsum(isrel)
    before = count - isrel  # relevant documents ranked above each slot, over all queries
    qfirst = np.flatnonzero(groups.start == 0)  # each query's first group
    seen_g = before[groups.first] - before[groups.first[qfirst]][groups.query]
    grel_g = (count[groups.first + groups.size - 1] - before[groups.first]).astype(np.float64)
    seen_g = seen_g.astype(np.float64)
    # AP: every slot of a group holding a relevant document, in rank order
    slots = np.flatnonzero(grel_g[groups.gid] > 0)
    gid = groups.gid[slots]
    size, grel, seen = groups.size[gid], grel_g[gid], seen_g[gid]
    t = slots - groups.first[gid] + 1
    i_plus_t = groups.start[gid] + t
    with np.errstate(divide="ignore", invalid="ignore"):
        within = np.where(size == 1, 0.0, (t - 1) * (grel - 1.0) / (size - 1.0))
    terms = (grel / size) * (seen + 1.0 + within) / i_plus_t
    per_query = np.bincount(qpos[slots], minlength=nq)
    ap = sequential_sums(terms, np.concatenate(([0], np.cumsum(per_query)[:-1])), per_query)
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = np.where(n_rel > 0, ap / n_rel, 0.0)
    # RR: the first group with a relevant document, slot by slot
    rr = np.zeros(nq)
    firsts = np.flatnonzero((grel_g > 0) & (seen_g == 0))
    if len(firsts):
        firsts = firsts[np.argsort(-groups.size[firsts], kind="stable")]
        size, grel = groups.size[firsts], grel_g[firsts]
        start, owner = groups.start[firsts], groups.query[firsts]
        alive = len(firsts) - np.cumsum(np.bincount(size))
        acc, p_none = np.zeros(len(firsts)), np.ones(len(firsts))
        for t in range(1, int(size[0]) + 1):
            m = alive[t - 1]
            hit = grel[:m] / (size[:m] - t + 1.0)
            acc[:m] += p_none[:m] * hit / (start[:m] + t)
            p_none[:m] *= 1.0 - hit
        rr[owner] = acc
    return ap, rr
