"""The study under today's tools: what each library's NDCG reports for the same models, and what
training with a library's NDCG does to them.

The library conventions are those of :mod:`ltrconv.evaluation.libraries` (scikit-learn,
LightGBM, XGBoost, CatBoost, ranx, trec_eval, torchmetrics). From the study's tables:

* :func:`library_table`: mean NDCG@k of every algorithm under each library convention, models
  trained with one convention (the official one), with ``diff`` to the reference evaluation
  and the algorithm's ``rank`` under each convention;
* :func:`library_spread`: per algorithm and k, ``spread = max - min`` of those means over the
  library conventions and the conventions at both extremes, over all of them and within the
  libraries that give a query without relevant document the same value;
* :func:`order_flips`: pairs of algorithms whose order by a score (the Normalized Winning
  Number of :mod:`ltrconv.study.winning`) reverses between library conventions;
* :func:`training_ttests`: models trained with a library's NDCG against models trained with
  the reference, paired t-tests as :func:`ltrconv.study.tables.ttests`;
* :func:`libraries_section`: the findings as a Markdown section of claims.md.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from ..errors import LtrconvError
from ..evaluation import conventions as conv
from ..evaluation.libraries import LIBRARIES
from ..rankers.registry import ORDER
from ..rankers.registry import display_name as name
from .stats import holm
from .tables import TTEST_COLUMNS, holm_per_family, ordered, seed_averaged, sort_rows, ttests

LIBRARY_ORDER = tuple(LIBRARIES)
"""The library conventions in registry order."""
TABLE_COLUMNS = ["dataset", "algorithm", "train_convention", "eval_convention", "tool", "empty",
                 "metric", "k", "mean", "stderr", "diff", "rank"]
SPREAD_COLUMNS = ["dataset", "algorithm", "train_convention", "metric", "k", "group",
                  "n_conventions", "min", "max", "spread", "lowest", "highest"]
FLIP_COLUMNS = ["algorithm_a", "algorithm_b", "a_ahead", "b_ahead", "level", "score_min_a",
                "score_max_a", "score_min_b", "score_max_b"]
TIE_TOL = 1e-12  # means closer than this are the same value (an extreme shared by conventions)


def library_conventions(values) -> list[str]:
    """The library conventions among ``values``, in registry order."""
    present = set(values)
    return [c for c in LIBRARY_ORDER if c in present]


def tool(convention: str) -> str:
    """The library (or paper tool) a convention names, for tables and legends."""
    lib = LIBRARIES.get(convention)
    if lib is not None:
        return lib.tool.replace("`", "")
    return {"ranklib": "RankLib 2.x", "trec": "trec_eval (paper)", "yahoo": "Yahoo! LTR challenge",
            "letor": "LETOR Eval-Score"}.get(convention, convention)


def _empty_value(convention: str) -> str:
    """What a query without relevant document scores under ``convention``, as text."""
    empty = conv.get(convention).empty
    return empty if isinstance(empty, str) else format(float(empty), "g")


def library_table(summary: pd.DataFrame, reference: str = "ranklib", *,
                  train_convention: str = "ranklib", metric: str = "NDCG",
                  conventions=None) -> pd.DataFrame:
    """Mean ``metric@k`` of each algorithm trained with ``train_convention`` under ``reference``
    and each library convention (``conventions``: default every library convention in
    ``summary``).

    ``mean`` and ``stderr`` are the summary's (mean over folds of the fold means; per-fold
    standard errors in quadrature). ``diff = mean - mean under reference`` (the same models);
    ``rank``: 1 for the highest mean among the algorithms under one convention (ties share the
    lower rank). ``empty``: the value of a query without relevant document. Rows with k >= 1.
    """
    s = summary[(summary["train_convention"] == train_convention)
                & (summary["metric"] == metric)]
    s = s.assign(k=s["k"].astype(np.int64))
    s = s[s["k"] >= 1]
    libs = library_conventions(s["eval_convention"]) if conventions is None else list(conventions)
    if reference not in set(s["eval_convention"]):
        raise LtrconvError(f"the summary has no {metric} of models trained with "
                           f"{train_convention} under the reference {reference!r}")
    keep = [reference] + [c for c in libs if c != reference]
    absent = [c for c in keep if c not in set(s["eval_convention"])]
    if absent:
        raise LtrconvError(f"the summary has no {metric} under {absent} of models trained "
                           f"with {train_convention}")
    s = s[s["eval_convention"].isin(keep)].copy()
    model = ["dataset", "algorithm", "k"]
    ref = s[s["eval_convention"] == reference].set_index(model)["mean"]
    s["diff"] = s["mean"].to_numpy() - ref.reindex(pd.MultiIndex.from_frame(s[model])).to_numpy()
    s["rank"] = (s.groupby(["dataset", "eval_convention", "k"])["mean"]
                 .rank(ascending=False, method="min").astype(np.int64))
    s["tool"] = s["eval_convention"].map(tool)
    s["empty"] = s["eval_convention"].map(_empty_value)
    alg = {a: i for i, a in enumerate(ordered(s["algorithm"], ORDER))}
    c_rank = {c: i for i, c in enumerate(keep)}
    s = s.assign(_a=s["algorithm"].map(alg), _c=s["eval_convention"].map(c_rank))
    s = s.sort_values(["dataset", "_a", "_c", "k"], kind="stable")
    return s[TABLE_COLUMNS].reset_index(drop=True)


def _extremes(values: pd.Series) -> tuple[float, float, str, str]:
    """min, max and the conventions (comma-joined, in the given order) at each, within TIE_TOL."""
    lo, hi = float(values.min()), float(values.max())
    at = lambda x: ",".join(values.index[np.abs(values.to_numpy() - x) <= TIE_TOL])  # noqa: E731
    return lo, hi, at(lo), at(hi)


def library_spread(table: pd.DataFrame, reference: str | None = "ranklib") -> pd.DataFrame:
    """Per dataset, algorithm, training convention, metric and k: ``spread = max - min`` of the
    mean over the library conventions of a :func:`library_table` (``reference`` left out unless
    it is a library's), with the conventions at the ``lowest`` and ``highest`` value
    (comma-joined; several when their means agree to 1e-12).

    ``group`` is ``all`` (every library convention) or ``empty=V``: only the conventions that
    score a query without relevant document V, so that the share of the spread due to that
    choice stands apart from the rest (gain, ties, discount).
    """
    t = table if reference is None or reference in LIBRARIES else \
        table[table["eval_convention"] != reference]
    keys = ["dataset", "algorithm", "train_convention", "metric", "k"]
    rows = []
    for key, g in t.groupby(keys, sort=False):
        groups = [("all", g)] + [(f"empty={e}", ge) for e, ge in g.groupby("empty", sort=True)]
        for label, part in groups:
            if label != "all" and len(part) == len(g):
                continue  # one empty value: the group is the whole
            values = part.set_index("eval_convention")["mean"]
            lo, hi, lowest, highest = _extremes(values)
            rows.append((*key, label, len(values), lo, hi, hi - lo, lowest, highest))
    out = pd.DataFrame(rows, columns=SPREAD_COLUMNS)
    out["n_conventions"] = out["n_conventions"].astype(np.int64)
    return out


def order_flips(scores: pd.DataFrame, conventions, *, column: str = "eval_convention",
                method: str = "algorithm", score: str = "NWN") -> pd.DataFrame:
    """Pairs of methods whose order by ``score`` reverses between any two of ``conventions``.

    ``scores`` has one row per (keys..., ``column``, ``method``), e.g. a
    :func:`ltrconv.study.winning.winning_numbers` table; pairs are compared within each group of
    the other columns (training convention, metric, k). For a pair (a, b) in registry order:
    ``a_ahead`` / ``b_ahead`` / ``level`` list the conventions under which a's score is strictly
    higher / strictly lower / equal (comma-joined); the pair flips when neither ``a_ahead`` nor
    ``b_ahead`` is empty, which is when :func:`ltrconv.study.winning.nwn_flips` lists it for
    some two of the conventions. ``score_min_a`` .. ``score_max_b``: each method's range of
    scores over the conventions.
    """
    conventions = list(conventions)
    missing = [c for c in (column, method, score) if c not in scores.columns]
    if missing:
        raise LtrconvError(f"the score table lacks column(s) {missing}; has {list(scores.columns)}")
    from .winning import WINNING_COLUMNS

    keys = [c for c in scores.columns if c not in {column, method, score, *WINNING_COLUMNS}]
    s = scores[scores[column].isin(conventions)]
    rows = []
    groups = s.groupby(keys, sort=True) if keys else [((), s)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        wide = g.pivot(index=column, columns=method, values=score)
        wide = wide.reindex([c for c in conventions if c in wide.index])
        for a, b in itertools.combinations(ordered(wide.columns, ORDER), 2):
            d = (wide[a] - wide[b]).dropna()
            ahead, behind = d.index[d > 0], d.index[d < 0]
            if len(ahead) and len(behind):
                va, vb = wide[a].dropna(), wide[b].dropna()
                rows.append((*key, a, b, ",".join(ahead), ",".join(behind),
                             ",".join(d.index[d == 0]), va.min(), va.max(), vb.min(), vb.max()))
    return pd.DataFrame(rows, columns=[*keys, *FLIP_COLUMNS])


def training_ttests(per_query: pd.DataFrame, libraries=("sklearn", "catboost"),
                    reference: str = "ranklib", metric: str = "NDCG",
                    alpha: float = 0.05) -> pd.DataFrame:
    """Models trained with each of ``libraries``' NDCG against models trained with
    ``reference``'s, per algorithm, evaluation convention and k.

    The test of :func:`ltrconv.study.tables.ttests` (query scores averaged over seeds, paired by
    fold and query) for the pair (library, reference) only: ``conv_a`` is the library,
    ``conv_b`` the reference, ``diff = mean_a - mean_b``. ``p_holm``: Holm over the tests of this
    table for one dataset (the family is these comparisons, not the study's every pair);
    ``significant = p_holm < alpha``. Algorithms without models of both are left out.
    """
    pq = seed_averaged(per_query)
    pq = pq[pq["metric"] == metric]
    parts = []
    for lib in libraries:
        sub = pq[pq["train_convention"].isin([lib, reference])]
        both = sub.groupby("algorithm")["train_convention"].nunique()
        sub = sub[sub["algorithm"].isin(both.index[both == 2])]
        if sub.empty:
            continue
        t = ttests(sub)
        flip = t["conv_a"] == reference
        t.loc[flip, ["mean_a", "mean_b"]] = t.loc[flip, ["mean_b", "mean_a"]].to_numpy()
        t.loc[flip, ["diff", "t"]] = -t.loc[flip, ["diff", "t"]]
        t["conv_a"], t["conv_b"] = lib, reference
        parts.append(t)
    if not parts:
        return pd.DataFrame(columns=TTEST_COLUMNS)
    out = pd.concat(parts, ignore_index=True)
    holm_per_family(out, alpha)
    return sort_rows(out[TTEST_COLUMNS], ["dataset", "algorithm", "conv_a", "eval_convention",
                                          "metric", "k"])


def _at(table: pd.DataFrame, dataset: str, k: int) -> pd.DataFrame:
    t = table[table["k"].astype(int) == int(k)]
    return t[t["dataset"] == dataset] if "dataset" in t.columns else t


def _diff(x: float) -> str:
    """A difference in NDCG points: 4 decimals, or 1 significant digit below 5e-5."""
    return f"{x:+.4f}" if abs(x) >= 5e-5 or x == 0 else f"{x:+.0e}"


def _names(joined: str) -> str:
    """``a,b,c`` as ``a, b and c``."""
    items = joined.split(",")
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _seen(column: pd.Series) -> str:
    """The conventions named in a column of comma-joined names, each once, as text."""
    return _names(",".join(dict.fromkeys(c for cell in column for c in cell.split(","))))


def _values_table(t: pd.DataFrame, reference: str, algs: list, k: int) -> list[str]:
    """Markdown: one row per convention (reference first), one column per algorithm."""
    lines = [f"| NDCG@{k} as reported by | empty query | " + " | ".join(name(a) for a in algs)
             + " |", "|---|---|" + "---|" * len(algs)]
    for c, g in t.groupby("eval_convention", sort=False):
        v = g.set_index("algorithm")
        cells = [f"{v.loc[a, 'mean']:.4f}" if a in v.index else "–" for a in algs]
        label = f"{c} (reference)" if c == reference else c
        lines.append(f"| {label} | {v['empty'].iloc[0]} | " + " | ".join(cells) + " |")
    return lines


def _order_text(g: pd.DataFrame) -> str:
    return " > ".join(name(a) for a in g.sort_values(["mean", "algorithm"],
                                                     ascending=[False, True])["algorithm"])


def libraries_section(table: pd.DataFrame, spread: pd.DataFrame, tests: pd.DataFrame,
                      dataset: str, *, flips: pd.DataFrame | None = None,
                      reference: str = "ranklib", k: int = 10, alpha: float = 0.05,
                      n_units: int | None = None) -> str:
    """The library findings for ``dataset`` as a Markdown section: what each library reports
    for the same models (``table``, :func:`library_table`), the spread across libraries
    (``spread``), whether the order of the algorithms changes (by mean here; by NWN over every
    (dataset, fold) unit from ``flips``, :func:`order_flips`, when given) and what training
    with a library's NDCG does (``tests``, :func:`training_ttests`; Holm over the section's
    own tests: each algorithm and library, evaluated with the reference and with the library
    itself, at ``k``)."""
    t = _at(table, dataset, k)
    train = str(t["train_convention"].iloc[0]) if len(t) else "?"
    lines = ["", "## Today's libraries", "",
             f"Models trained with ndcg@{k}:{train}, evaluated with the NDCG of each library "
             "(the conventions of `ltrconv conventions`; tables/libraries.tsv, "
             "tables/library_spread.tsv, figures/libraries.png). Means over folds; differences "
             "in NDCG points (0..1).", ""]
    if t.empty:
        return "\n".join(lines + ["No library evaluation in this run.", ""])
    algs = ordered(t["algorithm"], ORDER)
    lines += _values_table(t, reference, algs, k)
    libs = library_conventions(t["eval_convention"])
    sp = _at(spread, dataset, k)
    every = sp[sp["group"] == "all"].set_index("algorithm")
    if len(every):
        widest = every["spread"].idxmax()
        w = every.loc[widest]
        lines += ["", "### What the libraries report for one model", "",
                  f"Over the {len(libs)} library conventions, the NDCG@{k} reported for one "
                  f"algorithm's models spans {every['spread'].min():.4f} to "
                  f"{every['spread'].max():.4f} (max − min), widest for {name(widest)}: "
                  f"{w['min']:.4f} under {_names(w['lowest'])} to {w['max']:.4f} under "
                  f"{_names(w['highest'])}.", ""]
        for grp in sorted(g for g in sp["group"].unique() if g != "all"):
            part = sp[sp["group"] == grp]
            lines.append(f"- Libraries scoring a query without relevant document "
                         f"{grp.split('=', 1)[1]} ({int(part['n_conventions'].max())} "
                         f"conventions): spread {part['spread'].min():.4f} to "
                         f"{part['spread'].max():.4f} over the algorithms; lowest under "
                         f"{_seen(part['lowest'])}, highest under {_seen(part['highest'])}.")
        d = t[t["eval_convention"].isin(libs)]
        off = d.groupby("eval_convention", sort=False)["diff"].agg(["min", "max"])
        lines.append(f"- Against {reference}, over the algorithms: " + "; ".join(
            f"{c} " + ("equal" if max(abs(r["min"]), abs(r["max"])) <= TIE_TOL else
                       _diff(r["min"]) + (f" to {_diff(r['max'])}"
                                          if r["max"] - r["min"] > 5e-5 else ""))
            for c, r in off.iterrows()) + ".")
        allk = spread[(spread["group"] == "all")
                      & ((spread["dataset"] == dataset) if "dataset" in spread.columns else True)]
        top = allk.loc[allk["spread"].idxmax()]
        lines.append(f"- Over k = {int(allk['k'].min())}..{int(allk['k'].max())}, the widest "
                     f"spread is {top['spread']:.4f} ({name(top['algorithm'])}, k = "
                     f"{int(top['k'])}).")
    ref_order = _order_text(t[t["eval_convention"] == reference])
    differ = []
    for c in libs:
        o = _order_text(t[t["eval_convention"] == c])
        if o != ref_order:
            differ.append(f"{c} ({o})")
    lines += ["", "### Order of the algorithms", "",
              f"By mean NDCG@{k} under {reference}: {ref_order}. "
              + (f"The same order under {len(libs) - len(differ)} of {len(libs)} library "
                 "conventions; another under " + "; ".join(differ) + "."
                 if differ else f"The same order under all {len(libs)} library conventions.")]
    if flips is not None:
        f = flips[flips["k"].astype(int) == int(k)] if "k" in flips.columns else flips
        f = f[f["train_convention"] == train] if "train_convention" in f.columns else f
        f = f.fillna({"a_ahead": "", "b_ahead": "", "level": ""})  # an empty list read back
        units = (f"over {n_units} (dataset, fold) unit{'s' if n_units != 1 else ''}" if n_units
                 else "over the study's units")
        lines += ["", f"Normalized Winning Numbers {units} (Tax, Bockting & Hiemstra 2015), "
                  f"NDCG@{k}: pairs of algorithms whose NWN order reverses between library "
                  "conventions:", ""]
        if f.empty:
            lines.append("- none: every library convention gives the same NWN order of every pair")
        for r in f.itertuples():
            lines.append(f"- {name(r.algorithm_a)} ahead of {name(r.algorithm_b)} under "
                         f"{r.a_ahead.replace(',', ', ')}; behind under "
                         f"{r.b_ahead.replace(',', ', ')}"
                         + (f"; level under {r.level.replace(',', ', ')}" if r.level else "")
                         + f" (NWN {r.score_min_a:.2f}–{r.score_max_a:.2f} vs "
                         f"{r.score_min_b:.2f}–{r.score_max_b:.2f}).")
    lines += _training_lines(tests, dataset, reference, k, alpha)
    return "\n".join(lines) + "\n"


def _training_lines(tests: pd.DataFrame, dataset: str, reference: str, k: int,
                    alpha: float) -> list[str]:
    """The t-tests evaluated with ``reference`` and with the library itself, as Markdown."""
    tt = _at(tests, dataset, k)
    tt = tt[(tt["eval_convention"] == reference) | (tt["eval_convention"] == tt["conv_a"])]
    lines = ["", "### Training with a library's NDCG", ""]
    if tt.empty:
        return lines + ["No model was trained with a library's NDCG in this run."]
    tt = tt.assign(p_section=holm(tt["p"].to_numpy()))
    base = ", ".join(dict.fromkeys(tt["conv_b"]))
    lines += [f"Models trained with the library's NDCG@{k} against models trained with "
              f"{base}'s, paired t-test over the queries of all folds (each query's score "
              f"averaged over seeds); Holm over the {len(tt)} tests of this section; "
              f"alpha = {alpha}.", "",
              "| algorithm | trained with | evaluated with | trained library | trained "
              f"{base} | diff | p | Holm p |", "|---|---|---|---|---|---|---|---|"]
    for r in tt.itertuples():
        sig = " (significant)" if r.p_section < alpha else ""
        lines.append(f"| {name(r.algorithm)} | {r.conv_a} | {r.eval_convention} | "
                     f"{r.mean_a:.4f} | {r.mean_b:.4f} | {r.diff:+.4f} | {r.p:.2g} | "
                     f"{r.p_section:.2g}{sig} |")
    sig = tt[tt["p_section"] < alpha]
    worse = sig[sig["diff"] < 0]
    better = sig[sig["diff"] > 0]
    fmt = lambda s: ", ".join(f"{name(r.algorithm)} trained with {r.conv_a} "  # noqa: E731
                              f"({r.eval_convention} evaluation, {r.diff:+.4f})"
                              for r in s.itertuples()) or "none"
    lines += ["", f"Significantly worse than trained with {base}: {fmt(worse)}. "
              f"Significantly better: {fmt(better)}."]
    return lines
