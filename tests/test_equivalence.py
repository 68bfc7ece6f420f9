"""Every public evaluation path of ltrconv against the plain-Python reference
(``tests/ndcg_reference.py``), over every axis value, pairs of axes, random conventions and
adversarial queries.

Paths compared:

* ``evaluate[numba]``, ``evaluate[numpy]``: :func:`ltrconv.evaluate` per query (NDCG@k, DCG@k,
  P@k, MAP, the ``skipped`` flags) and :meth:`Evaluation.mean`;
* ``NDCGScorer``: :class:`ltrconv.evaluation.scorer.NDCGScorer` ``per_query`` (NDCG@k);
* ``evaluate_run[ideal=list]``, ``evaluate_run[ideal=qrels]``: :func:`ltrconv.evaluate_run` on
  the same lists written as a run and its qrels (every document judged and retrieved once), the
  convention's ``ideal`` set to each value; with the run axes at their defaults this is the
  LETOR result, otherwise the reference's run rules;
* ``evaluate_run[rules]``: :func:`ltrconv.evaluate_run` on runs built to exercise the run
  axes (unjudged documents, a judged document the run misses, a query whose documents are all
  unjudged, qrels-only and run-only queries, duplicate docids, depth cuts across ties).

A case is one compared number (one path, convention, query and column; or a mean; or a
``skipped`` flag), or one check that a path refuses what the reference refuses. Each test
collects every disagreement of its group of conventions and fails with the first ones, naming
the path, the convention's canonical string, the query family, the query and the column.

``python tests/test_equivalence.py --report`` prints the cases compared and the disagreements
per path and per axis value.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ndcg_reference as ref
from ndcg_reference import Query, Refused

import ltrconv
from ltrconv.errors import LtrconvError
from ltrconv.evaluation.conventions import Convention, ConventionError, get
from ltrconv.evaluation.conventions import names as builtin_names

CUTOFFS = list(range(1, 13)) + [20]
COLUMNS = ref.columns(CUTOFFS)
SEED = 20120704
RTOL = 1e-9
SHOWN = 12
"""Disagreements a failing test lists."""


def same(a: float, b: float) -> bool:
    """Equal within ``RTOL * max(1, |a|)``; NaN equals NaN."""
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= RTOL * max(1.0, abs(a))


# ---- query families ----------------------------------------------------------------------
def _docids(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def _float32_tie(x: float) -> float:
    """A float64 above ``x`` that rounds to the same float32 as ``x``."""
    y = np.nextafter(x, 1.0)
    for _ in range(200):
        if np.float32(y) == np.float32(x) and y != x:
            return float(y)
        y = np.nextafter(y, 1.0)
    raise AssertionError(x)


def _families() -> dict[str, list[Query]]:
    rng = np.random.default_rng(SEED)
    fam: dict[str, list[Query]] = {}

    def rand_scores(n, decimals=None):
        s = rng.random(n)
        return [round(float(x), decimals) for x in s] if decimals else [float(x) for x in s]

    fam["worked-example"] = [
        Query([2, 0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0],
              [.9, .8, .8, .7, .5, .5, .4, .3, .2, .2, .1, 0.0],
              [f"d{i:02d}" for i in range(12)]),
        Query([0, 1, 0, 0, 2, 0], [.5, .4, .3, .3, .2, .1], _docids("e", 6)),
        Query([0] * 8, [.8, .7, .6, .5, .4, .3, .2, .1], _docids("f", 8)),
    ]
    fam["all-tied"] = [
        Query([2, 0, 1, 0, 3], [0.5] * 5, ["c", "a", "e", "b", "d"]),
        Query([0, 1, 1, 0, 2, 0], [1.0] * 6, _docids("t", 6)),
        Query([1, 0], [0.0, 0.0], ["x1", "x2"]),
    ]
    fam["all-labels-zero"] = [
        Query([0] * 4, rand_scores(4), _docids("z", 4)),
        Query([0] * 9, [.3, .9, .3, .1, .5, .5, .2, .8, .4], _docids("y", 9)),
    ]
    fam["negative-only"] = [
        Query([-1, -2, -1], [.2, .9, .5], _docids("n", 3)),
        Query([-1], [0.3], ["m0"]),
        Query([-3, -1, -2, -1, -2], [.4, .4, .9, .1, .4], _docids("o", 5)),
    ]
    fam["mixed-negative"] = [
        # IDCG@k crosses 0 as k grows (exp gain: 1, then -0.5 each, then -0.75)
        Query([1, -1, -1, -1, -1, -2], [.1, .9, .8, .7, .6, .5], _docids("p", 6)),
        # IDCG@1 = 0, IDCG@k < 0 after
        Query([0, -1, -1], [.1, .5, .5], _docids("q", 3)),
        # linear gain under the letor discount: IDCG@2 = 1 - 1 = 0
        Query([1, -1, -1], [.2, .9, .1], _docids("r", 3)),
        Query([-1, 2, -2, 1, 0, -1, 3], [.7, .3, .7, .9, .1, .3, .5], _docids("s", 7)),
    ]
    fam["one-doc"] = [
        Query([0], [0.5], ["a"]),
        Query([2], [0.1], ["b"]),
        Query([1], [-3.0], ["c"]),
    ]
    fam["n-below-k"] = [
        Query([int(x) for x in rng.integers(0, 4, 3)], rand_scores(3), _docids("u", 3)),
        Query([0, 2, 1, 0, 3], [.5, .1, .5, .9, .2], _docids("v", 5)),
    ]
    fam["n-equals-k"] = [
        Query([int(x) for x in rng.integers(0, 4, 10)], rand_scores(10, 1), _docids("w", 10)),
        Query([int(x) for x in rng.integers(0, 3, 12)], rand_scores(12, 1), _docids("W", 12)),
    ]
    fam["k-beyond-lists"] = [
        Query([int(x) for x in rng.integers(0, 4, 25)], rand_scores(25, 2), _docids("L", 25)),
        Query([int(x) for x in rng.integers(0, 3, 20)], rand_scores(20, 2), _docids("M", 20)),
    ]
    fam["mixed-label-ties"] = [
        Query([0, 2, 1, 1, 0, 3, 0, 2, 0], [.9, .9, .9, .5, .5, .5, .5, .1, .1],
              ["b", "a", "c", "h", "f", "g", "e", "i", "j"]),
        Query([1, 0, 2, 0, 1, 2], [.4, .4, .8, .8, .8, .2], ["k2", "k10", "k1", "k3", "k30", "k4"]),
    ]
    a, b = 0.3, 0.7
    a2, b2 = _float32_tie(a), _float32_tie(b)
    assert a2 != a and np.float32(a2) == np.float32(a)
    fam["float32-ties"] = [
        # float64: b2 > b and a2 > a; float32: both pairs tie
        Query([0, 2, 1, 0, 1], [a, a2, b, b2, 0.1], ["f1", "f2", "f3", "f4", "f5"]),
        Query([2, 0, 1, 1], [b, b2, b2, b], ["g4", "g3", "g2", "g1"]),
    ]
    fam["real-labels"] = [
        Query([2.5, 0.3, 1.7, 0.0, 1.0, 0.9], [.6, .2, .6, .9, .1, .3], _docids("R", 6)),
        Query([-0.5, 0.5, 1.5], [.9, .5, .1], _docids("S", 3)),
        Query([-1.5, 2.0, 0.7, 3.0], [.3, .3, .8, .1], _docids("T", 4)),
    ]
    fam["docid-bytes"] = [
        Query([1, 0, 2, 0, 1], [.5] * 5, ["d9", "d10", "d1", "D2", "d100"]),
        Query([0, 1, 2, 1], [.4, .4, .4, .6], ["\u00e91", "z", "Z", "\u00e9"]),
    ]
    fam["labels-above-3"] = [
        Query([4, 0, 3, 1, 2], [.1, .2, .3, .4, .5], _docids("H", 5)),
        Query([5, 5, 0], [.5, .6, .6], _docids("J", 3)),
    ]
    for name, qs in fam.items():
        for q in qs:
            for g in ref.tie_groups(Convention(scores="float32"), q.scores):
                assert len(g) <= 6, (name, q)
            assert len(set(q.docids)) == len(q.docids), (name, q)
    return fam


FAMILIES = _families()


# ---- conventions --------------------------------------------------------------------------
GAIN_MAPS = ("0:0;1:1;2:3;3:7", "0:0;1:5;2:1;3:2", "0:0;1:0;2:1;3:4")
AXES: dict[str, list] = {
    "gain": ["exp", "linear", *GAIN_MAPS],
    "disc": ["log2", "letor", "position"],
    "empty": [0.0, 0.5, 1.0, "skip"],
    "short": ["truncate", "zero"],
    "ties": ["input-order", "docid-desc", "average", "pessimistic", "optimistic"],
    "rel": [1, 2, 3],
    "pk": ["min", "k"],
    "scores": ["float64", "float32"],
    "labels": ["int", "real", "trunc"],
    "negative": ["refuse", "zero", "keep", "keep-divide"],
    "max_label": [None, 1, 2, 3],
    "ideal": ["list", "qrels"],
    "unjudged": ["nonrel", "drop"],
    "missing": ["skip", "zero"],
    "duplicates": ["refuse", "first", "last"],
    "depth": [None, 1, 3, 10],
}
PAIR_AXES = ("empty", "short", "negative", "ties", "gain", "disc")
PAIR_VALUES = {**{a: AXES[a] for a in PAIR_AXES}, "gain": AXES["gain"][:4]}
N_RANDOM, RANDOM_CHUNKS = 300, 6
DEFAULT = Convention()
MODELLED_TIES = set(AXES["ties"])


def _make(**axes) -> Convention | None:
    try:
        return Convention(**axes)
    except ConventionError:
        return None


def _unique(convs) -> list[Convention]:
    seen, out = set(), []
    for c in convs:
        if c is not None and c.canonical not in seen:
            seen.add(c.canonical)
            out.append(c)
    return out


def _random_conventions() -> list[Convention]:
    rng = np.random.default_rng(SEED + 1)
    out: list[Convention] = []
    while len(out) < N_RANDOM:
        axes = {a: vals[int(rng.integers(len(vals)))] for a, vals in AXES.items()}
        c = _make(**axes)
        if c is not None and c.canonical not in {o.canonical for o in out}:
            out.append(c)
    return out


def _groups() -> dict[str, list[Convention]]:
    groups = {}
    for axis, values in AXES.items():
        groups[f"axis-{axis}"] = _unique(_make(**{axis: v}) for v in values)
    for a, b in itertools.combinations(PAIR_AXES, 2):
        groups[f"pair-{a}-{b}"] = _unique(_make(**{a: x, b: y}) for x in PAIR_VALUES[a]
                                          for y in PAIR_VALUES[b])
    groups["builtin"] = _unique(get(n) for n in builtin_names()
                                if get(n).ties in MODELLED_TIES)
    rand = _random_conventions()
    size = math.ceil(len(rand) / RANDOM_CHUNKS)
    for i in range(RANDOM_CHUNKS):
        groups[f"random-{i}"] = rand[i * size:(i + 1) * size]
    return groups


GROUPS = _groups()


# ---- disagreements ------------------------------------------------------------------------
@dataclass
class Disagreement:
    path: str
    conv: Convention
    family: str
    query: str
    column: str
    expected: object
    got: object

    def __str__(self) -> str:
        return (f"{self.path} {self.conv.canonical} family={self.family} query={self.query} "
                f"{self.column}: reference {self.expected!r}, path {self.got!r}")


@dataclass
class Tally:
    cases: Counter = field(default_factory=Counter)
    bad: list = field(default_factory=list)

    def check(self, path, conv, family, query, column, expected, got) -> None:
        self.cases[path] += 1
        ok = same(expected, got) if isinstance(expected, float) else expected == got
        if not ok:
            self.bad.append(Disagreement(path, conv, family, query, column, expected, got))

    def fail(self, path, conv, family, query, column, expected, got) -> None:
        self.cases[path] += 1
        self.bad.append(Disagreement(path, conv, family, query, column, expected, got))

    def message(self) -> str:
        head = (f"{len(self.bad)} disagreements in {sum(self.cases.values())} cases; first "
                f"{min(SHOWN, len(self.bad))}:")
        lines = [head]
        lines += [f"  {d}" for d in self.bad[:SHOWN]]
        return "\n".join(lines)


def _error(exc: BaseException) -> str:
    return f"raised {type(exc).__name__}: {str(exc)[:160]}"


# ---- the LETOR datasets a group is evaluated on -----------------------------------------------
@dataclass
class Dataset:
    """Queries of several families concatenated: arrays for the LETOR paths, rows for a run."""
    names: tuple
    where: list          # (family, index in family) per query
    y: np.ndarray
    scores: np.ndarray
    qid: np.ndarray
    docid: np.ndarray
    offsets: np.ndarray
    qrels: list
    run: list

    @property
    def label(self) -> str:
        return "+".join(self.names) if len(self.names) <= 3 else f"{len(self.names)} families"

    def run_qid(self, i: int) -> str:
        fam, j = self.where[i]
        return f"{fam}/{j}"

    _frames: tuple | None = None

    def frames(self):
        """The qrels and the run as pandas DataFrames (ir_measures' columns)."""
        if self._frames is None:
            self._frames = _frames(self.qrels, self.run)
        return self._frames


@cache
def dataset(names: tuple) -> Dataset:
    where, y, s, qid, docid, offsets, qrels, run = [], [], [], [], [], [0], [], []
    for name in names:
        for j, q in enumerate(FAMILIES[name]):
            where.append((name, j))
            i = len(where)
            y += [float(x) for x in q.labels]
            s += [float(x) for x in q.scores]
            qid += [i] * len(q.labels)
            docid += list(q.docids)
            offsets.append(len(y))
            rq = f"{name}/{j}"
            qrels += [(rq, d, float(l)) for d, l in zip(q.docids, q.labels)]
            run += [(rq, d, float(x)) for d, x in zip(q.docids, q.scores)]
    return Dataset(tuple(names), where, np.array(y), np.array(s), np.array(qid),
                   np.array(docid, dtype=object), np.array(offsets), qrels, run)


@cache
def letor_reference(conv: Convention, family: str):
    """The reference's results of one family, or the Refused exception."""
    try:
        return ref.letor_results(conv, FAMILIES[family], CUTOFFS)
    except Refused as exc:
        return exc


@cache
def run_reference(conv: Convention, family: str):
    """The reference's run results of one family (qid ``family/j``), or the Refused exception."""
    ds = dataset((family,))
    try:
        return ref.run_results(conv, ds.qrels, ds.run, CUTOFFS)
    except Refused as exc:
        return exc


# ---- comparing one Evaluation ------------------------------------------------------------------
def _skipped(ev) -> np.ndarray:
    return np.zeros(len(ev.qids), bool) if ev.skipped is None else np.asarray(ev.skipped)


def agree(expected: np.ndarray, got: np.ndarray) -> np.ndarray:
    """:func:`same`, element-wise."""
    both_nan = np.isnan(expected) & np.isnan(got)
    with np.errstate(invalid="ignore"):
        close = np.abs(expected - got) <= RTOL * np.maximum(1.0, np.abs(expected))
    return both_nan | close


def compare_evaluation(tally: Tally, path: str, conv, ev, expected: dict, names: dict,
                       label: str) -> None:
    """``expected``: {row key: QueryResult}; ``names``: {row key: (family, query)}. Rows are
    matched by query id; a row missing or extra is one disagreement."""
    keys = [str(k.item() if hasattr(k, "item") else k) for k in ev.qids]
    got_rows = {k: i for i, k in enumerate(keys)}
    present = [k for k in expected if k in got_rows]
    for key in expected:
        if key not in got_rows:
            tally.fail(path, conv, *names[key], "row", "present", "absent")
    for key in got_rows.keys() - expected.keys():
        tally.fail(path, conv, "?", key, "row", "absent", "present")
    if present:
        idx = [got_rows[k] for k in present]
        got = np.column_stack([np.asarray(ev[c], dtype=np.float64)[idx] for c in COLUMNS])
        want = np.array([[expected[k].values[c] for c in COLUMNS] for k in present])
        ok = agree(want, got)
        tally.cases[path] += ok.size
        for r, c in zip(*np.nonzero(~ok)):
            tally.bad.append(Disagreement(path, conv, *names[present[r]], COLUMNS[c],
                                          float(want[r, c]), float(got[r, c])))
        skipped = _skipped(ev)[idx]
        for k, s in zip(present, skipped):
            tally.check(path, conv, *names[k], "skipped", expected[k].skipped, bool(s))
    with warnings.catch_warnings():  # a column of NaN only has a NaN mean
        warnings.simplefilter("ignore", RuntimeWarning)
        means = ev.mean()
    ref_mean = ref.mean(list(expected.values()), CUTOFFS)
    for c in COLUMNS:
        tally.check(f"{path}.mean", conv, label, "mean", c, ref_mean[c], float(means[c]))


# ---- the paths -------------------------------------------------------------------------------
def _evaluate(ds: Dataset, convs, engine: str):
    return ltrconv.evaluate(ds.y, ds.scores, ds.qid, docid=ds.docid, conventions=convs,
                            cutoffs=CUTOFFS, metrics=("NDCG", "DCG", "P", "MAP"), engine=engine)


def _evaluate_run(ds: Dataset, convs):
    qrels, run = ds.frames()
    return ltrconv.evaluate_run(qrels, run, conventions=convs, cutoffs=CUTOFFS,
                                metrics=("NDCG", "DCG", "P", "MAP"))


def _batched(tally, path, convs, call, on_result):
    """``call(convs)`` once; where that raises, convention by convention, each exception
    handed to ``on_result``."""
    try:
        out = call(convs)
    except Exception:  # noqa: BLE001 - localised below
        out = None
    for c in convs:
        if out is not None:
            on_result(c, out[str(c)])
            continue
        try:
            res = call([c])[str(c)]
        except Exception as exc:  # noqa: BLE001
            res = exc
        on_result(c, res)


def _expect_refusal(tally, path, conv, family, call) -> None:
    tally.cases[path] += 1
    try:
        call()
    except LtrconvError:
        return
    except Exception as exc:  # noqa: BLE001
        tally.bad.append(Disagreement(path, conv, family, "*", "refusal", "LtrconvError",
                                      _error(exc)))
        return
    tally.bad.append(Disagreement(path, conv, family, "*", "refusal", "LtrconvError",
                                  "no error"))


def letor_expected(conv, ds: Dataset):
    """Rows keyed by the LETOR query id (1, 2, ...), and each row's (family, query)."""
    res = [r for f in ds.names for r in letor_reference(conv, f)]
    return ({str(i + 1): r for i, r in enumerate(res)},
            {str(i + 1): (f, str(j)) for i, (f, j) in enumerate(ds.where)})


def run_expected(conv, ds: Dataset):
    """Rows keyed by the run's query id (``family/j``), and each row's (family, query)."""
    want = {}
    for f in ds.names:
        want.update(run_reference(conv, f))
    return want, {ds.run_qid(i): (f, str(j)) for i, (f, j) in enumerate(ds.where)}


def _compare_batch(tally, path, convs, ds: Dataset, call, expected) -> None:
    """``call(ds, convs)`` once and every convention compared; where that raises, each
    convention alone, on halves of the families where that raises, down to single families:
    a family the path refuses while the reference accepts it is one disagreement, the others
    are still compared."""
    def compare(c, ev, d):
        want, names = expected(c, d)
        compare_evaluation(tally, path, c, ev, want, names, d.label)

    def localise(c, names: tuple) -> None:
        d = dataset(names)
        try:
            ev = call(d, [c])[str(c)]
        except Exception as exc:  # noqa: BLE001
            if len(names) == 1:
                tally.fail(path, c, names[0], "*", "call", "values", _error(exc))
                return
            half = len(names) // 2
            localise(c, names[:half])
            localise(c, names[half:])
            return
        compare(c, ev, d)

    try:
        out = call(ds, convs)
    except Exception:  # noqa: BLE001 - localised below
        out = None
    for c in convs:
        if out is not None:
            compare(c, out[str(c)], ds)
        else:
            localise(c, ds.names)


def _scorer_all_skipped(results, k: int) -> bool:
    return all(math.isnan(r.values[f"NDCG@{k}"]) for r in results)


def _check_scorer(tally, c, ds: Dataset) -> None:
    """NDCGScorer at each cutoff. The scorer is a training objective: on data where every
    query is skipped at k (NDCG@k NaN throughout) it may refuse with an LtrconvError. Where it
    raises otherwise on several families, each family is checked alone."""
    res = [r for f in ds.names for r in letor_reference(c, f)]
    got: dict[int, object] = {}
    for k in CUTOFFS:
        try:
            got[k] = ltrconv.NDCGScorer(ds.y, ds.offsets, c, k,
                                        docid=ds.docid).per_query(ds.scores)
        except LtrconvError as exc:
            got[k] = None if _scorer_all_skipped(res, k) else exc
        except Exception as exc:  # noqa: BLE001
            got[k] = exc
    if len(ds.names) > 1 and any(isinstance(v, Exception) for v in got.values()):
        for f in ds.names:
            _check_scorer(tally, c, dataset((f,)))
        return
    for k, values in got.items():
        if values is None:
            tally.cases["NDCGScorer"] += 1
        elif isinstance(values, Exception):
            tally.fail("NDCGScorer", c, ds.label, "*", f"NDCG@{k}", "values", _error(values))
        else:
            want = np.array([r.values[f"NDCG@{k}"] for r in res])
            have = np.asarray(values, dtype=np.float64)
            ok = agree(want, have)
            tally.cases["NDCGScorer"] += ok.size
            for i in np.flatnonzero(~ok):
                f, j = ds.where[i]
                tally.bad.append(Disagreement("NDCGScorer", c, f, str(j), f"NDCG@{k}",
                                              float(want[i]), float(have[i])))


def _check_letor_paths(tally: Tally, convs: list[Convention], names: tuple) -> None:
    """evaluate (both engines) and NDCGScorer against the LETOR reference."""
    accepted: dict[tuple, list[Convention]] = {}
    for c in convs:
        ok = tuple(f for f in names if not isinstance(letor_reference(c, f), Refused))
        for f in names:
            if f not in ok:
                single = dataset((f,))
                for engine in ("numba", "numpy"):
                    _expect_refusal(tally, f"evaluate[{engine}]", c, f,
                                    lambda d=single, c=c, e=engine: _evaluate(d, [c], e))
                _expect_refusal(tally, "NDCGScorer", c, f, lambda d=single, c=c: ltrconv.NDCGScorer(
                    d.y, d.offsets, c, 10, docid=d.docid).per_query(d.scores))
        if ok:
            accepted.setdefault(ok, []).append(c)
    for ok, group in accepted.items():
        ds = dataset(ok)
        for engine in ("numba", "numpy"):
            _compare_batch(tally, f"evaluate[{engine}]", group, ds,
                           lambda d, cs, engine=engine: _evaluate(d, cs, engine), letor_expected)
        for c in group:
            _check_scorer(tally, c, ds)


def _check_run_paths(tally: Tally, convs: list[Convention], names: tuple) -> None:
    """evaluate_run on the families written as a run with its qrels, under ideal=list and
    ideal=qrels, against the reference's run rules. A refusal is checked once per convention,
    under ideal=list, on all the families the reference refuses together."""
    for ideal in ("list", "qrels"):
        path = f"evaluate_run[ideal={ideal}]"
        accepted: dict[tuple, list[Convention]] = {}
        for c0 in convs:
            c = c0.with_(ideal=ideal)
            ok = tuple(f for f in names if not isinstance(run_reference(c, f), Refused))
            refused = tuple(f for f in names if f not in ok)
            if refused and ideal == "list":  # one call on every refused family at once
                both = dataset(refused)
                _expect_refusal(tally, path, c, both.label,
                                lambda d=both, c=c: _evaluate_run(d, [c]))
            if ok:
                accepted.setdefault(ok, []).append(c)
        for ok, group in accepted.items():
            _compare_batch(tally, path, group, dataset(ok), lambda d, cs: _evaluate_run(d, cs),
                           run_expected)


def compare_group(group: str) -> Tally:
    tally = Tally()
    convs = GROUPS[group]
    names = tuple(FAMILIES)
    _check_letor_paths(tally, convs, names)
    _check_run_paths(tally, convs, names)
    return tally


# ---- runs built for the run axes -------------------------------------------------------------
A, B = 0.4, _float32_tie(0.4)
RUN_QRELS = [
    # A: unjudged documents, a judged relevant document (a5) the run misses
    ("A", "a1", 2), ("A", "a2", 0), ("A", "a3", 1), ("A", "a4", 0), ("A", "a5", 3), ("A", "a6", 1),
    # B: every retrieved document unjudged
    ("B", "b1", 1), ("B", "b2", 2),
    # C, C0: qrels-only (with and without a relevant document)
    ("C", "c1", 1), ("C", "c2", 0),
    ("C0", "k1", 0),
    # E: a depth cut across ties and float32 ties
    ("E", "e1", 0), ("E", "e2", 1), ("E", "e3", 2), ("E", "e4", 0), ("E", "e5", 1),
    ("E", "e6", 0), ("E", "e7", 3), ("E", "e8", 1), ("E", "e10", 2),
    # F: negative grades
    ("F", "f1", -1), ("F", "f2", 2), ("F", "f3", -2), ("F", "f4", 0), ("F", "f5", 1),
    # G: every judged document non-relevant
    ("G", "g1", 0), ("G", "g2", 0),
    # H: one document retrieved of three judged
    ("H", "h1", 1), ("H", "h2", 2), ("H", "h3", 3),
]
RUN_ROWS = [
    ("E", "e3", .9), ("E", "e10", A), ("E", "e7", B), ("E", "e2", A), ("E", "x1", .5),
    ("E", "e1", .5), ("E", "e5", .5), ("E", "e8", .3), ("E", "e4", .3), ("E", "e6", .1),
    ("A", "a1", .9), ("A", "u1", .8), ("A", "a3", .8), ("A", "a2", .5), ("A", "u2", .5),
    ("A", "a6", .3), ("A", "a4", .1),
    ("R", "r1", .9), ("R", "r2", .8),
    ("B", "v1", .5), ("B", "v2", .4), ("B", "v3", .4),
    ("F", "f1", .9), ("F", "f3", .8), ("F", "f2", .7), ("F", "f4", .6), ("F", "u9", .6),
    ("F", "f5", .2),
    ("G", "g1", .5), ("G", "g2", .5), ("G", "g3", .4),
    ("H", "h1", .3),
]
DUP_QRELS = [("D", "d1", 2), ("D", "d2", 1), ("D", "d3", 0), ("D", "d4", 1),
             ("D2", "m1", 1), ("D2", "m2", 0), ("D2", "m3", 2),
             ("DC", "n1", 1)]
DUP_ROWS = [("D", "d1", .5), ("D", "d2", .9), ("D", "d3", .5), ("D", "d1", .7), ("D", "d4", .5),
            ("D", "d2", .5),
            ("D2", "m1", .2), ("D2", "m3", .2), ("D2", "m2", .6)]
RUN_BASES = {
    "ranklib-negzero": Convention(negative="zero"),
    "trec-negzero": get("trec").with_(negative="zero"),
    "letor-keep": get("letor").with_(negative="keep"),
    "skip-average": Convention(empty="skip", ties="average", negative="zero"),
    "half-pessimistic-linear-keepdivide": Convention(empty=0.5, ties="pessimistic", gain="linear",
                                                     negative="keep-divide"),
    "optimistic-float32-position-rel2-short0": Convention(
        ties="optimistic", scores="float32", disc="position", rel=2, negative="zero",
        short="zero"),
    "ir-tools": None,
}
IR_TOOLS = ("trec_eval", "trec_eval-c", "pytrec_eval", "ir_measures", "ir_measures-judged")


def run_conventions(base: str) -> tuple[list[Convention], list[Convention]]:
    """Conventions for the run without duplicates and for the run with duplicates."""
    if RUN_BASES[base] is None:
        tools = [get(n) for n in IR_TOOLS]
        return tools, tools
    b = RUN_BASES[base]
    main = _unique(b.with_(ideal=i, unjudged=u, missing=m, depth=d)
                   for i, u, m, d in itertools.product(AXES["ideal"], AXES["unjudged"],
                                                       AXES["missing"], [None, 1, 3, 5]))
    dups = _unique(b.with_(ideal=i, duplicates=d, depth=depth, missing=m)
                   for i, d, depth, m in itertools.product(AXES["ideal"], AXES["duplicates"],
                                                           [None, 2], AXES["missing"]))
    return main, dups


def _frames(qrels, run):
    import pandas as pd

    return (pd.DataFrame([(q, d, float(g)) for q, d, g in qrels],
                         columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame([(q, d, float(s)) for q, d, s in run],
                         columns=["query_id", "doc_id", "score"]))


def compare_run_rules(base: str) -> Tally:
    tally = Tally()
    path = "evaluate_run[rules]"
    main, dups = run_conventions(base)
    for label, qrels, run, convs in (("run", RUN_QRELS, RUN_ROWS, main),
                                     ("run-duplicates", DUP_QRELS, DUP_ROWS, dups)):
        qf, rf = _frames(qrels, run)
        good = []
        for c in convs:
            try:
                want = ref.run_results(c, qrels, run, CUTOFFS)
            except Refused:
                _expect_refusal(tally, path, c, label, lambda q=qf, r=rf, c=c: ltrconv.evaluate_run(
                    q, r, conventions=[c], cutoffs=CUTOFFS))
                continue
            good.append((c, want))
        if not good:
            continue

        def call(cs, qf=qf, rf=rf):
            return ltrconv.evaluate_run(qf, rf, conventions=cs, cutoffs=CUTOFFS,
                                        metrics=("NDCG", "DCG", "P", "MAP"))

        wants = {c.canonical: w for c, w in good}

        def on_result(c, ev, label=label, wants=wants):
            if isinstance(ev, Exception):
                tally.fail(path, c, label, "*", "call", "values", _error(ev))
                return
            want = wants[c.canonical]
            compare_evaluation(tally, path, c, ev, want, {q: (label, q) for q in want}, label)

        _batched(tally, path, [c for c, _ in good], call, on_result)
    return tally


# ---- the reference's own checks ---------------------------------------------------------------
STUDY_TABLE = {  # docs: /work/shared/STUDY.md, worked example, NDCG@1..10 and AP (4 decimals)
    ("ranklib", 0): [1.0000, 0.6131, 0.6490, 0.6010, 0.6010, 0.6622, 0.6622, 0.6622, 0.6622,
                     0.8111, 0.6417],
    ("trec", 0): [1.0000, 0.7421, 0.6733, 0.6235, 0.6899, 0.6899, 0.6899, 0.6899, 0.8450,
                  0.8450, 0.7611],
    ("letor", 0): [1.0000, 0.5000, 0.5476, 0.5092, 0.5092, 0.5634, 0.5634, 0.5634, 0.5634,
                   0.6901, 0.6417],
    ("ranklib", 1): [0.0000, 0.1738, 0.1738, 0.1738, 0.4934, 0.4934, 0.4934, 0.4934, 0.4934,
                     0.4934, 0.4500],
    ("letor", 1): [0.0000, 0.2500, 0.2500, 0.2500, 0.5730, 0.5730, 0, 0, 0, 0, 0.4500],
    ("yahoo", 2): [1] * 10 + [0],
    ("ranklib", 2): [0] * 11,
}


def test_reference_worked_example():
    ks = list(range(1, 11))
    for (name, q), row in STUDY_TABLE.items():
        res = ref.letor_results(get(name), FAMILIES["worked-example"], ks)[q].values
        got = [res[f"NDCG@{k}"] for k in ks] + [res["MAP"]]
        assert np.allclose(got, row, atol=5e-5), (name, q, got)


def test_reference_average_by_groups_is_joint_enumeration():
    """The group-by-group expectation equals the average over every complete ranking."""
    convs = [Convention(ties="average", **kw) for kw in (
        {}, {"pk": "k", "rel": 2}, {"disc": "letor", "short": "zero"},
        {"gain": "linear", "negative": "keep-divide"}, {"scores": "float32", "gain": GAIN_MAPS[1]},
        {"empty": "skip", "negative": "keep", "disc": "position"})]
    n = 0
    for c in convs:
        for fam in ("all-tied", "mixed-label-ties", "float32-ties", "mixed-negative",
                    "worked-example", "docid-bytes"):
            for q in FAMILIES[fam]:
                try:
                    labels = ref.read_labels(c, q.labels)
                except Refused:
                    continue
                sizes = [len(g) for g in ref.tie_groups(c, q.scores)]
                if math.prod(math.factorial(s) for s in sizes) > 3000:
                    continue
                by_groups = ref.query_metrics(c, labels, q.scores, q.docids, CUTOFFS).values
                joint = ref.average_by_joint_enumeration(c, labels, q.scores, CUTOFFS)
                for col in COLUMNS:
                    if not (c.skips and math.isnan(by_groups[col])):
                        assert same(joint[col], by_groups[col]), (c.canonical, fam, col)
                n += 1
    assert n >= 20


def test_reference_run_equals_letor_on_full_runs():
    """Every document judged and retrieved once: the run rules give the LETOR lists."""
    for c in (DEFAULT, get("trec"), Convention(ties="average", empty="skip")):
        for ideal in ("list", "qrels"):
            for fam in ("worked-example", "mixed-label-ties", "one-doc"):
                letor = letor_reference(c, fam)
                run = run_reference(c.with_(ideal=ideal), fam)
                for j, r in enumerate(letor):
                    other = run[f"{fam}/{j}"]
                    assert all(same(r.values[col], other.values[col]) for col in COLUMNS)


# ---- the equivalence tests -----------------------------------------------------------------
@pytest.mark.parametrize("group", list(GROUPS))
def test_equivalence(group):
    tally = compare_group(group)
    disagreements = len(tally.bad)
    assert disagreements == 0, tally.message()


@pytest.mark.parametrize("base", list(RUN_BASES))
def test_run_rules(base):
    tally = compare_run_rules(base)
    disagreements = len(tally.bad)
    assert disagreements == 0, tally.message()


# ---- report -----------------------------------------------------------------------------
def _axis_values(conv: Convention) -> list[str]:
    out = []
    for axis in AXES:
        v = getattr(conv, axis)
        d = getattr(DEFAULT, axis)
        if axis == "scores":
            v = "float32" if conv.scores == "float32" else "float64"
            d = "float64"
        if v != d:
            if axis == "gain" and not isinstance(v, str):
                v = ";".join(f"{k}:{g:g}" for k, g in v)
            out.append(f"{axis}={v}")
    return out or ["(all defaults)"]


def report(groups=None, bases=None, examples: int = 3) -> dict:
    """Run every comparison; print the cases per path and the disagreements per path and per
    axis value (a disagreement counts once for each axis value its convention has away from the
    default), with examples."""
    total = Tally()
    t0 = time.time()
    for g in groups or GROUPS:
        t = compare_group(g)
        total.cases.update(t.cases)
        total.bad += t.bad
    for b in bases or RUN_BASES:
        t = compare_run_rules(b)
        total.cases.update(t.cases)
        total.bad += t.bad
    elapsed = time.time() - t0
    by_path = Counter(d.path for d in total.bad)
    by_axis = Counter()
    by_path_axis = Counter()
    for d in total.bad:
        for a in _axis_values(d.conv):
            by_axis[a] += 1
            by_path_axis[d.path, a] += 1
    n_run = sum(len(m) + len(d) for m, d in map(run_conventions, bases or RUN_BASES))
    print(f"conventions: {sum(len(v) for v in GROUPS.values())} in {len(GROUPS)} groups "
          f"(each also as ideal=list and ideal=qrels on evaluate_run), {n_run} on the runs built "
          f"for the run rules; families: {len(FAMILIES)} "
          f"({sum(len(v) for v in FAMILIES.values())} queries); cutoffs {CUTOFFS}; "
          f"{elapsed:.1f} s")
    print(f"\n{'path':34} {'cases':>9} {'disagree':>9}")
    for p in sorted(total.cases):
        print(f"{p:34} {total.cases[p]:9d} {by_path[p]:9d}")
    print(f"{'total':34} {sum(total.cases.values()):9d} {len(total.bad):9d}")
    print("\ndisagreements per axis value (convention away from the default there):")
    for a, n in by_axis.most_common():
        paths = ", ".join(f"{p} {m}" for (p, aa), m in sorted(by_path_axis.items()) if aa == a)
        print(f"  {a:32} {n:7d}   [{paths}]")
    print("\nexamples per path:")
    for p in sorted(by_path):
        for d in [d for d in total.bad if d.path == p][:examples]:
            print(f"  {d}")
    return {"cases": total.cases, "bad": total.bad}


if __name__ == "__main__":
    if "--report" in sys.argv:
        report()
    else:
        print(__doc__)
