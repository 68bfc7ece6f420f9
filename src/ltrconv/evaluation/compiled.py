"""A convention compiled to numbers: the one form every evaluation path consumes.

:class:`Compiled` holds, for one or more conventions read on one label vector (a
:class:`~ltrconv.evaluation.labels.Labels`), each convention's gain table, ideal label order,
discounts, tie code, relevance threshold and P@k denominator, stacked one row per convention
(the kernels share one sort of a query among the conventions of one tie policy), with ERR's
stopping probabilities of the labels. :class:`Lists` holds the ranked lists themselves.
Both are named tuples of arrays and numbers, which numba takes as one argument each.

:class:`Rule` is what decides a query's value where NDCG@k is fixed whatever the order, and
:func:`ndcg` applies it, the only place the precedence is written (docs/conventions.md
quotes it):

1. IDCG@k = 0, or IDCG@k < 0 unless ``negative=keep-divide``: the ``empty`` value (NaN under
   ``empty=skip``, which leaves the query out of the means);
2. else, under ``short=zero``, a list of n < k documents: 0;
3. else DCG@k / IDCG@k.

The kernels compute DCG@k and IDCG@k; the evaluation of LETOR lists, of runs with the ideal
from the list or from the qrels, and the training scorer all turn them into NDCG@k here. n is
the number of documents ranked (after a run's duplicates, depth and unjudged rules), 0 for an
empty ranking.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from .axes import ConventionError, format_number
from .ties import CODES as TIE_CODES


def gains(conv, labels) -> np.ndarray:
    """The gain of each label value under ``conv`` (real or negative ones too, where the
    formula has one: ``exp`` 2^l - 1, ``linear`` l; a map needs every value as a key)."""
    labels = np.asarray(labels, dtype=np.float64)
    if conv.gain == "exp":
        return np.exp2(labels) - 1.0
    if conv.gain == "linear":
        return labels
    table = dict(conv.gain)
    missing = [format_number(v) for v in labels if v not in table]
    if missing:
        raise ConventionError(f"convention {conv}: gain map has no value for label(s) "
                              f"[{', '.join(missing)}]")
    return np.array([table[v] for v in labels], dtype=np.float64)


def discounts(conv, n: int) -> np.ndarray:
    """disc(r) under ``conv`` for r = 1..n."""
    r = np.arange(1, n + 1, dtype=np.float64)
    if conv.disc == "log2":
        return 1.0 / np.log2(r + 1.0)
    if conv.disc == "position":
        return 1.0 / r
    out = np.ones(n)
    out[2:] = 1.0 / np.log2(r[2:])
    return out


class Rule(NamedTuple):
    """A convention's query-value rule as numbers: ``empty`` (NaN: skip), whether ``short=zero``
    and whether a negative IDCG divides (``negative=keep-divide``)."""

    empty: float
    short_zero: bool
    divide_negative: bool

    @classmethod
    def of(cls, conv) -> "Rule":
        return cls(np.nan if conv.skips else float(conv.empty), conv.short == "zero",
                   conv.negative == "keep-divide")


def fixed(idcg, n, k, rule: Rule) -> tuple[np.ndarray, np.ndarray]:
    """``(mask, value)``: where ``mask``, NDCG@k is ``value`` whatever the order (rules 1 and 2
    of the module docstring); elsewhere it is DCG@k / IDCG@k. Arguments broadcast."""
    idcg = np.asarray(idcg, dtype=np.float64)
    empty = (idcg == 0.0) | ((idcg < 0.0) & (not rule.divide_negative))
    short = np.asarray(n) < np.asarray(k) if rule.short_zero else np.zeros((), dtype=bool)
    mask = empty | short
    value = np.where(empty, rule.empty, 0.0)
    return mask, value


def ndcg(dcg, idcg, n, k, rule: Rule) -> np.ndarray:
    """NDCG@k from DCG@k, IDCG@k and the list's length n under ``rule``: the module docstring's
    precedence. Arguments broadcast (e.g. ``dcg`` and ``idcg`` (queries, cutoffs), ``n``
    (queries, 1), ``k`` (cutoffs,))."""
    mask, value = fixed(idcg, n, k, rule)
    idcg = np.asarray(idcg, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.asarray(dcg, dtype=np.float64) / np.where(mask, 1.0, idcg)
    return np.where(mask, value, ratio)


class Lists(NamedTuple):
    """Ranked lists: each document's ``labels`` (indices into a :class:`Compiled`'s tables),
    ``scores``, ``tiekey`` (the docid's byte-order rank under ``docid-desc``, a sort artefact's
    place under the keyed tie codes, else unused) and the query ``offsets``."""

    labels: np.ndarray
    scores: np.ndarray
    tiekey: np.ndarray
    offsets: np.ndarray


class Compiled(NamedTuple):
    """Conventions compiled on one label vector, one row per convention (see the module
    docstring); ``ideal[c]`` lists label indices by gain, highest first (stably), ``rels[c]``
    is ``rel`` as a label index and ``pk_k[c]`` whether P@k divides by k. ``empties`` is the
    value a query without order to judge takes in RankDCG."""

    gains: np.ndarray  # (nc, n_labels) float64
    ideal: np.ndarray  # (nc, n_labels) int64
    discs: np.ndarray  # (nc, n_disc) float64
    ties: np.ndarray  # (nc,) int64
    rels: np.ndarray  # (nc,) int64
    pk_k: np.ndarray  # (nc,) bool
    empties: np.ndarray  # (nc,) float64
    err_stop: np.ndarray  # (n_labels,) float64


def compile_conventions(convs: Sequence, labels,
                        n_disc: int) -> Compiled:
    """``convs`` (Conventions) compiled on ``labels`` (a :class:`~ltrconv.evaluation.labels.
    Labels`), with discounts for ranks 1..``n_disc``."""
    gains = np.array([labels.gain_table(c) for c in convs])
    return Compiled(
        gains=gains,
        ideal=np.argsort(-gains, axis=1, kind="stable"),
        discs=np.array([c.discounts(n_disc) for c in convs]),
        ties=np.array([TIE_CODES[c.ties] for c in convs], dtype=np.int64),
        rels=np.array([labels.rel(c) for c in convs], dtype=np.int64),
        pk_k=np.array([c.pk == "k" for c in convs]),
        empties=np.array([np.nan if c.skips else c.empty for c in convs]),
        err_stop=labels.err_stop(),
    )
