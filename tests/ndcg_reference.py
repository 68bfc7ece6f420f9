"""A plain-Python reference of the per-query metrics under any convention.

Written from the conventions' definition only (``docs/conventions.md``, the axes in
``ltrconv.evaluation.conventions`` and ``ltrconv.evaluation.ir_axes``), one document at a time,
with no shared code with the engine. It reads a convention's attributes (``gain``, ``disc``,
``empty``, ...), so a :class:`ltrconv.Convention` or any object with the same attributes will do.

A query is a list of documents with raw labels, scores and docids in input order.

* Labels are read first (:func:`read_label`): ``labels=int`` refuses a non-integer, ``trunc``
  truncates toward zero, ``real`` keeps the value; a negative label is refused
  (``negative=refuse``), read as 0 (``zero``) or kept (``keep``, ``keep-divide``); a label above
  ``max_label``, or without a value in a gain map, is refused. A refusal raises :class:`Refused`.
* Ranking: score descending, compared as float32 under ``scores=float32`` or
  ``ties=docid-desc``. Tied documents keep their input order (``input-order``), go by docid
  descending in byte order (``docid-desc``), lower label first (``pessimistic``), higher label
  first (``optimistic``), remaining ties in input order; under ``average`` every metric is the
  expectation over all orders of each tie group, enumerated permutation by permutation.
* ``DCG@k = sum_{r <= min(k, n)} gain(l_r) disc(r)``; IDCG@k the same over the ideal labels
  (the list's, or the query's judged documents in the qrels) sorted by gain descending, cut at
  min(k, number of ideal documents).
* NDCG@k, one precedence: IDCG@k == 0, or IDCG@k < 0 unless ``negative=keep-divide``, gives
  ``empty`` (NaN for ``skip``); else n < k under ``short=zero`` gives 0; else DCG@k / IDCG@k.
* ``P@k = #{r <= k: l_r >= rel} / d``, d = k (``pk=k``) or min(k, n) (``pk=min``), 0 when d = 0.
* ``AP = sum_{relevant r} #{relevant in top r} / r``, over the number of relevant ideal
  documents, 0 when there is none.
* A query is skipped (``empty=skip``) when its NDCG@k is NaN at every cutoff evaluated: every
  metric of it is then NaN, and the means leave it out. A mean is taken over the queries not
  skipped, leaving out the NaN values of a column (NDCG@k where IDCG@k alone gives ``empty``).

Runs with qrels (:func:`run_queries`): only the qrels' queries count. Per query: duplicates
(``refuse`` raises :class:`Refused` for one within the depth; ``first`` keeps the first line,
``last`` the last score at the first line's place), the
``depth`` cut (ranking by score, ties by docid descending under ``docid-desc``, else input
order), unjudged documents (``nonrel``: grade 0; ``drop``: unjudged documents and negative
grades are removed from the ranking), then the labels read: those of the ranked documents,
and under ``ideal=qrels`` those of every judged document of the query in the qrels, the ideal
(negative grades included). Every grade of the qrels is read as the convention reads labels
before the run meets them, so a grade it refuses is refused wherever it sits (below the depth,
unjudged under ``drop``, in a query the run lacks). A qrels query the run does not list is left out (``missing=skip``)
or evaluated as an empty ranking (``missing=zero``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

NAN = float("nan")
MAX_TIE_GROUP = 7
"""Largest tie group the ``average`` policy enumerates (7! = 5040 orders)."""


class Refused(Exception):
    """The convention does not accept the input (a label, or a duplicate docid)."""


# ---- labels, gains, discounts ------------------------------------------------------------
def read_label(conv, raw: float) -> float:
    """The label as ``conv`` reads it, or :class:`Refused`."""
    x = float(raw)
    if not math.isfinite(x):
        raise Refused(f"label {raw!r} is not finite")
    if conv.labels == "int":
        if not x.is_integer():
            raise Refused(f"label {raw!r} is not an integer (labels=int)")
    elif conv.labels == "trunc":
        x = float(math.trunc(x))
    elif conv.labels != "real":
        raise ValueError(f"unknown labels={conv.labels!r}")
    x += 0.0  # -0.0 (a truncated -0.5) is 0
    if x < 0:
        if conv.negative == "refuse":
            raise Refused(f"label {raw!r} is negative (negative=refuse)")
        if conv.negative == "zero":
            x = 0.0
    if conv.max_label is not None and x > conv.max_label:
        raise Refused(f"label {raw!r} is above max_label={conv.max_label}")
    if not isinstance(conv.gain, str) and x not in dict(conv.gain):
        raise Refused(f"label {raw!r} has no gain in the gain map")
    return x


def read_labels(conv, raw: Iterable[float]) -> list[float]:
    return [read_label(conv, x) for x in raw]


def gain(conv, label: float) -> float:
    if conv.gain == "exp":
        return 2.0 ** label - 1.0
    if conv.gain == "linear":
        return float(label)
    return float(dict(conv.gain)[label])


def disc(conv, r: int) -> float:
    """The discount of rank r (1-based)."""
    if conv.disc == "log2":
        return 1.0 / math.log2(r + 1)
    if conv.disc == "position":
        return 1.0 / r
    if conv.disc == "letor":
        return 1.0 if r <= 2 else 1.0 / math.log2(r)
    raise ValueError(f"unknown disc={conv.disc!r}")


def uses_float32(conv) -> bool:
    return conv.scores == "float32" or conv.ties == "docid-desc"


def score_key(conv, s: float) -> float:
    s = float(s)
    return float(np.float32(s)) if uses_float32(conv) else s


def docid_key(d) -> bytes:
    return d if isinstance(d, bytes) else str(d).encode("utf-8")


# ---- ranking ------------------------------------------------------------------------------
def tie_groups(conv, scores: Sequence[float]) -> list[list[int]]:
    """Indices grouped by equal score (as compared), groups by score descending, each group in
    input order."""
    keys = [score_key(conv, s) for s in scores]
    order = sorted(range(len(keys)), key=lambda i: -keys[i])  # stable: input order in a group
    groups: list[list[int]] = []
    for i in order:
        if groups and keys[groups[-1][0]] == keys[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def ranked_blocks(conv, labels, scores, docids) -> list[list[int]]:
    """The ranking as consecutive blocks of indices: singletons for a deterministic tie policy,
    whole tie groups (to be averaged over their orders) under ``average``."""
    blocks: list[list[int]] = []
    for g in tie_groups(conv, scores):
        if conv.ties == "average":
            blocks.append(g)
            continue
        if conv.ties == "input-order":
            ordered = g
        elif conv.ties == "docid-desc":
            ordered = sorted(g, key=lambda i: docid_key(docids[i]), reverse=True)
        elif conv.ties == "pessimistic":
            ordered = sorted(g, key=lambda i: labels[i])
        elif conv.ties == "optimistic":
            ordered = sorted(g, key=lambda i: labels[i], reverse=True)
        else:
            raise ValueError(f"tie policy {conv.ties!r} is not modelled")
        blocks.extend([i] for i in ordered)
    return blocks


@lru_cache(maxsize=200_000)
def _block_expectations(gains: tuple, rels: tuple, start: int, before: int):
    """Expected gain, relevance and AP term at each position of a block starting at 0-based
    position ``start`` after ``before`` relevant documents, over every order of the block
    (``itertools.permutations``: m! orders, each equally likely)."""
    m = len(gains)
    if m > MAX_TIE_GROUP:
        raise ValueError(f"tie group of {m} documents: the reference enumerates at most "
                         f"{MAX_TIE_GROUP}")
    acc_g, acc_r, acc_ap = [0.0] * m, [0.0] * m, [0.0] * m
    count = 0
    for perm in itertools.permutations(range(m)):
        c = before
        for j, i in enumerate(perm):
            acc_g[j] += gains[i]
            if rels[i]:
                c += 1
                acc_r[j] += 1.0
                acc_ap[j] += c / (start + j + 1)
        count += 1
    return ([g / count for g in acc_g], [r / count for r in acc_r], [a / count for a in acc_ap])


def position_expectations(conv, labels, scores, docids):
    """Per rank r = 1..n: expected gain, expected relevance (0/1) and expected AP term
    (relevance x #relevant in the top r / r). Exact for a deterministic order; under ``average``
    the expectation over all orders of each tie group. The groups are independent: a group's
    positions and its number of relevant documents do not depend on any group's order, so the
    expectation of each position's terms is taken group by group."""
    gains = [gain(conv, l) for l in labels]
    rels = [1 if l >= conv.rel else 0 for l in labels]
    eg, er, eap = [], [], []
    start = before = 0
    for block in ranked_blocks(conv, labels, scores, docids):
        g, r, a = _block_expectations(tuple(gains[i] for i in block),
                                      tuple(rels[i] for i in block), start, before)
        eg += g
        er += r
        eap += a
        start += len(block)
        before += sum(rels[i] for i in block)
    return eg, er, eap


# ---- one query ----------------------------------------------------------------------------
def columns(cutoffs: Sequence[int]) -> list[str]:
    return ([f"NDCG@{k}" for k in cutoffs] + [f"DCG@{k}" for k in cutoffs]
            + [f"P@{k}" for k in cutoffs] + ["MAP"])


def idcg(conv, ideal_labels: Sequence[float], k: int) -> float:
    g = sorted((gain(conv, l) for l in ideal_labels), reverse=True)
    total = 0.0
    for r in range(1, min(k, len(g)) + 1):
        total += g[r - 1] * disc(conv, r)
    return total


def _prefix_sums(values: Sequence[float], weights: Sequence[float]) -> list[float]:
    """out[m] = sum_{r < m} values[r] * weights[r], summed in rank order."""
    out, total = [0.0], 0.0
    for v, w in zip(values, weights):
        total += v * w
        out.append(total)
    return out


def ndcg_value(conv, dcg: float, idcg_k: float, n: int, k: int) -> float:
    """NDCG@k from DCG@k and IDCG@k, by the precedence rule."""
    if idcg_k == 0 or (idcg_k < 0 and conv.negative != "keep-divide"):
        return NAN if conv.empty == "skip" else float(conv.empty)
    if conv.short == "zero" and n < k:
        return 0.0
    return dcg / idcg_k


@dataclass
class QueryResult:
    values: dict[str, float]
    skipped: bool = False


def query_metrics(conv, labels: Sequence[float], scores: Sequence[float], docids: Sequence,
                  cutoffs: Sequence[int], ideal: Sequence[float] | None = None) -> QueryResult:
    """Every metric of one query. ``labels`` are read already (:func:`read_labels`); ``ideal``
    is the ideal's labels (read), the list's own when None. ``n = len(labels)`` may be 0."""
    n = len(labels)
    ideal = list(labels) if ideal is None else list(ideal)
    eg, er, eap = position_expectations(conv, labels, scores, docids)
    n_rel = sum(1 for l in ideal if l >= conv.rel)
    discs = [disc(conv, r) for r in range(1, max(n, len(ideal)) + 1)]
    dcg_at = _prefix_sums(eg, discs)
    idcg_at = _prefix_sums(sorted((gain(conv, l) for l in ideal), reverse=True), discs)
    out: dict[str, float] = {}
    for k in cutoffs:
        top = min(k, n)
        dcg = dcg_at[top]
        hits = sum(er[:top])
        denom = k if conv.pk == "k" else top
        out[f"DCG@{k}"] = dcg
        out[f"P@{k}"] = hits / denom if denom else 0.0
        out[f"NDCG@{k}"] = ndcg_value(conv, dcg, idcg_at[min(k, len(ideal))], n, k)
    out["MAP"] = sum(eap) / n_rel if n_rel else 0.0
    skipped = conv.empty == "skip" and all(math.isnan(out[f"NDCG@{k}"]) for k in cutoffs)
    if skipped:
        out = {c: NAN for c in out}
    return QueryResult(out, skipped)


def metrics_of_order(conv, labels_in_rank_order: Sequence[float], cutoffs: Sequence[int],
                     ideal: Sequence[float] | None = None) -> dict[str, float]:
    """Every metric of one fixed order (no ties involved): for checking :func:`query_metrics`."""
    n = len(labels_in_rank_order)
    ideal = list(labels_in_rank_order) if ideal is None else list(ideal)
    out = {}
    rel = [l >= conv.rel for l in labels_in_rank_order]
    for k in cutoffs:
        dcg = sum(gain(conv, labels_in_rank_order[r - 1]) * disc(conv, r)
                  for r in range(1, min(k, n) + 1))
        denom = k if conv.pk == "k" else min(k, n)
        out[f"DCG@{k}"] = dcg
        out[f"P@{k}"] = sum(rel[:min(k, n)]) / denom if denom else 0.0
        out[f"NDCG@{k}"] = ndcg_value(conv, dcg, idcg(conv, ideal, k), n, k)
    n_rel = sum(1 for l in ideal if l >= conv.rel)
    ap = sum(sum(rel[:r]) / r for r in range(1, n + 1) if rel[r - 1])
    out["MAP"] = ap / n_rel if n_rel else 0.0
    return out


def average_by_joint_enumeration(conv, labels, scores, cutoffs) -> dict[str, float]:
    """Under ``ties=average``: every metric averaged over the product of the permutations of
    all tie groups at once (every complete ranking the ties allow), without the group-by-group
    decomposition :func:`query_metrics` uses. Small queries only."""
    groups = tie_groups(conv, scores)
    totals: dict[str, float] = {}
    count = 0
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for p in perms for i in p]
        m = metrics_of_order(conv, [labels[i] for i in order], cutoffs, ideal=labels)
        for c, v in m.items():
            totals[c] = totals.get(c, 0.0) + v
        count += 1
    return {c: v / count for c, v in totals.items()}


