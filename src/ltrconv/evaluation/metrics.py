"""Per-query ranking metrics under a convention.

For a query with n documents sorted by score (ties per the convention), cutoff k:
``DCG@k = sum_{r <= min(k,n)} gain(l_r) disc(r)``, ``NDCG@k = DCG@k / IDCG@k`` with the
convention's value for IDCG = 0 and for n < k; ``P@k = #{r <= k: l_r >= rel} / (k or min(k,n))``;
``AP = sum_{relevant r} P@r / #relevant`` (0 without relevant documents);
``RR = 1 / rank of the first relevant``; ``ERR@k = sum_r R_r / r prod_{i<r} (1 - R_i)`` with
``R = (2^l - 1) / 2^max_label``. Tie policy ``average`` gives expectations over tied orders.
On request, ``RankDCG = (DCG' - min DCG') / (max DCG' - min DCG')`` over the whole list
(Katerenchuk & Rosenberg, Sec. 4), ``DCG' = sum_r rel'(l_r) / D_r`` with ``rel'`` the label's
place among the query's distinct labels counted from the lowest (1) and ``D_r`` the place of the
ideal order's r-th label counted from the highest (1); see
:func:`ltrconv.evaluation._kernels.sorted_query_rankdcg`.

:func:`evaluate` validates and dispatches to one of two engines that give identical values:
the numba kernel (:mod:`ltrconv.evaluation._kernels`) or its numpy twin (:mod:`ltrconv.evaluation._numpy_kernel`),
which spares a short-lived process numba's start-up. :class:`NDCGScorer` is the training-side
view (fixed labels, many score vectors) and always runs on numba.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..errors import InputError, LtrconvError, shown
from ._numpy_kernel import all_query_metrics as numpy_all_query_metrics
from .artefacts import sort_places
from .compiled import Lists, Rule, compile_conventions, ndcg
from .conventions import Convention, get
from .labels import Labels, convention_labels
from .queries import MAX_CUTOFF, MAX_LABEL, docid_ranks, offsets_from_qid
from .ties import CODES as TIE_CODES
from .ties import KEYED


MAX_CUTOFFS = 1_000
"""Most distinct cutoffs in one evaluation: each adds four columns (NDCG, DCG, P, ERR) per
query and convention to the work and the output."""


def parse_cutoffs(spec: str | int | Iterable[int]) -> np.ndarray:
    """``'1-10'``, ``'1,3,5'``, ``10`` or a list, as a sorted int64 array of k >= 1.

    At most :data:`MAX_CUTOFFS` distinct cutoffs, each at most :data:`MAX_CUTOFF`.
    """
    where = f"cutoffs {shown(spec)}"

    def check(k: int) -> int:
        if k < 1:
            raise LtrconvError(f"{where}: cutoff {k} must be >= 1")
        if k > MAX_CUTOFF:
            raise LtrconvError(f"{where}: cutoff {k} is above {MAX_CUTOFF}, the largest accepted "
                               "(discount tables are sized by the largest k)")
        return k

    ks: set[int] = set()
    if isinstance(spec, (bool, np.bool_)):
        raise LtrconvError(f"{where}: expected e.g. '1-10' or '1,5,10'")
    if isinstance(spec, (int, np.integer)):
        ks.add(check(int(spec)))
    elif isinstance(spec, str):
        for part in spec.split(","):
            m = re.fullmatch(r"\s*([0-9]+)\s*(?:-\s*([0-9]+)\s*)?", part)
            if not m:
                raise LtrconvError(f"{where}: expected e.g. '1-10' or '1,5,10'")
            lo = check(int(m.group(1)))
            hi = check(int(m.group(2))) if m.group(2) else lo
            if hi < lo:
                raise LtrconvError(f"{where}: range {lo}-{hi} is empty (its end is below its "
                                   f"start); did you mean {hi}-{lo}?")
            ks.update(range(lo, hi + 1))
            if len(ks) > MAX_CUTOFFS:
                break
    else:
        try:
            items = list(spec)
        except TypeError:
            raise LtrconvError(f"{where}: expected e.g. '1-10', '1,5,10' or a list of integers") from None
        for k in items:
            if isinstance(k, (float, np.floating)) and float(k).is_integer():
                k = int(k)
            if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
                raise LtrconvError(f"{where}: cutoff {shown(k)} is not an integer")
            ks.add(check(int(k)))
    if not ks:
        raise LtrconvError(f"{where}: need at least one cutoff")
    if len(ks) > MAX_CUTOFFS:
        raise LtrconvError(f"{where}: more than {MAX_CUTOFFS} distinct cutoffs (each adds four "
                           "metric columns per query and convention)")
    return np.array(sorted(ks), dtype=np.int64)


def _real_vector(values, what: str) -> np.ndarray:
    """``values`` as a float64 vector; a complex or non-numeric entry raises
    :class:`InputError` naming the first such document."""
    arr = np.asarray(values)
    if arr.dtype.kind == "c":
        raise InputError(f"{what} must be real numbers, got {arr.dtype} values")
    if arr.ndim != 1:
        raise InputError(f"{what} must be one-dimensional, got shape {arr.shape}")
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError):
        for i, v in enumerate(arr.tolist()):
            try:
                if isinstance(v, complex):
                    raise TypeError
                float(v)
            except (TypeError, ValueError):
                raise InputError(f"{what[:-1]} of document {i + 1} is {shown(v)}, not a "
                                 "real number") from None
        raise


def _validate(y, scores, offsets) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels as given (numbers, finite, |l| <= MAX_LABEL; what else a convention accepts is
    :func:`ltrconv.evaluation.labels.convention_labels`' business), scores as float64, offsets as int64."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise InputError(f"labels must be one-dimensional, got shape {y.shape}")
    if len(y) == 0:
        raise InputError("no documents to evaluate (empty labels)")
    if y.dtype.kind == "c":
        raise InputError(f"labels must be real numbers, got {y.dtype} values")
    scores = _real_vector(scores, "scores")
    offsets = _offsets_vector(offsets)
    if len(y) != len(scores):
        raise InputError(f"{len(scores)} scores for {len(y)} documents")
    if not np.all(np.isfinite(scores)):
        bad = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise InputError(f"score of document {bad + 1} is {scores[bad]} (not finite)")
    if y.dtype == np.bool_ or not np.issubdtype(y.dtype, np.number):
        raise InputError(f"labels must be numbers, got {y.dtype} values")
    if len(y) and not np.issubdtype(y.dtype, np.integer) and not np.all(np.isfinite(y)):
        bad = int(np.flatnonzero(~np.isfinite(y))[0])
        raise InputError(f"label of document {bad + 1} is {y[bad]} (not finite)")
    if len(y) and y.max() > MAX_LABEL:
        raise InputError(f"label {y.max()} is above {MAX_LABEL}, the largest accepted "
                         "(gains are tabulated per label)")
    if len(y) and y.min() < -MAX_LABEL:
        raise InputError(f"label {y.min()} is below -{MAX_LABEL}, the smallest accepted")
    if len(offsets) < 2 or offsets[0] != 0 or offsets[-1] != len(y) or np.any(np.diff(offsets) <= 0):
        raise InputError("query offsets must rise strictly from 0 to the number of documents")
    return y, scores, offsets


def _offsets_vector(offsets) -> np.ndarray:
    """``offsets`` as an int64 vector; fractional, complex or multi-dimensional ones are
    refused, not truncated."""
    arr = np.asarray(offsets)
    if arr.ndim != 1:
        raise InputError(f"query offsets must be one-dimensional, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise InputError(f"query offsets must be integers, got {shown(arr.tolist())}")
    return arr.astype(np.int64)


def _query_ids(qid, offsets, n_docs: int) -> np.ndarray:
    """The per-document ``qid`` checked: one per document, comparable values of one kind
    (no NaN, not a mix of strings and numbers), and, with ``offsets``, constant inside each
    query and changing between neighbours."""
    qid = np.asarray(qid)
    if qid.ndim != 1:
        raise InputError(f"qid must be one-dimensional, got shape {qid.shape}")
    if len(qid) != n_docs:
        raise InputError(f"qid has {len(qid)} entries for {n_docs} documents")
    if qid.dtype.kind == "O":
        kinds = {type(q).__name__ for q in qid.tolist()}
        if len(kinds) > 1 and not kinds <= {"int", "float"}:
            raise InputError(f"qid mixes value types ({', '.join(sorted(kinds))}); give one kind")
    if qid.dtype.kind == "c":
        raise InputError(f"qid must be real numbers or strings, got {qid.dtype} values")
    if qid.dtype.kind == "f" and not np.all(np.isfinite(qid)):
        bad = int(np.flatnonzero(~np.isfinite(qid))[0])
        raise InputError(f"qid of document {bad + 1} is {qid[bad]}")
    if offsets is not None:
        expected = offsets_from_qid(qid)
        if len(expected) != len(offsets) or np.any(expected != offsets):
            first = next((int(a) for a, b in zip(expected, offsets) if a != b),
                         int(min(len(expected), len(offsets))))
            raise InputError(f"qid and offsets disagree: qid gives {len(expected) - 1} queries, "
                             f"offsets {len(offsets) - 1}; first boundary that differs near "
                             f"document {first + 1}")
    return qid


FLOAT32_MAX = float(np.finfo(np.float32).max)


def warn_float32_range(scores: np.ndarray, convs) -> None:
    """Say it, once, when conventions that compare scores as float32 (trec_eval reads them as C
    floats) meet scores beyond float32's range: those compare as +-inf."""
    named = [c.name or c.canonical for c in convs if c.scores == "float32" or c.ties == "docid-desc"]
    if named and len(scores) and float(np.abs(scores).max()) > FLOAT32_MAX:
        n = int(np.count_nonzero(np.abs(scores) > FLOAT32_MAX))
        warnings.warn(f"{n} score(s) beyond float32's range (|s| > 3.4e38) compare as +-inf, "
                      f"tying with each other, under {', '.join(named)} (scores read as float32, "
                      "as trec_eval reads them)", UserWarning, stacklevel=3)


