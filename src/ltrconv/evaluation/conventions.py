"""NDCG conventions as value objects.

A convention fixes every detail on which public NDCG tools disagree: gain, discount, the value
of a query without relevant document (``empty``), NDCG@k of a query shorter than k
(``short``), the order of tied scores (``ties``), how labels are read, and how a run meets its
qrels. Each axis is declared once, in :data:`ltrconv.evaluation.axes.AXES` (its values,
default, meaning and checks); :class:`Convention` has one field per axis, and a query's value
where several rules apply is decided in :mod:`ltrconv.evaluation.compiled`.

Conventions are frozen, hashable and round-trip through their canonical string (the grammar,
and a metric ``ndcg@K:CONVENTION`` built on it, in :class:`ltrconv.evaluation.spec.MetricSpec`)::

    >>> c = get("ranklib")
    >>> parse(c.canonical) == c
    True

The built-in conventions (:data:`BUILTIN`) are fixed when this module is imported and never
change; :func:`get` reads names against them. A conventions file's conventions make a
:class:`~ltrconv.evaluation.convention_set.ConventionSet`, passed to whatever reads their names.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import field, fields, make_dataclass, replace
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from ..errors import ECHO_LIMIT, printable, shown
from . import axes, compiled
from .axes import AXES, MAX_GAIN, SKIP, ConventionError  # noqa: F401  (MAX_GAIN: the gain map's bound)
from .ir_tools import IR_TOOLS
from .libraries import LIBRARIES, Library

ALL = "all"
"""Not a convention: ``-c all`` asks for every built-in one, so no convention may take it."""

_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")


class _ConventionMethods:
    """What a :class:`Convention` does beyond holding its axes (its fields come from
    :data:`ltrconv.evaluation.axes.AXES`)."""

    def __post_init__(self) -> None:
        try:
            values = axes.check({a.name: getattr(self, a.name) for a in AXES})
        except ValueError as exc:
            raise ConventionError(str(exc)) from None
        for name, value in values.items():
            object.__setattr__(self, name, value)
        if self.name is not None and not _NAME_RE.fullmatch(self.name):
            raise ConventionError(f"convention name {shown(self.name)} must match "
                                  f"{_NAME_RE.pattern}")

    @property
    def skips(self) -> bool:
        """Whether a query without relevant document is left out (``empty=skip``)."""
        return self.empty == SKIP

    @property
    def float32_scores(self) -> bool:
        """Whether scores are compared as float32 (``scores=float32`` or ``docid-desc``)."""
        return self.scores == "float32" or self.ties == "docid-desc"

    @property
    def axes(self) -> dict[str, Any]:
        """Every axis' value, in declaration order."""
        return {a.name: getattr(self, a.name) for a in AXES}

    # ---- string forms -------------------------------------------------------------
    @property
    def canonical(self) -> str:
        """Full parameter string, e.g. ``ndcg(gain=exp,disc=log2,empty=0,...)``: the axes
        declared ``always`` in every string, the others where they differ from their
        defaults (:func:`ltrconv.evaluation.axes.canonical`)."""
        return axes.canonical(self.axes)

    def __str__(self) -> str:
        """Its name, unless that is a built-in convention's name (in any letter case) and this
        is not that convention; else the name of the built-in convention equal to it; else
        :attr:`canonical`. Result keys, labels and metric strings use it. A built-in name and a
        canonical string read back in any process (:func:`get`); a conventions file's name
        reads back against the set that holds it (:class:`~ltrconv.evaluation.convention_set.
        ConventionSet`)."""
        if self.name is not None:
            builtin = reserved(self.name)
            if builtin is None or (builtin == self.name and _BUILTIN[builtin] == self):
                return self.name
        return next((name for name, reg in _BUILTIN.items() if reg == self), self.canonical)

    def __setstate__(self, state: dict) -> None:
        """Unpickled (a model's training metric) through the constructor's checks; a field
        the pickle lacks takes its default."""
        valid = Convention(**state)
        for f in fields(self):
            object.__setattr__(self, f.name, getattr(valid, f.name))

    # ---- numeric tables (what the axes do to numbers: ltrconv.evaluation.compiled) -----
    def gain_table(self, max_label: int) -> np.ndarray:
        """gain[l] for l = 0..max_label."""
        return compiled.gains(self, np.arange(max_label + 1, dtype=np.float64))

    def gains(self, labels: np.ndarray) -> np.ndarray:
        """The gain of each label value (:func:`ltrconv.evaluation.compiled.gains`)."""
        return compiled.gains(self, labels)

    def discounts(self, n: int) -> np.ndarray:
        """disc(r) for r = 1..n (:func:`ltrconv.evaluation.compiled.discounts`)."""
        return compiled.discounts(self, n)

    def with_(self, **changes: Any) -> "Convention":
        """A copy with some parameters changed (and no name)."""
        changes.setdefault("name", None)
        return replace(self, **changes)