# ---- several queries (LETOR lists) --------------------------------------------------------
@dataclass
class Query:
    """One query of a LETOR-style list: raw labels, scores and docids in input order."""
    labels: list
    scores: list
    docids: list

    def __post_init__(self):
        assert len(self.labels) == len(self.scores) == len(self.docids)


def letor_results(conv, queries: Sequence[Query], cutoffs: Sequence[int]) -> list[QueryResult]:
    """Every query's metrics; :class:`Refused` if the convention refuses any label."""
    out = []
    for q in queries:
        labels = read_labels(conv, q.labels)
        out.append(query_metrics(conv, labels, q.scores, q.docids, cutoffs))
    return out


def mean(results: Sequence[QueryResult], cutoffs: Sequence[int]) -> dict[str, float]:
    """Each column's mean over the queries not skipped, NaN values left out (NaN if none)."""
    out = {}
    for c in columns(cutoffs):
        vals = [r.values[c] for r in results if not r.skipped and not math.isnan(r.values[c])]
        out[c] = sum(vals) / len(vals) if vals else NAN
    return out


# ---- runs with qrels ----------------------------------------------------------------------
@dataclass
class RunQuery:
    """One evaluated query of a run: the ranked list after the run rules, and the ideal."""
    qid: str
    labels: list          # read
    scores: list
    docids: list
    ideal: list           # read labels of the ideal
    raw_grades: list = field(default_factory=list)


