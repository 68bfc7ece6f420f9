"""The six learning-to-rank algorithms, each trained and selected under an NDCG convention.

``make("lambdamart", metric="ndcg@10:letor", n_estimators=500)`` builds one by name; the names
and classes come from :mod:`ltrconv.rankers.registry`. ``validate_params(name, params)`` checks
hyperparameters without building anything; ``check_params(name, params)`` checks those a user
gave (no ``metric``) for the command line and the pipeline's config. ``unit_count(name,
params)`` says how many independent units (Coordinate Ascent's restarts, RankNet's
architectures) a fit runs, which :mod:`ltrconv.rankers.units` fits apart and gathers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .registry import REGISTRY as ALGORITHMS
from .registry import UnknownAlgorithm
from .registry import get as _entry

if TYPE_CHECKING:
    from .base import Ranker

# Imported on first use, so that listing the algorithms (e.g. 'ltrconv --help') does not load
# numba.
_LAZY = {"DegenerateDataError": ".base", "NotFittedModelError": ".base", "Ranker": ".base",
         "TrainingData": ".base", "TrainingSelectionWarning": ".base", "load": ".base",
         "ParamError": ".params", "GatherError": ".units", "UnitRanker": ".units"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_class(name: str) -> type["Ranker"]:
    """The ranker class registered as ``name``; an unknown name raises :class:`ParamError`."""
    try:
        return _entry(name).load_class()
    except UnknownAlgorithm as exc:
        from .params import ParamError

        raise ParamError(str(exc)) from None


def param_names(name: str) -> list[str]:
    """The hyperparameters of algorithm ``name``, ``metric`` first."""
    return get_class(name)._param_names()


def removed_params(name: str) -> dict[str, str]:
    """Parameters algorithm ``name`` no longer takes, each with the reason."""
    return dict(get_class(name)._removed_params)


def selects(name: str) -> str:
    """What validation data chooses for algorithm ``name`` (rounds, C, restart, ...)."""
    return get_class(name)._selects


def param_help(name: str) -> list[tuple[str, Any, str]]:
    """``(parameter, default, what it accepts)`` for each hyperparameter of algorithm ``name``,
    in declaration order (``metric`` first), from the class's signature and its
    ``_parameter_constraints``."""
    import inspect

    from .params import describe

    cls = get_class(name)
    defaults = inspect.signature(cls.__init__).parameters
    return [(p, defaults[p].default, describe(cls._parameter_constraints[p]))
            for p in cls._param_names()]


def selected(model: "Ranker") -> str:
    """What model selection chose in the fitted ``model``: ``C = 10``, ``412 trees``,
    ``restart 3 of 30``, ``hidden layers 10, epoch 27``..."""
    return model._selected()


def validate_params(name: str, params: Mapping[str, Any]) -> None:
    """Check ``params`` against the declared constraints of algorithm ``name``; the first
    unknown or invalid one raises :class:`ParamError`, whose ``param`` attribute names it."""
    get_class(name).validate_params(params)


def check_params(name: str, params: Mapping[str, Any]) -> None:
    """Check the hyperparameters a user gave algorithm ``name`` (a config file, ``--param``).

    The first refusal raises :class:`ParamError`, whose ``param`` names the parameter:
    ``metric`` (the training metric is chosen apart from the hyperparameters); then the unknown
    names, the message saying the valid ones and why a removed one went; then each value
    against its constraints. The error's ``unknown`` lists the unknown names in the order given
    (empty for the other refusals); for those it also carries ``valid`` (the names a user may
    give: all but ``metric``) and ``removed`` (the reason for each unknown name that was
    removed). An unknown algorithm raises :class:`ParamError` with ``param`` None.
    """
    from .params import ParamError, unknown_message

    def refuse(message: str, param: str, unknown: Sequence[str] = ()) -> None:
        exc = ParamError(message, param=param)
        exc.unknown = list(unknown)
        if unknown:
            exc.valid = [p for p in names if p != "metric"]
            exc.removed = {p: why for p, why in removed.items() if p in exc.unknown}
        raise exc from None

    if "metric" in params:
        refuse(f"{name}: the training metric is not a hyperparameter; it is set apart", "metric")
    names, removed = param_names(name), removed_params(name)
    unknown = [p for p in params if p not in names]
    if unknown:
        refuse(unknown_message(name, unknown, names, removed), sorted(unknown)[0], unknown)
    try:
        validate_params(name, params)
    except ParamError as exc:
        refuse(str(exc), exc.param)


def unit_count(name: str, params: Mapping[str, Any] | None = None) -> int:
    """How many independent units a fit of algorithm ``name`` with hyperparameters ``params``
    runs (restarts, architectures; :mod:`ltrconv.rankers.units`); 0 when its fit is one piece."""
    from .units import UnitRanker

    cls = get_class(name)
    return cls(**dict(params or {})).n_units() if issubclass(cls, UnitRanker) else 0


def make(name: str, **params: Any) -> "Ranker":
    """An unfitted ranker by registry name, its parameters validated."""
    validate_params(name, params)
    return get_class(name)(**params)


__all__ = ["ALGORITHMS", "DegenerateDataError", "GatherError", "NotFittedModelError", "ParamError",
           "Ranker", "TrainingData", "TrainingSelectionWarning", "UnitRanker", "check_params",
           "get_class", "load", "make", "param_help", "param_names", "removed_params", "selected",
           "selects", "unit_count", "validate_params"]
