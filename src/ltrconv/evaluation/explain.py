"""Why two conventions give different means: the difference split into named causes.

The players are the causes on which conventions A and B differ (:data:`CAUSES` groups the
axes as their declaration says: ``ties`` with the score precision, ``labels`` with the label
rules). With ``v(S)`` the
mean NDCG@k under A with the axes of the causes in S taken from B, cause i contributes its
Shapley value ``phi_i = sum_{S not containing i} |S|! (n-|S|-1)! / n! (v(S + i) - v(S))``;
the contributions sum to ``v(all) - v(none)``, B's mean minus A's, whatever the order in
which the causes are listed. A cause "moves" a query when, in some coalition, adding it
changes that query's value (or whether the query is counted).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..errors import LtrconvError
from . import axes
from .conventions import Convention, ConventionError
from .metrics import Evaluation

CAUSES: dict[str, tuple[str, ...]] = axes.causes()
"""Cause name -> the convention axes it switches together, from each axis' declared cause
(:data:`ltrconv.evaluation.axes.AXES`), in declaration order."""


@dataclass(frozen=True)
class Cause:
    axis: str
    contribution: float
    queries: int


@dataclass(frozen=True)
class Explanation:
    """One cutoff: the two means, their difference and its causes."""

    cutoff: int
    start: float
    end: float
    causes: tuple[Cause, ...]

    @property
    def difference(self) -> float:
        return self.end - self.start


def differing_causes(a: Convention, b: Convention) -> list[str]:
    """The causes on whose axes ``a`` and ``b`` differ, in :data:`CAUSES` order."""
    return [c for c, axes in CAUSES.items() if any(getattr(a, x) != getattr(b, x) for x in axes)]


def hybrid(a: Convention, b: Convention, causes: Sequence[str]) -> Convention:
    """``a`` with the axes of ``causes`` taken from ``b``."""
    changes = {x: getattr(b, x) for c in causes for x in CAUSES[c]}
    if "ties" in causes and "scores" not in changes:
        changes["scores"] = b.scores
    try:
        return a.with_(**changes)
    except ConventionError:  # e.g. scores=float32 kept beside docid-desc: take B's precision
        return a.with_(**changes, scores=b.scores)


MAX_VALUES = 50_000_000
"""Most per-query values :func:`explain` keeps (convention mixes x queries x cutoffs, 8 bytes
each): every mix's values are needed until the end to count the queries each cause moves."""


def explain(a: Convention, b: Convention, evaluate: Callable[[Convention], Evaluation],
            cutoffs: Sequence[int], metric: str = "NDCG") -> list[Explanation]:
    """Shapley split of mean NDCG@k (or another cutoff ``metric``: DCG, P, ERR) under ``b``
    minus under ``a`` for each cutoff k.

    ``evaluate(convention)`` gives the per-query values (``metric@k`` columns) on the same
    input.
    A query not counted (skipped, or absent) under a mix has no value there; a cause moves a
    query when adding it changes the query's value or whether it has one."""
    players = differing_causes(a, b)
    n = len(players)
    ks = list(cutoffs)
    index: dict[str, int] = {}  # query id -> row, over every mix
    means: dict[frozenset, np.ndarray] = {}
    rows: dict[frozenset, tuple[np.ndarray, np.ndarray]] = {}
    for size in range(n + 1):
        for subset in itertools.combinations(players, size):
            ev = evaluate(hybrid(a, b, subset))
            if not means:
                _check_size(2 ** n, len(ev.qids), len(ks))
            mean = ev.mean()
            counted = np.ones(len(ev.qids), bool) if ev.skipped is None else ~ev.skipped
            vals = np.stack([np.asarray(ev[f"{metric}@{k}"], dtype=np.float64) for k in ks],
                            axis=1)
            vals[~counted] = np.nan
            at = np.array([index.setdefault(str(q), len(index)) for q in ev.qids], dtype=np.int64)
            means[frozenset(subset)] = np.array([float(mean[f"{metric}@{k}"]) for k in ks])
            rows[frozenset(subset)] = (at, vals)
    total = len(index)

    def full(subset: frozenset) -> np.ndarray:
        at, vals = rows[subset]
        out = np.full((total, len(ks)), np.nan)
        out[at] = vals
        return out

    phi = np.zeros((n, len(ks)))
    moved = np.zeros((n, total, len(ks)), dtype=bool)
    for i, p in enumerate(players):
        others = [q for q in players if q != p]
        for size in range(n):
            weight = math.factorial(size) * math.factorial(n - size - 1) / math.factorial(n)
            for subset in itertools.combinations(others, size):
                s, t = frozenset(subset), frozenset(subset) | {p}
                phi[i] += weight * (means[t] - means[s])
                fs, ft = full(s), full(t)
                moved[i] |= ~((fs == ft) | (np.isnan(fs) & np.isnan(ft)))
    start, end = means[frozenset()], means[frozenset(players)]
    return [Explanation(int(k), float(start[j]), float(end[j]),
                        tuple(Cause(p, float(phi[i, j]), int(moved[i, :, j].sum()))
                              for i, p in enumerate(players)))
            for j, k in enumerate(ks)]


def _check_size(mixes: int, queries: int, cutoffs: int) -> None:
    cells = mixes * queries * cutoffs
    if cells > MAX_VALUES:
        raise LtrconvError(f"explain would keep {mixes} convention mixes x {queries} queries x "
                           f"{cutoffs} cutoffs = {cells:,} values, more than {MAX_VALUES:,}; "
                           "give fewer cutoffs (--cutoffs), or conventions that differ in fewer "
                           "causes")


def as_json(explanations: Sequence[Explanation]) -> dict:
    """``{"cutoffs": {"10": {"from", "to", "difference", "causes": [...]}}}``."""
    return {"cutoffs": {str(e.cutoff): {
        "from": e.start, "to": e.end, "difference": e.difference,
        "causes": [{"axis": c.axis, "contribution": c.contribution, "queries": c.queries}
                   for c in e.causes]} for e in explanations}}


def as_text(explanations: Sequence[Explanation], a: str, b: str) -> str:
    lines = []
    for e in explanations:
        lines.append(f"NDCG@{e.cutoff}: {a} {e.start:.6f} -> {b} {e.end:.6f}, difference "
                     f"{e.difference:+.6f}")
        for c in e.causes:
            lines.append(f"  {c.axis:11s} {c.contribution:+.6f}  ({c.queries} queries)")
    return "\n".join(lines) + "\n"
