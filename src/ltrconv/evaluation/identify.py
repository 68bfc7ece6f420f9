"""Which conventions reproduce a reported NDCG@k: a value as a paper or a tool printed it, and
the data it was computed on.

A convention reproduces the value when its mean NDCG@k is within half a unit of the value's
last printed digit (``0.4812``: within 0.00005; ``48.12%``: the same), as the printed number
is the computed one rounded. The search has two parts:

1. the named conventions (the built-in ones, and a conventions file's), in registry order; on
   LETOR lists those of the run tools are left out (on a list they are ``trec-raw`` or
   ``ranx``, listed already);
2. the points of the axis space (:data:`SEARCHED`: the values tried for each axis of
   :data:`ltrconv.evaluation.axes.AXES`), simplest first: by the number of axes away from
   their defaults (``ranklib`` is every default), then by distance to the value. A point is
   listed only when each of its axes away from the default changes some query's NDCG@k (put
   back to its default, the values differ) and its values are not those of a named
   convention listed already: an axis that does nothing on this data adds no point.

The closest convention, named or not, is reported whether anything matches or not.
"""

from __future__ import annotations

import decimal
import itertools
import math
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Sequence

import numpy as np

from ..errors import InputError, LtrconvError, shown
from . import axes
from .conventions import Convention, ConventionError, on_runs
from .metrics import Evaluation


@dataclass(frozen=True)
class Facts:
    """What the data holds that opens axes otherwise left at their defaults: ``inputs``
    (``"list"``: LETOR lists, ``"run"``: a run with its qrels), labels with a fraction,
    negative labels, and docids a run retrieves twice."""

    inputs: str = "list"
    fractional: bool = False
    negative: bool = False
    duplicates: bool = False


def _run_axis(name: str) -> Callable[[Facts], tuple]:
    return lambda f: axes.BY_NAME[name].choices if f.inputs == "run" else (axes.DEFAULTS[name],)


SEARCHED: dict[str, Callable[[Facts], tuple]] = {
    "gain": lambda f: ("exp", "linear"),
    "disc": lambda f: axes.BY_NAME["disc"].choices,
    "empty": lambda f: (0.0, 1.0, 0.5, axes.SKIP),
    "short": lambda f: axes.BY_NAME["short"].choices,
    "ties": lambda f: axes.BY_NAME["ties"].choices,
    "rel": lambda f: (1,),  # P@k, MAP and RR only
    "pk": lambda f: ("min",),  # P@k only
    "scores": lambda f: ("float64", "float32"),
    # the label readings differ only on labels with a fraction or below 0; there the default
    # refuses the data, so only the readings that accept it are tried
    "labels": lambda f: ("real", "trunc") if f.fractional else ("int",),
    "negative": lambda f: ("zero", "keep", "keep-divide") if f.negative else ("refuse",),
    "max_label": lambda f: (None,),  # a tool's limit: refuses, never changes a value
    "ideal": _run_axis("ideal"),
    "unjudged": _run_axis("unjudged"),
    "missing": _run_axis("missing"),
    "duplicates": lambda f: ("first", "last") if f.inputs == "run" and f.duplicates
    else ("refuse",),
    "depth": lambda f: (None,),
}
"""The values :func:`identify` tries for each axis on data with the given :class:`Facts`
(the defaults first where they are tried); every declared axis has an entry (one without it
stays at its default, and a test fails until it has one)."""


def space(facts: Facts) -> list[Convention]:
    """Every point of the axis space :data:`SEARCHED` spans on data with ``facts``, each once,
    by the number of axes away from their defaults (declaration order within)."""
    values = [SEARCHED[a.name](facts) if a.name in SEARCHED else (a.default,) for a in axes.AXES]
    seen: dict[Convention, None] = {}
    for combo in itertools.product(*values):
        try:
            conv = Convention(**dict(zip(axes.NAMES, combo)))
        except ConventionError:  # a combination the axes refuse (scores=float64, docid-desc)
            continue
        seen.setdefault(conv, None)
    return sorted(seen, key=lambda c: len(changed(c)))


def changed(conv: Convention) -> tuple[str, ...]:
    """The axes on which ``conv`` leaves its default, in declaration order."""
    return tuple(a.name for a in axes.AXES if getattr(conv, a.name) != a.default)


# ---- the reported value ----------------------------------------------------------------------

