"""The metric grammar: ``ndcg@K:CONVENTION``, the training metric of every ranker."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import LtrconvError, shown
from .conventions import Convention, get
from .queries import MAX_CUTOFF

if TYPE_CHECKING:
    from .scorer import NDCGScorer


_METRIC_RE = re.compile(r"^ndcg@([0-9]+):(.+)$", re.IGNORECASE)  # eval's columns read NDCG@10


@dataclass(frozen=True, repr=False)
class MetricSpec:
    """NDCG@k under a convention: the training metric of every ranker.

    One string form, which ``str`` writes and :meth:`parse` reads back to an equal metric
    (``MetricSpec.parse(str(m)) == m`` for every k and convention)::

        metric     := "ndcg@" K ":" convention        K an integer >= 1
        convention := NAME                            built-in (ranklib, ...) or of the set given
                    | "ndcg(" [KEY=VALUE {"," KEY=VALUE}] ")"   keys of Convention; others default

    e.g. ``ndcg@10:letor`` or ``ndcg@10:ndcg(gain=linear,empty=0.5)``; :meth:`parse` takes the
    ``ndcg@`` prefix in any letter case (``NDCG@10:letor``, as ``ltrconv eval`` labels its
    columns) and ``str`` writes it in lower case. The convention part alone
    is what ``ltrconv eval -c`` and :func:`ltrconv.evaluation.conventions.get` take. ``str``
    writes ``str(convention)``: its name, or the built-in one it equals (so
    ``ndcg@10:ndcg(empty=0.5)`` is written ``ndcg@10:yahoo-half``), else its canonical string,
    which spells out every key. Names are read against the built-in conventions, or against
    the :class:`~ltrconv.evaluation.convention_set.ConventionSet` given to :meth:`parse` (a
    conventions file's); a MetricSpec holds its whole convention, so it needs no set again.
    """

    k: int
    convention: Convention

    def __post_init__(self) -> None:
        if isinstance(self.k, (bool, np.bool_)) or not isinstance(self.k, (int, np.integer)) \
                or self.k < 1:
            raise LtrconvError(f"metric cutoff {shown(self.k)} must be an integer >= 1")
        if self.k > MAX_CUTOFF:
            raise LtrconvError(f"metric cutoff {shown(self.k)} is above {MAX_CUTOFF}, the largest "
                               "accepted (discount tables are sized by k)")
        object.__setattr__(self, "k", int(self.k))
        object.__setattr__(self, "convention", get(self.convention))

    @classmethod
    def parse(cls, text: "str | MetricSpec", conventions=None) -> "MetricSpec":
        """The metric a string of the grammar above names, its convention read against
        ``conventions`` (a :class:`~ltrconv.evaluation.convention_set.ConventionSet`; default:
        the built-in conventions); a MetricSpec is returned as is."""
        if isinstance(text, MetricSpec):
            return text
        m = _METRIC_RE.match(str(text).strip())
        if m and len(m.group(1).lstrip("0")) > len(str(MAX_CUTOFF)):
            raise LtrconvError(f"metric {shown(text)}: cutoff {shown(m.group(1), 20)} is above "
                               f"{MAX_CUTOFF}, the largest accepted (discount tables are sized "
                               "by k)")
        if not m or int(m.group(1)) < 1:
            raise LtrconvError(f"metric {shown(text)}: expected ndcg@K:CONVENTION, e.g. "
                               "ndcg@10:ranklib")
        name = m.group(2).strip()
        return cls(int(m.group(1)), get(name, conventions))

    def __str__(self) -> str:
        return f"ndcg@{self.k}:{self.convention}"

    def __repr__(self) -> str:
        return f"MetricSpec({str(self)!r})"

    def scorer(self, y, offsets, docid=None, max_label: int | None = None) -> NDCGScorer:
        from .scorer import NDCGScorer

        return NDCGScorer(y, offsets, self.convention, self.k, docid=docid, max_label=max_label)
