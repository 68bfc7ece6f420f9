"""The six claims of Busa-Fekete, Szarvas, Éltető & Kégl (2012), checked on the study's tables.

The paper (Sec. 5, Figures 1 and 2, MQ2008) claims: (1) the yahoo tool scores about 0.25 above
ranklib/trec because of the queries without relevant document; (2) the letor tool collapses at
cutoffs 8–10; (3) AdaRank, LambdaMART and Coordinate Ascent learn significantly worse models when
trained with letor; (4) training with yahoo is as good or better; (5) Coordinate Ascent is
slightly best, RankBoost/RankSVM/LambdaMART close, their order changed by letor; (6) AdaRank is
not competitive. :func:`claims` turns each into a rule with measured numbers and a verdict;
:func:`claims_markdown` writes them. The metric, cutoff and conventions are a :class:`Setting`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...rankers.registry import ORDER
from ...rankers.registry import display_name as name
from ..names import REFERENCE
from ..tables import EVAL_ORDER, TRAIN_ORDER, holm_per_family, ordered

HOLDS, FAILS, PARTLY, MISSING = ("holds", "does not hold", "partly",
                                  "cannot be checked (missing data)")

# The algorithms the claims name (Sec. 5).
NDCG_TRAINED = ("adarank", "lambdamart", "coordinate_ascent")  # use NDCG while training
CLOSE_TRIO = ("rankboost", "ranksvm", "lambdamart")  # close to each other, below CA (Figure 2)
BEST = "coordinate_ascent"  # slightly ahead under every evaluation tool (Figure 2)
NOT_COMPETITIVE = "adarank"  # RankLib's AdaRank falls short of its published results


@dataclass(frozen=True)
class Setting:
    """The results a check reads and the tolerances it allows.

    Defaults reproduce the paper's setting (section named beside each). The tolerances are this
    project's reading of "about 0.25", "sharply" and "very close"; the paper gives no numbers.
    """

    metric: str = "NDCG"  # Sec. 5: every figure and claim is about NDCG@1..10
    k: int = 10  # Sec. 5: all models optimise NDCG@10
    reference: str = REFERENCE  # Sec. 5: ranklib/trec follow the definition (the official NDCG)
    train: str = "ranklib"  # Sec. 5, Figure 2: models trained with the official NDCG
    yahoo: str = "yahoo"  # Sec. 5: scores a query without relevant document 1.0
    letor: str = "letor"  # Sec. 5: scores a query shorter than the cutoff 0.0
    offset: float = 0.25  # Sec. 5: yahoo's average lead over ranklib/trec
    collapse_cutoffs: tuple[int, ...] = (8, 9, 10)  # Sec. 5: where letor's scores drop
    offset_tol: float = 0.05  # |yahoo - reference - offset| allowed
    empty_tol: float = 0.01  # |yahoo - reference - share of queries without relevant doc|
    collapse_gap: float = 0.20  # least reference - letor at the last collapse cutoff
    close_spread: float = 0.02  # largest spread of the three close algorithms
    # Claims 3 and 4 are about the paper's conventions: their Holm family is the tests between
    # these training conventions scored with these evaluation conventions, whatever else a
    # run adds (today's libraries keep a family of their own).
    family_train: tuple[str, ...] = TRAIN_ORDER
    family_eval: tuple[str, ...] = EVAL_ORDER
    alpha: float = 0.05  # as the t-test table's

    def __post_init__(self) -> None:
        if not self.collapse_cutoffs or min(self.collapse_cutoffs) < 2:
            raise ValueError(f"collapse_cutoffs must be cutoffs >= 2, got {self.collapse_cutoffs}")
        if self.k < 1:
            raise ValueError(f"k must be >= 1, got {self.k}")


PAPER = Setting()


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


def _and(items) -> str:
    """``a, b and c``."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _of_metric(summary: pd.DataFrame, metric: str, train: str | None = None) -> pd.DataFrame:
    s = summary[summary["metric"] == metric]
    if train is not None:
        s = s[s["train_convention"] == train]
    return s.assign(k=s["k"].astype(int))


def _reference_train(summary: pd.DataFrame, setting: Setting) -> str | None:
    """``setting.train`` when models trained with it exist, else the first training convention."""
    preferred = (setting.train,) + TRAIN_ORDER
    trains = ordered(summary["train_convention"], preferred) if len(summary) else []
    return trains[0] if trains else None


