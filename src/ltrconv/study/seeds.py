"""Seed variance of the study: per-seed tables and the convention effects' spread over seeds.

A random ranker (Coordinate Ascent, RankNet) is trained once per seed; the study's tables average
each query's score over the seeds (:func:`ltrconv.study.tables.seed_averaged`) before any mean or test.
This module keeps what that average hides: each seed's fold means (:func:`seed_fold_means`),
each seed's paired t-tests between training conventions (:func:`seed_ttests`), and, for the
paper's claims on training conventions (claims 3 and 4), a re-test with the Holm family limited
to the claim's own tests and the seed-to-seed standard deviation of each effect
(:func:`seeds_section`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rankers.registry import ORDER
from ..rankers.registry import display_name as name
from .paper import busa_fekete_2012 as paper
from .stats import holm
from .tables import KEYS, check_per_query, fold_stats, ordered, sort_rows, ttests

SEED_TTEST_COLUMNS = ["dataset", "algorithm", "eval_convention", "metric", "k", "conv_a",
                      "conv_b", "seed", "n", "diff", "t", "p"]


def seed_fold_means(per_query: pd.DataFrame, metric: str | None = "NDCG") -> pd.DataFrame:
    """Mean query score in every fold for each seed, of the algorithms trained with more than
    one seed (a deterministic algorithm's single seed is its row of the fold-means table), for
    ``metric`` (None: every metric)."""
    pq = check_per_query(per_query)
    if metric is not None:
        pq = pq[pq["metric"] == metric]
    n_seeds = pq.groupby("algorithm")["seed"].transform("nunique")
    pq = pq[n_seeds > 1]
    parts = [fold_stats(part).assign(seed=np.int64(s)) for s, part in pq.groupby("seed")]
    if not parts:
        return pd.DataFrame(columns=KEYS + ["fold", "seed", "mean"])
    out = pd.concat(parts, ignore_index=True)
    return sort_rows(out[KEYS + ["fold", "seed", "mean"]], KEYS + ["fold", "seed"])


def seed_ttests(per_query: pd.DataFrame, metric: str | None = "NDCG") -> pd.DataFrame:
    """The paired t-tests of :func:`ltrconv.study.tables.ttests` on each seed's models alone, for
    ``metric`` (None: every metric).

    Seed s of one training convention is paired with seed s of the other; a deterministic
    algorithm, trained under the first seed only, has that seed's row only. ``diff``, ``t``
    and ``p`` as in :func:`~ltrconv.study.tables.ttests` (uncorrected).
    """
    pq = check_per_query(per_query)
    if metric is not None:
        pq = pq[pq["metric"] == metric]
    parts = []
    for s, part in pq.groupby("seed"):
        t = ttests(part)
        if len(t):
            parts.append(t.assign(seed=np.int64(s)))
    if not parts:
        return pd.DataFrame(columns=SEED_TTEST_COLUMNS)
    out = pd.concat(parts, ignore_index=True)
    return sort_rows(out[SEED_TTEST_COLUMNS], SEED_TTEST_COLUMNS[:8])


def _select(table: pd.DataFrame, algorithm: str, a: str, b: str, st: paper.Setting) -> pd.DataFrame:
    """Rows of one test (a against b, scored with the reference NDCG@k), signed as a − b."""
    t = table[(table["algorithm"] == algorithm) & (table["eval_convention"] == st.reference)
              & (table["metric"] == st.metric) & (table["k"].astype(int) == st.k)]
    fwd = t[(t["conv_a"] == a) & (t["conv_b"] == b)]
    if len(fwd):
        return fwd
    rev = t[(t["conv_a"] == b) & (t["conv_b"] == a)]
    return rev.assign(diff=-rev["diff"], t=-rev["t"])


def claim_family(tests: pd.DataFrame, seed_tests: pd.DataFrame, algorithms, a: str, b: str,
                 st: paper.Setting = paper.PAPER, alpha: float = 0.05) -> pd.DataFrame:
    """The tests of one claim (``a`` against ``b`` for each of ``algorithms``) as one Holm family.

    Columns: algorithm, ``diff`` and ``p`` of the seed-averaged test (``tests``, the t-test
    table), ``p_holm`` (Holm over these tests only), ``significant`` (p_holm < alpha), and from
    ``seed_tests``: ``n_seeds``, ``seed_sd`` (standard deviation over seeds of each seed's
    a − b, ddof = 1; NaN with one seed), ``seed_min``/``seed_max`` and ``first_*`` (diff, p and
    whether it is significant after Holm over the family of the first seed's tests alone: the
    verdict a single run would give).
    """
    rows = []
    for alg in algorithms:
        avg = _select(tests, alg, a, b, st)
        if not len(avg):
            continue
        per_seed = _select(seed_tests, alg, a, b, st).sort_values("seed")
        d = per_seed["diff"].to_numpy(dtype=float)
        first = per_seed.iloc[0] if len(per_seed) else None
        rows.append({"algorithm": alg, "diff": float(avg["diff"].iloc[0]),
                     "p": float(avg["p"].iloc[0]), "n_seeds": len(d),
                     "seed_sd": float(np.std(d, ddof=1)) if len(d) > 1 else np.nan,
                     "seed_min": float(d.min()) if len(d) else np.nan,
                     "seed_max": float(d.max()) if len(d) else np.nan,
                     "first_seed": int(first["seed"]) if first is not None else -1,
                     "first_diff": float(first["diff"]) if first is not None else np.nan,
                     "first_p": float(first["p"]) if first is not None else np.nan})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["p_holm"] = holm(out["p"].to_numpy())
    out["significant"] = out["p_holm"] < alpha
    out["first_significant"] = holm(out["first_p"].to_numpy()) < alpha
    return out


def _fmt(x: float, spec: str) -> str:
    return "–" if not np.isfinite(x) else format(x, spec)


def _family_table(fam: pd.DataFrame, a: str, b: str) -> list[str]:
    lines = [f"| algorithm | {a} − {b} (seed mean) | p | Holm p (this claim) | seeds | "
             "seed-to-seed sd | per-seed range | first seed alone: diff, Holm p |",
             "|---|---|---|---|---|---|---|---|"]
    first_holm = holm(fam["first_p"].to_numpy())
    for (_, r), fh in zip(fam.iterrows(), first_holm):
        sig = " (significant)" if r["significant"] else ""
        lines.append(f"| {name(r['algorithm'])} | {r['diff']:+.4f} | {r['p']:.2g} | "
                     f"{r['p_holm']:.2g}{sig} | {r['n_seeds']} | {_fmt(r['seed_sd'], '.4f')} | "
                     f"{_fmt(r['seed_min'], '+.4f')} to {_fmt(r['seed_max'], '+.4f')} | "
                     f"{_fmt(r['first_diff'], '+.4f')}, {_fmt(fh, '.2g')} |")
    return lines


def seeds_section(tests: pd.DataFrame, seed_tests: pd.DataFrame, seeds, dataset: str,
                  st: paper.Setting = paper.PAPER, alpha: float = 0.05) -> str:
    """Claims 3 and 4 of the paper re-tested with seed variance, as a Markdown section.

    The test: each query's NDCG is averaged over the seeds of its model, then a paired t-test
    across queries (pooled over folds) compares the two training conventions; averaging keeps
    the query as the unit of replication, so seeds neither inflate n nor are ignored. Holm's
    family is the claim's own tests. Next to each test: the standard deviation over seeds of the
    effect measured seed by seed, and the verdict the first seed alone gives.
    """
    tests = tests[tests["dataset"] == dataset] if "dataset" in tests.columns else tests
    seed_tests = (seed_tests[seed_tests["dataset"] == dataset]
                  if "dataset" in seed_tests.columns else seed_tests)
    algs = ordered(tests["algorithm"], ORDER) if len(tests) else []
    lines = ["", "## Seed variance", "",
             f"Random algorithms were trained once per seed ({', '.join(map(str, seeds))}); "
             "deterministic ones once. Test: each query's "
             f"{st.reference} {st.metric}@{st.k} averaged over the seeds of its model, then a "
             "paired t-test across the queries of all folds (the query stays the unit of "
             "replication; seed noise shrinks in the average instead of counting as extra "
             "pairs). Holm's correction runs over the tests of one claim only (the family is "
             "the claim); the uncorrected p stands beside it. The seed-to-seed sd is the "
             "standard deviation over seeds of the effect measured on each seed's models alone "
             f"(seed s paired with seed s); alpha = {alpha}."]
    fam3 = claim_family(tests, seed_tests, [a for a in paper.NDCG_TRAINED if a in algs],
                        st.train, st.letor, st, alpha)
    lines += ["", f"### Claim 3: training with {st.letor} is significantly worse", ""]
    if fam3.empty:
        lines.append("No tests: the run lacks the models this claim compares.")
    else:
        lines += _family_table(fam3, st.train, st.letor)
        holds = bool(((fam3["diff"] > 0) & fam3["significant"]).all()
                     and len(fam3) == len(paper.NDCG_TRAINED))
        held_first = bool(((fam3["first_diff"] > 0) & fam3["first_significant"]).all()
                          and len(fam3) == len(paper.NDCG_TRAINED))
        verdict = "holds" if holds else "does not hold"
        change = ("does not change" if holds == held_first else
                  f"changes (the first seed alone: {'holds' if held_first else 'does not hold'})")
        lines += ["", f"With seed variance accounted for, claim 3 (each of "
                  f"{', '.join(name(a) for a in paper.NDCG_TRAINED)} significantly better trained "
                  f"with {st.train} than with {st.letor}) **{verdict}**; against the first seed "
                  f"alone (same test, same family), the verdict {change}."]
    fam4 = claim_family(tests, seed_tests, algs, st.yahoo, st.train, st, alpha)
    lines += ["", f"### Claim 4: training with {st.yahoo} is equal or better", ""]
    if fam4.empty:
        lines.append("No tests: the run lacks the models this claim compares.")
    else:
        lines += _family_table(fam4, st.yahoo, st.train)
        worse = fam4[(fam4["diff"] < 0) & fam4["significant"]]
        lines += ["", "Significantly worse trained with "
                  f"{st.yahoo}: {', '.join(name(a) for a in worse['algorithm']) or 'none'}."]
    return "\n".join(lines) + "\n"
