"""The registry of the study's learning-to-rank algorithms.

One :class:`Algorithm` per ranker: its registry name (used in configs, file paths and tables),
display name, plot style, where its class lives (imported only when asked for) and how the
training convention enters it. The order of :data:`REGISTRY` is the default order of tables,
legends and benchmarks. Nothing here imports the rankers, so reading the registry is cheap.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import MappingProxyType

from .errors import LtrconvError

OBJECTIVE, SELECTION = "objective", "selection"


class UnknownAlgorithm(LtrconvError):
    """A name that is not in the registry."""


@dataclass(frozen=True)
class Algorithm:
    """One ranker of the study.

    ``convention`` says how the training convention's NDCG acts: ``"objective"`` when the
    algorithm maximises it during training (and also selects with it), ``"selection"`` when
    the loss is pairwise and the NDCG only picks a model (rounds, epochs, a grid point) on
    validation data. ``colour`` is an Okabe–Ito colour; with ``marker`` and ``linestyle``
    every series stays distinguishable in greyscale.
    """

    name: str
    display: str
    ranker: str  # "module:Class", imported by load_class()
    convention: str
    colour: str
    marker: str
    linestyle: str | tuple

    @property
    def style(self) -> dict:
        """Matplotlib keyword arguments of the algorithm's series."""
        return dict(color=self.colour, marker=self.marker, linestyle=self.linestyle)

    def load_class(self) -> type:
        module, cls = self.ranker.split(":")
        return getattr(importlib.import_module(module), cls)


_ALGORITHMS = (
    # a linear model fitted by line search on the training NDCG; restart kept on validation
    Algorithm("coordinate_ascent", "Coordinate Ascent",
              "ltrconv.rankers.coordinate_ascent:CoordinateAscent", OBJECTIVE,
              "#000000", "o", "-"),
    # trees fitted to lambda-gradients weighted by |delta NDCG| under the convention
    Algorithm("lambdamart", "LambdaMART", "ltrconv.rankers.lambdamart:LambdaMART", OBJECTIVE,
              "#E69F00", "s", "--"),
    # pairwise rank loss; the prefix of boosting rounds is chosen on validation NDCG
    Algorithm("rankboost", "RankBoost", "ltrconv.rankers.rankboost:RankBoost", SELECTION,
              "#56B4E9", "D", "-."),
    # pairwise hinge loss; C is chosen from a grid on validation NDCG
    Algorithm("ranksvm", "RankSVM", "ltrconv.rankers.ranksvm:RankSVM", SELECTION,
              "#009E73", "v", ":"),
    # pairwise cross-entropy; architecture and epoch are chosen on validation NDCG
    Algorithm("ranknet", "RankNet", "ltrconv.rankers.ranknet:RankNet", SELECTION,
              "#CC79A7", "^", (0, (5, 1))),
    # each round adds the feature with the best query-weighted training NDCG
    Algorithm("adarank", "AdaRank", "ltrconv.rankers.adarank:AdaRank", OBJECTIVE,
              "#D55E00", "x", (0, (3, 1, 1, 1, 1, 1))),
)

REGISTRY: MappingProxyType[str, Algorithm] = MappingProxyType({a.name: a for a in _ALGORITHMS})
"""Every algorithm by registry name, in the default order."""

ORDER: tuple[str, ...] = tuple(REGISTRY)
"""Registry names in the default order of tables, legends and benchmarks."""


def get(name: str) -> Algorithm:
    """The registry entry of ``name``; :class:`UnknownAlgorithm` names the known ones."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(REGISTRY))
        raise UnknownAlgorithm(f"unknown algorithm {name!r}; known: {known}") from None


def names(convention: str | None = None) -> tuple[str, ...]:
    """Registry names in the default order; only those with that ``convention`` role if given."""
    if convention not in (None, OBJECTIVE, SELECTION):
        raise ValueError(f"convention must be {OBJECTIVE!r} or {SELECTION!r}, got {convention!r}")
    return tuple(a.name for a in _ALGORITHMS if convention in (None, a.convention))


def display_name(name: str) -> str:
    """Display name of an algorithm; other names (variants) are returned as they are."""
    algorithm = REGISTRY.get(name)
    return algorithm.display if algorithm else name