def _by_k(s: pd.DataFrame, algorithm: str, eval_convention: str) -> pd.Series:
    sel = s[(s["algorithm"] == algorithm) & (s["eval_convention"] == eval_convention)]
    return sel.set_index("k")["mean"].sort_index()


def _audit_at(audit: dict | None, key: str, k: int):
    table = (audit or {}).get(key) or {}
    return table.get(k, table.get(str(k))) if isinstance(table, dict) else None


def _claim_yahoo_offset(summary, audit, st: Setting) -> dict:
    train = _reference_train(summary, st)
    s = _of_metric(summary, st.metric, train)
    empty = (audit or {}).get("empty_share", (audit or {}).get("yahoo_minus_ranklib"))
    rule = (f"two checks on models trained with {train}: {st.yahoo} − {st.reference} "
            f"{st.metric}@k averaged over the cutoffs is within {st.offset_tol} of {st.offset} "
            f"for every algorithm, and within {st.empty_tol} of the audit's share of queries "
            "without relevant document (holds when both pass, partly when one does)")
    measured, offsets = [], []
    for alg in ordered(s["algorithm"], ORDER):
        off = (_by_k(s, alg, st.yahoo) - _by_k(s, alg, st.reference)).dropna()
        if off.empty:
            continue
        offsets.append(float(off.mean()))
        measured.append(f"{name(alg)}: {st.yahoo} − {st.reference} = {offsets[-1]:+.3f} "
                        f"(over k = {off.index.min()}..{off.index.max()}: {off.min():+.3f} to {off.max():+.3f})")
    n_eval = int(s["n_queries"].max()) if len(s) else 0
    n_audit = (audit or {}).get("queries")
    comparable = empty is not None and (n_audit is None or int(n_audit) == n_eval)
    checks = []
    if offsets:
        checks.append(all(abs(m - st.offset) <= st.offset_tol for m in offsets))
        if comparable:
            checks.append(all(abs(m - float(empty)) <= st.empty_tol for m in offsets))
    if empty is None:
        measured.append("no dataset audit: the empty-query explanation is not checked")
    else:
        measured.append(f"audit: {float(empty):.3f} of the queries have no relevant document")
        if not comparable:
            measured.append(f"the results cover {n_eval} of the audit's {int(n_audit)} queries "
                            "(not every fold was run): the explanation is not checked")
    return _claim("yahoo_offset", f"{st.yahoo} ≈ {st.reference} + {st.offset:g}",
                  "The yahoo tool scores about 0.25 above ranklib/trec, solely because it "
                  "scores queries without relevant document 1.0.",
                  rule, measured, _verdict(sum(checks), len(checks), len(checks)))


def _claim_letor_collapse(summary, audit, st: Setting) -> dict:
    train = _reference_train(summary, st)
    s = _of_metric(summary, st.metric, train)
    ks = list(st.collapse_cutoffs)
    first, last = min(ks), max(ks)
    rule = (f"for models trained with {train}, an algorithm collapses when its {st.letor} "
            f"{st.metric}@k averaged over k = {first}..{last} is below its average over "
            f"k = 1..{first - 1} and {st.reference} − {st.letor} at k = {last} is at least "
            f"{st.collapse_gap}; holds when every algorithm collapses")
    measured, n_ok, n_checked = [], 0, 0
    for alg in ordered(s["algorithm"], ORDER):
        let, ref = _by_k(s, alg, st.letor), _by_k(s, alg, st.reference)
        lo, hi = let[let.index < first], let[let.index.isin(ks)]
        if lo.empty or hi.empty or last not in let.index or last not in ref.index:
            continue
        n_checked += 1
        gaps = (ref - let).reindex(ks)
        ok = hi.mean() < lo.mean() and gaps[last] >= st.collapse_gap
        n_ok += ok
        gap_text = ", ".join(f"{g:+.3f}" if pd.notna(g) else "–" for g in gaps)
        measured.append(f"{name(alg)}: {st.letor} mean @1–{first - 1} {lo.mean():.3f}, "
                        f"@{first}–{last} {hi.mean():.3f}; {st.reference} − {st.letor} at "
                        f"k = {', '.join(map(str, ks))}: {gap_text}")
    zeroed = [(k, _audit_at(audit, "letor_zeroed", k)) for k in ks]
    if all(v is not None for _, v in zeroed):
        measured.append("audit: letor scores 0 whatever the order for "
                        + ", ".join(f"{float(v):.3f} (k = {k})" for k, v in zeroed)
                        + " of the queries")
    return _claim("letor_collapse", f"{st.letor} collapses at k = {first}–{last}",
                  "Scores from the letor tool drop sharply at cutoffs 8–10 (queries shorter "
                  "than k score 0), around or more than 0.25 below ranklib.",
                  rule, measured, _verdict(n_ok, n_checked, n_checked))


