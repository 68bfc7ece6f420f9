"""The reports of the LETOR evaluation scripts by Xu and Liu, all called
``TEST PREDICTION OUTPUT FLAG`` (``ltrconv eval-score --tool TOOL ...``):

- ``letor4``: LETOR 4.0's ``Eval-Score-4.0.pl`` (revised 3 March 2009);
- ``mslr``: ``mslr-eval-score-mslr.pl`` of the MSLR-WEB datasets (revised 12 June 2010);
- ``letor3``: LETOR 3.0's ``Eval-Score-3.0.pl``.

What the three share: documents ranked by score, highest first, ties in input order (a stable
sort); queries reported in ascending numeric qid order; discount 1 at ranks 1 and 2 and
``1/log2(r)`` after; ``NDCG@k = DCG@k / IDCG@k``, 0 when IDCG@k = 0; ``P@k`` = relevant
documents in the top k over k; ``AP`` = the mean over the relevant documents of the precision
at their ranks, 0 without any; averages are sums in qid order divided by the number of ALL
queries. A label missing from a script's tables would score gain 0 and count as irrelevant;
such labels are refused here instead (above 2 for ``letor3`` and ``letor4``, above 4 for
``mslr``).

``letor4`` and ``mslr`` write the same layout (:func:`_table_report`): a precision block, header
``qid P@1 .. P@10 MAP``, and an NDCG block, header ``qid NDCG@1 .. NDCG@10 MeanNDCG``, tab
separated; with FLAG 1 one row per query, then a row ``Average``; every value ``%.4f``; each
block ends with a blank line. Ranks past a query's n documents count as irrelevant for P@k and
give NDCG@k = 0; ``MeanNDCG`` of a query is the mean of its NDCG@1 .. NDCG@n. Their NDCG is the
``letor`` convention (gain ``2^l - 1``: 0, 1, 3 and, for ``mslr``, 7, 15). They differ in
relevance for P@k and MAP: label >= 1 for ``letor4``, label >= 2 for ``mslr`` (its table marks
label 1 irrelevant), the engine's ``rel`` parameter.

``letor3`` (:func:`_letor3_report`) reports ranks 1 .. min(16, n) of each query, without
headers or qids: lines ``precision of query<i>:``, ``Map of query<i>:``, ``NDCG of query<i>:``
(i = the query's place in qid order, from 0; FLAG 1 only), each block closed by its average
line ``precision:``, ``MAP:``, ``NDCG:``, numbers in Perl's default form (``%.15g``). A query
with fewer than k documents adds nothing to the rank-k average, which still divides by all
queries: NDCG@k thus averages the ``letor`` convention's values (NDCG@k = 0 for n < k), exactly
as ``letor4`` does; P@k counts 0 for such a query where ``letor4`` counts its missing ranks as
irrelevant (n/k times its P@n).

LETOR 3.0 and 4.0's scripts key documents by the ``#docid`` of the comment: a docid repeated
within a query is one document, the last line's (label, score and place). The same happens
here for those two tools; ``mslr`` keys by line and keeps every line. Each Perl script also
demands its own comment layout (``#docid = X`` ending the line for 3.0, ``#docid = X inc = Y
prob = Z`` for 4.0) and stops at the first other line; here any LETOR file is read.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..errors import InputError
from .conventions import LETOR
from .metrics import MAX_CUTOFFS, evaluate
from .queries import offsets_from_qid

TOOLS = ("letor3", "letor4", "mslr")
SCRIPTS = {"letor3": "Eval-Score-3.0.pl", "letor4": "Eval-Score-4.0.pl",
           "mslr": "mslr-eval-score-mslr.pl"}
MAX_LABEL = {"letor3": 2, "letor4": 2, "mslr": 4}
"""The largest label each script's gain and relevance tables know."""

TOP = 10
"""``letor4`` and ``mslr`` report ranks 1..10 (``$iMaxPosition`` since the 2009 revision)."""

LETOR3_TOP = 16
"""``letor3`` reports ranks 1..min(16, n)."""

PRECISION = {"letor3": LETOR, "letor4": LETOR, "mslr": LETOR.with_(rel=2)}
"""Convention of each tool's P@k and MAP: ``letor`` (relevant = label >= 1, P@k over k), with
relevant = label >= 2 for ``mslr``."""

_LOG2 = math.log(2.0)


