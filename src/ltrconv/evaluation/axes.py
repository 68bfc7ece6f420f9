"""The convention axes, declared once.

Each :class:`Axis` says what one detail of an NDCG computation may be: its name, how a value
is read (its choices, or a parser), its default, whether the canonical string always spells
it, what it means in one line, which inputs it acts on (a LETOR ``list``, a ``run`` with its
qrels) and the cause it belongs to in :mod:`ltrconv.evaluation.explain`. :data:`AXES` lists
them in canonical-string order. Everything else is derived from that declaration:

* the fields of :class:`~ltrconv.evaluation.conventions.Convention`, their checks, the
  canonical string and its parsing (:mod:`ltrconv.evaluation.conventions`);
* the causes :func:`ltrconv.evaluation.explain.explain` splits a difference into (:data:`CAUSES`);
* ``ltrconv conventions --axes`` and the axes table of docs/conventions.md (:func:`markdown_table`;
  a test fails if the two differ).

A parser takes the raw value and the values of the axes declared before it (``scores`` reads
``ties``), and returns the value the convention holds or raises :class:`ValueError` with a
message naming the axis. What an axis *does* is written in one place too: the compiled form of
a convention (:mod:`ltrconv.evaluation.compiled`) for the kernels, and the query-value rule
(:mod:`ltrconv.evaluation.rule`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from ..errors import LtrconvError, shown
from .queries import MAX_LABEL
from .ties import POLICIES as TIE_POLICIES

SKIP = "skip"


class ConventionError(LtrconvError):
    """An invalid convention parameter or an unknown convention name."""


MAX_GAIN = 2.0 ** MAX_LABEL
"""Largest gain a label map may give: the ``exp`` gain's bound at the largest label. With it a
query's DCG stays finite for up to 16 million documents (2^1000 x 16.7e6 < 1.8e308), while a
gain near the float64 maximum makes the DCG of two documents inf and NDCG nan."""

MAX_DEPTH = 10 ** 9


@dataclass(frozen=True)
class Axis:
    """One convention axis (see the module docstring)."""

    name: str
    default: Any
    meaning: str
    choices: tuple[str, ...] | None = None  # the values, for a closed axis
    values: str | None = None  # how the values read in a listing, for an open axis
    parser: Callable[[Any, Mapping[str, Any]], Any] | None = None
    always: bool = False  # spelled in every canonical string, default or not
    inputs: tuple[str, ...] = ("list", "run")
    cause: str | None = None  # explain's cause; the axis' own name by default
    annotation: Any = str
    words: Mapping[str, str] | None = None  # each choice in words, for tables (closed axes)

    def parse(self, value: Any, earlier: Mapping[str, Any]) -> Any:
        """The value a convention holds for ``value``; ValueError naming the axis otherwise."""
        if self.parser is not None:
            return self.parser(value, earlier)
        if value not in self.choices:
            raise ValueError(f"{self.name} must be one of {', '.join(self.choices)}; got "
                             f"{shown(value)}")
        return value

    def spelled(self, value: Any) -> str:
        """The value as the canonical string writes it."""
        if self.name == "gain" and not isinstance(value, str):
            return ";".join(f"{k}:{format_number(v)}" for k, v in value)
        if self.name == "empty" and value != SKIP:
            return format_number(value)
        return str(value)

    @property
    def explain_cause(self) -> str:
        return self.cause or self.name

    @property
    def listing(self) -> str:
        """The values in a listing, default first."""
        if self.choices is not None:
            rest = [c for c in self.choices if c != self.default]
            return ", ".join(f"`{c}`" for c in [self.default, *rest])
        return self.values or ""


def format_number(x: float) -> str:
    return repr(int(x)) if float(x).is_integer() else repr(float(x))


# ---- parsers of the open axes --------------------------------------------------------------

GAIN_KINDS = ("exp", "linear")


def _gain_label(k: Any, value: Any) -> int:
    """A gain-map label: a non-negative integer (``2``, ``"2"``, ``2.0``), never a bool."""
    if isinstance(k, str) and re.fullmatch(r"\s*[0-9]+\s*", k):
        return int(k)
    if isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
        return int(k)
    if isinstance(k, (float, np.floating)) and float(k).is_integer():
        return int(k)
    raise ValueError(f"gain map label {shown(k)} is not a non-negative integer, in {shown(value)}")


def _gain_value(v: Any, value: Any) -> float:
    """A gain: a finite number >= 0 (``"3"`` allowed, bools not)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number, str)):
        raise ValueError(f"gain map value {shown(v)} is not a number, in {shown(value)}")
    try:
        g = float(v)
    except ValueError:
        raise ValueError(f"gain map value {shown(v)} is not a number, in {shown(value)}") from None
    if not math.isfinite(g) or g < 0:
        raise ValueError(f"gain map values must be finite and >= 0, got {shown(v)} in "
                         f"{shown(value)}")
    if g > MAX_GAIN:
        raise ValueError(f"gain map value {shown(v)} is above 2^{MAX_LABEL} (about "
                         f"{MAX_GAIN:.3g}, the exp gain's bound at the largest label): a "
                         f"query's DCG could overflow to inf and its NDCG be nan, in {shown(value)}")
    return g