Convention = make_dataclass(
    "Convention",
    [(a.name, a.annotation, a.default) for a in AXES]
    + [("name", "str | None", field(default=None, compare=False))],
    bases=(_ConventionMethods,), frozen=True)
Convention.__module__ = __name__
Convention.__doc__ = """One way of computing NDCG (and the P@k / MAP that tools report beside it):
a frozen value object with one field per axis of :data:`ltrconv.evaluation.axes.AXES` (each
checked as the declaration says) and an optional ``name``, which equality ignores."""

PARAMS = axes.NAMES
"""The axes, as a conventions file and the canonical string name them."""

def reserved(name: str) -> str | None:
    """The built-in convention whose name ``name`` is, ignoring case; None if there is none."""
    return next((b for b in BUILTIN if b.casefold() == name.casefold()), None)


def refuse_all(name: str) -> None:
    if name.casefold() == ALL:
        raise ConventionError(f"{name!r} cannot name a convention: '-c {ALL}' asks for every "
                              "built-in convention")


def names() -> list[str]:
    """The built-in conventions in their order."""
    return list(_BUILTIN)


builtin_names = names
"""The built-in conventions in their order: what ``-c all`` evaluates."""


def library(name: str) -> Library | None:
    """The library or IR tool whose NDCG the built-in convention ``name`` is, if it is one."""
    return LIBRARIES.get(name) or IR_TOOLS.get(name)


RUN_AXES = tuple(a.name for a in AXES if "list" not in a.inputs)
"""The axes that act on runs only (how a run meets its qrels)."""


def on_runs(conv: Convention) -> bool:
    """Whether ``conv`` sets an axis that acts on runs only (``ideal=qrels``, ...): a convention
    of a tool that evaluates runs, not LETOR lists."""
    return any(getattr(conv, a) != axes.DEFAULTS[a] for a in RUN_AXES)


def _named(conv: Convention) -> Convention:
    """The built-in convention equal to ``conv`` (with its name), else ``conv``."""
    return next((c for c in _BUILTIN.values() if c == conv), conv)


def run_form(conv: Convention) -> Convention | None:
    """What the library of the built-in LETOR-list convention ``conv`` computes on a run with
    its qrels: the IR tool convention of the same package (:data:`IR_TOOLS`) with ``conv``'s
    list axes, named when it is a built-in one (``ranx`` -> ``ranx-run``, ``trec-raw`` ->
    ``pytrec_eval``); None for any other convention."""
    if conv.name is None or _BUILTIN.get(conv.name) != conv or on_runs(conv):
        return None
    lib = LIBRARIES.get(conv.name)
    tool = next((t for t in IR_TOOLS.values() if lib and t.package == lib.package), None)
    if tool is None:
        return None
    return _named(_BUILTIN[tool.name].with_(**{a.name: getattr(conv, a.name) for a in AXES
                                               if a.name not in RUN_AXES}))


def list_form(conv: Convention) -> Convention:
    """``conv`` on LETOR lists: its run axes at their defaults, named when it is a built-in
    convention (``ir_measures`` -> ``trec-raw``, ``ranx-run`` -> ``ranx``)."""
    if not on_runs(conv):
        return conv
    return _named(conv.with_(**{a: axes.DEFAULTS[a] for a in RUN_AXES}))


