"""Winning Number, Ideal Winning Number and Normalized Winning Number.

Definitions of Tax, Bockting & Hiemstra (2015), "A cross-benchmark comparison of 87 learning
to rank methods", Sec. 3 (Winning Number after Qin, Liu et al. 2010, LETOR 3.0). With
``M_i(j)`` the value of method i on dataset j and ``D_ik(j) = 1`` when both ``M_i(j)`` and
``M_k(j)`` are defined (0 otherwise), over the m methods and n datasets::

    WN_i  = sum_j sum_{k != i} D_ik(j) * [M_i(j) > M_k(j)]
    IWN_i = sum_j sum_{k != i} D_ik(j)
    NWN_i = WN_i / IWN_i

A win is strict: tied methods beat neither one another, yet each tie counts in IWN. A method
missing on a dataset neither wins nor loses there, and the others' IWN skip it too. With every
method defined everywhere, WN is the LETOR 3.0 Winning Number. The paper writes the inner sums
over all k = 1..m; taken literally k = i would add 1 to IWN per dataset and no method could
reach the NWN of 1.0 the paper reports (Sec. 4) for methods that beat all others, so k = i is
left out, as the paper's wording ("the theoretically highest Winning Number") implies. IWN = 0
(a method never compared with another) gives NWN = NaN.

Here the datasets of the definition are evaluation units, by default (dataset, fold) pairs of a
tidy table such as the pipeline's ``tables/fold_means.tsv``.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np
import pandas as pd

from ..errors import LtrconvError

WINNING_COLUMNS = ["WN", "IWN", "NWN", "n_units"]
FLIP_COLUMNS = ["ahead_a", "ahead_b", "nwn_ahead_a", "nwn_behind_a", "nwn_ahead_b", "nwn_behind_b"]


def _require(table: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise LtrconvError(f"{what} lacks column(s) {missing}; has {list(table.columns)}")


def unit_wins(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Wins and possible wins per unit and method; ``values`` is (units, methods), NaN missing.

    ``wins[j, i] = #{k != i: M_k(j) defined, M_i(j) > M_k(j)}``,
    ``possible[j, i] = #{k != i: M_k(j) defined}`` when ``M_i(j)`` is defined, else 0.
    """
    values = np.asarray(values, dtype=float)
    defined = ~np.isnan(values)
    with np.errstate(invalid="ignore"):
        wins = (values[:, :, None] > values[:, None, :]).sum(axis=2)  # NaN compares False
    possible = np.where(defined, defined.sum(axis=1, keepdims=True) - 1, 0)
    return wins, possible


def winning_numbers(
    table: pd.DataFrame,
    *,
    value: str = "mean",
    method: str = "algorithm",
    unit: Sequence[str] = ("dataset", "fold"),
    by: Sequence[str] | None = None,
) -> pd.DataFrame:
    """WN, IWN, NWN and the number of units of each method, per group of ``by``.

    ``table`` is tidy: one row per (``by``..., ``unit``..., ``method``) with the score in
    ``value`` (higher is better; NaN or an absent row is a missing result). ``by`` defaults to
    every other column, e.g. (train_convention, eval_convention, metric, k) for
    ``fold_means.tsv``. Rows come sorted by ``by``, then NWN descending, then method.
    """
    unit = [unit] if isinstance(unit, str) else list(unit)  # one column, not its characters
    by = [by] if isinstance(by, str) else by
    _require(table, [value, method, *unit], "the table")
    if by is None:
        by = [c for c in table.columns if c not in {value, method, *unit}]
    by = list(by)
    _require(table, by, "the table")
    overlap = set(by) & {value, method, *unit}
    if overlap:
        raise LtrconvError(f"columns {sorted(overlap)} are both grouping keys (by) and "
                           "value/method/unit")
    if not pd.api.types.is_numeric_dtype(table[value]):
        raise LtrconvError(f"column {value!r} is not numeric (dtype {table[value].dtype})")
    keys = [*by, *unit, method]
    dup = table.duplicated(keys, keep=False)
    if dup.any():
        first = table.loc[dup, keys].iloc[0].to_dict()
        raise LtrconvError(f"{int(dup.sum())} rows share their key {keys}, e.g. {first}; "
                           "one value per method and unit is needed")
    if np.isinf(table[value].to_numpy(dtype=float)).any():
        raise LtrconvError(f"column {value!r} holds infinite values")
    rows = []
    groups = table.groupby(by, sort=True, dropna=False) if by else [((), table)]
    for key, group in groups:
        key = key if isinstance(key, tuple) else (key,)
        wide = group.pivot(index=unit, columns=method, values=value)
        wins, possible = unit_wins(wide.to_numpy(dtype=float))
        wn, iwn = wins.sum(axis=0), possible.sum(axis=0)
        n_units = (~np.isnan(wide.to_numpy(dtype=float))).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            nwn = np.where(iwn > 0, wn / np.maximum(iwn, 1), np.nan)
        for i, m in enumerate(wide.columns):
            rows.append((*key, m, int(wn[i]), int(iwn[i]), float(nwn[i]), int(n_units[i])))
    out = pd.DataFrame(rows, columns=[*by, method, *WINNING_COLUMNS])
    out = out.sort_values([*by, "NWN", method], ascending=[True] * len(by) + [False, True],
                          na_position="last", kind="mergesort")
    return out.reset_index(drop=True)


