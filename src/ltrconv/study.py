"""Aggregation of the tidy per-query table into the study's tables.

The per-query table has one row per (dataset, fold, algorithm, train_convention,
eval_convention, metric, k, qid) with the query's score in ``value`` (k = 0 for MAP).
:func:`summarise`, :func:`fold_means`, :func:`ttests` and :func:`algorithm_order` build the
result tables; :func:`paper_claims` checks the paper's claims against them and
:func:`claims_markdown` writes the verdicts.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from .errors import LtrconvError
from .stats import holm, quadrature_stderr, t_from_moments

KEYS = ["dataset", "algorithm", "train_convention", "eval_convention", "metric", "k"]
PER_QUERY_COLUMNS = ["dataset", "fold", "algorithm", "train_convention", "eval_convention",
                     "metric", "k", "qid", "value"]
ALGORITHM_ORDER = ("coordinate_ascent", "lambdamart", "rankboost", "ranksvm", "ranknet", "adarank")
TRAIN_ORDER = ("yahoo", "ranklib", "letor")
EVAL_ORDER = ("ranklib", "trec", "yahoo", "letor", "ranklib-tieavg", "ranklib-tiepess",
              "ranklib-tieopt")
METRIC_ORDER = ("NDCG", "P", "MAP")
_PREFERRED = {"algorithm": ALGORITHM_ORDER, "train_convention": TRAIN_ORDER,
              "conv_a": TRAIN_ORDER, "conv_b": TRAIN_ORDER,
              "eval_convention": EVAL_ORDER, "metric": METRIC_ORDER}


def ordered(values, preferred) -> list:
    """Distinct ``values``: those in ``preferred`` first in that order, the rest sorted."""
    values = list(dict.fromkeys(values))
    known = [v for v in preferred if v in values]
    return known + sorted(v for v in values if v not in preferred)


def _sort(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Sort rows with the study's preferred order of algorithms, conventions and metrics."""
    def key(col: pd.Series) -> pd.Series:
        pref = _PREFERRED.get(col.name)
        if pref is None:
            return col
        rank = {v: i for i, v in enumerate(ordered(col.unique(), pref))}
        return col.map(rank)

    return df.sort_values(by, key=key, kind="stable").reset_index(drop=True)


def check_per_query(per_query: pd.DataFrame) -> pd.DataFrame:
    """Validate the per-query table and normalise its dtypes; raises :class:`LtrconvError`."""
    missing = [c for c in PER_QUERY_COLUMNS if c not in per_query.columns]
    if missing:
        raise LtrconvError(f"per-query table lacks column(s) {missing}; has {list(per_query.columns)}")
    pq = per_query[PER_QUERY_COLUMNS].copy()
    for col in ("dataset", "algorithm", "train_convention", "eval_convention", "metric", "qid"):
        pq[col] = pq[col].astype(str)
    pq["fold"] = pq["fold"].astype(np.int64)
    pq["k"] = pq["k"].astype(np.int64)
    pq["value"] = pq["value"].astype(np.float64)
    if pq["value"].isna().any():
        row = pq[pq["value"].isna()].iloc[0]
        raise LtrconvError(f"per-query table has NaN values, e.g. {row.to_dict()}")
    dup = pq.duplicated(subset=PER_QUERY_COLUMNS[:-1])
    if dup.any():
        row = pq[dup].iloc[0]
        raise LtrconvError(f"per-query table has duplicate rows, e.g. {row.drop('value').to_dict()}")
    return pq


def fold_stats(per_query: pd.DataFrame) -> pd.DataFrame:
    """Per fold: ``mean`` of the query scores, ``se = sd / sqrt(n)`` (ddof = 1) and ``n``."""
    pq = check_per_query(per_query)
    g = pq.groupby(KEYS + ["fold"], sort=False)["value"]
    out = g.agg(mean="mean", sd="std", n="size").reset_index()
    out["se"] = out["sd"] / np.sqrt(out["n"])
    return _sort(out.drop(columns="sd"), KEYS + ["fold"])


