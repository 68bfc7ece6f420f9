"""Metrics of a run against its qrels, under conventions with the run axes
(:data:`ltrconv.evaluation.axes.AXES`, those acting on runs). Arrays in (query ids, docids, grades or scores, as a
reader or a DataFrame gives them), :class:`~ltrconv.evaluation.metrics.Evaluation` out.

For each convention: the run's rows are deduplicated (``duplicates``), labelled from the qrels
(an unjudged document 0, or dropped under ``unjudged=drop``), restricted to the qrels' queries
(run-only queries are ignored), cut to the top ``depth`` of each ranking, and evaluated by
:func:`~ltrconv.evaluation.metrics.evaluate`. Under ``ideal=qrels``
``NDCG@k = DCG@k / IDCG@k`` with ``IDCG@k`` over every judged document of the query, and
``AP = sum_{relevant r} P@r / #relevant in the qrels``. A qrels query left without a ranked
document is skipped or, under ``missing=zero``, has every metric 0.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import InputError, shown
from .compiled import Rule, ndcg
from . import axes
from .conventions import RUN_AXES, Convention, get, library, run_form
from .labels import convention_labels
from .metrics import (METRICS, Evaluation, evaluate_valid, metric_names, parse_cutoffs,
                      warn_float32_range)
from .queries import MAX_LABEL
from .run_ids import ExactIds, first_duplicate, run_ids
from .sortkeys import ascending32, descending32, score_order


@dataclass(frozen=True)
class Located:
    """A run's or qrels' columns, with where each row came from: ``source`` (a file name or
    "run"/"qrels") and ``lines`` (1-based line of each row; None: the row number)."""

    qid: Any  # numpy array or pandas Series of ids
    docid: Any
    value: np.ndarray  # grade (qrels) or score (run), float64
    source: str
    lines: np.ndarray | None = None
    # each query's rows already in the order its tool ranks them: a ranx Run sorts its
    # documents once, when it is made (numba's quicksort), and evaluates them in that order
    ranked: bool = False

    def where(self, row: int) -> tuple[str, int]:
        return self.source, int(self.lines[row]) if self.lines is not None else row + 1


def _at(ids: Any, i: int) -> str:
    if hasattr(ids, "iloc"):
        return str(ids.iloc[i])
    item = ids[i]
    return str(item.as_py() if hasattr(item, "as_py") else item)


def _keep_rows(ids: ExactIds, policy: str, value: np.ndarray):
    """Rows kept under ``duplicates=policy``, ``slice(None)`` when every row is, and the scores:
    ``first`` keeps a docid's first line; ``last`` its first line with the last line's score
    (a dict updated line by line: pytrec_eval, ir_measures, ranx); ``refuse`` every row
    (:func:`_refuse_duplicates` looks at what is ranked)."""
    if policy == "refuse" or ids.run_duplicate() is None:
        return ALL, value
    key = ids.run_key()
    first = np.unique(key, return_index=True)[1]
    if policy == "last":
        last = len(key) - 1 - np.unique(key[::-1], return_index=True)[1]
        value = value.copy()
        value[first] = value[last]
    return np.sort(first), value


def _refuse_duplicates(ids: ExactIds, rows, run: Located) -> None:
    """An InputError at the first docid retrieved twice among ``rows``: the rows of the
    queries the qrels judge, within the depth, as trec_eval 9.0.8 checks them (a repeat in
    another query, or below ``-M``, it evaluates)."""
    if ids.run_duplicate() is None:  # none in the whole run
        return
    key = ids.run_key()
    dup = first_duplicate(key if isinstance(rows, slice) else key[rows])
    if dup is None:
        return
    first, later = dup if isinstance(rows, slice) else (int(rows[i]) for i in dup)
    src, line = run.where(later)
    raise InputError(f"docid {shown(_at(run.docid, later))} of query "
                     f"{shown(_at(run.qid, later))} is retrieved again (first at line "
                     f"{run.where(first)[1]}); trec_eval refuses duplicate docs: remove it, "
                     "or evaluate under a convention with duplicates=first or last", src, line)


ALL = slice(None)
"""Every row, in order: indexing with it makes views, not copies."""


def _subset(rows, sel: np.ndarray) -> np.ndarray:
    """``rows[sel]`` (``sel`` positions or a mask), also for :data:`ALL`."""
    if isinstance(rows, slice):
        return np.flatnonzero(sel) if sel.dtype == bool else sel
    return rows[sel]


def _top_depth(qcode, score, dockey, conv: Convention, depth: int) -> np.ndarray:
    """Rows within the top ``depth`` of their query's ranking (rows grouped by query, in input
    order within a query); ties ordered as ``docid-desc`` does, else in input order, scores
    compared at the convention's precision."""
    n = len(qcode)
    if conv.ties == "docid-desc":
        order = np.lexsort((-dockey, -score.astype(np.float32), qcode))
    else:  # scores as the convention compares them (float32 under scores=float32)
        order = np.lexsort((np.arange(n), -(score.astype(np.float32) if conv.float32_scores
                                            else score), qcode))
    starts = np.searchsorted(qcode[order], qcode[order], side="left")
    keep = np.zeros(n, dtype=bool)
    keep[order[np.arange(n) - starts < depth]] = True
    return np.flatnonzero(keep)


