"""Aggregation of the tidy per-query table into the study's tables.

The per-query table has one row per (dataset, fold, seed, algorithm, train_convention,
eval_convention, metric, k, qid) with the query's score in ``value`` (k = 0 for MAP);
:func:`per_query_frame` builds it from evaluations. ``seed`` is the ``random_state`` the model
was trained with (one seed for a deterministic algorithm). :func:`summarise`, :func:`fold_means`,
:func:`ttests` and :func:`algorithm_order` build the result tables from each query's score
averaged over seeds (:func:`seed_averaged`). What a paper claims about
them lives in :mod:`ltrconv.study.paper`.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from ..rankers import registry as algorithms
from ..errors import LtrconvError
from .stats import holm, paired_table, quadrature_stderr

KEYS = ["dataset", "algorithm", "train_convention", "eval_convention", "metric", "k"]
PER_QUERY_COLUMNS = ["dataset", "fold", "seed", "algorithm", "train_convention",
                     "eval_convention", "metric", "k", "qid", "value"]
TRAIN_ORDER = ("yahoo", "ranklib", "letor")
EVAL_ORDER = ("ranklib", "trec", "yahoo", "letor", "ranklib-tieavg", "ranklib-tiepess",
              "ranklib-tieopt")
METRIC_ORDER = ("NDCG", "P", "MAP")
_PREFERRED = {"algorithm": algorithms.ORDER, "train_convention": TRAIN_ORDER,
              "conv_a": TRAIN_ORDER, "conv_b": TRAIN_ORDER,
              "eval_convention": EVAL_ORDER, "metric": METRIC_ORDER}


def ordered(values, preferred) -> list:
    """Distinct ``values``: those in ``preferred`` first in that order, the rest sorted."""
    values = list(dict.fromkeys(values))
    known = [v for v in preferred if v in values]
    return known + sorted(v for v in values if v not in preferred)


def holm_per_family(tests: pd.DataFrame, alpha: float) -> None:
    """Add ``p_holm`` (Holm over each (dataset, metric) family of ``p``) and ``significant``
    (``p_holm < alpha``) to ``tests`` in place; ``n`` becomes int64."""
    tests["p_holm"] = np.nan
    for _, idx in tests.groupby(["dataset", "metric"], sort=False).groups.items():
        tests.loc[idx, "p_holm"] = holm(tests.loc[idx, "p"].to_numpy())
    tests["significant"] = (tests["p_holm"] < alpha).to_numpy(dtype=bool)
    tests["n"] = tests["n"].astype(np.int64)


def sort_rows(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Sort rows with the study's preferred order of algorithms, conventions and metrics."""
    def key(col: pd.Series) -> pd.Series:
        pref = _PREFERRED.get(col.name)
        if pref is None:
            return col
        rank = {v: i for i, v in enumerate(ordered(col.unique(), pref))}
        return col.map(rank)

    return df.sort_values(by, key=key, kind="stable").reset_index(drop=True)


def per_query_frame(evaluations: dict, *, dataset: str, fold: int, algorithm: str,
                    train_convention: str, seed: int = 0) -> pd.DataFrame:
    """The per-query rows of one model on one fold (trained with ``random_state = seed``).

    ``evaluations`` maps each evaluation convention to its :class:`ltrconv.evaluation.metrics.Evaluation`;
    its NDCG@k, P@k and MAP columns become rows (metric, k), k = 0 for MAP, query by query.
    """
    frames = []
    for conv, ev in evaluations.items():
        keep = [c for c in ev.columns if c.startswith(("NDCG@", "P@")) or c == "MAP"]
        idx = [ev.columns.index(c) for c in keep]
        metric = [c.split("@")[0] for c in keep]
        k = [int(c.split("@")[1]) if "@" in c else 0 for c in keep]
        nq = len(ev.qids)
        frames.append(pd.DataFrame({
            "eval_convention": conv,
            "metric": np.tile(metric, nq),
            "k": np.tile(k, nq).astype(np.int64),
            "qid": np.repeat(ev.qids.astype(str), len(keep)),
            "value": ev.values[:, idx].reshape(-1).astype(np.float64),
        }))
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "train_convention", train_convention)
    out.insert(0, "algorithm", algorithm)
    out.insert(0, "seed", np.int64(int(seed)))
    out.insert(0, "fold", np.int64(int(fold)))
    out.insert(0, "dataset", dataset)
    return out[PER_QUERY_COLUMNS]


def check_per_query(per_query: pd.DataFrame) -> pd.DataFrame:
    """Validate the per-query table and normalise its dtypes; raises :class:`LtrconvError`.

    A table without a ``seed`` column (written before models had seeds) is one seed, 0."""
    if "seed" not in per_query.columns:
        per_query = per_query.assign(seed=np.int64(0))
    missing = [c for c in PER_QUERY_COLUMNS if c not in per_query.columns]
    if missing:
        raise LtrconvError(f"per-query table lacks column(s) {missing}; has {list(per_query.columns)}")
    pq = per_query[PER_QUERY_COLUMNS].copy()
    for col in ("dataset", "algorithm", "train_convention", "eval_convention", "metric", "qid"):
        pq[col] = pq[col].astype(str)
    pq["fold"] = pq["fold"].astype(np.int64)
    pq["seed"] = pq["seed"].astype(np.int64)
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