def parse_gain(value: Any, earlier: Mapping[str, Any] = {}) -> str | tuple[tuple[int, float], ...]:
    if isinstance(value, str) and value in GAIN_KINDS:
        return value
    hint = f"gain must be one of {GAIN_KINDS} or a label map like '0:0;1:1;2:3'"
    pairs: list
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, (tuple, list)):
        pairs = list(value)
        if not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs):
            raise ValueError(f"{hint} or a list of [label, gain] pairs, got {shown(value)}")
    elif isinstance(value, str):
        pairs = [p.split(":") for p in value.split(";")]
        if not all(len(p) == 2 for p in pairs):
            raise ValueError(f"{hint}, got {shown(value)}")
    else:
        raise ValueError(f"{hint}, got {shown(value)}")
    if not pairs:
        raise ValueError(f"{hint}; the label map is empty")
    items = sorted((_gain_label(k, value), _gain_value(v, value)) for k, v in pairs)
    labels = [k for k, _ in items]
    if len(set(labels)) != len(labels) or any(k < 0 for k in labels):
        raise ValueError(f"gain map needs distinct non-negative labels, got {shown(value)}")
    return tuple(items)


def parse_empty(value: Any, earlier: Mapping[str, Any] = {}) -> float | str:
    """A number in [0, 1] (``"0.5"`` allowed), or ``skip``."""
    if isinstance(value, str) and value.strip() == SKIP:
        return SKIP
    hint = f"empty must be a number in [0, 1] or {SKIP!r}, got {shown(value)}"
    try:
        if isinstance(value, (bool, np.bool_)):
            raise TypeError
        empty = float(value)
    except (TypeError, ValueError):
        raise ValueError(hint) from None
    if not 0.0 <= empty <= 1.0:
        raise ValueError(hint)
    return empty


def parse_rel(value: Any, earlier: Mapping[str, Any] = {}) -> int:
    """An integer label in 1..MAX_LABEL (``"2"`` and ``2.0`` allowed)."""
    try:
        if isinstance(value, (bool, np.bool_)):
            raise TypeError
        rel = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"rel must be a label >= 1, got {shown(value)}") from None
    if rel < 1 or rel > MAX_LABEL or (isinstance(value, (float, np.floating)) and rel != value):
        raise ValueError(f"rel must be an integer label in 1..{MAX_LABEL}, got {shown(value)}")
    return rel


SCORE_PRECISIONS = ("float64", "float32")


def parse_scores(value: Any, earlier: Mapping[str, Any]) -> str | None:
    """None where the tie policy's own precision is meant (float32 for ``docid-desc``,
    float64 otherwise), else ``"float32"``."""
    if value is None:
        return None
    if value not in SCORE_PRECISIONS:
        raise ValueError(f"scores must be one of {', '.join(SCORE_PRECISIONS)}; got {shown(value)}")
    if earlier.get("ties") == "docid-desc":
        if value == "float64":
            raise ValueError("scores=float64 is not available with ties=docid-desc, which "
                             "compares scores as float32 (trec_eval)")
        return None
    return None if value == "float64" else value


def _integer_or_none(name: str, value: Any, low: int, high: int, hint: str) -> int | None:
    """None, ``"none"``, or an integer in low..high (``"12"`` and ``12.0`` allowed)."""
    if value is None or (isinstance(value, str) and value.strip() == "none"):
        return None
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(hint)
    if isinstance(value, str):
        if not re.fullmatch(r"\s*[0-9]+\s*", value):
            raise ValueError(hint)
        value = int(value)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    if not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(hint)
    return int(value)


def parse_max_label(value: Any, earlier: Mapping[str, Any] = {}) -> int | None:
    return _integer_or_none("max_label", value, 0, MAX_LABEL,
                            f"max_label must be an integer label in 0..{MAX_LABEL} or none, got "
                            f"{shown(value)}")


def parse_depth(value: Any, earlier: Mapping[str, Any] = {}) -> int | None:
    return _integer_or_none("depth", value, 1, MAX_DEPTH,
                            f"depth must be an integer >= 1 or none, got {shown(value)}")


# ---- the declaration -----------------------------------------------------------------------

