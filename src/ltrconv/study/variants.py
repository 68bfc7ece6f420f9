"""Implementation sensitivity: an algorithm as RankLib 2.x implements it next to a variant.

A *variant* is a study algorithm trained like its base algorithm with some parameters changed
(AdaRank's weak rankers ranked with a stable tie order instead of RankLib's selection sort,
RankBoost with quantile thresholds, ...), or by another implementation (LambdaMART's λ-gradients
fitted by LightGBM's trees). :func:`implementation_table` compares each variant with
its base query by query; :func:`implementation_section` asks whether the paper's conclusions
about the base algorithm survive the swap and sets the size of the implementation effect next
to the size of the convention effects measured in the same run.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rankers.registry import display_name as name
from .paper import busa_fekete_2012 as paper
from .stats import paired_table
from .tables import (TTEST_COLUMNS, algorithm_order, factorize_rows, fold_stats, holm_per_family,
                     seed_averaged, sort_rows, summarise)

COLUMNS = ["dataset", "algorithm", "variant", "train_convention", "eval_convention", "metric", "k",
           "mean_base", "stderr_base", "mean_variant", "stderr_variant", "diff", "n", "t", "p",
           "p_holm", "significant"]
CLAIMS = ("ca_best", "adarank")


def implementation_table(per_query: pd.DataFrame, variants: dict[str, str],
                         alpha: float = 0.05) -> pd.DataFrame:
    """Each variant against its base algorithm, per training and evaluation convention.

    ``variants`` maps a variant's name to its base algorithm. ``mean_*``/``stderr_*`` are the
    fold-mean statistics of :func:`ltrconv.study.tables.summarise`; ``diff = variant - base`` over the
    queries paired by (fold, qid); ``t``/``p`` the paired t-test, ``p_holm`` Holm-adjusted over
    all comparisons of one dataset and metric type; ``significant = p_holm < alpha``.
    """
    pq = seed_averaged(per_query)
    keys = ["dataset", "train_convention", "eval_convention", "metric", "k"]
    parts = []
    for variant, base in variants.items():
        sub = pq[pq["algorithm"].isin([variant, base])]
        if not {variant, base} <= set(sub["algorithm"].unique()):  # not row by row
            continue
        summ = summarise(folds=fold_stats(sub, averaged=True)).set_index(["algorithm"] + keys)
        wide = sub.pivot(index=keys + ["fold", "qid"], columns="algorithm", values="value")
        wide = wide[[base, variant]].dropna()
        codes, groups = factorize_rows(wide.index.droplevel(["fold", "qid"]))
        agg = groups.set_names(keys).to_frame(index=False).assign(
            **paired_table(wide[variant], wide[base], codes))
        for who, col in ((base, "base"), (variant, "variant")):
            idx = pd.MultiIndex.from_frame(agg[keys].assign(algorithm=who)[["algorithm"] + keys])
            agg[f"mean_{col}"] = summ["mean"].reindex(idx).to_numpy()
            agg[f"stderr_{col}"] = summ["stderr"].reindex(idx).to_numpy()
        agg["algorithm"], agg["variant"] = base, variant
        parts.append(agg)
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    out = pd.concat(parts, ignore_index=True)
    holm_per_family(out, alpha)
    return sort_rows(out[COLUMNS], ["dataset", "algorithm", "variant", "train_convention",
                                    "eval_convention", "metric", "k"])


def substitute(summary: pd.DataFrame, variant: str, base: str, drop=()) -> pd.DataFrame:
    """The summary with ``variant``'s rows standing in for ``base``'s (and ``drop`` removed)."""
    s = summary[~summary["algorithm"].isin([base, *drop])]
    return s.assign(algorithm=s["algorithm"].where(s["algorithm"] != variant, base))


def _value(summary, algorithm, train, ev, k, col="mean") -> float:
    s = summary[(summary["algorithm"] == algorithm) & (summary["train_convention"] == train)
                & (summary["eval_convention"] == ev) & (summary["metric"] == "NDCG")
                & (summary["k"].astype(int) == k)]
    return float(s[col].iloc[0]) if len(s) else float("nan")


def _cell(text: str) -> str:
    """``text`` for a Markdown table cell: a literal ``|`` (as in "largest |r|") escaped."""
    return str(text).replace("|", "\\|")


def implementation_section(summary: pd.DataFrame, table: pd.DataFrame,
                           variants: dict[str, str], labels: dict[str, str] | None = None,
                           train_convention: str = "ranklib", k: int = 10,
                           rankers: dict[str, str] | None = None) -> str:
    """Markdown: each variant next to its base, the paper's conclusions under both, effect sizes.

    The conclusions are the paper's claims about the algorithm order (Coordinate Ascent best;
    RankBoost, RankSVM and LambdaMART close; AdaRank not competitive), checked by
    :func:`ltrconv.study.paper.busa_fekete_2012.claims` once on the base algorithms and once with each
    variant in place of its base. Effects are NDCG@k differences of models trained with
    ``train_convention``: the implementation effect (variant - base, ranklib evaluation), the
    training-convention effect (largest |other training convention - train_convention| of the
    base, ranklib evaluation) and the evaluation-convention effect (|other evaluation convention -
    ranklib| of the same base model). ``rankers`` maps each variant that runs another
    implementation than its base's to that ranker's registry name.
    """
    labels, rankers = labels or {}, rankers or {}
    what = "Each variant is its base algorithm with the parameters named below changed"
    if rankers:
        what += ", or another implementation of it (" + ", ".join(
            f"ranker {r}" if v == r else f"{v}: ranker {r}" for v, r in rankers.items()) + ")"
    lines = ["", "## Implementation sensitivity", "",
             f"{what}; the base follows RankLib 2.x, the implementation the paper ran. Models "
             f"trained with ndcg@{k}:{train_convention}; differences are variant − base over "
             "paired test queries, p-values Holm-adjusted (tables/implementation.tsv).", ""]
    pairs = [(v, b) for v, b in variants.items() if (table["variant"] == v).any()]
    if not pairs:
        return "\n".join(lines + ["No variant was run.", ""])
    t = table[(table["train_convention"] == train_convention) & (table["metric"] == "NDCG")
              & (table["k"].astype(int) == k)]
    lines += [f"| algorithm | variant | eval | base NDCG@{k} | variant NDCG@{k} | diff | p (Holm) |",
              "|---|---|---|---|---|---|---|"]
    for v, b in pairs:
        for ev in ("ranklib", "yahoo", "letor"):
            r = t[(t["variant"] == v) & (t["eval_convention"] == ev)]
            if r.empty:
                continue
            r = r.iloc[0]
            lines.append(f"| {name(b)} | {_cell(labels.get(v, v))} | {ev} | {r['mean_base']:.4f} | "
                         f"{r['mean_variant']:.4f} | {r['diff']:+.4f} | {r['p_holm']:.3g} |")
    others = [v for v, _ in pairs]
    empty_tests = pd.DataFrame(columns=TTEST_COLUMNS)
    setting = paper.Setting(k=k, train=train_convention)
    base_only = summary[~summary["algorithm"].isin(others)]

    def verdicts(s):
        order = algorithm_order(s, train_convention=train_convention, metric="NDCG", k=k)
        found = paper.claims(s, empty_tests, order, None, setting)
        return {c["id"]: c for c in found if c["id"] in CLAIMS}

    ref = verdicts(base_only)
    lines += ["", "The paper's conclusions on the algorithm order, with each variant in place of "
              "its base (the other algorithms as run):", "",
              "| conclusion | RankLib 2.x implementations | " + " | ".join(
                  _cell(f"{name(b)}: {labels.get(v, v)}") for v, b in pairs) + " |",
              "|---|---|" + "---|" * len(pairs)]
    swapped = [verdicts(substitute(summary, v, b, [o for o in others if o != v])) for v, b in pairs]
    for cid in CLAIMS:
        lines.append(f"| {ref[cid]['title']} | {ref[cid]['verdict']} | "
                     + " | ".join(s[cid]["verdict"] for s in swapped) + " |")
    for (v, b), s in zip(pairs, swapped):
        for cid in CLAIMS:
            for m in s[cid]["measured"]:
                lines.append(f"- with {name(b)}: {labels.get(v, v)} — {m}")
    lines += ["", f"Size of the effects on NDCG@{k} (models trained with {train_convention}; "
              "absolute differences):", "",
              "| algorithm | implementation (variant − base) | training convention | "
              "evaluation convention: yahoo | letor | ranklib-tieavg |",
              "|---|---|---|---|---|---|"]
    trains = sorted(set(summary["train_convention"]) - {train_convention})
    impl_all, train_all = [], []
    for v, b in pairs:
        impl = _value(summary, v, train_convention, "ranklib", k) - _value(summary, b, train_convention, "ranklib", k)
        base_rl = _value(summary, b, train_convention, "ranklib", k)
        tr = max((abs(_value(summary, b, tc, "ranklib", k) - base_rl) for tc in trains), default=np.nan)
        ev = [abs(_value(summary, b, train_convention, e, k) - base_rl)
              for e in ("yahoo", "letor", "ranklib-tieavg")]
        impl_all.append(abs(impl))
        train_all.append(tr)
        lines.append(f"| {name(b)} ({_cell(labels.get(v, v))}) | {impl:+.4f} | {tr:.4f} | "
                     + " | ".join("–" if np.isnan(x) else f"{x:.4f}" for x in ev) + " |")
    if impl_all and np.isfinite(train_all).any():
        bigger = sum(i > t for i, t in zip(impl_all, train_all) if np.isfinite(t))
        lines += ["", f"The implementation effect exceeds the largest training-convention effect "
                  f"for {bigger} of {len(impl_all)} variants; the evaluation conventions yahoo and "
                  "letor move every model by far more than either, because they rescore whole "
                  "groups of queries (no relevant document; fewer than k documents)."]
    return "\n".join(lines) + "\n"
