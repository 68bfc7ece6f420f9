"""Metrics as the IR tools name them, read as built-in conventions with a cutoff.

``ranx:ndcg@10``, ``ir_measures:nDCG(judged_only=True)@10`` and ir_measures' own measure
objects (``ir_measures.nDCG@10``) each name one built-in convention and one cutoff: the
convention whose :attr:`Library.measure <ltrconv.evaluation.libraries.Library.measure>` is that
name (``ranx`` on LETOR lists, ``ranx-run`` on a run with its qrels; a list convention without
a run form of its own gives :func:`~ltrconv.evaluation.conventions.run_form`, a run convention
on lists :func:`~ltrconv.evaluation.conventions.list_form`). A parameter the mapping does not
know, a name that is no mapped NDCG, or a metric without its cutoff is refused, naming it:
nothing falls back to some "ndcg".

The grammar: ``TOOL:NAME[(KEY=VALUE,...)]@K``, values as Python literals (``True``, ``'log2'``,
``3``).
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from typing import Any, Iterable

from ..errors import shown
from .axes import ConventionError
from .conventions import Convention, _BUILTIN, library, list_form, on_runs, run_form

TOOL_DEFAULTS: dict[tuple[str, str], dict[str, Any]] = {
    ("ir_measures", "nDCG"): {"judged_only": False, "dcg": "log2"},
}
"""Parameters a tool's metric takes by default, left out when a name is compared (ir_measures
0.4.3, ``nDCG.SUPPORTED_PARAMS``): ``nDCG(judged_only=False)@10`` is ``nDCG@10``."""

_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)(?:\((.*)\))?(?:@([0-9]+))?$")


@dataclass(frozen=True)
class Measure:
    """A tool's metric name read: the tool, its name, its parameters besides the tool's
    defaults, and the cutoff (None when none is written)."""

    tool: str
    name: str
    params: tuple[tuple[str, Any], ...]
    cutoff: int | None
    text: str

    @property
    def key(self) -> tuple:
        return (self.tool, self.name, self.params)


def _params(tool: str, name: str, raw: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The parameters besides the tool's defaults, sorted; a value that is not a plain literal
    (ir_measures' ``gains`` mapping) is kept as its repr, which no mapping declares."""
    defaults = TOOL_DEFAULTS.get((tool, name), {})
    plain = (bool, int, float, str, type(None))
    return tuple(sorted((k, v if isinstance(v, plain) else repr(v)) for k, v in raw.items()
                        if not (k in defaults and defaults[k] == v and type(defaults[k]) is type(v))))