AXES: tuple[Axis, ...] = (
    Axis("gain", "exp", "gain of a label l: `exp` 2^l − 1, `linear` l, or a label map "
         "`0:0;1:1;2:3`", values="`exp`, `linear`, a map `L:G;...`", parser=parse_gain,
         always=True, annotation=Any),
    Axis("disc", "log2", "discount of rank r: `log2` 1/log2(r+1), `letor` 1 for r ≤ 2 and "
         "1/log2(r) after, `position` 1/r", choices=("log2", "letor", "position"), always=True,
         cause="discount", words={"log2": "1/log2(r+1)", "letor": "1 for r ≤ 2, 1/log2(r) after",
                                  "position": "1/r"}),
    Axis("empty", 0.0, "NDCG@k of a query whose IDCG@k is 0 (no relevant document), or `skip`: "
         "left out of every mean", values="`0`, a number in [0, 1], `skip`", parser=parse_empty,
         always=True, annotation=Any),
    Axis("short", "truncate", "NDCG@k of a query with n < k documents: NDCG@n (`truncate`) or 0",
         choices=("truncate", "zero"), always=True),
    Axis("ties", "input-order", "order of tied scores: input order, docid descending (float32 "
         "scores), tie-aware expectation or bounds, or a library's sort artefact",
         choices=TIE_POLICIES, always=True, words={
             "input-order": "input order",
             "docid-desc": "docid descending",
             "average": "averaged",
             "pessimistic": "worst label first",
             "optimistic": "best label first",
             "numpy-argsort-reversed": "numpy's argsort reversed (numpy build and CPU)",
             "numba-quicksort": "numba's quicksort (input order up to 15 docs)"}),
    Axis("rel", 1, "smallest relevant label, for P@k, MAP and RR", values="`1`, an integer "
         "label ≥ 1", parser=parse_rel, always=True, annotation=int),
    Axis("pk", "min", "denominator of P@k: `min` = min(k, n), or `k`", choices=("min", "k"),
         always=True),
    Axis("scores", None, "scores compared as `float32` (trec_eval and `docid-desc` always) or "
         "as given", values="the tie policy's, `float64`, `float32`", parser=parse_scores,
         cause="ties", annotation=Any),
    Axis("labels", "int", "labels accepted: integers, any real number, or real numbers "
         "truncated toward zero", choices=("int", "real", "trunc")),
    Axis("negative", "refuse", "negative labels: refused, read as 0, or kept with the gain "
         "formula's value (`keep`: IDCG@k ≤ 0 takes `empty`; `keep-divide`: only IDCG@k = 0 "
         "does)", choices=("refuse", "zero", "keep", "keep-divide"), cause="labels"),
    Axis("max_label", None, "largest label accepted (a tool's limit)", values="`none`, an "
         "integer label", parser=parse_max_label, cause="labels", annotation=Any),
    Axis("ideal", "list", "IDCG from the ranked list, or from every judged document of the "
         "query (a judged document the run misses lowers NDCG)", choices=("list", "qrels"),
         inputs=("run",)),
    Axis("unjudged", "nonrel", "a retrieved document without judgment is grade 0, or dropped "
         "before ranking with those of negative grade (trec_eval `-J`, ir_measures "
         "`judged_only`)", choices=("nonrel", "drop"), inputs=("run",)),
    Axis("missing", "skip", "a qrels query the run lacks is left out, or evaluated as an empty "
         "ranking (trec_eval `-c`, ir_measures); run-only queries are always ignored",
         choices=("skip", "zero"), inputs=("run",)),
    Axis("duplicates", "refuse", "a docid retrieved twice for one query: an error where it is "
         "ranked (trec_eval: a qrels query, within the depth), its first line kept, or its last "
         "score at its first line's place (a dict updated line by line: pytrec_eval, ranx)",
         choices=("refuse", "first", "last"), inputs=("run",)),
    Axis("depth", None, "only each query's top N documents count (trec_eval `-M`)",
         values="`none`, an integer N ≥ 1", parser=parse_depth, inputs=("run",), annotation=Any),
)
"""Every axis, in canonical-string order."""

BY_NAME: dict[str, Axis] = {a.name: a for a in AXES}
NAMES: tuple[str, ...] = tuple(BY_NAME)
DEFAULTS: dict[str, Any] = {a.name: a.default for a in AXES}


def check(values: Mapping[str, Any]) -> dict[str, Any]:
    """Every axis' value parsed, in declaration order (a missing one takes its default);
    ValueError naming the first axis whose value is refused."""
    out: dict[str, Any] = {}
    for axis in AXES:
        out[axis.name] = axis.parse(values.get(axis.name, axis.default), out)
    return out


def canonical(values: Mapping[str, Any]) -> str:
    """``ndcg(key=value,...)``: the axes spelled always, and the others away from their
    defaults, in declaration order."""
    return "ndcg(" + ",".join(f"{a.name}={a.spelled(values[a.name])}" for a in AXES
                              if a.always or values[a.name] != a.default) + ")"


def causes() -> dict[str, tuple[str, ...]]:
    """explain's causes -> the axes each switches together, in declaration order."""
    out: dict[str, tuple[str, ...]] = {}
    for a in AXES:
        out[a.explain_cause] = out.get(a.explain_cause, ()) + (a.name,)
    return out


def markdown_table() -> str:
    """The axes as the table of docs/conventions.md."""
    rows = ["| axis | values (default first) | inputs | meaning |", "|---|---|---|---|"]
    for a in AXES:
        inputs = "LETOR lists, runs" if "list" in a.inputs else "runs with qrels"
        rows.append(f"| `{a.name}` | {a.listing} | {inputs} | {a.meaning} |")
    return "\n".join(rows) + "\n"
