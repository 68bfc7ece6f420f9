"""Declarative hyperparameter constraints, checked once for every ranker.

Each ranker declares ``_parameter_constraints = {name: [alternative, ...]}`` in the style of
scikit-learn's ``_parameter_constraints``; a value is valid when one alternative accepts it
(``None`` as an alternative accepts ``None``). Unlike scikit-learn's ``Interval(Integral, ...)``,
a ``bool`` is never accepted as a number, and NumPy scalars (``np.int64``, ``np.float32``) are
accepted wherever the Python type is.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import LtrconvError, shown
from ..evaluation.spec import MetricSpec
from .estimator import InvalidParameterError

RESULT_FREE = ("n_jobs",)
"""Hyperparameters that change how a fit runs, not what it finds: gathered partial fits may
differ in them (:mod:`.units`), and a model file holds them at their defaults
(:mod:`.modelfile`)."""


COUNT_MAX = 2**31 - 1
"""Largest count (rounds, trees, leaf sizes, bins) a ranker accepts: LightGBM reads its integer
parameters as C ``int`` (a larger one wraps to a negative number), and no data set has more
rows than this."""


class ParamError(LtrconvError, InvalidParameterError):
    """A bad hyperparameter value or name; ``param`` is the parameter's name.

    A ValueError and a TypeError, as scikit-learn's ``InvalidParameterError``; the estimators of
    :mod:`ltrconv.rankers.sklearn` raise one that is also that."""

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.param = param


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


class Constraint:
    """One alternative: ``accepts(value)``, ``str()`` describes it, ``reason(value)`` may say why not."""

    def accepts(self, value) -> bool:
        raise NotImplementedError

    def reason(self, value) -> str | None:
        return None


class Integer(Constraint):
    """An integer (not a bool) in ``[lo, hi]``."""

    def __init__(self, lo: int | None = None, hi: int | None = None):
        self.lo, self.hi = lo, hi

    def accepts(self, value) -> bool:
        if _is_bool(value) or not isinstance(value, Integral):
            return False
        return (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi)

    def __str__(self) -> str:
        if self.lo is not None and self.lo == self.hi:
            return str(self.lo)
        if self.hi is None:
            return "an integer" + (f" >= {self.lo}" if self.lo is not None else "")
        return f"an integer in [{self.lo}, {self.hi}]"


class Number(Constraint):
    """A finite real number (not a bool) between ``lo`` and ``hi``, each bound open or closed."""

    def __init__(self, lo: float | None = None, hi: float | None = None, *,
                 lo_open: bool = False, hi_open: bool = False):
        self.lo, self.hi, self.lo_open, self.hi_open = lo, hi, lo_open, hi_open

    def accepts(self, value) -> bool:
        if _is_bool(value) or not isinstance(value, Real) or not math.isfinite(value):
            return False
        if self.lo is not None and (value <= self.lo if self.lo_open else value < self.lo):
            return False
        if self.hi is not None and (value >= self.hi if self.hi_open else value > self.hi):
            return False
        return True

    def __str__(self) -> str:
        parts = []
        if self.lo is not None:
            parts.append(f"{'>' if self.lo_open else '>='} {self.lo:g}")
        if self.hi is not None:
            parts.append(f"{'<' if self.hi_open else '<='} {self.hi:g}")
        return "a finite number" + (" " + " and ".join(parts) if parts else "")


class Options(Constraint):
    """One of a fixed set of strings."""

    def __init__(self, *options: str):
        self.options = options

    def accepts(self, value) -> bool:
        return isinstance(value, str) and value in self.options

    def __str__(self) -> str:
        return "one of " + ", ".join(repr(o) for o in self.options)


class Boolean(Constraint):
    def accepts(self, value) -> bool:
        return _is_bool(value)

    def __str__(self) -> str:
        return "True or False"


class RandomState(Constraint):
    """What :func:`sklearn.utils.check_random_state` accepts: an integer seed or a RandomState
    (``None``, the other thing it accepts, is listed as its own alternative)."""

    _seed = Integer(0, 2**32 - 1)

    def accepts(self, value) -> bool:
        return self._seed.accepts(value) or isinstance(value, np.random.RandomState)

    def __str__(self) -> str:
        return f"{self._seed} or a numpy RandomState"


class Metric(Constraint):
    """A training metric ``ndcg@K:CONVENTION`` (:class:`~ltrconv.evaluation.spec.MetricSpec`)."""

    def accepts(self, value) -> bool:
        return self.reason(value) is None

    def reason(self, value) -> str | None:
        if isinstance(value, MetricSpec):
            return None
        if not isinstance(value, str):
            return "not a string"
        try:
            MetricSpec.parse(value)
        except LtrconvError as exc:
            return str(exc)
        return None

    def __str__(self) -> str:
        return "of the form ndcg@K:CONVENTION, e.g. 'ndcg@10:ranklib'"


class Check(Constraint):
    """A predicate with its description, for structured values (grids, layer lists)."""

    def __init__(self, predicate: Callable[[Any], bool], description: str):
        self.predicate, self.description = predicate, description

    def accepts(self, value) -> bool:
        try:
            return bool(self.predicate(value))
        except (TypeError, ValueError):
            return False

    def __str__(self) -> str:
        return self.description


def describe(alternatives: Sequence) -> str:
    """What a parameter's constraint list accepts, in words."""
    return " or ".join("None" if a is None else str(a) for a in alternatives)


def check_value(owner: str, name: str, alternatives: Sequence, value) -> None:
    """Raise :class:`ParamError` unless one of ``alternatives`` accepts ``value``."""
    for alt in alternatives:
        if (value is None) if alt is None else alt.accepts(value):
            return
    reasons = [r for a in alternatives if a is not None for r in [a.reason(value)] if r]
    extra = f" ({reasons[0]})" if reasons else ""
    raise ParamError(f"{owner}: {name} must be {describe(alternatives)}, got {shown(value)}{extra}",
                     param=name)


def unknown_message(owner: str, unknown: Sequence[str], valid: Sequence[str],
                    removed: Mapping[str, str]) -> str:
    """``owner: unknown parameter(s) [...]`` with the valid names and why a removed one went."""
    why = "; ".join(f"{p}: {removed[p]}" for p in unknown if p in removed)
    return (f"{owner}: unknown parameter(s) {sorted(unknown)}" + (f" ({why})" if why else "")
            + f"; valid: {', '.join(valid)}")


def validate(owner: str, constraints: Mapping[str, Sequence], params: Mapping[str, Any],
             removed: Mapping[str, str] | None = None) -> None:
    """Check every entry of ``params`` against ``constraints``; the first bad one raises
    :class:`ParamError` naming it (an unknown name first of all)."""
    unknown = [p for p in params if p not in constraints]
    if unknown:
        raise ParamError(unknown_message(owner, unknown, list(constraints), removed or {}),
                         param=sorted(unknown)[0])
    for name, value in params.items():
        check_value(owner, name, constraints[name], value)
