"""A dataset's sensitivity profile: how much the NDCG conventions can disagree on it.

For any model, ``mean NDCG_yahoo - mean NDCG_ranklib`` equals the share of queries without a
relevant document (yahoo scores them 1, ranklib 0), and ``letor`` scores 0 at cutoff k every
query with fewer than k documents.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from .data import Dataset


def audit(data: Dataset, cutoffs: Iterable[int] = range(1, 11), rel: int = 1) -> dict:
    """Profile of ``data``; keys are stable (see :func:`audit_frame` for the tidy form)."""
    ks = [int(k) for k in cutoffs]
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


def zero_shares(per_query, train_convention: str, conventions=("letor", "ranklib"),
                metric: str = "NDCG"):
    """Share of test queries scoring exactly 0 under each of ``conventions``, per algorithm and
    cutoff, for models trained with ``train_convention`` (each query averaged over seeds first,
    so a query counts when every seed's model scores it 0). Columns: algorithm,
    eval_convention, k, share."""
    from .study import seed_averaged

    pq = seed_averaged(per_query)
    pq = pq[(pq["train_convention"] == train_convention) & (pq["metric"] == metric)
            & pq["eval_convention"].isin(list(conventions))]
    out = (pq.assign(zero=pq["value"] == 0.0)
           .groupby(["algorithm", "eval_convention", "k"], sort=True)["zero"].mean())
    return out.rename("share").reset_index()


def predictions_markdown(report: dict, summary, zeros, train_convention: str,
                         collapse_cutoffs=(8, 9, 10), metric: str = "NDCG") -> str:
    """The audit's predictions next to the measured values, as a Markdown section.

    Predicted (from the data alone): ``yahoo - ranklib`` = the share of queries without a
    relevant document, for every model and cutoff; ``letor`` scores 0 at cutoff k at least the
    share of queries that are empty or shorter than k. Measured: the summary's yahoo - ranklib
    (models trained with ``train_convention``, all algorithms and cutoffs) and ``zeros``
    (:func:`zero_shares`), whose letor share can only exceed the prediction (a model may also
    put no relevant document in the top k).
    """
    import numpy as np

    s = summary[(summary["metric"] == metric) & (summary["train_convention"] == train_convention)]
    wide = s.pivot_table(index=["algorithm", "k"], columns="eval_convention", values="mean")
    lines = ["", "## Audit predictions", "",
             "What the dataset profile predicts before any model is trained, next to what the "
             f"models trained with {train_convention} measured ({metric}; mean over algorithms, "
             "range over algorithms in brackets).", "",
             "| quantity | predicted by the audit | measured |", "|---|---|---|"]
    empty = report.get("empty_share")
    if empty is not None and {"yahoo", "ranklib"} <= set(wide.columns):
        off = (wide["yahoo"] - wide["ranklib"]).dropna()
        lines.append(f"| yahoo − ranklib {metric}@k, any k | {float(empty):+.4f} | "
                     f"{off.mean():+.4f} [{off.min():+.4f}, {off.max():+.4f}] |")
    zeroed = report.get("letor_zeroed") or {}
    for k in collapse_cutoffs:
        pred = zeroed.get(k, zeroed.get(str(k)))
        z = zeros[(zeros["k"].astype(int) == int(k))]
        let = z[z["eval_convention"] == "letor"]["share"].to_numpy(dtype=float)
        rl = z[z["eval_convention"] == "ranklib"]["share"].to_numpy(dtype=float)
        if pred is None or not let.size:
            continue
        ctx = (f"; ranklib scores 0 on {rl.mean():.3f}" if rl.size else "")
        lines.append(f"| share of queries letor scores 0 at k = {k} | ≥ {float(pred):.3f} | "
                     f"{let.mean():.3f} [{let.min():.3f}, {let.max():.3f}]{ctx} |")
    if len(lines) == 6:
        lines.append("| (no measured value to compare) | | |")
    n_run, n_all = (int(s["n_queries"].max()) if len(s) else 0), report.get("queries")
    if n_all is not None and n_run != int(n_all):
        lines += ["", f"The results cover {n_run} of the audit's {int(n_all)} queries (not every "
                  "fold was run): the measured values describe those queries only."]
    if {"letor", "ranklib"} <= set(wide.columns):
        gap = (wide["ranklib"] - wide["letor"]).dropna()
        gap = gap[gap.index.get_level_values("k").isin(list(collapse_cutoffs))]
        if len(gap):
            lines += ["", f"ranklib − letor at k = {', '.join(map(str, collapse_cutoffs))}: "
                      f"{gap.mean():+.4f} [{gap.min():+.4f}, {gap.max():+.4f}] "
                      f"(audit share zeroed there: "
                      + ", ".join(f"{float(zeroed.get(k, np.nan)):.3f}" for k in collapse_cutoffs)
                      + ")."]
    return "\n".join(lines) + "\n"