SEEDLESS_COLUMNS = [c for c in PER_QUERY_COLUMNS if c != "seed"]


def seed_averaged(per_query: pd.DataFrame) -> pd.DataFrame:
    """The checked per-query table with each query's value averaged over the seeds of its model,
    ``v(q) = (1/S) sum_s v_s(q)``, and no ``seed`` column.

    Rows keep their first order; a table with one seed is returned as it is (same values, same
    order), so every aggregate of a single-seed run is what it was before seeds existed.
    """
    pq = check_per_query(per_query)
    if pq["seed"].nunique() <= 1:
        return pq[SEEDLESS_COLUMNS].reset_index(drop=True)
    keys = SEEDLESS_COLUMNS[:-1]
    out = pq.groupby(keys, sort=False)["value"].mean().reset_index()
    return out[SEEDLESS_COLUMNS]


def fold_stats(per_query: pd.DataFrame, *, averaged: bool = False) -> pd.DataFrame:
    """Per fold: ``mean`` of the query scores (each averaged over seeds first),
    ``se = sd / sqrt(n)`` (ddof = 1) and ``n``. ``averaged``: ``per_query`` is already
    :func:`seed_averaged`'s table (checked and averaged once for several aggregates)."""
    pq = per_query if averaged else seed_averaged(per_query)
    g = pq.groupby(KEYS + ["fold"], sort=False)["value"]
    out = g.agg(mean="mean", sd="std", n="size").reset_index()
    out["se"] = out["sd"] / np.sqrt(out["n"])
    return sort_rows(out.drop(columns="sd"), KEYS + ["fold"])


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
    return sort_rows(out.reset_index()[cols], KEYS)


def factorize_rows(index: pd.MultiIndex) -> tuple[np.ndarray, pd.MultiIndex]:
    """``index.factorize()``: a code per row, the distinct rows numbered in order of first
    appearance, and those rows. Read from the levels' integer codes (one int64 per row and a
    hash of integers) instead of a tuple built per row: seconds on the study's millions of rows.
    An index with a missing value (code -1) takes pandas' own path."""
    level_codes = [np.asarray(c, dtype=np.int64) for c in index.codes]
    dims = [max(len(level), 1) for level in index.levels]
    if not len(index) or any((c < 0).any() for c in level_codes) or np.prod(
            np.array(dims, dtype=np.float64)) >= 2.0 ** 62:
        return index.factorize()
    flat = np.ravel_multi_index(level_codes, dims)
    codes, _ = pd.factorize(flat)
    first = np.unique(codes, return_index=True)[1]
    return codes.astype(np.int64), index[first].set_names([None] * index.nlevels)


TTEST_COLUMNS = ["dataset", "algorithm", "eval_convention", "metric", "k", "conv_a", "conv_b",
                 "n", "mean_a", "mean_b", "diff", "t", "p", "p_holm", "significant"]


def ttests(per_query: pd.DataFrame, alpha: float = 0.05, *,
           averaged: bool = False) -> pd.DataFrame:
    """Paired t-tests between training conventions, over queries pooled across folds.

    For each dataset, algorithm, eval_convention, metric, k and pair (conv_a, conv_b) of
    training conventions, the query scores (each averaged over the model's seeds, so that seed
    variance shrinks the noise instead of multiplying the pairs) are paired by (fold, qid);
    queries missing under either convention are dropped. ``n`` pairs, ``mean_a``/``mean_b`` are the means over the
    paired queries, ``diff = mean_a - mean_b``, ``t``/``p`` as :func:`ltrconv.study.stats.paired_ttest`.
    ``p_holm``: Holm adjustment over the family of all tests of one dataset and one metric
    type (NDCG, P or MAP): every algorithm, evaluation convention, cutoff and pair.
    ``significant = p_holm < alpha``. ``averaged`` as :func:`fold_stats` takes it.
    """
    pq = per_query if averaged else seed_averaged(per_query)
    groups = ["dataset", "algorithm", "eval_convention", "metric", "k"]
    if pq.empty:
        return pd.DataFrame(columns=TTEST_COLUMNS)
    wide = pq.pivot(index=groups + ["fold", "qid"], columns="train_convention", values="value")
    parts = []
    for a, b in itertools.combinations(ordered(wide.columns, TRAIN_ORDER), 2):
        sub = wide[[a, b]].dropna()
        if sub.empty:
            continue
        codes, keys = factorize_rows(sub.index.droplevel(["fold", "qid"]))
        agg = keys.set_names(groups).to_frame(index=False).assign(
            **paired_table(sub[a], sub[b], codes))
        agg["conv_a"], agg["conv_b"] = a, b
        parts.append(agg)
    if not parts:
        return pd.DataFrame(columns=TTEST_COLUMNS)
    out = pd.concat(parts, ignore_index=True)
    holm_per_family(out, alpha)
    return sort_rows(out[TTEST_COLUMNS], ["dataset", "algorithm", "eval_convention", "metric", "k",
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
    return sort_rows(s[ORDER_COLUMNS], ["dataset", "eval_convention", "rank", "algorithm"])