def nwn_flips(
    winning: pd.DataFrame,
    a,
    b,
    *,
    column: str = "eval_convention",
    method: str = "algorithm",
    score: str = "NWN",
) -> pd.DataFrame:
    """Pairs of methods whose order by NWN reverses between ``column == a`` and ``column == b``.

    ``winning`` is a :func:`winning_numbers` table; pairs are compared within each group of the
    remaining keys (e.g. the same training convention, metric and cutoff). A pair flips when
    one method has the strictly higher NWN under ``a`` and the other the strictly higher under
    ``b``; a tie on either side is no flip. Columns: the keys, ``ahead_a`` / ``ahead_b`` (the
    method ahead under a / under b), ``nwn_ahead_a``, ``nwn_behind_a`` (their NWN under a),
    ``nwn_ahead_b``, ``nwn_behind_b`` (their NWN under b).
    """
    _require(winning, [column, method, score], "the winning-number table")
    present = set(winning[column])
    absent = [c for c in (a, b) if c not in present]
    if absent:
        raise LtrconvError(f"{column} has no {absent}; it has {sorted(present, key=str)}")
    keys = [c for c in winning.columns if c not in {column, method, score, *WINNING_COLUMNS}]
    side = {}
    for name, conv in (("a", a), ("b", b)):
        part = winning[winning[column] == conv]
        side[name] = part.set_index([*keys, method])[score].rename(name)
    both = pd.concat([side["a"], side["b"]], axis=1, join="inner")
    rows = []
    groups = both.groupby(level=keys, sort=True) if keys else [((), both)]
    for key, group in groups:
        key = key if isinstance(key, tuple) else (key,)
        names = list(group.index.get_level_values(method))
        va, vb = group["a"].to_numpy(), group["b"].to_numpy()
        for x, y in itertools.combinations(range(len(names)), 2):
            da, db = va[x] - va[y], vb[x] - vb[y]
            if da * db < 0:  # NaN gives False: no order, no flip
                hi, lo = (x, y) if da > 0 else (y, x)
                rows.append((*key, names[hi], names[lo], va[hi], va[lo], vb[lo], vb[hi]))
    return pd.DataFrame(rows, columns=[*keys, *FLIP_COLUMNS])


def flips_markdown(winning: pd.DataFrame, reference: str = "ranklib", *,
                   train_convention: str = "ranklib", metric: str = "NDCG", k: int = 10,
                   display=str) -> str:
    """A Markdown section naming, for each other evaluation convention, the algorithm pairs
    whose NWN order (models trained with ``train_convention``, ``metric@k``) reverses against
    the ``reference`` evaluation: only the evaluation convention changed."""
    w = winning[(winning["train_convention"] == train_convention) & (winning["metric"] == metric)
                & (winning["k"].astype(int) == int(k))]
    units = int(w["n_units"].max()) if len(w) else 0
    lines = ["", "## Winning numbers", "",
             f"Normalized Winning Numbers over {units} (dataset, fold) units, models trained with "
             f"{train_convention}, {metric}@{k} (Tax, Bockting & Hiemstra 2015). Pairs of "
             f"algorithms whose NWN order reverses when {reference} evaluation is swapped for:", ""]
    if w.empty or reference not in set(w["eval_convention"]):
        return "\n".join(lines + ["- no winning numbers for this setting"]) + "\n"
    from .tables import EVAL_ORDER, ordered

    for ev in ordered([e for e in w["eval_convention"] if e != reference], EVAL_ORDER):
        flips = nwn_flips(w, reference, ev)
        pairs = [f"{display(r.ahead_a)} ahead of {display(r.ahead_b)} under {reference} "
                 f"(NWN {r.nwn_ahead_a:.2f} vs {r.nwn_behind_a:.2f}), behind under {ev} "
                 f"({r.nwn_behind_b:.2f} vs {r.nwn_ahead_b:.2f})" for r in flips.itertuples()]
        lines.append(f"- {ev}: " + ("; ".join(pairs) if pairs else "no pair flips"))
    return "\n".join(lines) + "\n"
