"""NDCG conventions as value objects.

A convention fixes every detail on which public NDCG tools disagree:

* ``gain``: ``exp`` (2^l - 1), ``linear`` (l) or an explicit label->gain map;
* ``disc``: ``log2`` (1/log2(r+1)) or ``letor`` (1 for r <= 2, 1/log2(r) for r >= 3);
* ``empty``: NDCG of a query without relevant document (IDCG = 0);
* ``short``: NDCG@k of a query with n < k documents, ``truncate`` (= NDCG@n) or ``zero``;
* ``ties``: order of tied scores, ``input-order``, ``docid-desc`` (scores compared as
  float32, ties by docid descending in byte order), or tie-aware ``average`` (expected value
  over all orders of the tied documents), ``pessimistic`` (worst first), ``optimistic``;
* ``rel``: label threshold for P@k, MAP, RR;
* ``pk``: denominator of P@k, ``k`` or ``min`` (= min(k, n)).

Conventions are frozen, hashable and round-trip through their canonical string::

    >>> c = get("ranklib")
    >>> parse(c.canonical) == c
    True
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .errors import LtrconvError

DISCOUNTS = ("log2", "letor")
SHORT_POLICIES = ("truncate", "zero")
TIE_POLICIES = ("input-order", "docid-desc", "average", "pessimistic", "optimistic")
PK_DENOMINATORS = ("k", "min")
GAIN_KINDS = ("exp", "linear")

_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")


class ConventionError(LtrconvError):
    """An invalid convention parameter or an unknown convention name."""


def _format_number(x: float) -> str:
    return repr(int(x)) if float(x).is_integer() else repr(float(x))


def _parse_gain(value: Any) -> str | tuple[tuple[int, float], ...]:
    if isinstance(value, str) and value in GAIN_KINDS:
        return value
    items: list[tuple[int, float]]
    if isinstance(value, Mapping):
        items = [(int(k), float(v)) for k, v in value.items()]
    elif isinstance(value, (tuple, list)):
        items = [(int(k), float(v)) for k, v in value]
    elif isinstance(value, str):
        try:
            items = [(int(a), float(b)) for a, b in (p.split(":") for p in value.split(";"))]
        except ValueError:
            raise ConventionError(
                f"gain must be one of {GAIN_KINDS} or a label map like '0:0;1:1;2:3', got {value!r}"
            ) from None
    else:
        raise ConventionError(f"gain must be one of {GAIN_KINDS} or a label map, got {value!r}")
    items.sort()
    labels = [k for k, _ in items]
    if len(set(labels)) != len(labels) or any(k < 0 for k in labels):
        raise ConventionError(f"gain map needs distinct non-negative labels, got {value!r}")
    if any(not math.isfinite(v) or v < 0 for _, v in items):
        raise ConventionError(f"gain map values must be finite and >= 0, got {value!r}")
    return tuple(items)


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
    name: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "gain", _parse_gain(self.gain))
        for attr, allowed in (
            ("disc", DISCOUNTS),
            ("short", SHORT_POLICIES),
            ("ties", TIE_POLICIES),
            ("pk", PK_DENOMINATORS),
        ):
            if getattr(self, attr) not in allowed:
                raise ConventionError(
                    f"{attr} must be one of {', '.join(allowed)}; got {getattr(self, attr)!r}"
                )
        try:
            empty = float(self.empty)
        except (TypeError, ValueError):
            raise ConventionError(f"empty must be a number in [0, 1], got {self.empty!r}") from None
        if not 0.0 <= empty <= 1.0:
            raise ConventionError(f"empty must be a number in [0, 1], got {self.empty!r}")
        object.__setattr__(self, "empty", empty)
        try:
            rel = int(self.rel)
        except (TypeError, ValueError):
            raise ConventionError(f"rel must be a label >= 1, got {self.rel!r}") from None
        if rel < 1 or rel != float(self.rel):
            raise ConventionError(f"rel must be an integer label >= 1, got {self.rel!r}")
        object.__setattr__(self, "rel", rel)
        if self.name is not None and not _NAME_RE.match(self.name):
            raise ConventionError(f"convention name {self.name!r} must match {_NAME_RE.pattern}")

    # ---- string forms -------------------------------------------------------------
    @property
    def canonical(self) -> str:
        """Full parameter string, e.g. ``ndcg(gain=exp,disc=log2,empty=0,...)``."""
        if isinstance(self.gain, str):
            gain = self.gain
        else:
            gain = ";".join(f"{k}:{_format_number(v)}" for k, v in self.gain)
        return (
            f"ndcg(gain={gain},disc={self.disc},empty={_format_number(self.empty)},"
            f"short={self.short},ties={self.ties},rel={self.rel},pk={self.pk})"
        )

    @property
    def key(self) -> str:
        """Registry name where there is one, else the canonical string."""
        return self.name or self.canonical

    def __str__(self) -> str:
        return self.key

    # ---- numeric tables used by the kernels -----------------------------------------
    def gain_table(self, max_label: int) -> np.ndarray:
        """gain[l] for l = 0..max_label."""
        labels = np.arange(max_label + 1, dtype=np.float64)
        if self.gain == "exp":
            return np.exp2(labels) - 1.0
        if self.gain == "linear":
            return labels
        table = dict(self.gain)
        missing = [lab for lab in range(max_label + 1) if lab not in table]
        if missing:
            raise ConventionError(
                f"convention {self.key}: gain map has no value for label(s) {missing}"
            )
        return np.array([table[lab] for lab in range(max_label + 1)], dtype=np.float64)

    def discounts(self, n: int) -> np.ndarray:
        """disc(r) for r = 1..n."""
        r = np.arange(1, n + 1, dtype=np.float64)
        if self.disc == "log2":
            return 1.0 / np.log2(r + 1.0)
        out = np.ones(n)
        out[2:] = 1.0 / np.log2(r[2:])
        return out

    def with_(self, **changes: Any) -> "Convention":
        """A copy with some parameters changed (and no registry name)."""
        changes.setdefault("name", None)
        return replace(self, **changes)


PARAMS = tuple(f.name for f in fields(Convention) if f.name != "name")

_REGISTRY: dict[str, Convention] = {}


def register(name: str, convention: Convention, *, overwrite: bool = False) -> Convention:
    """Register ``convention`` under ``name`` and return the named copy."""
    if not _NAME_RE.match(name):
        raise ConventionError(f"convention name {name!r} must match {_NAME_RE.pattern}")
    if name in _REGISTRY and not overwrite and _REGISTRY[name] != convention:
        raise ConventionError(f"convention {name!r} is already registered differently")
    named = replace(convention, name=name)
    _REGISTRY[name] = named
    return named


def names() -> list[str]:
    return list(_REGISTRY)


def get(spec: "str | Convention") -> Convention:
    """A convention by registry name or canonical string."""
    if isinstance(spec, Convention):
        return spec
    if spec in _REGISTRY:
        return _REGISTRY[spec]
    if isinstance(spec, str) and spec.startswith("ndcg("):
        return parse(spec)
    raise ConventionError(f"unknown convention {spec!r}; known: {', '.join(_REGISTRY)}")


_CANON_RE = re.compile(r"^ndcg\((.*)\)$")


def parse(text: str) -> Convention:
    """Parse a canonical string ``ndcg(k=v,...)``; missing keys take their defaults."""
    m = _CANON_RE.match(text.strip())
    if not m:
        raise ConventionError(f"cannot parse convention {text!r}: expected ndcg(key=value,...)")
    params: dict[str, Any] = {}
    body = m.group(1).strip()
    for part in body.split(",") if body else []:
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in PARAMS:
            raise ConventionError(f"cannot parse convention {text!r}: bad parameter {part!r}")
        params[key] = value.strip()
    conv = from_mapping(params, where=repr(text))
    for reg in _REGISTRY.values():
        if reg == conv:
            return reg
    return conv


def from_mapping(params: Mapping[str, Any], where: str = "convention") -> Convention:
    """Build a convention from a mapping (YAML); ``base: NAME`` starts from a registered one."""
    params = dict(params)
    unknown = set(params) - set(PARAMS) - {"base"}
    if unknown:
        raise ConventionError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: base, {', '.join(PARAMS)}")
    base = get(params.pop("base")) if "base" in params else Convention()
    try:
        return base.with_(**params)
    except ConventionError as exc:
        raise ConventionError(f"{where}: {exc}") from None


def load_yaml(path: str | Path) -> list[Convention]:
    """Register every convention of a YAML file ``{conventions: {NAME: {key: value}}}``."""
    import yaml

    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConventionError(f"{path}: cannot read conventions: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("conventions"), dict):
        raise ConventionError(f"{path}: expected a mapping with key 'conventions'")
    out = []
    for name, params in doc["conventions"].items():
        if not isinstance(params, dict):
            raise ConventionError(f"{path}: conventions.{name} must be a mapping")
        conv = from_mapping(params, where=f"{path}: conventions.{name}")
        out.append(register(str(name), conv, overwrite=True))
    return out


# The four public tools (see STUDY.md) and tie-aware variants.
RANKLIB = register("ranklib", Convention())
TREC = register("trec", Convention(ties="docid-desc", pk="k"))
YAHOO = register("yahoo", Convention(empty=1.0))
LETOR = register("letor", Convention(disc="letor", short="zero", pk="k"))
register("yahoo-half", YAHOO.with_(empty=0.5))
for _base in (RANKLIB, YAHOO, LETOR):
    register(f"{_base.name}-tieavg", _base.with_(ties="average"))
register("ranklib-tiepess", RANKLIB.with_(ties="pessimistic"))
register("ranklib-tieopt", RANKLIB.with_(ties="optimistic"))

PAPER_TOOLS = ("ranklib", "trec", "yahoo", "letor")
