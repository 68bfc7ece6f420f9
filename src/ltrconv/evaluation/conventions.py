"""NDCG conventions as value objects.

A convention fixes every detail on which public NDCG tools disagree:

* ``gain``: ``exp`` (2^l - 1), ``linear`` (l) or an explicit label->gain map;
* ``disc``: ``log2`` (1/log2(r+1)), ``letor`` (1 for r <= 2, 1/log2(r) for r >= 3) or
  ``position`` (1/r);
* ``empty``: NDCG of a query without relevant document (IDCG = 0), a number in [0, 1], or
  ``skip``: the query is left out (NaN in per-query values, left out of every mean);
* ``short``: NDCG@k of a query with n < k documents, ``truncate`` (= NDCG@n) or ``zero``;
* ``ties``: order of tied scores, ``input-order``, ``docid-desc`` (scores compared as
  float32, ties by docid descending in byte order), or tie-aware ``average`` (expected value
  over all orders of the tied documents), ``pessimistic`` (worst first), ``optimistic``, or
  a library's sort artefact, ``numpy-argsort-reversed`` or ``numba-quicksort``
  (:mod:`ltrconv.evaluation.ties`);
* ``rel``: label threshold for P@k, MAP, RR;
* ``pk``: denominator of P@k, ``k`` or ``min`` (= min(k, n));
* ``scores``: ``float32`` compares scores rounded to float32, whatever the tie policy
  (``docid-desc`` always does); ``float64`` otherwise;
* ``labels``: labels accepted, ``int`` (integers), ``real`` (any real number) or ``trunc``
  (any real number, truncated toward zero to an integer first);
* ``negative``: negative labels, ``refuse``d, counted as label 0 (``zero``), or kept with the
  gain formula's value (``keep``: a query with IDCG <= 0 takes the ``empty`` value;
  ``keep-divide``: only IDCG = 0 does, IDCG < 0 divides like any other);
* ``max_label``: the largest label accepted (a tool's limit), or none;
* ``ideal``, ``unjudged``, ``missing``, ``duplicates``, ``depth``: how a run meets its qrels
  (:mod:`ltrconv.evaluation.ir_axes`); no effect on LETOR input.

Only the first seven are spelled out in every canonical string; the others appear when they
differ from their defaults (``scores`` from the tie policy's, ``labels=int``,
``negative=refuse``, no ``max_label``, and the run axes' defaults).

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
import math
import re
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from ..errors import ECHO_LIMIT, LtrconvError, printable, shown
from . import ir_axes
from .ir_tools import IR_TOOLS
from .libraries import LIBRARIES, Library
from .queries import MAX_LABEL
from .ties import POLICIES as TIE_POLICIES

DISCOUNTS = ("log2", "letor", "position")
SHORT_POLICIES = ("truncate", "zero")
PK_DENOMINATORS = ("k", "min")
GAIN_KINDS = ("exp", "linear")
SCORE_PRECISIONS = ("float64", "float32")
LABEL_KINDS = ("int", "real", "trunc")
NEGATIVE_POLICIES = ("refuse", "zero", "keep", "keep-divide")
SKIP = "skip"
ALL = "all"
"""Not a convention: ``-c all`` asks for every built-in one, so no convention may take it."""

_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")

MAX_GAIN = 2.0 ** MAX_LABEL
"""Largest gain a label map may give: the ``exp`` gain's bound at the largest label. With it a
query's DCG stays finite for up to 16 million documents (2^1000 x 16.7e6 < 1.8e308), while a
gain near the float64 maximum makes the DCG of two documents inf and NDCG nan."""


class ConventionError(LtrconvError):
    """An invalid convention parameter or an unknown convention name."""


def _format_number(x: float) -> str:
    return repr(int(x)) if float(x).is_integer() else repr(float(x))


def _gain_label(k: Any, value: Any) -> int:
    """A gain-map label: a non-negative integer (``2``, ``"2"``, ``2.0``), never a bool."""
    if isinstance(k, str) and re.fullmatch(r"\s*[0-9]+\s*", k):
        return int(k)
    if isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
        return int(k)
    if isinstance(k, (float, np.floating)) and float(k).is_integer():
        return int(k)
    raise ConventionError(f"gain map label {shown(k)} is not a non-negative integer, in "
                          f"{shown(value)}")


def _gain_value(v: Any, value: Any) -> float:
    """A gain: a finite number >= 0 (``"3"`` allowed, bools not)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number, str)):
        raise ConventionError(f"gain map value {shown(v)} is not a number, in {shown(value)}")
    try:
        g = float(v)
    except ValueError:
        raise ConventionError(f"gain map value {shown(v)} is not a number, in "
                              f"{shown(value)}") from None
    if not math.isfinite(g) or g < 0:
        raise ConventionError(f"gain map values must be finite and >= 0, got {shown(v)} in "
                              f"{shown(value)}")
    if g > MAX_GAIN:
        raise ConventionError(f"gain map value {shown(v)} is above 2^{MAX_LABEL} (about "
                              f"{MAX_GAIN:.3g}, the exp gain's bound at the largest label): a "
                              f"query's DCG could overflow to inf and its NDCG be nan, in "
                              f"{shown(value)}")
    return g