def paper_family(tests: pd.DataFrame, setting: Setting = PAPER) -> pd.DataFrame:
    """The t-tests between ``setting.family_train`` conventions scored with
    ``setting.family_eval`` ones, Holm-adjusted anew over that family per (dataset, metric).

    A run of only the paper's conventions gets its table back with the same values; a run
    that adds conventions (today's libraries) gets the paper's family, not the larger one.
    """
    if not len(tests):
        return tests
    keep = (tests["conv_a"].isin(setting.family_train) & tests["conv_b"].isin(setting.family_train)
            & tests["eval_convention"].isin(setting.family_eval))
    out = tests[keep.to_numpy(dtype=bool)].reset_index(drop=True)
    if len(out) == len(tests):
        return out
    holm_per_family(out, setting.alpha)
    return out


def _test_row(tests, algorithm, a, b, st: Setting):
    """(diff a − b, p, p_holm, significant) of one test, whichever way it is stored."""
    t = tests[(tests["algorithm"] == algorithm) & (tests["eval_convention"] == st.reference)
              & (tests["metric"] == st.metric) & (tests["k"].astype(int) == st.k)]
    for x, y, sign in ((a, b, 1.0), (b, a, -1.0)):
        row = t[(t["conv_a"] == x) & (t["conv_b"] == y)]
        if len(row):
            r = row.iloc[0]
            return sign * float(r["diff"]), float(r["p"]), float(r["p_holm"]), bool(r["significant"])
    return None


def _fmt_test(alg, a, b, res, st: Setting) -> str:
    diff, p, ph, sig = res
    return (f"{name(alg)}: trained {a} − trained {b} = {diff:+.4f} {st.metric}@{st.k}, "
            f"p = {p:.2g}, Holm p = {ph:.2g}{' (significant)' if sig else ''}")


def _test_rule(st: Setting) -> str:
    return (f"paired t-test over queries pooled over folds, scored with {st.reference} "
            f"{st.metric}@{st.k}, Holm-corrected over the dataset's {st.metric} tests between "
            f"{_and(st.family_train)} training scored with the paper run's "
            f"{len(st.family_eval)} evaluation conventions (other conventions a run adds form "
            f"families of their own), alpha {st.alpha:g}")


def _claim_letor_training(tests, st: Setting) -> dict:
    rule = (f"holds when, for each of {_and(name(a) for a in NDCG_TRAINED)}, models trained "
            f"with {st.train} score higher than models trained with {st.letor} and the "
            "difference is significant; " + _test_rule(st))
    measured, n_ok, n_checked = [], 0, 0
    algs = ordered(tests["algorithm"], ORDER) if len(tests) else []
    for alg in algs:
        res = _test_row(tests, alg, st.train, st.letor, st)
        if res is None:
            continue
        if alg in NDCG_TRAINED:
            n_checked += 1
            n_ok += res[0] > 0 and res[3]
            measured.append(_fmt_test(alg, st.train, st.letor, res, st))
        else:
            measured.append("(context) " + _fmt_test(alg, st.train, st.letor, res, st))
    missing = [name(a) for a in NDCG_TRAINED
               if not len(tests) or _test_row(tests, a, st.train, st.letor, st) is None]
    if missing and n_checked:
        measured.append("not available: " + ", ".join(missing))
    return _claim("letor_training", f"training with {st.letor} is significantly worse",
                  "AdaRank, LambdaMART and Coordinate Ascent learn significantly worse models "
                  "when they optimise the letor NDCG.",
                  rule, measured, _verdict(n_ok, n_checked, len(NDCG_TRAINED)))


