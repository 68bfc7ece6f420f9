"""The six learning-to-rank algorithms, each trained and selected under an NDCG convention.

``make("lambdamart", metric="ndcg@10:letor", n_estimators=500)`` builds one by name.
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import ParamError, Ranker, load

ALGORITHMS = {
    "adarank": ("adarank", "AdaRank"),
    "coordinate_ascent": ("coordinate_ascent", "CoordinateAscent"),
    "lambdamart": ("lambdamart", "LambdaMART"),
    "ranknet": ("ranknet", "RankNet"),
    "rankboost": ("rankboost", "RankBoost"),
    "ranksvm": ("ranksvm", "RankSVM"),
}


def get_class(name: str) -> type[Ranker]:
    if name not in ALGORITHMS:
        raise ParamError(f"unknown algorithm {name!r}; known: {', '.join(ALGORITHMS)}")
    module, cls = ALGORITHMS[name]
    return getattr(importlib.import_module(f".{module}", __name__), cls)


def make(name: str, **params: Any) -> Ranker:
    """An unfitted ranker by registry name; unknown parameters raise :class:`ParamError`."""
    cls = get_class(name)
    valid = cls._param_names()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ParamError(f"{name}: unknown parameter(s) {unknown}; valid: {', '.join(valid)}")
    return cls(**params)


__all__ = ["ALGORITHMS", "ParamError", "Ranker", "get_class", "load", "make"]