@dataclass(frozen=True)
class Reported:
    """A printed value: the number, and the half unit of its last printed digit."""

    text: str
    value: float
    tolerance: float

    @classmethod
    def parse(cls, text: str | float) -> "Reported":
        """``0.4812``, ``4.812e-1`` or ``48.12%``; a float is taken as printed by ``repr``."""
        raw = str(text).strip()
        percent = raw.endswith("%")
        number = raw[:-1].strip() if percent else raw
        if not re.fullmatch(r"[+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", number):
            raise LtrconvError(f"reported value {shown(text)}: expected a number as printed, "
                               "e.g. 0.4812 or 48.12%")
        d = decimal.Decimal(number)
        scale = decimal.Decimal(100) if percent else decimal.Decimal(1)
        value = float(d / scale)
        tolerance = float(decimal.Decimal(5).scaleb(d.as_tuple().exponent - 1) / scale)
        if value > 1:
            raise LtrconvError(f"reported value {shown(text)}: NDCG is at most 1; for a "
                               "percentage write it with %, e.g. 48.12%")
        return cls(raw, value, tolerance)

    def matches(self, value: float) -> bool:
        """Whether ``value`` prints as the reported number (the bound counts: a tool rounding
        half up or half to even prints it either way)."""
        return math.isfinite(value) and abs(value - self.value) <= self.tolerance * (1 + 1e-9)


_METRIC = re.compile(r"^ndcg@([0-9]+)$", re.IGNORECASE)


def parse_metric(text: str) -> int:
    """The cutoff of ``ndcg@K``."""
    m = _METRIC.match(str(text).strip())
    if not m or int(m.group(1)) < 1:
        raise LtrconvError(f"metric {shown(text)}: identify reads NDCG@k, e.g. ndcg@10")
    return int(m.group(1))


# ---- the search --------------------------------------------------------------------------

@dataclass(frozen=True)
class Match:
    """A convention's mean NDCG@k and its distance to the reported value; ``named`` for a
    registered convention, else a point of the axis space."""

    convention: Convention
    value: float
    difference: float
    named: bool
    alike: tuple[Convention, ...] = ()  # points giving every query the same value, listed once

    @property
    def changes(self) -> dict[str, str]:
        """The axes away from their defaults, as the canonical string spells them."""
        return {a: axes.BY_NAME[a].spelled(getattr(self.convention, a))
                for a in changed(self.convention)}

    def as_json(self) -> dict:
        out = {"convention": str(self.convention), "value": self.value,
               "difference": self.difference}
        if not self.named:
            out["changes"] = self.changes
            out["same_values"] = [str(c) for c in self.alike]
        return out


@dataclass(frozen=True)
class Identification:
    """What :func:`identify` found: the named conventions and the axis-space points that
    reproduce the value (each list in its order), the closest of all, and what was searched."""

    reported: Reported
    cutoff: int
    named: tuple[Match, ...]
    points: tuple[Match, ...]
    closest: Match | None
    searched_named: int
    searched_points: int
    refused: Mapping[str, str] = field(default_factory=dict)

    @property
    def matches(self) -> tuple[Match, ...]:
        return self.named + self.points


Evaluator = Callable[[Sequence[Convention]], Sequence[Evaluation]]
"""Evaluates conventions on the data at the cutoff, one :class:`Evaluation` each, in order;
raises :class:`~ltrconv.errors.InputError` when one of them refuses the data."""


def _evaluate_all(evaluate: Evaluator, convs: Sequence[Convention]
                  ) -> tuple[list[Evaluation | None], dict[int, str]]:
    """Each convention's evaluation, None where it refuses the data (with the reason)."""
    if not convs:
        return [], {}
    try:
        return list(evaluate(convs)), {}
    except InputError:
        pass
    out: list[Evaluation | None] = []
    refused: dict[int, str] = {}
    for i, conv in enumerate(convs):
        try:
            out.append(evaluate([conv])[0])
        except InputError as exc:
            out.append(None)
            refused[i] = str(exc)
    return out, refused


def _vector(ev: Evaluation, column: str) -> tuple:
    return ev.qids.tolist(), ev[column]


def _same(a: tuple, b: tuple) -> bool:
    return a[0] == b[0] and np.array_equal(a[1], b[1], equal_nan=True)