def _within(qcode: np.ndarray, order: np.ndarray, depth: int) -> np.ndarray:
    """The places (ascending) that ``order`` ranks within the top ``depth`` of their query
    (``qcode`` grouped by query)."""
    qs = qcode[order]
    first = np.searchsorted(qs, qs, side="left")
    return np.sort(order[np.arange(len(order)) - first < depth])


def _ideal(q_code, gains, conv: Convention, nq: int, ks: np.ndarray) -> np.ndarray:
    """IDCG@k of every query over its judged documents: (nq, len(ks))."""
    order = np.lexsort((-gains, q_code))
    qc = q_code[order]
    rank = np.arange(len(qc)) - np.searchsorted(qc, qc, side="left")
    if not len(rank):
        return np.zeros((nq, len(ks)))
    disc = conv.discounts(int(rank.max()) + 1)
    top = np.flatnonzero(rank < int(ks.max()))  # the ranks the cutoffs reach
    qc, rank = qc[top], rank[top]
    contrib = gains[order[top]] * disc[rank]
    return np.stack([np.bincount(qc, weights=np.where(rank < k, contrib, 0.0), minlength=nq)
                     for k in ks], axis=1)


def _qrels_ideal(cache: dict, q_code, grades, conv: Convention, nq: int, ks) -> np.ndarray:
    """:func:`_ideal` of the qrels under ``conv``, computed once per gain values and discount
    (conventions that differ elsewhere share it)."""
    import hashlib

    gains = conv.gains(grades)
    key = (conv.disc, hashlib.blake2b(np.ascontiguousarray(gains)).digest())
    if key not in cache:
        cache[key] = _ideal(q_code, gains, conv, nq, ks)
    return cache[key]


def evaluate_run_arrays(
    qrels: Located,
    run: Located,
    *,
    conventions: Iterable[str | Convention] = ("trec_eval",),
    cutoffs: str | Iterable[int] = "1-10",
    metrics: Sequence[str] = METRICS,
    engine: str = "auto",
) -> dict[str, Evaluation]:
    """Evaluate ``run`` against ``qrels`` under each convention; ``{key: Evaluation}`` as
    :func:`~ltrconv.evaluation.metrics.evaluate` returns, one row per query evaluated (in the
    order the run first lists them; under ``missing=zero`` the qrels-only ones follow)."""
    if isinstance(conventions, (str, Convention)):  # one convention, not its characters
        conventions = (conventions,)
    convs = [get(c) for c in conventions]
    warn_run_forms(convs)
    if np.all(np.isfinite(run.value)):
        warn_float32_range(run.value, convs)
    with np.errstate(over="ignore"):  # beyond float32's range: +-inf, as said above
        return _evaluate_run(qrels, run, convs, cutoffs, metrics, engine)


class RunFormWarning(UserWarning):
    """A library's LETOR-list convention used on a run, where that library computes another."""


def warn_run_forms(convs: Sequence[Convention]) -> None:
    """Say it, once per convention, when a convention named after a library's NDCG on LETOR
    lists meets a run (unless its run form is among ``convs`` too): the library's NDCG on a run
    with its qrels is its run form (:func:`~ltrconv.evaluation.conventions.run_form`)."""
    for conv in dict.fromkeys(convs):
        form = run_form(conv)
        if form is not None and str(form) not in (str(c) for c in convs):
            moved = ", ".join(f"{a}={axes.BY_NAME[a].spelled(getattr(form, a))}"
                              for a in RUN_AXES if getattr(form, a) != getattr(conv, a))
            warnings.warn(f"convention {conv.name} is {library(conv.name).tool} on LETOR lists; "
                          f"on a run with its qrels the same tool computes {form} ({moved})",
                          RunFormWarning, stacklevel=3)