def fold_means(per_query: pd.DataFrame | None = None, *, folds: pd.DataFrame | None = None):
    """Mean query score of every configuration in every fold (from ``folds``, the
    :func:`fold_stats` table, when given)."""
    fs = fold_stats(per_query) if folds is None else folds
    return fs[KEYS + ["fold", "mean"]]


def summarise(per_query: pd.DataFrame | None = None, *, folds: pd.DataFrame | None = None):
    """Mean and standard error of every configuration over the folds.

    ``mean = (1/F) sum_f m_f``: the mean over the F folds of the fold means m_f (the mean
    query score of fold f). ``stderr = sqrt(sum_f se_f^2) / F``: the standard error of that
    mean, with ``se_f = sd_f / sqrt(n_f)`` the per-fold standard error of the query-wise
    scores (sample sd, ddof = 1), combined in quadrature. NaN when a fold has one query.
    ``folds``, the :func:`fold_stats` table, may be given instead of the per-query table.
    """
    fs = fold_stats(per_query) if folds is None else folds
    cols = KEYS + ["mean", "stderr", "n_folds", "n_queries"]
    if fs.empty:
        return pd.DataFrame(columns=cols)
    out = fs.groupby(KEYS, sort=False).agg(mean=("mean", "mean"), stderr=("se", quadrature_stderr),
                                           n_folds=("fold", "size"), n_queries=("n", "sum"))
    return _sort(out.reset_index()[cols], KEYS)


TTEST_COLUMNS = ["dataset", "algorithm", "eval_convention", "metric", "k", "conv_a", "conv_b",
                 "n", "mean_a", "mean_b", "diff", "t", "p", "p_holm", "significant"]


