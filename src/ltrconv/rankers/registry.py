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
from typing import Callable, Mapping

from ..errors import LtrconvError, shown

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
    every series stays distinguishable in greyscale. ``randomness`` says what the ranker's
    ``random_state`` draws ("" when nothing: the model is a function of the data alone);
    ``random_if``, when set, tells from the hyperparameters whether it draws anything at all.
    ``few_scores``: the scores take few distinct values (sums of threshold stumps or of a few
    features), so many documents tie and the tie order moves the reported NDCG.
    """

    name: str
    display: str
    ranker: str  # "module:Class", imported by load_class()
    convention: str
    colour: str
    marker: str
    linestyle: str | tuple
    randomness: str = ""
    random_if: Callable[[Mapping], bool] | None = None
    few_scores: bool = False

    @property
    def style(self) -> dict:
        """Matplotlib keyword arguments of the algorithm's series."""
        return dict(color=self.colour, marker=self.marker, linestyle=self.linestyle)

    def is_random(self, params: Mapping | None = None) -> bool:
        """Whether a fit with hyperparameters ``params`` depends on ``random_state``."""
        if not self.randomness:
            return False
        return self.random_if is None or bool(self.random_if(dict(params or {})))

    def load_class(self) -> type:
        module, cls = self.ranker.split(":")
        return getattr(importlib.import_module(module), cls)


_ALGORITHMS = (
    # a linear model fitted by line search on the training NDCG; restart kept on validation
    Algorithm("coordinate_ascent", "Coordinate Ascent",
              "ltrconv.rankers.coordinate_ascent:CoordinateAscent", OBJECTIVE,
              "#000000", "o", "-",
              randomness="the feature order of each restart (and the starting weights with "
                         "init='random')"),
    # RankLib 2.x's regression trees fitted to lambda-gradients weighted by |delta NDCG| under
    # the convention; deterministic
    Algorithm("lambdamart", "LambdaMART", "ltrconv.rankers.lambdamart:LambdaMART", OBJECTIVE,
              "#E69F00", "s", "--"),
    # pairwise rank loss; the prefix of boosting rounds is chosen on validation NDCG
    Algorithm("rankboost", "RankBoost", "ltrconv.rankers.rankboost:RankBoost", SELECTION,
              "#56B4E9", "D", "-.", few_scores=True),
    # pairwise hinge loss; C is chosen from a grid on validation NDCG
    # liblinear's dual solver (hinge loss) visits the coordinates in a random order; the primal
    # solver of the default squared hinge loss draws nothing
    Algorithm("ranksvm", "RankSVM", "ltrconv.rankers.ranksvm:RankSVM", SELECTION,
              "#009E73", "v", ":", randomness="liblinear's coordinate order (hinge loss only)",
              random_if=lambda p: p.get("loss", "squared_hinge") == "hinge"),
    # RankLib 2.x's RankNet: pairwise updates per document; architecture and epoch are chosen
    # on validation NDCG
    Algorithm("ranknet", "RankNet", "ltrconv.rankers.ranknet:RankNet", SELECTION,
              "#CC79A7", "^", (0, (5, 1)),
              randomness="the initial weights (a java.util.Random seeded with it)"),
    # each round adds the feature with the best query-weighted training NDCG
    Algorithm("adarank", "AdaRank", "ltrconv.rankers.adarank:AdaRank", OBJECTIVE,
              "#D55E00", "x", (0, (3, 1, 1, 1, 1, 1)), few_scores=True),
)

REGISTRY: MappingProxyType[str, Algorithm] = MappingProxyType({a.name: a for a in _ALGORITHMS})
"""Every algorithm by registry name, in the default order."""

_OTHERS = (
    # LightGBM's boosting on the same lambda-gradients. Its seed draws only bagging, feature
    # subsampling (both off here) and the rows that fix the bin boundaries when a training set
    # exceeds bin_construct_sample_cnt = 200,000 rows (LightGBM 4.x parameters).
    Algorithm("lambdamart_lightgbm", "LambdaMART (LightGBM)",
              "ltrconv.rankers.lambdamart_lightgbm:LambdaMARTLightGBM", OBJECTIVE,
              "#0072B2", "P", "--"),
    # RankNet's pairwise cross-entropy minimised with Adam on standardised features, queries
    # in a seeded random order each epoch, early stopping on validation NDCG
    Algorithm("ranknet_adam", "RankNet (Adam)", "ltrconv.rankers.ranknet_adam:RankNetAdam",
              SELECTION, "#F0E442", "*", (0, (5, 1)),
              randomness="the initial weights and the query order of each epoch"),
)

KNOWN: MappingProxyType[str, Algorithm] = MappingProxyType(
    {a.name: a for a in _ALGORITHMS + _OTHERS})
"""The study's algorithms and the other implementations a model file can hold, by name; only
:data:`REGISTRY` enters the study's tables."""

ORDER: tuple[str, ...] = tuple(REGISTRY)
"""Registry names in the default order of tables, legends and benchmarks."""


def get(name: str) -> Algorithm:
    """The registry entry of ``name``; :class:`UnknownAlgorithm` names the known ones."""
    try:
        return KNOWN[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(KNOWN))
        raise UnknownAlgorithm(f"unknown algorithm {shown(name)}; known: {known}") from None


def names(convention: str | None = None) -> tuple[str, ...]:
    """Registry names in the default order; only those with that ``convention`` role if given."""
    if convention not in (None, OBJECTIVE, SELECTION):
        raise ValueError(f"convention must be {OBJECTIVE!r} or {SELECTION!r}, got {convention!r}")
    return tuple(a.name for a in _ALGORITHMS if convention in (None, a.convention))


def is_random(name: str, params: Mapping | None = None) -> bool:
    """Whether ``name`` trained with hyperparameters ``params`` depends on its ``random_state``:
    Coordinate Ascent and RankNet always, RankSVM with the hinge loss; AdaRank and RankBoost
    have no ``random_state`` (deterministic as RankLib 2.x runs them)."""
    return get(name).is_random(params)


def display_name(name: str) -> str:
    """Display name of an algorithm; other names (variants) are returned as they are."""
    algorithm = REGISTRY.get(name)
    return algorithm.display if algorithm else name
