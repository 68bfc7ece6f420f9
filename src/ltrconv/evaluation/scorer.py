"""NDCG@k under one convention for fixed labels and queries: what training optimises and
selects with.

:class:`NDCGScorer` scores whole rankings (``per_query``, ``mean``); :attr:`NDCGScorer.arrays`
and the numba functions below are the interface of training code that scores inside its own
numba loops (a ranker imports these, never the evaluation kernels)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from ..jit import njit, prange, serial_and_parallel, use_parallel

from ..errors import InputError, LtrconvError
from . import _kernels, compiled
from ._kernels import expected_by_position, group_ends, precedes, rank_order
from .artefacts import sort_places
from .conventions import Convention, get
from .labels import Labels, convention_labels
from .queries import docid_ranks
from .ties import AVERAGE, DOCID_DESC, INPUT_ORDER, KEYED
from .ties import CODES as TIE_CODES

__all__ = ["NDCGScorer", "QueryArrays", "ideal_dcg", "precedes", "query_ndcg",
           "rank_discounts", "rank_order", "swap_delta"]


class QueryArrays(NamedTuple):
    """A scorer's precomputed arrays, in the argument order of the numba functions below.

    ``gains[i]`` of document i under the convention, ``labels``, ``tiekey`` (docid byte-order
    rank, used by ``docid-desc`` ties only), query ``offsets``, ``disc[r]`` the discount of rank
    r + 1, the cutoff ``k``, ``tie_code`` (:data:`ltrconv.evaluation.ties.CODES`), and per
    query ``inv_idcg`` (1/IDCG@k, 0 when the convention fixes the value) and that fixed
    ``fallback`` value.
    """

    gains: np.ndarray
    labels: np.ndarray
    tiekey: np.ndarray
    offsets: np.ndarray
    disc: np.ndarray
    k: int
    tie_code: int
    inv_idcg: np.ndarray
    fallback: np.ndarray




@njit(cache=True)
def ideal_dcg(gains_q, disc, k):
    """DCG@k of the ideal order (gains descending)."""
    g = np.sort(gains_q)[::-1]
    m = min(k, len(g))
    total = 0.0
    for p in range(m):
        total += g[p] * disc[p]
    return total


@njit(cache=True)
def query_ndcg(arrays, scores, tiekey, q):
    """NDCG@k of query ``q`` ranked by ``scores`` (all documents'; ``tiekey`` likewise, as
    :meth:`NDCGScorer.per_query` gives it) under the convention of ``arrays`` (a
    :class:`QueryArrays`): its fixed value where ``inv_idcg`` is 0, else DCG@k / IDCG@k."""
    if arrays.inv_idcg[q] == 0.0:
        return arrays.fallback[q]
    a, b = arrays.offsets[q], arrays.offsets[q + 1]
    scores_q = scores[a:b]
    order = rank_order(scores_q, arrays.labels[a:b], tiekey[a:b], arrays.tie_code)
    g = arrays.gains[a:b][order]
    if arrays.tie_code == AVERAGE:
        g = expected_by_position(g, group_ends(scores_q[order], arrays.tie_code))
    m = min(arrays.k, len(g))
    total = 0.0
    for p in range(m):
        total += g[p] * arrays.disc[p]
    return total * arrays.inv_idcg[q]


def _all_query_ndcg(arrays, scores, tiekey):
    nq = len(arrays.offsets) - 1
    out = np.empty(nq)
    for q in prange(nq):
        out[q] = query_ndcg(arrays, scores, tiekey, q)
    return out


all_query_ndcg, all_query_ndcg_parallel = serial_and_parallel(_all_query_ndcg)


@njit(cache=True)
def rank_discounts(scores_q, labels_q, tiekey_q, disc, k, tie_code):
    """``d[i]``: the discount of document i's current rank, 0 beyond rank k.

    Ranks come from the scores under the tie policy; ``AVERAGE`` ranks tied documents in input
    order (a swap moves two documents, not an expectation over their orders).
    """
    n = len(scores_q)
    order = rank_order(scores_q, labels_q, tiekey_q,
                       INPUT_ORDER if tie_code == AVERAGE else tie_code)
    d = np.zeros(n)
    for p in range(min(k, n)):
        d[order[p]] = disc[p]
    return d


@njit(cache=True)
def swap_delta(gains_q, d, i, j, inv_idcg):
    """``|ΔNDCG@k| = |g_i - g_j| |d_i - d_j| / IDCG@k`` of swapping the ranks of documents i and
    j, with ``d`` from :func:`rank_discounts`; 0 when ``inv_idcg`` = 0 (a fixed query)."""
    return abs((gains_q[i] - gains_q[j]) * (d[i] - d[j])) * inv_idcg


class NDCGScorer:
    """NDCG@k under one convention for fixed labels and query structure.

    Precomputes gains and 1/IDCG@k; queries whose NDCG the convention fixes regardless of the
    order (:func:`ltrconv.evaluation.compiled.fixed`: IDCG@k = 0, a negative IDCG@k unless
    ``negative=keep-divide``, n < k under ``short=zero``) get ``inv_idcg = 0`` and their fixed
    value. Under ``empty=skip`` that value is NaN: such a query adds nothing to the objective and
    :meth:`mean` leaves it out (``counted`` marks the others).
    """

    def __init__(self, y, offsets, convention: str | Convention, k: int, docid=None,
                 max_label: int | None = None, conventions=None):
        """``convention``: a Convention, or a name read against ``conventions`` (a
        :class:`~ltrconv.evaluation.convention_set.ConventionSet`; default: the built-in
        conventions) or a canonical string."""
        self.convention = get(convention, conventions)
        self.k = int(k)
        if self.k < 1:
            raise LtrconvError(f"cutoff must be >= 1, got {k}")
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.raw_y = np.asarray(y)
        labels = Labels.of(convention_labels(self.raw_y, self.convention, None, None), max_label)
        self.y = labels.index
        self.max_label = max_label if max_label is not None else (
            int(labels.top) if labels.direct else None)
        self.gains = labels.gain_table(self.convention)[self.y]
        n_max = max(int(np.diff(self.offsets).max()), self.k)
        self.disc = self.convention.discounts(n_max)
        self.tie_code = TIE_CODES[self.convention.ties]
        self.docid = docid
        self.tiekey = docid_ranks(docid if self.tie_code == DOCID_DESC else None, len(self.y))
        sizes = np.diff(self.offsets)
        nq = len(sizes)
        idcg = np.array([ideal_dcg(self.gains[a:b], self.disc, self.k)
                         for a, b in zip(self.offsets[:-1], self.offsets[1:])])
        fixed, value = compiled.fixed(idcg, sizes, self.k, compiled.Rule.of(self.convention))
        with np.errstate(divide="ignore"):
            self.inv_idcg = np.where(fixed, 0.0, 1.0 / np.where(fixed, 1.0, idcg))
        self.fallback = np.where(fixed, value, 0.0)
        self.counted = ~np.isnan(self.fallback)
        if nq and not self.counted.any():
            raise LtrconvError(f"none of the {nq} queries has a relevant document: convention "
                               f"{self.convention} (empty=skip) leaves every one out")

    def per_query(self, scores) -> np.ndarray:
        """NDCG@k of each query (NaN for a skipped one)."""
        scores = np.asarray(scores, dtype=np.float64)
        if len(scores) != len(self.y):
            raise InputError(f"{len(scores)} scores for {len(self.y)} documents")
        tiekey = self.tiekey
        if self.convention.scores == "float32":
            with np.errstate(over="ignore"):
                scores = scores.astype(np.float32).astype(np.float64)
        if self.tie_code >= KEYED:
            tiekey = sort_places(scores, self.offsets, self.tie_code)
        kernel = all_query_ndcg_parallel if use_parallel(len(scores)) else all_query_ndcg
        return kernel(self._arrays, scores, tiekey)

    def mean(self, scores) -> float:
        """Mean NDCG@k over the counted queries (all but the skipped ones)."""
        per_query = self.per_query(scores)
        if self.convention.skips:
            return float(per_query[self.counted].mean())
        return float(per_query.mean())

    @property
    def arrays(self) -> QueryArrays:
        """The arrays a numba training loop scores with (see :class:`QueryArrays`).

        Training code ranks raw scores by ``tie_code`` and ``tiekey``, so a convention that
        compares scores as float32 (other than ``docid-desc``) or follows a sort artefact is
        refused here; :meth:`per_query` and :meth:`mean` take every convention.
        """
        conv = self.convention
        if conv.scores == "float32" or self.tie_code >= KEYED:
            what = "compares scores as float32" if conv.scores == "float32" else \
                f"ranks ties by a sort artefact ({conv.ties})"
            raise LtrconvError(
                f"convention {conv} {what}, which training code does not reproduce; it can "
                "select models (validation) and evaluate, not drive an NDCG-based objective")
        return self._arrays

    @property
    def _arrays(self) -> QueryArrays:
        return QueryArrays(self.gains, self.y, self.tiekey, self.offsets, self.disc, self.k,
                           self.tie_code, self.inv_idcg, self.fallback)

    def with_convention(self, convention: "str | Convention") -> "NDCGScorer":
        """The same labels, queries, cutoff and gain-table width under another convention."""
        return NDCGScorer(self.raw_y, self.offsets, convention, self.k, docid=self.docid,
                          max_label=self.max_label)
