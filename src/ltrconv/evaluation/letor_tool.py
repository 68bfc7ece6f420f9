"""The report of LETOR 4.0's ``Eval-Score-4.0.pl`` (Xu and Liu, revised 3 March 2009).

``ltrconv eval-score TEST PREDICTION OUTPUT FLAG`` takes the Perl tool's four arguments and
writes its layout, so scripts that call the tool only need the command name changed:

- a precision block, header ``qid P@1 .. P@10 MAP``, and an NDCG block, header
  ``qid NDCG@1 .. NDCG@10 MeanNDCG``, fields separated by tabs;
- in each block, with FLAG 1, one row per query in ascending numeric qid order; then a row
  ``Average``; every row ends ``v\\t...\\tv_last\\n`` and each block ends with a blank line;
- every value ``%.4f``; averages are sums in qid order divided by the number of queries.

The values are the ``letor`` convention: gain ``2^l - 1``, no discount at ranks 1 and 2 and
``1/log2(r)`` after, ties in input order, NDCG@k = 0 for a query without relevant documents
or with fewer than k documents; P@k divides by k (missing ranks count as irrelevant); AP is 0
without relevant documents; relevant means label >= 1. ``MeanNDCG`` of a query is the mean of
its NDCG@1 .. NDCG@n over all its n documents. The Perl tool's gain and relevance tables stop
at label 2 and would score higher labels as irrelevant, so such labels are refused here.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .metrics import MAX_CUTOFFS, evaluate_dataset

TOP = 10
"""The tool reports ranks 1..10 (``$iMaxPosition`` of the 2009 revision)."""

MAX_LABEL = 2


def _row(head: str, values) -> str:
    return head + "\t" + "\t".join(f"{v:.4f}" for v in values) + "\n"


def _sequential_mean(column: np.ndarray) -> float:
    """Left-to-right sum divided by the count, the order the Perl tool adds in."""
    return float(np.cumsum(column)[-1] / len(column)) if len(column) else float("nan")


def mean_ndcg(data, scores: np.ndarray) -> np.ndarray:
    """Per query: mean of NDCG@1 .. NDCG@n (``letor``), n its number of documents."""
    sizes = np.diff(data.offsets)
    total = np.zeros(len(sizes))
    top = int(sizes.max())
    for start in range(1, top + 1, MAX_CUTOFFS):
        ks = list(range(start, min(start + MAX_CUTOFFS, top + 1)))
        ev = evaluate_dataset(data, scores, conventions=["letor"], cutoffs=ks)["letor"]
        ndcg = np.column_stack([ev[f"NDCG@{k}"] for k in ks])
        total += np.where(np.asarray(ks)[None, :] <= sizes[:, None], ndcg, 0.0).sum(axis=1)
    return total / sizes


def eval_score_report(data, scores, per_query: bool, path: str = "TEST") -> str:
    """The text ``Eval-Score-4.0.pl`` writes for ``data`` ranked by ``scores``."""
    if len(data.y) and data.y.max() > MAX_LABEL:
        row = int(np.argmax(data.y > MAX_LABEL))
        raise InputError(
            f"label {int(data.y[row])} in row {row + 1}: Eval-Score-4.0.pl knows labels 0-2 only "
            "(it would score this one as irrelevant); use 'ltrconv eval' for graded labels above 2",
            path,
        )
    scores = np.asarray(scores, dtype=np.float64)
    ev = evaluate_dataset(data, scores, conventions=["letor"], cutoffs=range(1, TOP + 1))["letor"]
    order = np.argsort(ev.qids, kind="stable")
    qids = ev.qids[order]
    blocks = [
        (["P@%d" % k for k in range(1, TOP + 1)] + ["MAP"],
         np.column_stack([ev[f"P@{k}"] for k in range(1, TOP + 1)] + [ev["MAP"]])),
        (["NDCG@%d" % k for k in range(1, TOP + 1)] + ["MeanNDCG"],
         np.column_stack([ev[f"NDCG@{k}"] for k in range(1, TOP + 1)]
                         + [mean_ndcg(data, scores)])),
    ]
    out = []
    for header, table in blocks:
        table = table[order]
        out.append("\t".join(["qid", *header]) + "\n")
        if per_query:
            out.extend(_row(str(q), r) for q, r in zip(qids, table))
        out.append(_row("Average", [_sequential_mean(table[:, j]) for j in range(table.shape[1])]))
        out.append("\n")
    return "".join(out)