def ttests(per_query: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Paired t-tests between training conventions, over queries pooled across folds.

    For each dataset, algorithm, eval_convention, metric, k and pair (conv_a, conv_b) of
    training conventions, the query scores are paired by (fold, qid); queries missing under
    either convention are dropped. ``n`` pairs, ``mean_a``/``mean_b`` are the means over the
    paired queries, ``diff = mean_a - mean_b``, ``t``/``p`` as :func:`ltrconv.stats.paired_ttest`.
    ``p_holm``: Holm adjustment over the family of all tests of one dataset and one metric
    type (NDCG, P or MAP): every algorithm, evaluation convention, cutoff and pair.
    ``significant = p_holm < alpha``.
    """
    pq = check_per_query(per_query)
    groups = ["dataset", "algorithm", "eval_convention", "metric", "k"]
    if pq.empty:
        return pd.DataFrame(columns=TTEST_COLUMNS)
    wide = pq.pivot(index=groups + ["fold", "qid"], columns="train_convention", values="value")
    parts = []
    for a, b in itertools.combinations(ordered(wide.columns, TRAIN_ORDER), 2):
        sub = wide[[a, b]].dropna()
        if sub.empty:
            continue
        frame = pd.DataFrame({"a": sub[a], "b": sub[b], "d": sub[a] - sub[b]})
        frame = frame.reset_index(level=["fold", "qid"], drop=True)
        agg = frame.groupby(level=groups, sort=False).agg(
            n=("d", "size"), mean_a=("a", "mean"), mean_b=("b", "mean"), diff=("d", "mean"),
            sd=("d", "std"), dmin=("d", "min"), dmax=("d", "max"))
        t, p = t_from_moments(agg["n"], agg["diff"], agg["sd"],
                              agg["dmin"] == agg["dmax"])
        agg["t"], agg["p"] = t, p
        agg["conv_a"], agg["conv_b"] = a, b
        parts.append(agg.reset_index())
    if not parts:
        return pd.DataFrame(columns=TTEST_COLUMNS)
    out = pd.concat(parts, ignore_index=True)
    out["p_holm"] = np.nan
    for _, idx in out.groupby(["dataset", "metric"], sort=False).groups.items():
        out.loc[idx, "p_holm"] = holm(out.loc[idx, "p"].to_numpy())
    out["significant"] = (out["p_holm"] < alpha).to_numpy(dtype=bool)
    out["n"] = out["n"].astype(np.int64)
    return _sort(out[TTEST_COLUMNS], ["dataset", "algorithm", "eval_convention", "metric", "k",
                                      "conv_a", "conv_b"])


ORDER_COLUMNS = ["dataset", "train_convention", "metric", "k", "eval_convention", "algorithm",
                 "mean", "rank", "rank_ranklib", "rank_differs", "order_differs"]


def algorithm_order(summary: pd.DataFrame, train_convention: str = "ranklib",
                    metric: str = "NDCG", k: int = 10, reference: str = "ranklib") -> pd.DataFrame:
    """Rank of each algorithm (1 = highest mean) under each evaluation convention.

    Models trained with ``train_convention``, scored by ``metric@k``. ``rank_ranklib`` is the
    rank under the ``reference`` evaluation; ``rank_differs`` flags an algorithm whose rank
    changed; ``order_differs`` flags an evaluation convention under which the order of the
    algorithms evaluated under both conventions differs from the reference order (ties
    share the lower rank). Flags are NA without the reference evaluation.
    """
    s = summary[(summary["train_convention"] == train_convention)
                & (summary["metric"] == metric) & (summary["k"].astype(int) == int(k))]
    if s.empty:
        return pd.DataFrame(columns=ORDER_COLUMNS)
    s = s[["dataset", "train_convention", "metric", "k", "eval_convention", "algorithm",
           "mean"]].reset_index(drop=True)
    s["rank"] = (s.groupby(["dataset", "eval_convention"])["mean"]
                 .rank(ascending=False, method="min").astype(np.int64))
    ref = s[s["eval_convention"] == reference].set_index(["dataset", "algorithm"])
    s["rank_ranklib"] = pd.array(
        [ref["rank"].get((d, a), pd.NA) for d, a in zip(s["dataset"], s["algorithm"])], dtype="Int64")
    s["rank_differs"] = (s["rank"] != s["rank_ranklib"]).astype("boolean")
    s.loc[s["rank_ranklib"].isna(), "rank_differs"] = pd.NA
    s["order_differs"] = pd.array([pd.NA] * len(s), dtype="boolean")
    for (d, ev), grp in s.groupby(["dataset", "eval_convention"]):
        refd = ref.loc[d] if d in ref.index.get_level_values(0) else None
        if refd is None:
            continue
        common = [a for a in grp["algorithm"] if a in refd.index]
        here = grp.set_index("algorithm").loc[common, "mean"].rank(ascending=False, method="min")
        there = refd.loc[common, "mean"].rank(ascending=False, method="min")
        s.loc[grp.index, "order_differs"] = bool((here != there).any())
    return _sort(s[ORDER_COLUMNS], ["dataset", "eval_convention", "rank", "algorithm"])


HOLDS, FAILS, PARTLY, MISSING = ("holds", "does not hold", "partly",
                                  "cannot be checked (missing data)")
NAMES = {"adarank": "AdaRank", "coordinate_ascent": "Coordinate Ascent",
         "lambdamart": "LambdaMART", "ranknet": "RankNet", "rankboost": "RankBoost",
         "ranksvm": "RankSVM"}
LISTWISE = ("adarank", "lambdamart", "coordinate_ascent")
CLOSE_TRIO = ("rankboost", "ranksvm", "lambdamart")
PAPER_OFFSET, OFFSET_TOL, EMPTY_TOL = 0.25, 0.05, 0.01
COLLAPSE_GAP = 0.20
CLOSE_SPREAD = 0.02


def name(algorithm: str) -> str:
    """Display name of an algorithm (the registry name when unknown)."""
    return NAMES.get(algorithm, algorithm)


def _verdict(n_ok: int, n_checked: int, n_expected: int) -> str:
    """holds if every expected check passed, does not hold if none passed, else partly."""
    if n_checked == 0:
        return MISSING
    if n_ok == 0:
        return FAILS
    return HOLDS if n_ok == n_expected else PARTLY


def _claim(cid, title, claim, rule, measured, verdict) -> dict:
    return {"id": cid, "title": title, "claim": claim, "rule": rule,
            "measured": list(measured), "verdict": verdict}


def _ndcg(summary: pd.DataFrame, train: str | None = None) -> pd.DataFrame:
    s = summary[summary["metric"] == "NDCG"]
    if train is not None:
        s = s[s["train_convention"] == train]
    return s.assign(k=s["k"].astype(int))


def _reference_train(summary: pd.DataFrame) -> str | None:
    """ranklib when models trained with it exist, else the first training convention."""
    trains = ordered(summary["train_convention"], ("ranklib",) + TRAIN_ORDER) if len(summary) else []
    return trains[0] if trains else None


def _by_k(s: pd.DataFrame, algorithm: str, eval_convention: str) -> pd.Series:
    sel = s[(s["algorithm"] == algorithm) & (s["eval_convention"] == eval_convention)]
    return sel.set_index("k")["mean"].sort_index()


def _audit_at(audit: dict | None, key: str, k: int):
    table = (audit or {}).get(key) or {}
    return table.get(k, table.get(str(k))) if isinstance(table, dict) else None


def _claim_yahoo_offset(summary, audit) -> dict:
    train = _reference_train(summary)
    s = _ndcg(summary, train)
    empty = (audit or {}).get("empty_share", (audit or {}).get("yahoo_minus_ranklib"))
    rule = (f"two checks on models trained with {train}: yahoo − ranklib NDCG@k averaged over "
            f"the cutoffs is within {OFFSET_TOL} of {PAPER_OFFSET} for every algorithm, and "
            f"within {EMPTY_TOL} of the audit's share of queries without relevant document "
            f"(holds when both pass, partly when one does)")
    measured, offsets = [], []
    for alg in ordered(s["algorithm"], ALGORITHM_ORDER):
        off = (_by_k(s, alg, "yahoo") - _by_k(s, alg, "ranklib")).dropna()
        if off.empty:
            continue
        offsets.append(float(off.mean()))
        measured.append(f"{name(alg)}: yahoo − ranklib = {offsets[-1]:+.3f} "
                        f"(over k = {off.index.min()}..{off.index.max()}: {off.min():+.3f} to {off.max():+.3f})")
    n_eval = int(s["n_queries"].max()) if len(s) else 0
    n_audit = (audit or {}).get("queries")
    comparable = empty is not None and (n_audit is None or int(n_audit) == n_eval)
    checks = []
    if offsets:
        checks.append(all(abs(m - PAPER_OFFSET) <= OFFSET_TOL for m in offsets))
        if comparable:
            checks.append(all(abs(m - float(empty)) <= EMPTY_TOL for m in offsets))
    if empty is None:
        measured.append("no dataset audit: the empty-query explanation is not checked")
    else:
        measured.append(f"audit: {float(empty):.3f} of the queries have no relevant document")
        if not comparable:
            measured.append(f"the results cover {n_eval} of the audit's {int(n_audit)} queries "
                            "(not every fold was run): the explanation is not checked")
    return _claim("yahoo_offset", "yahoo ≈ ranklib + 0.25",
                  "The yahoo tool scores about 0.25 above ranklib/trec, solely because it "
                  "scores queries without relevant document 1.0.",
                  rule, measured, _verdict(sum(checks), len(checks), len(checks)))


def _claim_letor_collapse(summary, audit) -> dict:
    train = _reference_train(summary)
    s = _ndcg(summary, train)
    rule = (f"for models trained with {train}, an algorithm collapses when its letor NDCG@k "
            f"averaged over k = 8..10 is below its average over k = 1..7 and ranklib − letor "
            f"at k = 10 is at least {COLLAPSE_GAP}; holds when every algorithm collapses")
    measured, n_ok, n_checked = [], 0, 0
    for alg in ordered(s["algorithm"], ALGORITHM_ORDER):
        let, rl = _by_k(s, alg, "letor"), _by_k(s, alg, "ranklib")
        lo, hi = let[let.index <= 7], let[(let.index >= 8) & (let.index <= 10)]
        if lo.empty or hi.empty or 10 not in let.index or 10 not in rl.index:
            continue
        n_checked += 1
        gaps = (rl - let).reindex([8, 9, 10])
        ok = hi.mean() < lo.mean() and gaps[10] >= COLLAPSE_GAP
        n_ok += ok
        gap_text = ", ".join(f"{g:+.3f}" if pd.notna(g) else "–" for g in gaps)
        measured.append(f"{name(alg)}: letor mean @1–7 {lo.mean():.3f}, @8–10 {hi.mean():.3f}; "
                        f"ranklib − letor at k = 8, 9, 10: {gap_text}")
    zeroed = [(k, _audit_at(audit, "letor_zeroed", k)) for k in (8, 9, 10)]
    if all(v is not None for _, v in zeroed):
        measured.append("audit: letor scores 0 whatever the order for "
                        + ", ".join(f"{float(v):.3f} (k = {k})" for k, v in zeroed)
                        + " of the queries")
    return _claim("letor_collapse", "letor collapses at k = 8–10",
                  "Scores from the letor tool drop sharply at cutoffs 8–10 (queries shorter "
                  "than k score 0), around or more than 0.25 below ranklib.",
                  rule, measured, _verdict(n_ok, n_checked, n_checked))


def _test_row(tests, algorithm, a, b, eval_convention="ranklib", metric="NDCG", k=10):
    """(diff a − b, p, p_holm, significant) of one test, whichever way it is stored."""
    t = tests[(tests["algorithm"] == algorithm) & (tests["eval_convention"] == eval_convention)
              & (tests["metric"] == metric) & (tests["k"].astype(int) == k)]
    for x, y, sign in ((a, b, 1.0), (b, a, -1.0)):
        row = t[(t["conv_a"] == x) & (t["conv_b"] == y)]
        if len(row):
            r = row.iloc[0]
            return sign * float(r["diff"]), float(r["p"]), float(r["p_holm"]), bool(r["significant"])
    return None


def _fmt_test(alg, a, b, res) -> str:
    diff, p, ph, sig = res
    return (f"{name(alg)}: trained {a} − trained {b} = {diff:+.4f} NDCG@10, p = {p:.2g}, "
            f"Holm p = {ph:.2g}{' (significant)' if sig else ''}")


_TEST_RULE = ("paired t-test over queries pooled over folds, scored with ranklib NDCG@10, "
              "Holm-corrected over all tests of the dataset's NDCG results, alpha as in the "
              "t-test table")


def _claim_letor_training(tests) -> dict:
    rule = ("holds when, for each of AdaRank, LambdaMART and Coordinate Ascent, models trained "
            "with ranklib score higher than models trained with letor and the difference is "
            "significant; " + _TEST_RULE)
    measured, n_ok, n_checked = [], 0, 0
    algs = ordered(tests["algorithm"], ALGORITHM_ORDER) if len(tests) else []
    for alg in algs:
        res = _test_row(tests, alg, "ranklib", "letor")
        if res is None:
            continue
        if alg in LISTWISE:
            n_checked += 1
            n_ok += res[0] > 0 and res[3]
            measured.append(_fmt_test(alg, "ranklib", "letor", res))
        else:
            measured.append("(context) " + _fmt_test(alg, "ranklib", "letor", res))
    missing = [name(a) for a in LISTWISE
               if not len(tests) or _test_row(tests, a, "ranklib", "letor") is None]
    if missing and n_checked:
        measured.append("not available: " + ", ".join(missing))
    return _claim("letor_training", "training with letor is significantly worse",
                  "AdaRank, LambdaMART and Coordinate Ascent learn significantly worse models "
                  "when they optimise the letor NDCG.",
                  rule, measured, _verdict(n_ok, n_checked, len(LISTWISE)))


def _claim_yahoo_training(tests) -> dict:
    rule = ("holds when no algorithm trained with yahoo is significantly worse than trained "
            "with ranklib, does not hold when all are; " + _TEST_RULE)
    measured, n_ok, n_checked = [], 0, 0
    algs = ordered(tests["algorithm"], ALGORITHM_ORDER) if len(tests) else []
    for alg in algs:
        res = _test_row(tests, alg, "yahoo", "ranklib")
        if res is None:
            continue
        n_checked += 1
        n_ok += not (res[3] and res[0] < 0)
        measured.append(_fmt_test(alg, "yahoo", "ranklib", res))
    return _claim("yahoo_training", "training with yahoo is equal or better",
                  "Models trained with the yahoo NDCG are as good as or better than models "
                  "trained with ranklib's.",
                  rule, measured, _verdict(n_ok, n_checked, n_checked))


def _order_column(order: pd.DataFrame, eval_convention: str, column: str = "mean") -> pd.Series:
    """``column`` of the algorithm order table under one evaluation convention, by algorithm."""
    o = order[order["eval_convention"] == eval_convention]
    return o.set_index("algorithm")[column]


def _order_setting(order: pd.DataFrame) -> tuple[str, int]:
    """(training convention, cutoff) the algorithm order table was built for."""
    if not len(order):
        return "ranklib", 10
    return str(order["train_convention"].iloc[0]), int(order["k"].iloc[0])


def _relative_order(means: pd.Series, algs) -> list:
    sub = means.reindex([a for a in algs if a in means.index])
    return list(sub.sort_values(ascending=False, kind="stable").index)


def _claim_ca_best(order) -> dict:
    train, k = _order_setting(order)
    rule = (f"three checks on NDCG@{k} of models trained with {train}: (a) Coordinate Ascent "
            f"ranks first under every evaluation convention; (b) RankBoost, RankSVM and "
            f"LambdaMART lie within {CLOSE_SPREAD} of each other and below Coordinate Ascent "
            f"under ranklib evaluation; (c) the order of those three under letor evaluation "
            f"differs from their order under ranklib evaluation")
    measured, n_ok, n_checked = [], 0, 0
    evals = ordered(order["eval_convention"], EVAL_ORDER) if len(order) else []
    ca = "coordinate_ascent"
    means = {ev: _order_column(order, ev) for ev in evals}
    ranks = {ev: _order_column(order, ev, "rank") for ev in evals}
    if any(ca in r.index for r in ranks.values()):
        n_checked += 1
        firsts = {ev: int(r[ca]) for ev, r in ranks.items() if ca in r.index}
        n_ok += all(r == 1 for r in firsts.values())
        measured.append("(a) Coordinate Ascent rank: "
                        + ", ".join(f"{r} under {ev}" for ev, r in firsts.items()))
    rl = means.get("ranklib", pd.Series(dtype=float))
    trio = [a for a in CLOSE_TRIO if a in rl.index]
    if len(trio) >= 2:
        n_checked += 1
        vals = rl[trio]
        spread = float(vals.max() - vals.min())
        below = ca in rl.index and bool((vals <= rl[ca]).all())
        n_ok += spread <= CLOSE_SPREAD and below
        lead = f"; Coordinate Ascent {rl[ca]:.4f}, lead {rl[ca] - vals.max():+.4f}" if ca in rl.index else ""
        measured.append("(b) under ranklib: " + ", ".join(f"{name(a)} {vals[a]:.4f}" for a in trio)
                        + f" (spread {spread:.4f}){lead}")
    let = means.get("letor", pd.Series(dtype=float))
    common = [a for a in trio if a in let.index]
    if len(common) >= 2:
        n_checked += 1
        before, after = _relative_order(rl, common), _relative_order(let, common)
        n_ok += before != after
        measured.append("(c) order under ranklib: " + " > ".join(name(a) for a in before)
                        + "; under letor: " + " > ".join(name(a) for a in after))
    return _claim("ca_best", "CA slightly best; RankBoost/RankSVM/LambdaMART close, reordered by letor",
                  "Coordinate Ascent is slightly best whatever the evaluation tool; RankBoost, "
                  "RankSVM and LambdaMART are close to each other and their order changes under "
                  "the letor tool.", rule, measured, _verdict(n_ok, n_checked, 3))


def _claim_adarank(summary, order) -> dict:
    train, k = _order_setting(order)
    rule = (f"two checks on ranklib NDCG@{k} of models trained with {train}: AdaRank ranks "
            "last, and it trails the best algorithm by more than twice the combined standard "
            "error sqrt(se_AdaRank^2 + se_best^2)")
    means = _order_column(order, "ranklib") if len(order) else pd.Series(dtype=float)
    if "adarank" not in means.index or len(means) < 2:
        return _claim("adarank", "AdaRank not competitive",
                      "AdaRank is not competitive with the other algorithms.", rule, [],
                      MISSING)
    s = _ndcg(summary, train)
    s = s[(s["eval_convention"] == "ranklib") & (s["k"] == k)].set_index("algorithm")["stderr"]
    best = means.drop("adarank").idxmax()
    gap = float(means[best] - means["adarank"])
    se = float(np.sqrt(s.get("adarank", np.nan) ** 2 + s.get(best, np.nan) ** 2))
    last = bool((means.drop("adarank") > means["adarank"]).all())
    checks = [last] + ([gap > 2 * se] if np.isfinite(se) else [])
    rank = int(_order_column(order, "ranklib", "rank")["adarank"])
    measured = [f"AdaRank {means['adarank']:.4f} (rank {rank} "
                f"of {len(means)}); best {name(best)} {means[best]:.4f}; gap {gap:+.4f}, "
                f"2 × combined standard error {2 * se:.4f}"]
    return _claim("adarank", "AdaRank not competitive",
                  "AdaRank is not competitive with the other algorithms.", rule, measured,
                  _verdict(sum(checks), len(checks), 2))


def paper_claims(summary: pd.DataFrame, tests: pd.DataFrame, order: pd.DataFrame,
                 audit: dict | None) -> list[dict]:
    """The claims of the paper, each with its rule, measured numbers and verdict.

    Entries are dicts with keys id, title, claim, rule, measured (list of str) and verdict
    (holds / does not hold / partly / cannot be checked (missing data)).
    """
    return [
        _claim_yahoo_offset(summary, audit),
        _claim_letor_collapse(summary, audit),
        _claim_letor_training(tests),
        _claim_yahoo_training(tests),
        _claim_ca_best(order),
        _claim_adarank(summary, order),
    ]


def _only(df: pd.DataFrame, dataset: str) -> pd.DataFrame:
    return df[df["dataset"] == dataset] if "dataset" in df.columns and len(df) else df


def claims_markdown(summary: pd.DataFrame, tests: pd.DataFrame, order: pd.DataFrame,
                    audit: dict | None, dataset: str) -> str:
    """The verdicts on the paper's claims for one dataset, as a Markdown document."""
    claims = paper_claims(_only(summary, dataset), _only(tests, dataset), _only(order, dataset), audit)
    lines = [f"# Claims of Busa-Fekete et al. (2012) checked on {dataset}", "",
             "Means are over folds of the fold means; the NDCG is the one named by the "
             "evaluation convention; differences are in NDCG points (0..1).", ""]
    if audit:
        parts = []
        if audit.get("queries") is not None:
            parts.append(f"{audit['queries']} queries")
        if audit.get("documents") is not None:
            parts.append(f"{audit['documents']} documents")
        if audit.get("empty_share") is not None:
            parts.append(f"{float(audit['empty_share']):.1%} of the queries without relevant document")
        short = _audit_at(audit, "shorter_than", 10)
        if short is not None:
            parts.append(f"{float(short):.1%} with fewer than 10 documents")
        if parts:
            lines += ["Dataset audit: " + "; ".join(parts) + ".", ""]
    else:
        lines += ["No dataset audit was given.", ""]
    lines += ["| # | claim | verdict |", "|---|---|---|"]
    lines += [f"| {i} | {c['title']} | {c['verdict']} |" for i, c in enumerate(claims, 1)]
    for i, c in enumerate(claims, 1):
        lines += ["", f"## {i}. {c['title']}", "", c["claim"], "", f"Rule: {c['rule']}.", ""]
        lines += [f"- {m}" for m in c["measured"]] or ["- no data"]
        lines += ["", f"Verdict: **{c['verdict']}**"]
    return "\n".join(lines) + "\n"


def audit_from_table(table: pd.DataFrame) -> dict:
    """The audit dict back from its tidy form (columns section, key, value).

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


def synthetic_per_query(
    n_queries: int = 90,
    n_folds: int = 3,
    algorithms=ALGORITHM_ORDER,
    train_conventions=TRAIN_ORDER,
    eval_conventions=("ranklib", "trec", "yahoo", "letor"),
    cutoffs=range(1, 11),
    dataset: str = "synthetic",
    seed: int = 0,
) -> pd.DataFrame:
    """A tidy per-query table from noisy linear scorers on :func:`ltrconv.synthetic.make_letor`.

    Algorithm quality and the letor-training penalty are built in (coordinate_ascent best,
    adarank worst; adarank, lambdamart and coordinate_ascent worse when trained with letor),
    so every table, figure and claim has something to show. Query q is tested in fold
    ``q mod n_folds + 1``; metrics come from :func:`ltrconv.metrics.evaluate_dataset`.
    """
    from .metrics import evaluate_dataset
    from .synthetic import make_letor

    data = make_letor(n_queries=n_queries, n_features=9, min_docs=5, max_docs=16,
                      empty_share=0.28, noise=0.4, seed=seed)
    rng = np.random.default_rng(seed + 1)
    base = data.X[:, :3].sum(axis=1)
    noise_level = {"coordinate_ascent": 0.55, "lambdamart": 0.65, "rankboost": 0.64,
                   "ranksvm": 0.66, "ranknet": 0.8, "adarank": 1.4}
    listwise = {"adarank", "lambdamart", "coordinate_ascent"}
    fold = np.arange(data.n_queries) % n_folds + 1
    qids = data.query_ids.astype(str)
    ks = list(cutoffs)
    names = [f"NDCG@{k}" for k in ks] + [f"P@{k}" for k in ks] + ["MAP"]
    metric_col = np.array(["NDCG"] * len(ks) + ["P"] * len(ks) + ["MAP"])
    k_col = np.array(ks + ks + [0], dtype=np.int64)
    nq, nm = data.n_queries, len(names)
    cols: dict[str, list] = {c: [] for c in PER_QUERY_COLUMNS}
    for alg in algorithms:
        z = rng.standard_normal(data.n_docs)
        for tc in train_conventions:
            factor = {"letor": 1.6, "yahoo": 0.97}.get(tc, 1.0) if alg in listwise else 1.0
            jitter = 0.02 * rng.standard_normal(data.n_docs)
            scores = base + noise_level.get(alg, 0.7) * factor * z + jitter
            res = evaluate_dataset(data, scores, conventions=eval_conventions, cutoffs=ks)
            for ev, evaluation in res.items():
                block = np.column_stack([evaluation[name] for name in names])  # (nq, nm)
                cols["value"].append(block.T.ravel())
                cols["metric"].append(np.repeat(metric_col, nq))
                cols["k"].append(np.repeat(k_col, nq))
                cols["qid"].append(np.tile(qids, nm))
                cols["fold"].append(np.tile(fold, nm))
                for name, val in (("algorithm", alg), ("train_convention", tc), ("eval_convention", ev)):
                    cols[name].append(np.full(nq * nm, val, dtype=object))
    cols["dataset"] = [np.full(sum(len(v) for v in cols["value"]), dataset, dtype=object)]
    return pd.DataFrame({c: np.concatenate(v) for c, v in cols.items()})[PER_QUERY_COLUMNS]