def _claim_yahoo_training(tests, st: Setting) -> dict:
    rule = (f"holds when no algorithm trained with {st.yahoo} is significantly worse than "
            f"trained with {st.train}, does not hold when all are; " + _test_rule(st))
    measured, n_ok, n_checked = [], 0, 0
    algs = ordered(tests["algorithm"], ORDER) if len(tests) else []
    for alg in algs:
        res = _test_row(tests, alg, st.yahoo, st.train, st)
        if res is None:
            continue
        n_checked += 1
        n_ok += not (res[3] and res[0] < 0)
        measured.append(_fmt_test(alg, st.yahoo, st.train, res, st))
    return _claim("yahoo_training", f"training with {st.yahoo} is equal or better",
                  "Models trained with the yahoo NDCG are as good as or better than models "
                  "trained with ranklib's.",
                  rule, measured, _verdict(n_ok, n_checked, n_checked))


def _order_column(order: pd.DataFrame, eval_convention: str, column: str = "mean") -> pd.Series:
    """``column`` of the algorithm order table under one evaluation convention, by algorithm."""
    o = order[order["eval_convention"] == eval_convention]
    return o.set_index("algorithm")[column]


def _order_setting(order: pd.DataFrame, st: Setting) -> tuple[str, str, int]:
    """(training convention, metric, cutoff) the algorithm order table was built for."""
    if not len(order):
        return st.train, st.metric, st.k
    return (str(order["train_convention"].iloc[0]), str(order["metric"].iloc[0]),
            int(order["k"].iloc[0]))


def _relative_order(means: pd.Series, algs) -> list:
    sub = means.reindex([a for a in algs if a in means.index])
    return list(sub.sort_values(ascending=False, kind="stable").index)


def _claim_ca_best(order, st: Setting) -> dict:
    train, metric, k = _order_setting(order, st)
    ca, ref, let = BEST, st.reference, st.letor
    rule = (f"three checks on {metric}@{k} of models trained with {train}: (a) {name(ca)} "
            f"ranks first under every evaluation convention; (b) "
            f"{_and(name(a) for a in CLOSE_TRIO)} lie within {st.close_spread} of each other "
            f"and below {name(ca)} under {ref} evaluation; (c) the order of those three under "
            f"{let} evaluation differs from their order under {ref} evaluation")
    measured, n_ok, n_checked = [], 0, 0
    evals = ordered(order["eval_convention"], EVAL_ORDER) if len(order) else []
    means = {ev: _order_column(order, ev) for ev in evals}
    ranks = {ev: _order_column(order, ev, "rank") for ev in evals}
    if any(ca in r.index for r in ranks.values()):
        n_checked += 1
        firsts = {ev: int(r[ca]) for ev, r in ranks.items() if ca in r.index}
        n_ok += all(r == 1 for r in firsts.values())
        measured.append(f"(a) {name(ca)} rank: "
                        + ", ".join(f"{r} under {ev}" for ev, r in firsts.items()))
    rl = means.get(ref, pd.Series(dtype=float))
    trio = [a for a in CLOSE_TRIO if a in rl.index]
    if len(trio) >= 2:
        n_checked += 1
        vals = rl[trio]
        spread = float(vals.max() - vals.min())
        below = ca in rl.index and bool((vals <= rl[ca]).all())
        n_ok += spread <= st.close_spread and below
        lead = (f"; {name(ca)} {rl[ca]:.4f}, lead {rl[ca] - vals.max():+.4f}"
                if ca in rl.index else "")
        measured.append(f"(b) under {ref}: " + ", ".join(f"{name(a)} {vals[a]:.4f}" for a in trio)
                        + f" (spread {spread:.4f}){lead}")
    lt = means.get(let, pd.Series(dtype=float))
    common = [a for a in trio if a in lt.index]
    if len(common) >= 2:
        n_checked += 1
        before, after = _relative_order(rl, common), _relative_order(lt, common)
        n_ok += before != after
        measured.append(f"(c) order under {ref}: " + " > ".join(name(a) for a in before)
                        + f"; under {let}: " + " > ".join(name(a) for a in after))
    title = f"CA slightly best; RankBoost/RankSVM/LambdaMART close, reordered by {let}"
    return _claim("ca_best", title,
                  "Coordinate Ascent is slightly best whatever the evaluation tool; RankBoost, "
                  "RankSVM and LambdaMART are close to each other and their order changes under "
                  "the letor tool.", rule, measured, _verdict(n_ok, n_checked, 3))