def _evaluate_run(qrels: Located, run: Located, convs: list[Convention], cutoffs, metrics,
                  engine: str) -> dict[str, Evaluation]:
    ks = parse_cutoffs(cutoffs)
    metrics = tuple(metrics) if not isinstance(metrics, str) else (metrics,)
    if not np.all(np.isfinite(run.value)):
        bad = int(np.flatnonzero(~np.isfinite(run.value))[0])
        raise InputError(f"score {run.value[bad]} is not finite", *run.where(bad))
    if not np.all(np.isfinite(qrels.value)):
        bad = int(np.flatnonzero(~np.isfinite(qrels.value))[0])
        raise InputError(f"grade {qrels.value[bad]} is not finite", *qrels.where(bad))
    if np.any(np.abs(qrels.value) > MAX_LABEL):
        bad = int(np.flatnonzero(np.abs(qrels.value) > MAX_LABEL)[0])
        raise InputError(f"grade {qrels.value[bad]:g} is beyond +-{MAX_LABEL}, the largest "
                         "accepted (gains are tabulated per label)", *qrels.where(bad))
    for what, located in (("qrels", qrels), ("run", run)):
        if not len(located.qid):
            raise InputError(f"the {what} {'are' if what == 'qrels' else 'is'} empty (no "
                             "line to evaluate)", located.source)
    ids = run_ids(run, qrels)
    names = tuple(m for m in metrics)
    need = tuple(dict.fromkeys(names + ("NDCG", "DCG")))
    if not all(_dcg_only_applies(c, need, engine) and c.depth is None and c.unjudged == "nonrel"
               for c in convs):
        ids.encode_all()  # every row's judgment or docid will be asked for
    r_q, q_q, quniq = ids.r_q, ids.q_q, ids.quniq
    nq = len(quniq)
    dup = ids.qrels_duplicate()
    if dup is not None:
        src, line = qrels.where(dup[1])
        raise InputError(f"docid {shown(_at(qrels.docid, dup[1]))} of query "
                         f"{shown(_at(qrels.qid, dup[1]))} is judged again (first at line "
                         f"{qrels.where(dup[0])[1]})", src, line)
    in_qrels = np.zeros(nq, dtype=bool)
    in_qrels[q_q] = True
    if not in_qrels[r_q].any():
        raise InputError(f"no query in common with the qrels {printable_name(qrels.source)} "
                         f"(run queries e.g. {shown(_at(run.qid, 0))}, qrels queries e.g. "
                         f"{shown(_at(qrels.qid, 0))})", run.source)
    # Conventions that select the same rows and read the grades alike share the selection and
    # one engine call (in which those of one tie policy share one sort of each query).
    has_dup = ids.run_duplicate() is not None
    groups: dict[tuple, list[int]] = {}
    for i, conv in enumerate(convs):
        key = (conv.duplicates if has_dup else None, conv.depth,
               (conv.ties == "docid-desc", conv.float32_scores) if conv.depth else None,
               conv.unjudged,
               conv.labels, conv.negative, conv.max_label)
        groups.setdefault(key, []).append(i)
    done: dict[int, Evaluation] = {}
    ideals: dict = {}  # the qrels' IDCG@k by gain values and discount
    shared = SharedRankings(ids, nq)
    for members in groups.values():
        first = convs[members[0]]
        rows, listed, value = _select(first, ids, run, qrels, in_qrels, nq, shared)
        grade_q = convention_labels(np.asarray(qrels.value, dtype=np.float64), first,
                                    quniq[q_q], qrels.source,
                                    np.arange(1, len(q_q) + 1) if qrels.lines is None
                                    else qrels.lines)
        rq = r_q[rows]

        every: list[np.ndarray] = []  # the grades of every row, once asked for

        def labels(sel=ALL, rows=rows, grade_q=grade_q, every=every):
            """The grades of the run rows ``rows[sel]`` (0 where unjudged)."""
            if isinstance(sel, slice) and every:
                return every[0]
            j = ids.judged_at(_subset(rows, sel) if not isinstance(sel, slice) else rows)
            out = np.where(j >= 0, grade_q[np.maximum(j, 0)], 0.0)
            if isinstance(sel, slice):
                every.append(out)
            return out

        group = [convs[i] for i in members]
        rankings = [c.with_(ties="input-order") if (run.ranked and c.ties == "numba-quicksort")
                    else c for c in group]
        evs = _evaluate_lists(rankings, labels, value, rq, rows, ids, ks, need, engine, shared)
        for i, conv, ev in zip(members, group, evs):
            done[i] = _query_values(conv, ev, listed, in_qrels, rq, q_q, grade_q, nq, quniq, ks,
                                    names, labels, ideals)
    return {str(conv): done[i] for i, conv in enumerate(convs)}