ENGINES = ("auto", "numba", "numpy")

NUMBA_MIN_DOCS = 200_000
NUMBA_MIN_QUERY = 5_000
"""Sizes from which ``engine="auto"`` takes the numba kernel: this many documents, or a query
this long. Below both, the numpy engine finishes before numba would have started (about a
second to import numba and load the compiled kernel; ``benchmarks/bench_startup.py --numba``).
It loops in Python over ranks, so one very long query favours numba. A run's conventions
that break ties by docid or keep input order take the numpy engine at any size: the run is
ranked once, for all of them (:class:`ltrconv.evaluation.runs.SharedRankings`), and the rest
is vectorised (a 10M-line run: 4.8 s of CPU, numba 5.1 s with its start-up)."""


def _use_numba(engine: str, n_docs: int, n_max: int) -> bool:
    """Whether :func:`evaluate` runs the numba kernel: always for ``"numba"``, never for
    ``"numpy"``; for ``"auto"``, on large inputs only."""
    if engine != "auto":
        return engine == "numba"
    return n_docs >= NUMBA_MIN_DOCS or n_max >= NUMBA_MIN_QUERY


CUTOFF_METRICS = ("NDCG", "DCG", "P", "ERR")
WHOLE_LIST_METRICS = ("MAP", "RR")
METRICS = CUTOFF_METRICS + WHOLE_LIST_METRICS
"""Metric families :func:`evaluate` reports; the cutoff ones need a ranking only as deep as
the last cutoff, the whole-list ones (and RankDCG) the whole ranking."""


