"""A dataset's sensitivity profile: how much the NDCG conventions can disagree on it.

For any model, ``mean NDCG_yahoo - mean NDCG_ranklib`` equals the share of queries without a
relevant document (yahoo scores them 1, ranklib 0), and ``letor`` scores 0 at cutoff k every
query with fewer than k documents.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ..errors import LtrconvError
from .letor import Dataset


def audit(data: Dataset, cutoffs: str | int | Iterable[int] = range(1, 11), rel: int = 1) -> dict:
    """Profile of ``data``; keys are stable (see :func:`audit_frame` for the tidy form).
    ``cutoffs`` as :func:`~ltrconv.evaluation.metrics.parse_cutoffs` reads them ("1-10",
    5, [1, 5, 10])."""
    from ..evaluation.metrics import parse_cutoffs

    ks = parse_cutoffs(cutoffs).tolist()
    sizes = data.sizes
    nq = data.n_queries
    qmax = np.maximum.reduceat(data.y, data.offsets[:-1])
    empty = qmax < rel
    hist_values, hist_counts = np.unique(sizes, return_counts=True)
    shorter = {k: float(np.mean(sizes < k)) for k in ks}
    letor_zeroed = {k: float(np.mean(empty | (sizes < k))) for k in ks}
    label_values, label_counts = np.unique(data.y, return_counts=True)

    dup_docids = 0
    tied_vectors = 0
    queries_with_ties = 0
    for q in range(nq):
        a, b = data.offsets[q], data.offsets[q + 1]
        d = data.docid[a:b]
        d = d[d != ""]
        dup_docids += len(d) - len(np.unique(d))
        _, counts = np.unique(data.X[a:b], axis=0, return_counts=True)
        extra = int((counts[counts > 1]).sum())
        tied_vectors += extra
        queries_with_ties += extra > 0

    return {
        "queries": int(nq),
        "documents": int(data.n_docs),
        "features": int(data.X.shape[1]),
        "labels": {int(v): int(c) for v, c in zip(label_values, label_counts)},
        "docs_per_query": {
            "min": int(sizes.min()),
            "median": float(np.median(sizes)),
            "mean": float(sizes.mean()),
            "max": int(sizes.max()),
            "histogram": {int(v): int(c) for v, c in zip(hist_values, hist_counts)},
        },
        "empty_queries": int(empty.sum()),
        "empty_share": float(empty.mean()),
        "shorter_than": shorter,
        "yahoo_minus_ranklib": float(empty.mean()),
        "letor_zeroed": letor_zeroed,
        "duplicate_docids": int(dup_docids),
        "tied_feature_vectors": int(tied_vectors),
        "queries_with_tied_vectors": int(queries_with_ties),
    }


def audit_frame(data: Dataset, cutoffs: Iterable[int] = range(1, 11)):
    """:func:`audit` as a tidy table with columns ``section, key, value``."""
    import pandas as pd

    rows = []

    def walk(section: str, obj) -> None:
        for key, value in obj.items():
            if isinstance(value, dict):
                walk(f"{section}.{key}" if section else str(key), value)
            else:
                rows.append((section or "dataset", str(key), float(value)))

    walk("", audit(data, cutoffs))
    return pd.DataFrame(rows, columns=["section", "key", "value"])


def format_audit(report: dict) -> str:
    """Human-readable text of :func:`audit`."""
    dq = report["docs_per_query"]
    lines = [
        f"queries              {report['queries']}",
        f"documents            {report['documents']}",
        f"features             {report['features']}",
        "labels               " + ", ".join(
            f"{lab}: {cnt} ({cnt / report['documents']:.1%})" for lab, cnt in report["labels"].items()
        ),
        f"docs per query       min {dq['min']}, median {dq['median']:g}, mean {dq['mean']:.1f}, max {dq['max']}",
        f"no relevant document {report['empty_queries']} queries ({report['empty_share']:.1%})",
        f"yahoo - ranklib      +{report['yahoo_minus_ranklib']:.4f} on mean NDCG@k, any model, any k",
        f"duplicate docids     {report['duplicate_docids']}",
        f"tied feature vectors {report['tied_feature_vectors']} documents in "
        f"{report['queries_with_tied_vectors']} queries",
        "",
        "  k  shorter than k  letor scores 0",
    ]
    for k, share in report["shorter_than"].items():
        lines.append(f"{k:3d}  {share:13.1%}  {report['letor_zeroed'][k]:14.1%}")
    lines += ["", "docs/query  queries"]
    hist = dq["histogram"]
    top = max(hist.values())
    for n, c in hist.items():
        lines.append(f"{n:10d}  {c:7d}  " + "#" * max(1, round(40 * c / top)))
    return "\n".join(lines)


def audit_from_table(table) -> dict:
    """The audit dict back from its tidy form (a DataFrame with columns section, key, value).

    Rows of section ``dataset`` become top-level keys; other sections (``a.b``) become nested
    dicts, with integer keys where the key is a number (cutoffs, labels, sizes).
    """
    missing = {"section", "key", "value"} - set(table.columns)
    if missing:
        raise LtrconvError(f"audit table lacks column(s) {sorted(missing)}")
    out: dict = {}
    for section, key, value in table[["section", "key", "value"]].itertuples(index=False):
        node = out
        if section != "dataset":
            for part in str(section).split("."):
                node = node.setdefault(part, {})
        key = str(key)
        k = int(key) if key.lstrip("-").isdigit() else key
        v = float(value)
        node[k] = int(v) if v.is_integer() and k in ("queries", "documents", "features",
                                                      "empty_queries") else v
    return out