class SharedRankings:
    """Each tie policy's ranking of the run's rows, sorted once and shared by every convention
    and cutoff that ranks by it: a convention's selection of rows (its duplicates, the qrels'
    queries, its depth, its unjudged rule) takes rows away, which leaves the others in their
    order, so a selection's ranking is the shared one restricted to it, without another sort.
    For ``docid-desc`` and ``input-order`` (each at its convention's score precision), by
    :func:`~ltrconv.evaluation.sortkeys.score_order`; None where that declines."""

    def __init__(self, ids: ExactIds, nq: int):
        self.ids, self.nq = ids, nq
        self._made: dict[tuple, tuple[np.ndarray, np.ndarray | None]] = {}

    def ranked_rows(self, value: np.ndarray, conv: Convention) -> np.ndarray | None:
        """The run's rows, query by query (in query code order), each query's ranked under
        ``conv``'s tie policy with the scores ``value``."""
        if conv.ties not in _ORDERED:
            return None
        key = (conv.ties, conv.float32_scores, id(value))
        if key not in self._made:  # the scores kept with it: their id is not reused
            self._made[key] = value, self._rank(value, conv)
        return self._made[key][1]

    def _rank(self, value: np.ndarray, conv: Convention) -> np.ndarray | None:
        r_q = self.ids.r_q
        grouped = not (r_q[1:] < r_q[:-1]).any()
        by_q = ALL if grouped else np.argsort(r_q, kind="stable")
        qpos = r_q[by_q]
        offsets = np.concatenate(([0], np.cumsum(np.bincount(qpos, minlength=self.nq))))
        tiekey = self.ids.doc_rank(ALL)[by_q] if conv.ties == "docid-desc" else None
        order = score_order(qpos, offsets, value[by_q], float32=conv.float32_scores,
                            tiekey=tiekey)
        if order is None or grouped:
            return order
        return by_q[order]

    def order(self, rows, value: np.ndarray, conv: Convention) -> np.ndarray | None:
        """The places in ``rows`` (run rows grouped by query, in query code order, or
        :data:`ALL`) ranked under ``conv``: each query's places by score descending."""
        ranked = self.ranked_rows(value, conv)
        if ranked is None or isinstance(rows, slice):
            return ranked
        place = np.full(len(self.ids.r_q), -1, dtype=np.int64)
        place[rows] = np.arange(len(rows))
        out = place[ranked]
        return out[out >= 0]


def _select(conv: Convention, ids, run: Located, qrels: Located, in_qrels, nq: int,
            shared: SharedRankings):
    """The run rows ``conv`` ranks (its duplicates, the qrels' queries, its depth, its unjudged
    rule), grouped by query; which queries the run ranks before depth and unjudged documents
    take rows away; every row's score (under ``duplicates=last``, a docid's last score at its
    first row)."""
    r_q = ids.r_q
    rows, value = _keep_rows(ids, conv.duplicates, run.value)
    kept = in_qrels[r_q[rows]]
    if not kept.all():
        rows = _subset(rows, kept)
    rq = r_q[rows]
    if len(rq) and (rq[1:] < rq[:-1]).any():  # a run grouped by query is in order already
        rows = _subset(rows, np.argsort(rq, kind="stable"))
    listed = np.bincount(r_q[rows], minlength=nq) > 0
    if conv.depth is not None and len(rq):  # before unjudged ones go, as trec_eval -M -J
        order = shared.order(rows, value, conv)
        rows = _subset(rows, _top_depth(r_q[rows], value[rows], ids.doc_rank(rows), conv,
                                        conv.depth) if order is None else
                       _within(r_q[rows], order, conv.depth))
    if conv.duplicates == "refuse":  # as trec_eval: after the qrels' queries and the depth
        _refuse_duplicates(ids, rows, run)
    if conv.unjudged == "drop":  # a negative grade is no judgment here (trec_eval -J)
        j = ids.judged_at(rows)
        rows = _subset(rows, (j >= 0) & (qrels.value[np.maximum(j, 0)] >= 0))
    return rows, listed, value


