"""The six learning-to-rank algorithms, each trained and selected under an NDCG convention.

``make("lambdamart", metric="ndcg@10:letor", n_estimators=500)`` builds one by name; the names
and classes come from :mod:`ltrconv.algorithms`.
"""

from __future__ import annotations

from typing import Any

from ..algorithms import REGISTRY as ALGORITHMS
from ..algorithms import UnknownAlgorithm
from ..algorithms import get as _entry
from .base import ParamError, Ranker, load


def get_class(name: str) -> type[Ranker]:
    """The ranker class registered as ``name``; an unknown name raises :class:`ParamError`."""
    try:
        return _entry(name).load_class()
    except UnknownAlgorithm as exc:
        raise ParamError(str(exc)) from None


def make(name: str, **params: Any) -> Ranker:
    """An unfitted ranker by registry name; unknown parameters raise :class:`ParamError`."""
    cls = get_class(name)
    valid = cls._param_names()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ParamError(f"{name}: unknown parameter(s) {unknown}; valid: {', '.join(valid)}")
    return cls(**params)


__all__ = ["ALGORITHMS", "ParamError", "Ranker", "get_class", "load", "make"]