def identify(reported: Reported | str, evaluate: Evaluator, cutoff: int, facts: Facts,
             named: Mapping[str, Convention]) -> Identification:
    """Search the named conventions, then the axis space, for ``reported``'s NDCG@``cutoff``
    on the data ``evaluate`` holds (module docstring)."""
    if not isinstance(reported, Reported):
        reported = Reported.parse(reported)
    column = f"NDCG@{cutoff}"
    names = [n for n, c in named.items() if facts.inputs == "run" or not on_runs(c)]
    nconvs = [named[n] for n in names]
    nevs, nrefused = _evaluate_all(evaluate, nconvs)
    taken = set(nconvs)
    points = [p for p in space(facts) if p not in taken]
    pevs, _ = _evaluate_all(evaluate, points)

    def match(conv, ev, is_named):
        value = ev.mean()[column]
        return Match(conv, value, value - reported.value, is_named)

    named_all = [match(c, e, True) for c, e in zip(nconvs, nevs) if e is not None]
    named_hits = [m for m in named_all if reported.matches(m.value)]
    hit_vectors = [_vector(e, column) for c, e in zip(nconvs, nevs)
                   if e is not None and reported.matches(e.mean()[column])]
    vector_of = {p: _vector(e, column) for p, e in zip(points, pevs) if e is not None}
    for c, e in zip(nconvs, nevs):
        if e is not None:
            vector_of.setdefault(c.with_(), _vector(e, column))
    point_all = [match(p, e, False) for p, e in zip(points, pevs) if e is not None]

    def idle_axis(m: Match) -> bool:
        """Whether some axis of ``m`` away from its default changes nothing."""
        for a in changed(m.convention):
            try:
                back = m.convention.with_(**{a: axes.DEFAULTS[a]})
            except ConventionError:
                continue
            if back in vector_of and _same(vector_of[back], vector_of[m.convention]):
                return True
        return False

    point_hits = [m for m in point_all if reported.matches(m.value) and not idle_axis(m)
                  and not any(_same(vector_of[m.convention], v) for v in hit_vectors)]
    point_hits.sort(key=lambda m: (len(changed(m.convention)), abs(m.difference)))
    groups: list[list[Match]] = []  # points with the same values: the first, and the others
    for m in point_hits:
        g = next((g for g in groups if _same(vector_of[g[0].convention],
                                             vector_of[m.convention])), None)
        if g is None:
            groups.append([m])
        else:
            g.append(m)
    point_hits = [replace(g[0], alike=tuple(x.convention for x in g[1:])) for g in groups]
    every = [m for m in named_all + point_all if math.isfinite(m.value)]
    closest = min(every, key=lambda m: (abs(m.difference), not m.named,
                                        len(changed(m.convention)))) if every else None
    return Identification(reported, cutoff, tuple(named_hits), tuple(point_hits), closest,
                          len(nconvs), len(points),
                          {str(nconvs[i]): msg for i, msg in nrefused.items()})


# ---- reports -----------------------------------------------------------------------------

def as_json(result: Identification, limit: int | None = None) -> dict:
    """``{"matches": [{"convention": NAME_OR_CANONICAL, "value": V, ...}, ...], "closest":
    {...}, ...}``: named conventions first, then axis-space points (with their ``changes``);
    at most ``limit`` points, ``more`` counting the rest."""
    shown_points = result.points if limit is None else result.points[:limit]
    return {
        "metric": f"NDCG@{result.cutoff}",
        "reported": result.reported.value,
        "tolerance": result.reported.tolerance,
        "matches": [m.as_json() for m in result.named + shown_points],
        "more": len(result.points) - len(shown_points),
        "closest": result.closest.as_json() if result.closest else None,
        "searched": {"named": result.searched_named, "space": result.searched_points},
        "refused": dict(result.refused),
    }


def _changes(conv: Convention) -> str:
    return ", ".join(f"{a}={axes.BY_NAME[a].spelled(getattr(conv, a))}" for a in changed(conv))


def as_text(result: Identification, limit: int | None = None) -> str:
    """The report for a terminal: what matches, named then space points, and the closest."""
    r = result.reported
    head = f"NDCG@{result.cutoff} = {r.text} (within {r.tolerance:.2g})"
    lines = []
    if not result.matches:
        lines.append(f"{head}: no convention reproduces it ({result.searched_named} named, "
                     f"{result.searched_points} points of the axis space searched)")
    else:
        lines.append(f"{head}: reproduced by {len(result.named)} of {result.searched_named} "
                     f"named conventions and {len(result.points)} of {result.searched_points} "
                     "points of the axis space")
    width = max([len(str(m.convention)) for m in result.named] + [8])
    for m in result.named:
        lines.append(f"  {str(m.convention):{width}s}  {m.value:.6f}")
    shown_points = result.points if limit is None else result.points[:limit]
    if shown_points:
        lines.append("axis space, simplest first (axes away from ranklib's defaults):")
    for m in shown_points:
        lines.append(f"  {m.value:.6f}  {_changes(m.convention)}  {m.convention.canonical}")
        if m.alike:
            lines.append(f"            the same values: {'; '.join(map(_changes, m.alike))}")
    if len(shown_points) < len(result.points):
        lines.append(f"  ... and {len(result.points) - len(shown_points)} more (--limit)")
    c = result.closest
    if c is not None:
        where = str(c.convention) if c.named else _changes(c.convention)
        lines.append(f"closest: {where} gives {c.value:.6f} ({c.difference:+.6f})"
                     + ("" if c.named else f"  {c.convention.canonical}"))
    for name, msg in result.refused.items():
        lines.append(f"refused by {name}: {msg}")
    return "\n".join(lines) + "\n"