def _query_values(conv: Convention, ev: Evaluation, listed, in_qrels, rq, q_q, grade_q, nq: int,
                  quniq, ks, names, labels, ideals: dict) -> Evaluation:
    """The run's Evaluation under ``conv`` from the engine's on its ranked lists ``ev``: every
    query the run ranks, also one whose documents were all dropped (an empty ranking: every
    metric 0 but NDCG), then under missing=zero the qrels queries it lacks; NDCG@k by the one
    rule, of the qrels' IDCG@k under ideal=qrels."""
    cols = list(ev.columns)
    qids_code = np.flatnonzero(listed)
    if conv.missing == "zero":
        qids_code = np.concatenate([qids_code, np.flatnonzero(in_qrels & ~listed)])
    at = np.full(nq, -1, dtype=np.int64)
    at[qids_code] = np.arange(len(qids_code))
    values = np.zeros((len(qids_code), len(cols)))
    values[at[ev.qids]] = ev.values
    n = np.bincount(rq, minlength=nq)[qids_code]
    ndcg_cols = [cols.index(f"NDCG@{k}") for k in ks]
    # with the list's ideal, NDCG@k as the engine gave it; an empty ranking (n = 0) has
    # DCG@k = 0 and IDCG@k = 0
    if conv.ideal == "qrels":
        idcg = _qrels_ideal(ideals, q_q, grade_q, conv, nq, ks)[qids_code]
        values[:, ndcg_cols] = ndcg(values[:, [cols.index(f"DCG@{k}") for k in ks]], idcg,
                                    n[:, None], ks, Rule.of(conv))
    else:
        values[np.ix_(n == 0, ndcg_cols)] = ndcg(0.0, 0.0, 0, ks, Rule.of(conv))
    if conv.ideal == "qrels" and "MAP" in cols:  # AP over the relevant documents judged
        rel_q = np.bincount(q_q, weights=grade_q >= conv.rel, minlength=nq)[qids_code]
        rel_l = np.bincount(rq, weights=labels() >= conv.rel, minlength=nq)[qids_code]
        m = cols.index("MAP")
        with np.errstate(divide="ignore", invalid="ignore"):
            values[:, m] = np.where(rel_q > 0, values[:, m] * rel_l / np.maximum(rel_q, 1), 0.0)
    keep = [cols.index(c) for c in metric_names(ks.tolist(), False, names)]
    skipped = None
    if conv.skips:
        skipped = np.all(np.isnan(values[:, ndcg_cols]), axis=1)
        values[skipped] = np.nan
    return Evaluation(conv, quniq[qids_code], tuple(cols[i] for i in keep), values[:, keep],
                      skipped)


def printable_name(source: str) -> str:
    from ..errors import printable

    return printable(source)


def _evaluate_lists(convs, labels, value, q, rows, ids, ks, need, engine,
                    shared: SharedRankings) -> list[Evaluation]:
    """The engine on the ranked lists (ideal from the list, as for LETOR input) under each of
    ``convs``, in one call; ``labels(sel)`` gives the grades of the rows at positions ``sel``,
    ``value[rows]`` their scores. Under ideal=qrels the engine's NDCG@k is not used (the run's
    is made of DCG@k), and with NDCG and DCG alone and one ranking per query,
    :func:`_dcg_only` sorts in numpy instead. Otherwise the rankings of ``shared`` go to the
    numpy engine (where the engine would sort, the run's rows are sorted once for all)."""
    score = value[rows]
    bases = [c.with_(ideal="list", unjudged="nonrel", missing="skip", duplicates="refuse",
                     depth=None, empty=0.0 if c.ideal == "qrels" else c.empty) for c in convs]
    if not len(q):
        cols = tuple(metric_names(ks.tolist(), False, need))
        return [Evaluation(b, np.zeros(0, dtype=np.int64), cols, np.zeros((0, len(cols))))
                for b in bases]
    out: dict[int, Evaluation] = {}
    fast = [i for i, c in enumerate(convs) if _dcg_only_applies(c, need, engine)]
    made: dict[tuple, Evaluation] = {}
    for i in fast:  # the DCG depends on the ranking, the gains and the discounts only
        c = convs[i]
        key = (c.ties, c.gain, c.disc)
        if key not in made:
            made[key] = _dcg_only(c, labels, score, q,
                                  lambda sel: ids.doc_rank(_subset(rows, sel)), ks)
        out[i] = made[key]
    rest = [i for i in range(len(convs)) if i not in out]
    if rest:
        y = labels()
        distinct = list(dict.fromkeys(bases[i] for i in rest))
        orders = {}
        if engine in ("auto", "numpy"):
            for c in distinct:
                key = (c.ties, c.float32_scores)
                if key not in orders:
                    order = shared.order(rows, value, c)
                    if order is not None:
                        orders[key] = order
        offsets = np.concatenate(([0], np.flatnonzero(q[1:] != q[:-1]) + 1, [len(q)]))
        res = evaluate_valid(y, score, offsets, q[offsets[:-1]], q, distinct, ks,
                             ids.doc_rank(rows), None, False, need, engine, None,
                             orders or None,
                             list_ideal=any(convs[i].ideal == "list" for i in rest))
        by_base = dict(zip(distinct, res.values()))
        for i in rest:
            out[i] = by_base[bases[i]]
    return [out[i] for i in range(len(convs))]