class Queries(NamedTuple):
    """Labels, scores and query structure as a script sees them."""

    y: np.ndarray
    scores: np.ndarray
    qid: np.ndarray
    offsets: np.ndarray


def _row(head: str, values) -> str:
    return head + "\t" + "\t".join(f"{v:.4f}" for v in values) + "\n"


def _sequential_mean(column: np.ndarray) -> float:
    """Left-to-right sum divided by the count, the order the Perl scripts add in."""
    return float(np.cumsum(column)[-1] / len(column)) if len(column) else float("nan")


def one_per_docid(y, scores, qid, offsets, docid) -> Queries:
    """Keep the last line of each docid repeated within a query (LETOR 3.0 / 4.0 scripts)."""
    y, scores, qid = np.asarray(y), np.asarray(scores, dtype=np.float64), np.asarray(qid)
    docid = np.asarray(docid).astype(str)
    qpos = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    named = np.flatnonzero(docid != "")
    keep = np.ones(len(y), dtype=bool)
    if len(named):
        # rows of each (query, docid) by row; all but the last of each run are dropped
        order = named[np.lexsort((named, docid[named], qpos[named]))]
        same_next = (qpos[order][:-1] == qpos[order][1:]) & (docid[order][:-1] == docid[order][1:])
        keep[order[:-1][same_next]] = False
    if keep.all():
        return Queries(y, scores, qid, np.asarray(offsets))
    return Queries(y[keep], scores[keep], qid[keep], offsets_from_qid(qid[keep]))


def mean_ndcg(q: Queries) -> np.ndarray:
    """Per query: mean of NDCG@1 .. NDCG@n (``letor``), n its number of documents."""
    sizes = np.diff(q.offsets)
    total = np.zeros(len(sizes))
    top = int(sizes.max())
    for start in range(1, top + 1, MAX_CUTOFFS):
        ks = list(range(start, min(start + MAX_CUTOFFS, top + 1)))
        ev = evaluate(q.y, q.scores, q.qid, offsets=q.offsets, conventions=[LETOR], cutoffs=ks,
                      metrics=["NDCG"])[str(LETOR)]
        ndcg = np.column_stack([ev[f"NDCG@{k}"] for k in ks])
        total += np.where(np.asarray(ks)[None, :] <= sizes[:, None], ndcg, 0.0).sum(axis=1)
    return total / sizes


def _table_report(q: Queries, per_query: bool, tool: str) -> str:
    """The ``letor4`` / ``mslr`` layout."""
    ks = range(1, TOP + 1)
    prec = PRECISION[tool]
    convs = [LETOR] if prec == LETOR else [LETOR, prec]
    evs = evaluate(q.y, q.scores, q.qid, offsets=q.offsets, conventions=convs, cutoffs=ks)
    ev, ev_p = evs[str(LETOR)], evs[str(prec)]
    order = np.argsort(ev.qids, kind="stable")
    qids = ev.qids[order]
    blocks = [
        (["P@%d" % k for k in ks] + ["MAP"],
         np.column_stack([ev_p[f"P@{k}"] for k in ks] + [ev_p["MAP"]])),
        (["NDCG@%d" % k for k in ks] + ["MeanNDCG"],
         np.column_stack([ev[f"NDCG@{k}"] for k in ks] + [mean_ndcg(q)])),
    ]
    out = []
    for header, table in blocks:
        table = table[order]
        out.append("\t".join(["qid", *header]) + "\n")
        if per_query:
            out.extend(_row(str(i), r) for i, r in zip(qids, table))
        out.append(_row("Average", [_sequential_mean(table[:, j]) for j in range(table.shape[1])]))
        out.append("\n")
    return "".join(out)