def _depth_cut(conv, rows: list[tuple[int, str, float]]) -> list[tuple[int, str, float]]:
    if conv.depth is None or len(rows) <= conv.depth:
        return rows
    if conv.ties == "docid-desc":
        # score descending, then docid descending: sort by docid first, then stably by score
        by_doc = sorted(rows, key=lambda r: docid_key(r[1]), reverse=True)
        ranked = sorted(by_doc, key=lambda r: -score_key(conv, r[2]))
    else:
        ranked = sorted(rows, key=lambda r: -score_key(conv, r[2]))
    kept = ranked[:conv.depth]
    return sorted(kept, key=lambda r: r[0])


def run_queries(conv, qrels: Sequence[tuple[str, str, float]],
                run: Sequence[tuple[str, str, float]]) -> list[RunQuery]:
    """The qrels' queries that a run evaluates under ``conv``, in the qrels' order: rows
    (qid, docid, grade) and (qid, docid, score). :class:`Refused` for a label the convention
    refuses or a duplicate docid under ``duplicates=refuse``."""
    judged: dict[str, dict[str, float]] = {}
    for q, d, g in qrels:
        judged.setdefault(str(q), {})[str(d)] = float(g)
        read_label(conv, float(g))  # every grade of the qrels is read, wherever it is used
    rows_of: dict[str, list[tuple[int, str, float]]] = {}
    for pos, (q, d, s) in enumerate(run):
        rows_of.setdefault(str(q), []).append((pos, str(d), float(s)))
    out = []
    for q, grades in judged.items():
        rows = rows_of.get(q)
        if rows is None:
            if conv.missing == "skip":
                continue
            rows = []
        # duplicates: refused among what the depth keeps (as trec_eval), or the first line
        # kept, or the last score at the first line's place (a dict updated line by line)
        if conv.duplicates == "refuse":
            rows = _depth_cut(conv, rows)
            docids = [r[1] for r in rows]
            if len(set(docids)) < len(docids):
                raise Refused(f"query {q}: a docid retrieved twice")
        else:
            seen: dict[str, tuple[int, str, float]] = {}
            for row in rows:
                if row[1] in seen and conv.duplicates == "first":
                    continue
                place = seen[row[1]][0] if row[1] in seen else row[0]
                seen[row[1]] = (place, row[1], row[2])
            rows = _depth_cut(conv, sorted(seen.values(), key=lambda r: r[0]))
        # unjudged
        if conv.unjudged == "drop":
            rows = [r for r in rows if r[1] in grades and grades[r[1]] >= 0]
        ideal_raw = list(grades.values())
        raw = [grades.get(r[1], 0.0) for r in rows]
        labels = read_labels(conv, raw)
        ideal = read_labels(conv, ideal_raw) if conv.ideal == "qrels" else list(labels)
        out.append(RunQuery(q, labels, [r[2] for r in rows], [r[1] for r in rows], ideal, raw))
    return out


def run_results(conv, qrels, run, cutoffs) -> dict[str, QueryResult]:
    """``{qid: QueryResult}`` for every query the run evaluates."""
    return {rq.qid: query_metrics(conv, rq.labels, rq.scores, rq.docids, cutoffs, rq.ideal)
            for rq in run_queries(conv, qrels, run)}