def parse(text: str) -> Measure:
    """``TOOL:NAME[(KEY=VALUE,...)][@K]`` read; ConventionError naming the text otherwise."""
    tool, sep, rest = str(text).strip().partition(":")
    m = _NAME.match(rest.strip()) if sep else None
    if not m:
        raise ConventionError(f"metric {shown(text)}: expected TOOL:NAME@K, e.g. ranx:ndcg@10 or "
                              "ir_measures:nDCG(judged_only=True)@10")
    raw: dict[str, Any] = {}
    for part in (m.group(2) or "").split(","):
        if not part.strip():
            continue
        key, eq, value = part.partition("=")
        try:
            if not eq or not key.strip().isidentifier():
                raise ValueError
            raw[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            raise ConventionError(f"metric {shown(text)}: parameter {shown(part.strip())} is "
                                  "not KEY=VALUE with a literal value") from None
    name = m.group(1)
    return Measure(tool.strip(), name, _params(tool.strip(), name, raw),
                   int(m.group(3)) if m.group(3) else None, str(text).strip())


def from_object(obj: Any) -> Measure | None:
    """An ir_measures measure object read (``ir_measures.nDCG@10``), or None for anything else."""
    if not (type(obj).__module__ or "").startswith("ir_measures") or not hasattr(obj, "NAME"):
        return None
    raw = dict(getattr(obj, "params", {}) or {})
    cutoff = raw.pop("cutoff", None)
    return Measure("ir_measures", str(obj.NAME), _params("ir_measures", str(obj.NAME), raw),
                   cutoff, repr(obj))


def _declared() -> dict[tuple, list[str]]:
    """(tool, name, params) -> the built-in conventions declaring it, in registry order."""
    out: dict[tuple, list[str]] = {}
    for name in _BUILTIN:
        lib = library(name)
        if lib is not None and lib.measure:
            out.setdefault(parse(lib.measure).key, []).append(name)
    return out


DECLARED = _declared()


def _spelled(key: tuple) -> str:
    tool, name, params = key
    inner = ",".join(f"{k}={v!r}" for k, v in params)
    return f"{tool}:{name}" + (f"({inner})" if inner else "")


def convention_of(measure: Measure, inputs: str) -> Convention:
    """The built-in convention ``measure`` names on ``inputs`` (``"list"``: LETOR lists,
    ``"run"``: a run with its qrels); ConventionError naming what is not mapped."""
    if measure.cutoff is None:
        raise ConventionError(f"metric {shown(measure.text)}: no cutoff; give one, e.g. "
                              f"{_spelled(measure.key)}@10 (NDCG over the whole ranking is not "
                              "mapped)")
    if measure.cutoff < 1:
        raise ConventionError(f"metric {shown(measure.text)}: cutoff must be >= 1")
    names = DECLARED.get(measure.key)
    if names is None:
        tools = sorted({k[0] for k in DECLARED})
        if measure.tool not in tools:
            raise ConventionError(f"metric {shown(measure.text)}: no metric of tool "
                                  f"{shown(measure.tool)} is mapped; tools mapped: "
                                  f"{', '.join(tools)}")
        same = [k for k in DECLARED if k[:2] == measure.key[:2]]
        mapped = ", ".join(_spelled(k) for k in DECLARED if k[0] == measure.tool)
        if same:
            extra = ", ".join(f"{k}={v!r}" for k, v in measure.params
                              if all((k, v) not in s[2] for s in same))
            raise ConventionError(f"metric {shown(measure.text)}: parameter(s) {extra} map to no "
                                  f"built-in convention; mapped: {mapped}")
        close = difflib.get_close_matches(measure.name, [k[1] for k in DECLARED
                                                         if k[0] == measure.tool], n=1)
        hint = f"did you mean {measure.tool}:{close[0]}? " if close else ""
        raise ConventionError(f"metric {shown(measure.text)}: {measure.tool} metric "
                              f"{shown(measure.name)} is not a mapped NDCG; {hint}mapped: {mapped}")
    convs = [_BUILTIN[n] for n in names]
    if inputs == "run":
        own = [c for c in convs if on_runs(c)]
        return own[0] if own else next(f for f in map(run_form, convs) if f is not None)
    own = [c for c in convs if not on_runs(c)]
    return own[0] if own else list_form(convs[0])


def read(item: Any) -> Measure | None:
    """``item`` as a tool's metric, or None when it is a convention (a name, a definition
    string or a Convention)."""
    if isinstance(item, Convention):
        return None
    if isinstance(item, str):
        text = item.strip()
        if text.startswith("ndcg(") or ":" not in text:
            if "@" in text and not text.startswith("ndcg("):
                raise ConventionError(f"{shown(item)}: a metric name needs its tool, as "
                                      f"TOOL:NAME@K with one of {', '.join(map(_spelled, DECLARED))} "
                                      "(each names its own convention)")
            return None
        return parse(text)
    measure = from_object(item)
    if measure is None:
        raise ConventionError(f"{shown(item)} is neither a convention nor a tool's metric "
                              "(a name, a definition string, a Convention, 'ranx:ndcg@10' or "
                              "an ir_measures measure)")
    return measure


def resolve(items: Iterable[Any], inputs: str) -> tuple[list[Any], list[int]]:
    """``items`` (conventions, tools' metric names, ir_measures measures) as conventions, each
    metric replaced by the convention it names (a convention named twice is evaluated once);
    and the metrics' cutoffs, in order."""
    if isinstance(items, (str, Convention)) or from_object(items) is not None:
        items = (items,)
    out: list[Any] = []
    cutoffs: list[int] = []
    for item in items:
        measure = read(item)
        conv = item if measure is None else convention_of(measure, inputs)
        if measure is not None:
            cutoffs.append(measure.cutoff)
        if measure is None or conv not in out:
            out.append(conv)
    return out, list(dict.fromkeys(cutoffs))


def with_cutoffs(cutoffs, extra: list[int]):
    """``cutoffs`` (None: 1-10) with ``extra``, the cutoffs of the metrics named beside the
    conventions; only those when ``cutoffs`` is None and there are some."""
    from .metrics import parse_cutoffs

    if cutoffs is None:
        return extra if extra else "1-10"
    return sorted({*parse_cutoffs(cutoffs).tolist(), *extra}) if extra else cutoffs