def letor3_ndcg(q: Queries, top: int = LETOR3_TOP) -> np.ndarray:
    """NDCG@1..top per query (``letor``; 0 past a query's n documents), by the operations of
    ``Eval-Score-3.0.pl``: ``DCG@r = DCG@(r-1) + g_r`` for r <= 2 and
    ``DCG@(r-1) + g_r * ln 2 / ln r`` after, ``g = 2^l - 1``.

    The engine's ``letor`` NDCG is the same number up to the last bits (it multiplies by a
    tabulated ``1/log2 r``); the 15 significant digits the script prints can show them.
    """
    sizes = np.diff(q.offsets)
    qpos = np.repeat(np.arange(len(sizes)), sizes)
    rank = np.arange(len(q.y)) - q.offsets[qpos]
    gain = np.exp2(q.y.astype(np.float64)) - 1.0
    ranked = np.zeros((len(sizes), top))
    ideal = np.zeros((len(sizes), top))
    by_score = np.lexsort((-q.scores, qpos))  # stable: ties keep input order
    by_gain = np.lexsort((-gain, qpos))
    shown = rank < top
    ranked[qpos[shown], rank[shown]] = gain[by_score][shown]
    ideal[qpos[shown], rank[shown]] = gain[by_gain][shown]
    log_r = np.array([1.0, 1.0] + [math.log(r) for r in range(3, top + 1)])  # libm, as Perl
    dcg, best = ranked.copy(), ideal.copy()
    for j in range(1, top):
        step_d = ranked[:, j] if j < 2 else ranked[:, j] * _LOG2 / log_r[j]
        step_i = ideal[:, j] if j < 2 else ideal[:, j] * _LOG2 / log_r[j]
        dcg[:, j] = dcg[:, j - 1] + step_d
        best[:, j] = best[:, j - 1] + step_i
    with np.errstate(divide="ignore", invalid="ignore"):
        ndcg = np.where(best != 0.0, dcg / best, 0.0)
    return np.where(np.arange(top)[None, :] < sizes[:, None], ndcg, 0.0)


def _g15(v: float) -> str:
    """Perl's default string for a number."""
    return "%.15g" % v


def _letor3_report(q: Queries, per_query: bool) -> str:
    """The ``Eval-Score-3.0.pl`` layout."""
    sizes = np.diff(q.offsets)
    ks = range(1, LETOR3_TOP + 1)
    ev = evaluate(q.y, q.scores, q.qid, offsets=q.offsets, conventions=[LETOR], cutoffs=ks,
                  metrics=["P", "MAP"])[str(LETOR)]
    order = np.argsort(ev.qids, kind="stable")
    shown = np.minimum(sizes, LETOR3_TOP)[order]
    width = int(shown.max())
    short = np.arange(LETOR3_TOP)[None, :] >= shown[:, None]
    prec = np.column_stack([ev[f"P@{k}"] for k in ks])[order]
    prec[short] = 0.0
    ndcg = letor3_ndcg(q)[order]
    ap = ev["MAP"][order]
    n = len(order)

    def block(name: str, table: np.ndarray) -> list[str]:
        lines = []
        if per_query:
            lines = [f"{name} of query{i}:\t" + "".join(_g15(v) + "\t" for v in row[:m]) + "\n"
                     for i, (row, m) in enumerate(zip(table, shown))]
        means = [float(np.cumsum(table[:, j])[-1] / n) for j in range(width)]
        return lines + [f"{name}:\t" + "".join(_g15(v) + "\t" for v in means) + "\n\n"]

    out = block("precision", prec)
    if per_query:
        out += [f"Map of query{i}:\t{_g15(v)}\n" for i, v in enumerate(ap)]
    out.append(f"MAP:\t{_g15(float(np.cumsum(ap)[-1] / n))}\n\n")
    out += block("NDCG", ndcg)
    return "".join(out)


def eval_score_report(data, scores, per_query: bool, path: str = "TEST",
                      tool: str = "letor4") -> str:
    """The text ``tool``'s script writes for ``data`` (``y``, ``qid``, ``offsets``, ``docid``)
    ranked by ``scores``."""
    if tool not in TOOLS:
        raise ValueError(f"tool {tool!r}: expected one of {', '.join(TOOLS)}")
    top_label = MAX_LABEL[tool]
    if len(data.y) and data.y.max() > top_label:
        row = int(np.argmax(data.y > top_label))
        raise InputError(
            f"label {int(data.y[row])} in row {row + 1}: {SCRIPTS[tool]} knows labels "
            f"0-{top_label} only (it would score this one as irrelevant); use 'ltrconv eval' for "
            f"graded labels above {top_label}",
            path,
        )
    if tool == "mslr":
        q = Queries(np.asarray(data.y), np.asarray(scores, dtype=np.float64),
                    np.asarray(data.qid), np.asarray(data.offsets))
    else:
        q = one_per_docid(data.y, scores, data.qid, data.offsets, data.docid)
    if tool == "letor3":
        return _letor3_report(q, per_query)
    return _table_report(q, per_query, tool)