def _parse_gain(value: Any) -> str | tuple[tuple[int, float], ...]:
    if isinstance(value, str) and value in GAIN_KINDS:
        return value
    hint = f"gain must be one of {GAIN_KINDS} or a label map like '0:0;1:1;2:3'"
    pairs: list
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, (tuple, list)):
        pairs = list(value)
        if not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs):
            raise ConventionError(f"{hint} or a list of [label, gain] pairs, got {shown(value)}")
    elif isinstance(value, str):
        pairs = [p.split(":") for p in value.split(";")]
        if not all(len(p) == 2 for p in pairs):
            raise ConventionError(f"{hint}, got {shown(value)}")
    else:
        raise ConventionError(f"{hint}, got {shown(value)}")
    if not pairs:
        raise ConventionError(f"{hint}; the label map is empty")
    items = sorted((_gain_label(k, value), _gain_value(v, value)) for k, v in pairs)
    labels = [k for k, _ in items]
    if len(set(labels)) != len(labels) or any(k < 0 for k in labels):
        raise ConventionError(f"gain map needs distinct non-negative labels, got {shown(value)}")
    return tuple(items)


def _parse_empty(value: Any) -> float | str:
    """A number in [0, 1] (``"0.5"`` allowed), or ``skip``."""
    if isinstance(value, str) and value.strip() == SKIP:
        return SKIP
    hint = f"empty must be a number in [0, 1] or {SKIP!r}, got {shown(value)}"
    try:
        if isinstance(value, (bool, np.bool_)):
            raise TypeError
        empty = float(value)
    except (TypeError, ValueError):
        raise ConventionError(hint) from None
    if not 0.0 <= empty <= 1.0:
        raise ConventionError(hint)
    return empty


def _parse_scores(value: Any, ties: str) -> str | None:
    """None where the tie policy's own precision is meant (float32 for ``docid-desc``,
    float64 otherwise), else ``"float32"``."""
    if value is None:
        return None
    if value not in SCORE_PRECISIONS:
        raise ConventionError(f"scores must be one of {', '.join(SCORE_PRECISIONS)}; "
                              f"got {shown(value)}")
    if ties == "docid-desc":
        if value == "float64":
            raise ConventionError("scores=float64 is not available with ties=docid-desc, which "
                                  "compares scores as float32 (trec_eval)")
        return None
    return None if value == "float64" else value


def _parse_max_label(value: Any) -> int | None:
    """None, ``"none"``, or an integer label in 0..MAX_LABEL."""
    if value is None or (isinstance(value, str) and value.strip() == "none"):
        return None
    hint = f"max_label must be an integer label in 0..{MAX_LABEL} or none, got {shown(value)}"
    if isinstance(value, (bool, np.bool_)):
        raise ConventionError(hint)
    if isinstance(value, str):
        if not re.fullmatch(r"\s*[0-9]+\s*", value):
            raise ConventionError(hint)
        value = int(value)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    if not isinstance(value, (int, np.integer)) or not 0 <= value <= MAX_LABEL:
        raise ConventionError(hint)
    return int(value)