def _claim_adarank(summary, order, st: Setting) -> dict:
    train, metric, k = _order_setting(order, st)
    ada, ref = NOT_COMPETITIVE, st.reference
    rule = (f"two checks on {ref} {metric}@{k} of models trained with {train}: {name(ada)} "
            "ranks last, and it trails the best algorithm by more than twice the combined "
            f"standard error sqrt(se_{name(ada)}^2 + se_best^2)")
    title = f"{name(ada)} not competitive"
    claim = f"{name(ada)} is not competitive with the other algorithms."
    means = _order_column(order, ref) if len(order) else pd.Series(dtype=float)
    if ada not in means.index or len(means) < 2:
        return _claim("adarank", title, claim, rule, [], MISSING)
    s = _of_metric(summary, metric, train)
    s = s[(s["eval_convention"] == ref) & (s["k"] == k)].set_index("algorithm")["stderr"]
    best = means.drop(ada).idxmax()
    gap = float(means[best] - means[ada])
    se = float(np.sqrt(s.get(ada, np.nan) ** 2 + s.get(best, np.nan) ** 2))
    last = bool((means.drop(ada) > means[ada]).all())
    checks = [last] + ([gap > 2 * se] if np.isfinite(se) else [])
    rank = int(_order_column(order, ref, "rank")[ada])
    measured = [f"{name(ada)} {means[ada]:.4f} (rank {rank} "
                f"of {len(means)}); best {name(best)} {means[best]:.4f}; gap {gap:+.4f}, "
                f"2 × combined standard error {2 * se:.4f}"]
    return _claim("adarank", title, claim, rule, measured, _verdict(sum(checks), len(checks), 2))


def claims(summary: pd.DataFrame, tests: pd.DataFrame, order: pd.DataFrame,
           audit: dict | None, setting: Setting = PAPER) -> list[dict]:
    """The paper's claims, each with its rule, measured numbers and verdict.

    ``summary``, ``tests`` and ``order`` are the :func:`ltrconv.study.tables.summarise`,
    :func:`~ltrconv.study.tables.ttests` and :func:`~ltrconv.study.tables.algorithm_order` tables; the two
    ranking claims read the training convention, metric and cutoff of the order table, the
    others those of ``setting``. Entries are dicts with keys id, title, claim, rule, measured
    (list of str) and verdict (holds / does not hold / partly / cannot be checked (missing
    data)).
    """
    return [
        _claim_yahoo_offset(summary, audit, setting),
        _claim_letor_collapse(summary, audit, setting),
        _claim_letor_training(tests, setting),
        _claim_yahoo_training(tests, setting),
        _claim_ca_best(order, setting),
        _claim_adarank(summary, order, setting),
    ]


def _only(df: pd.DataFrame, dataset: str) -> pd.DataFrame:
    return df[df["dataset"] == dataset] if "dataset" in df.columns and len(df) else df


def claims_markdown(summary: pd.DataFrame, tests: pd.DataFrame, order: pd.DataFrame,
                    audit: dict | None, dataset: str, setting: Setting = PAPER) -> str:
    """The verdicts on the paper's claims for one dataset, as a Markdown document."""
    found = claims(_only(summary, dataset), _only(tests, dataset), _only(order, dataset), audit,
                   setting)
    m = setting.metric
    lines = [f"# Claims of Busa-Fekete et al. (2012) checked on {dataset}", "",
             f"Means are over folds of the fold means; the {m} is the one named by the "
             f"evaluation convention; differences are in {m} points (0..1).", ""]
    if audit:
        parts = []
        if audit.get("queries") is not None:
            parts.append(f"{audit['queries']} queries")
        if audit.get("documents") is not None:
            parts.append(f"{audit['documents']} documents")
        if audit.get("empty_share") is not None:
            parts.append(f"{float(audit['empty_share']):.1%} of the queries without relevant document")
        short = _audit_at(audit, "shorter_than", setting.k)
        if short is not None:
            parts.append(f"{float(short):.1%} with fewer than {setting.k} documents")
        if parts:
            lines += ["Dataset audit: " + "; ".join(parts) + ".", ""]
    else:
        lines += ["No dataset audit was given.", ""]
    lines += ["| # | claim | verdict |", "|---|---|---|"]
    lines += [f"| {i} | {c['title']} | {c['verdict']} |" for i, c in enumerate(found, 1)]
    for i, c in enumerate(found, 1):
        lines += ["", f"## {i}. {c['title']}", "", c["claim"], "", f"Rule: {c['rule']}.", ""]
        lines += [f"- {x}" for x in c["measured"]] or ["- no data"]
        lines += ["", f"Verdict: **{c['verdict']}**"]
    return "\n".join(lines) + "\n"
