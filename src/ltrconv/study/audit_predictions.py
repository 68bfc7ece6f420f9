"""What the study's predictions say about the dataset audit: the share of queries each
convention scores 0, and the markdown that sets them beside the audit's prediction."""

from __future__ import annotations

import numpy as np

from .tables import seed_averaged


def zero_shares(per_query, train_convention: str, conventions=("letor", "ranklib"),
                metric: str = "NDCG"):
    """Share of test queries scoring exactly 0 under each of ``conventions``, per algorithm and
    cutoff, for models trained with ``train_convention`` (each query averaged over seeds first,
    so a query counts when every seed's model scores it 0). Columns: algorithm,
    eval_convention, k, share."""
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