def metric_names(cutoffs: Sequence[int], rankdcg: bool = False,
                 metrics: Iterable[str] = METRICS) -> list[str]:
    """Column names of :func:`evaluate`, in kernel order."""
    metrics = set(metrics)
    cols = []
    for name in CUTOFF_METRICS:
        if name in metrics:
            cols += [f"{name}@{k}" for k in cutoffs]
    cols += [name for name in WHOLE_LIST_METRICS if name in metrics]
    return cols + (["RankDCG"] if rankdcg else [])


@dataclass(frozen=True)
class Evaluation:
    """Per-query values of every metric under one convention.

    Under ``empty=skip`` a query without relevant document (IDCG@k = 0 at every cutoff) is left
    out: ``skipped`` marks it, its row is NaN, and :meth:`mean` leaves it out of every column
    (NDCG@k is also NaN, and left out, wherever IDCG@k alone is 0, which needs negative gains).
    """

    convention: Convention
    qids: np.ndarray
    columns: tuple[str, ...]
    values: np.ndarray  # (n_queries, n_metrics)
    skipped: np.ndarray | None = None  # (n_queries,) bool; None: nothing skipped

    def __getitem__(self, metric: str) -> np.ndarray:
        try:
            return self.values[:, self.columns.index(metric)]
        except ValueError:
            raise KeyError(f"no metric {metric!r}; have {', '.join(self.columns)}") from None

    @property
    def n_counted(self) -> int:
        """Queries the means count (all but the skipped ones)."""
        return len(self.qids) - (int(self.skipped.sum()) if self.skipped is not None else 0)

    def mean(self) -> dict[str, float]:
        """Arithmetic mean over the queries (empty ones included, unless skipped)."""
        if not self.convention.skips:
            return dict(zip(self.columns, self.values.mean(axis=0).tolist()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a column with no value: NaN
            means = np.nanmean(self.values, axis=0) if len(self.values) else \
                np.full(len(self.columns), np.nan)
        return dict(zip(self.columns, means.tolist()))

    def to_frame(self):
        """The values as a tidy pandas DataFrame: one row per (query, metric), columns
        ``query`` (the qids as given), ``convention`` (this convention's name or canonical
        string), ``metric`` (``NDCG``, ``P``, ``MAP``, ...), ``cutoff`` (an ``Int64`` column,
        ``<NA>`` for the metrics of the whole list) and ``value`` (NaN where the convention
        leaves a query out, so that a group's ``mean()`` is :meth:`mean`'s). Rows run query by
        query, each query's metrics in :attr:`columns` order; ``pd.concat`` joins the frames of
        several conventions."""
        import pandas as pd

        metric, cutoff = zip(*(c.split("@") if "@" in c else (c, None) for c in self.columns))
        nq, nc = len(self.qids), len(self.columns)
        return pd.DataFrame({
            "query": np.repeat(self.qids, nc),
            "convention": str(self.convention),
            "metric": np.tile(np.array(metric, dtype=object), nq),
            "cutoff": pd.array(np.tile(np.array([None if k is None else int(k) for k in cutoff],
                                                dtype=object), nq), dtype="Int64"),
            "value": self.values.reshape(-1).astype(np.float64),
        })


def evaluate(
    y,
    scores,
    qid=None,
    *,
    offsets=None,
    conventions: Iterable[str | Convention] = ("ranklib",),
    cutoffs: str | Iterable[int] = "1-10",
    docid=None,
    docid_rank=None,
    max_label: int | None = None,
    rankdcg: bool = False,
    metrics: Iterable[str] = METRICS,
    engine: str = "auto",
    source: str | None = None,
    convention_set=None,
) -> dict[str, Evaluation]:
    """Evaluate ``scores`` under each convention; returns ``{convention key: Evaluation}``.

    Query structure comes from ``qid`` (contiguous) or ``offsets``. ``docid`` is needed by
    ``docid-desc`` tie policies (``docid_rank``, their byte-order ranks, may be given
    instead, as :attr:`Dataset.docid_rank <ltrconv.data.letor.Dataset.docid_rank>` caches them).
    ``max_label`` sets the gain table size and ERR's maximum grade (default: the largest
    label present). ``rankdcg`` adds a ``RankDCG`` column: ranked by the convention's tie
    policy, and the convention's ``empty`` value for a query whose documents share one label;
    it is computed by the numba kernel whatever the engine. ``metrics`` picks families of
    :data:`METRICS`; without MAP, RR and RankDCG the numba kernel ranks each query only as deep
    as the last cutoff (same values, less work). ``engine`` is ``"numba"``, ``"numpy"`` or
    ``"auto"`` (see :func:`_use_numba`); both give the same values to the last bit.

    ``conventions`` are Convention objects, canonical strings or names, read against
    ``convention_set`` (a :class:`~ltrconv.evaluation.convention_set.ConventionSet`, e.g. a
    conventions file's; default: the built-in conventions); the result is keyed by their names.

    Each convention reads the labels its own way (``labels``, ``negative``, ``max_label``) and
    refuses those it does not accept, naming the document (and ``source``, a file name, if
    given); see :class:`Evaluation` for ``empty=skip``.
    """
    if engine not in ENGINES:
        raise LtrconvError(f"engine {shown(engine)}: expected one of {', '.join(ENGINES)}")
    metrics = tuple(metrics) if not isinstance(metrics, str) else (metrics,)
    unknown = [m for m in metrics if m not in METRICS]
    if unknown or not metrics:
        raise LtrconvError(f"metrics {', '.join(unknown) or '(none)'}: expected some of "
                           f"{', '.join(METRICS)}")
    if offsets is None:
        if qid is None:
            raise LtrconvError("evaluate needs qid or offsets")
        offsets = offsets_from_qid(_query_ids(qid, None, len(np.asarray(y))))
    y, scores, offsets = _validate(y, scores, offsets)
    doc_qid = _query_ids(qid, offsets, len(y)) if qid is not None else None
    qids = doc_qid[offsets[:-1]] if doc_qid is not None else np.arange(len(offsets) - 1)
    ks = parse_cutoffs(cutoffs)
    if isinstance(conventions, (str, Convention)):  # one convention, not its characters
        conventions = (conventions,)
    convs = [get(c, convention_set) for c in conventions]
    if max_label is not None and not 0 <= int(max_label) <= MAX_LABEL:
        raise InputError(f"max_label {max_label} must lie in 0..{MAX_LABEL}")
    if docid_rank is None:
        needs_docid = any(c.ties == "docid-desc" for c in convs)
        if needs_docid and docid is None:
            named = ", ".join(c.name or c.canonical for c in convs if c.ties == "docid-desc")
            warnings.warn(f"{named} break(s) ties by docid, but no docid was given: tied "
                          "documents keep their input order", UserWarning, stacklevel=2)
        docid_rank = docid_ranks(docid if needs_docid else None, len(y))
    docid_rank = np.asarray(docid_rank, dtype=np.int64)
    if docid_rank.shape != (len(y),):
        raise InputError(f"docid_rank has shape {docid_rank.shape} for {len(y)} documents")
    return evaluate_valid(y, scores, offsets, qids, doc_qid, convs, ks, docid_rank, max_label,
                          rankdcg, metrics, engine, source)


def evaluate_valid(y: np.ndarray, scores: np.ndarray, offsets: np.ndarray, qids: np.ndarray,
                   doc_qid, convs: Sequence[Convention], ks: np.ndarray,
                   docid_rank: np.ndarray, max_label: int | None, rankdcg: bool,
                   metrics: tuple[str, ...], engine: str, source: str | None,
                   orders: dict[tuple[str, bool], np.ndarray] | None = None,
                   list_ideal: bool = True) -> dict[str, Evaluation]:
    """:func:`evaluate` on arguments it has checked and read: float64 ``y`` and ``scores``,
    int64 ``offsets`` and ``docid_rank``, Conventions, parsed cutoffs ``ks``. ``orders``:
    rankings the caller made already, keyed by (tie policy, scores compared as float32), each
    a permutation of the documents (query by query, each by score descending under its
    policy); the numpy engine then takes them instead of sorting again. Without
    ``list_ideal`` (numpy engine) IDCG@k is left 0, and NDCG@k is the rule's value for it:
    for a caller that makes NDCG@k of another ideal (a run's qrels)."""
    n_max = int(np.diff(offsets).max())
    disc_len = max(n_max, int(ks.max()))
    every = metric_names(ks.tolist(), rankdcg)
    columns = tuple(metric_names(ks.tolist(), rankdcg, metrics))
    top_only = not rankdcg and not set(metrics) & set(WHOLE_LIST_METRICS)
    # RankDCG is numba's only; rankings made already are numpy's
    numba_engine = rankdcg or (orders is None and _use_numba(engine, len(y), n_max))

    # Conventions that read the same labels, compare the same scores and break ties by the
    # same key share one kernel call; in it, those sharing a tie policy share one sort.
    labels_of: dict[tuple, Labels] = {}
    groups: dict[tuple, list[int]] = {}
    for i, conv in enumerate(convs):
        lab = convention_labels(y, conv, doc_qid, source)
        read = (conv.labels == "trunc", conv.negative == "zero")
        if read not in labels_of:
            labels_of[read] = Labels.of(lab, max_label)
        code = TIE_CODES[conv.ties]
        key = (read, conv.scores == "float32", code if code >= KEYED else -1)
        groups.setdefault(key, []).append(i)
    vals_of: dict[int, np.ndarray] = {}
    warn_float32_range(scores, convs)
    C, sizes = len(ks), np.diff(offsets)[:, None]
    for (read, f32, keyed), members in groups.items():
        labs = labels_of[read]
        s = scores
        if f32:
            with np.errstate(over="ignore"):  # beyond float32's range: +-inf, as float32 code has
                s = scores.astype(np.float32).astype(np.float64)
        tiekey = docid_rank if keyed < 0 else sort_places(s, offsets, keyed)
        # group conventions by tie policy so that each query is sorted once per policy
        todo = sorted(members, key=lambda i: TIE_CODES[convs[i].ties])
        lists = Lists(labs.index, s, tiekey, offsets)
        comp = compile_conventions([convs[i] for i in todo], labs, disc_len)
        if numba_engine:
            import numba

            from ..jit import use_parallel
            from . import _kernels

            if use_parallel(len(y)):
                vals = _kernels.all_query_metrics_parallel(lists, comp, ks, rankdcg, top_only,
                                                           8 * numba.get_num_threads())
            else:
                vals = _kernels.all_query_metrics(lists, comp, ks, rankdcg, top_only, 1)
        else:
            given = {TIE_CODES[convs[i].ties]: orders[(convs[i].ties, convs[i].float32_scores)]
                     for i in todo if (convs[i].ties, convs[i].float32_scores) in (orders or {})}
            vals = numpy_all_query_metrics(lists, comp, ks, given, list_ideal)
        for j, i in enumerate(todo):
            # the kernels give IDCG@k where NDCG@k goes; the rule makes NDCG@k of it
            vals[j][:, :C] = ndcg(vals[j][:, C:2 * C], vals[j][:, :C], sizes, ks,
                                  Rule.of(convs[i]))
            vals_of[i] = vals[j]
    ndcg_cols = [j for j, c in enumerate(every) if c.startswith("NDCG@")]
    keep = [every.index(c) for c in columns] if len(columns) < len(every) else None
    out: dict[str, Evaluation] = {}
    for i, conv in enumerate(convs):
        v = vals_of[i]
        skipped = None
        if conv.skips:
            skipped = np.all(np.isnan(v[:, ndcg_cols]), axis=1)
            v[skipped] = np.nan
        out[str(conv)] = Evaluation(conv, qids, columns, v if keep is None else v[:, keep],
                                    skipped)
    return out


def evaluate_dataset(data, scores, **kwargs) -> dict[str, Evaluation]:
    """:func:`evaluate` on a :class:`~ltrconv.data.letor.Dataset` (anything with ``y``, ``qid``,
    ``offsets`` and ``docid_rank``)."""
    kwargs.setdefault("source", getattr(data, "source", None) or None)
    return evaluate(data.y, scores, data.qid, offsets=data.offsets, docid_rank=data.docid_rank,
                    **kwargs)