def get(spec: "str | Convention", known: "Mapping[str, Convention] | None" = None) -> Convention:
    """The one reader of convention names: a convention by its name in ``known`` (a
    :class:`~ltrconv.evaluation.convention_set.ConventionSet`, e.g. a conventions file's;
    default: the built-in conventions) or by canonical string, where a definition equal to one
    of ``known`` gives that one, with its name. A Convention is returned as is."""
    known = _BUILTIN if known is None else known
    if isinstance(spec, Convention):
        return spec
    if isinstance(spec, str) and spec in known:
        return known[spec]
    if isinstance(spec, str) and spec.startswith("ndcg("):
        conv = parse(spec)
        return next((c for c in known.values() if c == conv), conv)
    raise unknown(spec, list(known))


def unknown(spec, known: list[str]) -> ConventionError:
    """The error for an unknown convention name, with the closest known one."""
    close = difflib.get_close_matches(str(spec), known, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return ConventionError(f"unknown convention {shown(spec)}; {hint}known: {', '.join(known)}")


_CANON_RE = re.compile(r"^ndcg\((.*)\)$")


def parse(text: str) -> Convention:
    """Parse a canonical string ``ndcg(k=v,...)``; missing keys take their defaults. A
    definition equal to a built-in convention gives that convention (with its name)."""
    m = _CANON_RE.match(text.strip())
    if not m:
        raise ConventionError(f"cannot parse convention {shown(text)}: expected "
                              "ndcg(key=value,...)")
    params: dict[str, Any] = {}
    body = m.group(1).strip()
    for part in body.split(",") if body else []:
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in PARAMS:
            raise ConventionError(f"cannot parse convention {shown(text)}: bad parameter "
                                  f"{shown(part)}")
        if key in params:
            twice = " and ".join(f"{key}={printable(v, ECHO_LIMIT)}"
                                 for v in (params[key], value.strip()))
            raise ConventionError(f"cannot parse convention {shown(text)}: {key} is given twice "
                                  f"({twice}); give each key once")
        params[key] = value.strip()
    try:
        conv = Convention().with_(**params)
    except ConventionError as exc:
        raise ConventionError(f"{shown(text)}: {exc}") from None
    return next((reg for reg in _BUILTIN.values() if reg == conv), conv)


def _builtins() -> dict[str, Convention]:
    """The four public tools as Busa-Fekete et al. (2012), Sec. 3, tell them apart (RankLib 2.x
    NDCGScorer; trec_eval ndcg_cut with labels 0,1,2 -> 0,1,3; the Yahoo! LTR Challenge script;
    LETOR 4.0 Eval-Score-4.0.pl), tie-aware variants (McSherry & Najork 2008), and today's
    libraries (tool, version checked and description in ltrconv.evaluation.libraries)."""
    ranklib, yahoo = Convention(), Convention(empty=1.0)
    letor = Convention(disc="letor", short="zero", pk="k")
    out = {"ranklib": ranklib, "trec": Convention(ties="docid-desc", pk="k"), "yahoo": yahoo,
           "letor": letor, "yahoo-half": yahoo.with_(empty=0.5)}
    for name, base in (("ranklib", ranklib), ("yahoo", yahoo), ("letor", letor)):
        out[f"{name}-tieavg"] = base.with_(ties="average")
    out["ranklib-tiepess"] = ranklib.with_(ties="pessimistic")
    out["ranklib-tieopt"] = ranklib.with_(ties="optimistic")
    for lib in LIBRARIES.values():
        out[lib.name] = Convention(**lib.axes)
    for lib in IR_TOOLS.values():  # on runs with qrels (ltrconv.evaluation.ir_tools)
        out[lib.name] = Convention(**lib.axes)
    return {name: replace(conv, name=name) for name, conv in out.items()}


_BUILTIN: MappingProxyType[str, Convention] = MappingProxyType(_builtins())
BUILTIN: frozenset[str] = frozenset(_BUILTIN)
"""Names of the built-in conventions: reserved, in any letter case, so that a column labelled
``ranklib`` always means RankLib's NDCG."""
RANKLIB, TREC, YAHOO, LETOR = (_BUILTIN[n] for n in ("ranklib", "trec", "yahoo", "letor"))

PAPER_TOOLS = ("ranklib", "trec", "yahoo", "letor")