_ORDERED = ("input-order", "docid-desc")
"""Tie policies that give one ranking, which :func:`_dcg_only` sorts out in numpy (with the
policy's own score precision: float32 for ``docid-desc``, as given otherwise)."""


def _dcg_only_applies(conv: Convention, need, engine: str) -> bool:
    """Whether :func:`_dcg_only` evaluates ``conv`` on the lists (NDCG and DCG alone, the ideal
    from the qrels, one ranking per query), looking at each query's top candidates only."""
    return (engine == "auto" and conv.ideal == "qrels" and conv.ties in _ORDERED
            and conv.scores is None and set(need) <= {"NDCG", "DCG"})


def _dcg_only(conv, labels, score, q, doc_rank, ks) -> Evaluation:
    """DCG@k of every query (NDCG@k left 0, for the qrels' IDCG@k to make), as the engine
    computes it: the same order, gains and discounts, summed rank by rank. ``q`` is grouped
    (non-decreasing); grades and docid ranks are asked for the candidate rows only."""
    k = int(ks.max())
    if conv.ties == "docid-desc":
        cand = _top_candidates(q, score, k)
        order = cand[np.lexsort((-doc_rank(cand), -score[cand].astype(np.float32), q[cand]))]
    else:
        order = np.lexsort((np.arange(len(q)), -score, q))
    qs = q[order]
    rank = np.arange(len(qs)) - np.searchsorted(qs, qs, side="left")
    top = rank < k
    qs, rank, gains = qs[top], rank[top], conv.gains(labels(order[top]))
    contrib = gains * conv.discounts(k)[rank]
    new = np.empty(len(qs), dtype=bool)
    new[:1] = True
    np.not_equal(qs[1:], qs[:-1], out=new[1:])
    present, qi = qs[new], np.cumsum(new) - 1
    dcg = [np.bincount(qi, weights=np.where(rank < c, contrib, 0.0), minlength=len(present))
           for c in ks]
    cols = tuple([f"NDCG@{c}" for c in ks] + [f"DCG@{c}" for c in ks])
    values = np.hstack([np.zeros((len(present), len(ks))), np.stack(dcg, axis=1)])
    return Evaluation(conv, present, cols, values)


def _top_candidates(q: np.ndarray, score: np.ndarray, k: int) -> np.ndarray:
    """Rows whose float32 score reaches their query's k-th highest: a superset of each
    query's top k under ``docid-desc``. ``q`` is non-decreasing. A run listing each query's
    documents by score (as TREC runs are written) gives the k-th highest without a sort;
    otherwise one sort of 64-bit keys (query, then score descending as an order-preserving
    integer)."""
    f = score.astype(np.float32)
    f += np.float32(0.0)  # no negative zero
    first = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
    last = np.append(first[1:], len(q))
    at = np.minimum(first + k, last) - 1
    down = f[1:] <= f[:-1]
    down[first[1:] - 1] = True  # a query's first row may score above the one before
    listed_by_score = down.all()
    del down
    if not listed_by_score:
        key = q.astype(np.uint64)
        key <<= np.uint64(32)
        key |= descending32(f)
        key.sort()
        kth = ascending32(key[at].astype(np.uint32))
        del key
    else:
        kth = f[at]
    return np.flatnonzero(f >= np.repeat(kth, last - first))