@dataclass(frozen=True)
class Convention:
    """One way of computing NDCG (and the P@k / MAP that tools report beside it)."""

    gain: str | tuple[tuple[int, float], ...] = "exp"
    disc: str = "log2"
    empty: float = 0.0
    short: str = "truncate"
    ties: str = "input-order"
    rel: int = 1
    pk: str = "min"
    scores: str | None = None
    labels: str = "int"
    negative: str = "refuse"
    max_label: int | None = None
    # run-and-qrels axes (ltrconv.evaluation.ir_axes); the defaults leave LETOR results as they are
    ideal: str = "list"
    unjudged: str = "nonrel"
    missing: str = "skip"
    duplicates: str = "refuse"
    depth: int | None = None
    name: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "gain", _parse_gain(self.gain))
        for attr, allowed in (
            ("disc", DISCOUNTS),
            ("short", SHORT_POLICIES),
            ("ties", TIE_POLICIES),
            ("pk", PK_DENOMINATORS),
            ("labels", LABEL_KINDS),
            ("negative", NEGATIVE_POLICIES),
        ):
            if getattr(self, attr) not in allowed:
                raise ConventionError(
                    f"{attr} must be one of {', '.join(allowed)}; got {shown(getattr(self, attr))}"
                )
        object.__setattr__(self, "empty", _parse_empty(self.empty))
        object.__setattr__(self, "scores", _parse_scores(self.scores, self.ties))
        object.__setattr__(self, "max_label", _parse_max_label(self.max_label))
        try:
            ir = ir_axes.check({k: getattr(self, k) for k in ir_axes.DEFAULTS})
        except ValueError as exc:
            raise ConventionError(str(exc)) from None
        object.__setattr__(self, "depth", ir["depth"])
        try:
            if isinstance(self.rel, (bool, np.bool_)):
                raise TypeError
            rel = int(self.rel)
        except (TypeError, ValueError, OverflowError):
            raise ConventionError(f"rel must be a label >= 1, got {shown(self.rel)}") from None
        if rel < 1 or rel > MAX_LABEL or (isinstance(self.rel, (float, np.floating)) and rel != self.rel):
            raise ConventionError(f"rel must be an integer label in 1..{MAX_LABEL}, got "
                                  f"{shown(self.rel)}")
        object.__setattr__(self, "rel", rel)
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

    # ---- string forms -------------------------------------------------------------
    @property
    def canonical(self) -> str:
        """Full parameter string, e.g. ``ndcg(gain=exp,disc=log2,empty=0,...)``: the first
        seven parameters always, the others where they differ from their defaults."""
        if isinstance(self.gain, str):
            gain = self.gain
        else:
            gain = ";".join(f"{k}:{_format_number(v)}" for k, v in self.gain)
        empty = self.empty if self.skips else _format_number(self.empty)
        extra = "".join(
            f",{key}={value}" for key, value, default in (
                ("scores", self.scores, None), ("labels", self.labels, "int"),
                ("negative", self.negative, "refuse"), ("max_label", self.max_label, None))
            if value != default)
        extra += ir_axes.canonical_extra({k: getattr(self, k) for k in ir_axes.DEFAULTS})
        return (
            f"ndcg(gain={gain},disc={self.disc},empty={empty},"
            f"short={self.short},ties={self.ties},rel={self.rel},pk={self.pk}{extra})"
        )

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

    # ---- numeric tables used by the kernels -----------------------------------------
    def gain_table(self, max_label: int) -> np.ndarray:
        """gain[l] for l = 0..max_label."""
        return self.gains(np.arange(max_label + 1, dtype=np.float64))

    def gains(self, labels: np.ndarray) -> np.ndarray:
        """The gain of each label value (real or negative ones too, where the formula has
        one: ``exp`` 2^l - 1, ``linear`` l; a map needs every value as a key)."""
        labels = np.asarray(labels, dtype=np.float64)
        if self.gain == "exp":
            return np.exp2(labels) - 1.0
        if self.gain == "linear":
            return labels
        table = dict(self.gain)
        missing = [_format_number(v) for v in labels if v not in table]
        if missing:
            raise ConventionError(
                f"convention {self}: gain map has no value for label(s) "
                f"[{', '.join(missing)}]"
            )
        return np.array([table[v] for v in labels], dtype=np.float64)

    def discounts(self, n: int) -> np.ndarray:
        """disc(r) for r = 1..n."""
        r = np.arange(1, n + 1, dtype=np.float64)
        if self.disc == "log2":
            return 1.0 / np.log2(r + 1.0)
        if self.disc == "position":
            return 1.0 / r
        out = np.ones(n)
        out[2:] = 1.0 / np.log2(r[2:])
        return out

    def with_(self, **changes: Any) -> "Convention":
        """A copy with some parameters changed (and no name)."""
        changes.setdefault("name", None)
        return replace(self, **changes)


PARAMS = tuple(f.name for f in fields(Convention) if f.name != "name")

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


def get(spec: "str | Convention") -> Convention:
    """A convention by built-in name or canonical string (a Convention is returned as is); a
    conventions file's names are read by its :class:`~ltrconv.evaluation.convention_set.
    ConventionSet`."""
    if isinstance(spec, Convention):
        return spec
    if spec in _BUILTIN:
        return _BUILTIN[spec]
    if isinstance(spec, str) and spec.startswith("ndcg("):
        return parse(spec)
    raise unknown(spec, list(_BUILTIN))


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
