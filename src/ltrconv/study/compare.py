"""Several systems compared under several conventions: means with bootstrap intervals, paired
tests corrected over the whole family, and whether each pair's verdict survives the choice of
convention.

The systems are score files (or score vectors) of one LETOR file, or TREC runs of one qrels.
For each convention and metric the systems are evaluated on the same queries
(:func:`ltrconv.evaluation.metrics.evaluate`, :func:`ltrconv.data.trec.evaluate_run`), and:

* each system's mean gets a percentile interval from a paired bootstrap over the queries
  (:func:`ltrconv.study.stats.bootstrap_intervals`: every system, and every pair's
  difference, averaged over the same resampled queries);
* each pair (a, b) gets the mean difference ``mean(a - b)`` with its bootstrap interval, the
  paired standardised difference ``mean(d) / sd(d)``, and a two-sided paired test: the t-test
  (:func:`~ltrconv.study.stats.paired_table`), Wilcoxon's signed-rank test or the randomization
  (sign-flip) test;
* the p-values of every pair, convention and metric form one family, adjusted by Holm,
  Bonferroni or Benjamini-Hochberg; a pair whose per-query values are all equal (or that has
  fewer than two queries) has no p-value and is left out of the family, which says so;
* the verdict is ``a`` or ``b`` (the better mean) when the adjusted p is below alpha, else
  ``tie``; each pair's verdicts are read against the first convention's, and a convention that
  changes one has the change of the pair's mean difference split into the causes on which the two
  conventions differ (:func:`ltrconv.evaluation.explain.explain`: Shapley values are linear, so
  the split of a difference of two systems is the difference of their splits).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, LtrconvError, shown
from ..evaluation import conventions as conv_mod
from ..evaluation.measures import resolve as resolve_measures
from ..evaluation.metrics import CUTOFF_METRICS, METRICS, Evaluation
from . import stats

RUN_CONVENTIONS = ("trec_eval", "ir_measures", "ranx-run", "pytrec_eval")
"""The conventions runs are compared under by default: the NDCG of trec_eval, ir_measures, ranx
and pytrec_eval on a run (:mod:`ltrconv.evaluation.ir_tools`). LETOR input defaults to the
paper's four tools, :data:`ltrconv.evaluation.conventions.PAPER_TOOLS`."""

TESTS = ("t", "wilcoxon", "randomization")
"""The paired tests: Student's t on the differences, Wilcoxon's signed-rank, randomization."""

VERDICTS = ("a", "tie", "b")

COLUMNS = ("convention", "metric", "a", "b", "n", "mean_a", "mean_b", "diff", "diff_low",
           "diff_high", "effect", "test", "statistic", "p", "p_adjusted", "correction",
           "family_size", "verdict", "mean_a_low", "mean_a_high", "mean_b_low", "mean_b_high")
"""One row per convention, metric and pair: the pair's means, ``diff = mean(a - b)`` and its
interval, the effect size, the test and its statistic (t; W+; the mean difference for the
randomization test), p before and after the correction, the family's size and the verdict;
then each mean's interval."""

MAX_RESAMPLES = 1_000_000
"""Most bootstrap resamples or randomization permutations asked for."""

LIMITS = {"bootstrap": (1, MAX_RESAMPLES), "permutations": (1, MAX_RESAMPLES)}


def parse_metric(text: str) -> tuple[str, int | None]:
    """``'NDCG@10'`` (any letter case), ``'P@5'``, ``'MAP'`` as (family, cutoff or None)."""
    raw = str(text).strip()
    fam, _, k = raw.partition("@")
    fam = fam.strip().upper()
    if fam not in METRICS:
        raise LtrconvError(f"metric {shown(text)}: expected one of "
                           f"{', '.join(f'{m}@k' for m in CUTOFF_METRICS)}, "
                           f"{', '.join(m for m in METRICS if m not in CUTOFF_METRICS)}")
    if fam not in CUTOFF_METRICS:
        if k:
            raise LtrconvError(f"metric {shown(text)}: {fam} takes no cutoff")
        return fam, None
    if not k.strip().isdigit() or int(k) < 1:
        raise LtrconvError(f"metric {shown(text)}: expected {fam}@k with a cutoff k >= 1, "
                           "e.g. NDCG@10")
    from ..evaluation.metrics import parse_cutoffs

    return fam, int(parse_cutoffs(int(k))[0])


def metric_column(family: str, k: int | None) -> str:
    return family if k is None else f"{family}@{k}"


@dataclass(frozen=True)
class Flip:
    """A convention under which a pair's verdict differs from the reference convention's:
    the pair's mean difference and effect size under each, and the change of the mean
    difference split into causes (axis, contribution), None where the metric has no split
    (MAP, RR). A flip with a small change of the mean difference comes from the spread of the
    per-query differences, which the effect sizes show."""

    convention: str
    verdict: str
    diff_from: float
    diff_to: float
    effect_from: float
    effect_to: float
    causes: tuple[tuple[str, float], ...] | None


@dataclass(frozen=True)
class PairSummary:
    """One pair under one metric: its verdict under each convention, read against the first."""

    a: str
    b: str
    metric: str
    reference: str
    verdicts: dict[str, str]
    flips: tuple[Flip, ...]

    @property
    def holds(self) -> bool:
        return not self.flips


@dataclass(frozen=True)
class Comparison:
    """What :func:`compare` found; :mod:`ltrconv.study.compare_report` writes it out."""

    systems: tuple[str, ...]
    conventions: tuple[str, ...]
    metrics: tuple[str, ...]
    inputs: dict[str, Any]
    settings: dict[str, Any]
    queries: dict[tuple[str, str], int]  # (convention, metric) -> queries paired
    means: dict[tuple[str, str, str], tuple[float, float, float]]  # + system: mean, low, high
    rows: tuple[dict[str, Any], ...]  # COLUMNS
    family_size: int
    left_out: tuple[dict[str, Any], ...]  # rows without a p-value, and why
    summaries: tuple[PairSummary, ...]
    pairs: tuple[tuple[str, str], ...] = field(default=())

    def to_frame(self):
        """The rows as a pandas DataFrame, :data:`COLUMNS` in order."""
        import pandas as pd

        return pd.DataFrame(list(self.rows), columns=list(COLUMNS))

    def row(self, convention: str, metric: str, a: str, b: str) -> dict[str, Any]:
        for r in self.rows:
            if (r["convention"], r["metric"], r["a"], r["b"]) == (convention, metric, a, b):
                return r
        raise KeyError((convention, metric, a, b))


def system_name(path: Any) -> str:
    """A file's name without its suffix (and without a compression suffix before that)."""
    name = Path(str(path)).name
    for z in (".gz", ".bz2", ".xz"):
        if name.lower().endswith(z) and len(name) > len(z):
            name = name[: -len(z)]
    stem = Path(name).stem
    return stem or name


def name_systems(systems: Any, names: Sequence[str] | None = None) -> dict[str, Any]:
    """``systems`` (a mapping name -> input, or a sequence of inputs) as an ordered mapping;
    a sequence's systems are named by ``names`` or by their files' stems."""
    if isinstance(systems, Mapping):
        if names:
            raise LtrconvError("names: the systems are already named (a mapping); give one "
                               "or the other")
        named = {str(k): v for k, v in systems.items()}
        if len(named) != len(systems):
            raise LtrconvError("two systems have the same name once written as text")
    else:
        if isinstance(systems, (str, Path)):
            systems = [systems]
        items = list(systems)
        if names is not None:
            names = [str(n) for n in names]
            if len(names) != len(items):
                raise LtrconvError(f"{len(names)} names for {len(items)} systems: give one name "
                                   "per system, in their order")
        else:
            unnamed = [i + 1 for i, x in enumerate(items) if not isinstance(x, (str, Path))]
            if unnamed:
                raise LtrconvError(f"system {unnamed[0]} is not a file and has no name: pass a "
                                   "mapping {name: system}, or names=[...]")
            names = [system_name(x) for x in items]
        seen: dict[str, int] = {}
        for i, n in enumerate(names):
            if n in seen:
                where = "" if not isinstance(items[i], (str, Path)) else \
                    f" ({items[seen[n]]} and {items[i]})"
                raise LtrconvError(f"two systems are named {shown(n)}{where}: give each its "
                                   "own name (--name)")
            seen[n] = i
        named = dict(zip(names, items))
    for n in named:
        if not n.strip() or any(not c.isprintable() for c in n):
            raise LtrconvError(f"system name {shown(n)}: give a printable, non-empty name")
    if len(named) < 2:
        raise LtrconvError(f"compare needs two systems or more, got {len(named)}")
    return named


def _check_settings(test, correction, alpha, level, bootstrap, permutations, seed) -> None:
    if test not in TESTS:
        raise LtrconvError(f"test {shown(test)}: expected one of {', '.join(TESTS)}")
    if correction not in stats.CORRECTIONS:
        raise LtrconvError(f"correction {shown(correction)}: expected one of "
                           f"{', '.join(stats.CORRECTIONS)}")
    for what, value in (("alpha", alpha), ("level", level)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) \
                or not 0 < float(value) < 1:
            raise LtrconvError(f"{what} {shown(value)}: expected a number between 0 and 1")
    for what, value in (("bootstrap", bootstrap), ("permutations", permutations)):
        lo, hi = LIMITS[what]
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                or not lo <= int(value) <= hi:
            raise LtrconvError(f"{what} {shown(value)}: expected a whole number from {lo} to "
                               f"{hi:,}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not \
            0 <= int(seed) < 2 ** 63:
        raise LtrconvError(f"seed {shown(seed)}: expected a whole number >= 0")


# ---------------------------------------------------------------------------------------------
# The systems' per-query values


@dataclass
class _Inputs:
    """Each system's input, read once, and how to evaluate any convention on it."""

    evaluate: dict[str, Callable[..., dict[str, Evaluation]]]  # system -> evaluate(convs, ks, fams)
    described: dict[str, Any]
    is_run: bool


def _letor_inputs(data: Any, systems: dict[str, Any], convs, by_docid: bool) -> _Inputs:
    from ..data.letor import Dataset, read_scores
    from ..evaluation.metrics import evaluate_dataset

    if isinstance(data, (str, Path)):
        dataset = Dataset.load(data, features=False, docid_warning=by_docid)
        where = str(data)
    else:
        dataset = data
        where = getattr(data, "source", "") or "the data"
    dataset.check_labels(convs)  # refused at the file's line
    scores_of = {}
    for name, given in systems.items():
        if isinstance(given, (str, Path)):
            scores = read_scores(given, data=dataset, count=False)  # rows: _check_rows
            label = f"{name} ({given})"
        else:
            label = name
            scores = np.asarray(given)
            if scores.ndim != 1 or scores.dtype.kind not in "biuf":
                raise InputError(f"system {shown(name)}: scores must be a vector of real "
                                 f"numbers, got shape {scores.shape} of {scores.dtype}")
            if len(scores) == dataset.n_docs and not np.all(np.isfinite(scores)):
                bad = int(np.flatnonzero(~np.isfinite(scores))[0])
                q = int(np.searchsorted(dataset.offsets, bad, side="right")) - 1
                raise InputError(f"system {shown(name)}: the score of document {bad + 1} (query "
                                 f"{shown(_plain(dataset.query_ids[q]))}) is {scores[bad]}, not "
                                 "a finite number")
        _check_rows(label, len(scores), dataset, where)
        scores_of[name] = scores

    def make(scores):
        def run(conventions, cutoffs, metrics):
            return evaluate_dataset(dataset, scores, conventions=conventions, cutoffs=cutoffs,
                                    metrics=metrics)
        return run

    return _Inputs({n: make(s) for n, s in scores_of.items()},
                   {"data": where, "systems": {n: str(g) if isinstance(g, (str, Path)) else
                                               "array" for n, g in systems.items()}}, False)


def _check_rows(label: str, n_scores: int, data, where: str) -> None:
    """Refuse scores that do not match the data row for row, naming the first query they
    leave unscored (or the last one, when there are more scores than documents)."""
    n = data.n_docs
    if n_scores == n:
        return
    qids = data.query_ids
    if n_scores < n:
        q = int(np.searchsorted(data.offsets, n_scores, side="right")) - 1
        lo, hi = int(data.offsets[q]), int(data.offsets[q + 1])
        raise InputError(f"system {label}: {n_scores} scores for the {n} documents of "
                         f"{where}: query {shown(_plain(qids[q]))} (documents {lo + 1}-{hi}) "
                         f"{'has no score' if n_scores == lo else 'is scored in part'} (scores "
                         "must match the data file row for row)")
    raise InputError(f"system {label}: {n_scores} scores for the {n} documents of {where}: "
                     f"{n_scores - n} more than the documents, after the last query "
                     f"{shown(_plain(qids[-1]))} (scores must match the data file row for row)")


def _plain(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def _run_inputs(qrels: Any, systems: dict[str, Any]) -> _Inputs:
    from ..data.trec import coerce
    from ..evaluation.runs import evaluate_run_arrays

    q = coerce(qrels, "qrels")
    runs = {name: _run(given, name) for name, given in systems.items()}

    def make(run):
        def ev(conventions, cutoffs, metrics):
            return evaluate_run_arrays(q, run, conventions=conventions, cutoffs=cutoffs,
                                       metrics=metrics)
        return ev

    return _Inputs({n: make(r) for n, r in runs.items()},
                   {"qrels": q.source, "systems": {n: r.source for n, r in runs.items()}}, True)


def _run(given: Any, name: str):
    """A system's run, read as :func:`ltrconv.data.trec.coerce` reads it; a DataFrame's
    messages name the system."""
    from ..data.trec import coerce, from_frame

    if (type(given).__module__ or "").startswith("pandas") and hasattr(given, "columns"):
        return from_frame(given, "run", f"run {name} (DataFrame)")
    return coerce(given, "run")


def _matrix(results: dict[str, Evaluation], column: str, label: str, conv, is_run: bool
            ) -> tuple[np.ndarray, np.ndarray]:
    """(queries, values n x S): every system's value of ``column`` on the queries the
    convention counts, in the first system's order; a query counted for one system and not
    for another stops the comparison, naming both and the query."""
    counted: dict[str, dict[str, int]] = {}
    present: dict[str, set[str]] = {}
    for name, ev in results.items():
        qids = [str(q) for q in ev.qids]
        keep = np.ones(len(qids), bool) if ev.skipped is None else ~ev.skipped
        counted[name] = {q: i for i, q in enumerate(qids) if keep[i]}
        present[name] = set(qids)
    order: dict[str, str] = {}  # query -> first system counting it
    for name, rows in counted.items():
        for q in rows:
            order.setdefault(q, name)
    for name, rows in counted.items():
        for q, other in order.items():
            if q in rows:
                continue
            if is_run and q not in present[name]:
                why = (f"the run has no result for it and {label} leaves such a query out "
                       "(missing=skip); give every run the same queries, or compare under a "
                       "convention with missing=zero (e.g. trec_eval-c, ir_measures)")
            else:
                why = f"{label} leaves it out for {name} (empty=skip) and not for {other}"
            raise InputError(f"system {shown(name)}: no value for query {shown(q)} under "
                             f"{label}, which system {shown(other)} has: {why}")
    queries = np.array(list(order), dtype=object)
    values = np.empty((len(queries), len(results)))
    for j, (name, ev) in enumerate(results.items()):
        rows = np.array([counted[name][q] for q in queries], dtype=np.int64)
        values[:, j] = np.asarray(ev[column], dtype=np.float64)[rows] if len(rows) else []
    if np.isnan(values).any():  # NDCG@k undefined where IDCG@k alone is 0 (negative gains)
        bad = np.flatnonzero(np.isnan(values).any(axis=1))[0]
        raise InputError(f"{column} has no value for query {shown(queries[bad])} under {label} "
                         "(IDCG@k = 0 at this cutoff only): compare at another cutoff")
    return queries, values


# ---------------------------------------------------------------------------------------------
# The statistics of one convention and metric


def _cell(values: np.ndarray, pairs: list[tuple[int, int]], test: str, level: float,
          bootstrap: int, permutations: int, seed: int) -> dict[str, np.ndarray]:
    """Means, intervals, effects and tests of one (convention, metric)."""
    n, S = values.shape
    a_idx = np.array([i for i, _ in pairs], dtype=np.int64)
    b_idx = np.array([j for _, j in pairs], dtype=np.int64)
    d = values[:, a_idx] - values[:, b_idx]
    low, high = stats.bootstrap_intervals(np.hstack([values, d]), bootstrap, seed, level)
    untestable = (n < 2) | ~d.any(axis=0)  # identical per-query values: no test
    statistic = np.full(len(pairs), np.nan)
    p = np.full(len(pairs), np.nan)
    if test == "t":
        for k in range(len(pairs)):
            r = stats.paired_table(values[:, a_idx[k]], values[:, b_idx[k]])
            statistic[k], p[k] = r["t"][0], r["p"][0]
    elif test == "wilcoxon":
        for k in range(len(pairs)):
            if not untestable[k]:
                statistic[k], p[k], _ = stats.wilcoxon(d[:, k])
    else:
        statistic = d.mean(axis=0) if n else statistic
        testable = np.flatnonzero(~untestable)
        if testable.size:
            p[testable], _ = stats.randomization(d[:, testable], permutations, seed)
    p[untestable] = np.nan
    return {"mean": values.mean(axis=0), "low": low[:S], "high": high[:S],
            "diff": d.mean(axis=0), "diff_low": low[S:], "diff_high": high[S:],
            "effect": np.array([stats.effect_size(d[:, k]) for k in range(len(pairs))]),
            "statistic": statistic, "p": p, "untestable": untestable}


def _test_label(test: str, permutations: int, n: int) -> str:
    if test != "randomization":
        return test
    exact = n <= stats.EXACT_FLIPS_MAX and 2 ** n <= permutations
    return f"randomization({'exact' if exact else permutations})"


# ---------------------------------------------------------------------------------------------


def compare(systems: Any, *, data: Any = None, qrels: Any = None,
            conventions: Sequence[str] | None = None, metrics: Sequence[str] | str = ("NDCG@10",),
            baseline: str | None = None, test: str = "t", correction: str = "holm",
            alpha: float = 0.05, level: float = 0.95, bootstrap: int = 10_000,
            permutations: int = 10_000, seed: int = 0, names: Sequence[str] | None = None,
            convention_set=None) -> Comparison:
    """Compare ``systems`` under each convention and metric (see the module's description).

    ``systems``: a mapping name -> system, or a sequence of systems named by their files'
    stems (or by ``names``). With ``data`` (a LETOR file or a
    :class:`~ltrconv.data.letor.Dataset`) a system is a score file or a vector of scores, row
    for row with the data; with ``qrels`` (as :func:`ltrconv.evaluate_run` takes them) a system
    is a run (a file, a DataFrame, a dict of dicts or a ranx Run). ``conventions`` default to
    the paper's four tools on LETOR input and to :data:`RUN_CONVENTIONS` on runs; a tool's
    metric among them (``"ranx:ndcg@10"``, ``ir_measures.nDCG@10``) is the convention it names
    (:mod:`ltrconv.evaluation.measures`), its NDCG@k added to ``metrics``, which default to
    NDCG@10. ``baseline`` names the system every other one is compared with
    (``a`` the other system, ``b`` the baseline); without it every pair is compared, ``a``
    listed before ``b``. ``test``: :data:`TESTS`; ``correction``: holm, bonferroni or bh over
    the whole family; ``alpha`` the level of the verdicts; ``level`` the intervals' coverage;
    ``bootstrap`` resamples and ``permutations`` (randomization test) drawn from ``seed``."""
    _check_settings(test, correction, alpha, level, bootstrap, permutations, seed)
    if (data is None) == (qrels is None):
        raise LtrconvError("compare needs data (a LETOR file, with score files) or qrels (with "
                           "runs), not both")
    named = name_systems(systems, names)
    system_names = tuple(named)
    if baseline is not None and baseline not in named:
        raise LtrconvError(f"baseline {shown(baseline)} is not one of the systems "
                           f"({', '.join(system_names)})")
    if convention_set is None:
        from ..evaluation.convention_set import BUILTINS as convention_set
    is_run = qrels is not None
    wanted = list(conventions) if conventions else \
        list(RUN_CONVENTIONS if is_run else conv_mod.PAPER_TOOLS)
    # a tool's metric (ranx:ndcg@10, ir_measures.nDCG@10): its convention, its NDCG@k a metric
    wanted, measure_ks = resolve_measures(wanted, "run" if is_run else "list")
    labels = [m for n in wanted for m in (conv_mod.builtin_names() if n == conv_mod.ALL
                                          else [n])]
    convs = {}
    for label in labels:
        conv = convention_set.get(label)
        same = next((k for k, c in convs.items() if c == conv), None)
        if same is not None:
            raise LtrconvError(f"conventions {shown(same)} and {shown(label)} are the same "
                               "definition: give it once")
        convs[str(label)] = conv
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = [*metrics, *(f"NDCG@{k}" for k in measure_ks)]
    parsed = list(dict.fromkeys(parse_metric(m) for m in metrics))
    if not parsed:
        raise LtrconvError("metrics: give at least one, e.g. NDCG@10")
    columns = [metric_column(f, k) for f, k in parsed]
    ks = sorted({k for _, k in parsed if k is not None}) or [1]
    families = tuple(dict.fromkeys(f for f, _ in parsed))

    if is_run:
        inputs = _run_inputs(qrels, named)
    else:
        by_docid = any(c.ties == "docid-desc" for c in convs.values())
        inputs = _letor_inputs(data, named, list(convs.values()), by_docid)
    results = {}
    for name in system_names:
        got = inputs.evaluate[name](list(convs.values()), ks, families)
        results[name] = {label: got[str(c)] for label, c in convs.items()}

    if baseline is None:
        pairs = list(itertools.combinations(range(len(system_names)), 2))
    else:
        base = system_names.index(baseline)
        pairs = [(i, base) for i in range(len(system_names)) if i != base]

    rows, queries, means = [], {}, {}
    for label, conv in convs.items():
        for column in columns:
            q, values = _matrix({s: results[s][label] for s in system_names}, column, label,
                                conv, inputs.is_run)
            if not len(q):
                raise LtrconvError(f"no query has a {column} value under {label}")
            cell = _cell(values, pairs, test, level, bootstrap, permutations, seed)
            queries[label, column] = len(q)
            for j, s in enumerate(system_names):
                means[label, column, s] = (float(cell["mean"][j]), float(cell["low"][j]),
                                           float(cell["high"][j]))
            for k, (i, j) in enumerate(pairs):
                rows.append({
                    "convention": label, "metric": column, "a": system_names[i],
                    "b": system_names[j], "n": len(q), "mean_a": float(cell["mean"][i]),
                    "mean_b": float(cell["mean"][j]), "diff": float(cell["diff"][k]),
                    "diff_low": float(cell["diff_low"][k]),
                    "diff_high": float(cell["diff_high"][k]),
                    "effect": float(cell["effect"][k]), "test": _test_label(test, permutations,
                                                                            len(q)),
                    "statistic": float(cell["statistic"][k]), "p": float(cell["p"][k]),
                    "p_adjusted": float("nan"), "correction": correction, "family_size": 0,
                    "verdict": "tie", "mean_a_low": float(cell["low"][i]),
                    "mean_a_high": float(cell["high"][i]), "mean_b_low": float(cell["low"][j]),
                    "mean_b_high": float(cell["high"][j]),
                    "_why": ("fewer than two queries" if len(q) < 2 else
                             "identical per-query values") if cell["untestable"][k] else None})
    p = np.array([r["p"] for r in rows])
    adjusted = stats.CORRECTIONS[correction](p)
    family = int(np.count_nonzero(~np.isnan(p)))
    left_out = []
    for r, pa in zip(rows, adjusted):
        r["p_adjusted"] = float(pa)
        r["family_size"] = family
        if np.isnan(pa):
            left_out.append({k: r[k] for k in ("convention", "metric", "a", "b")} |
                            {"why": r["_why"] or "no p-value"})
        elif pa < alpha and r["diff"] != 0:
            r["verdict"] = "a" if r["diff"] > 0 else "b"
        del r["_why"]

    summaries = _summaries(rows, convs, columns, system_names, pairs, inputs)
    settings = {"test": test, "correction": correction, "alpha": float(alpha),
                "level": float(level), "bootstrap": int(bootstrap), "seed": int(seed),
                "permutations": int(permutations) if test == "randomization" else None,
                "baseline": baseline, "reference": labels[0]}
    return Comparison(system_names, tuple(convs), tuple(columns), inputs.described, settings,
                      queries, means, tuple(rows), family, tuple(left_out), tuple(summaries),
                      tuple((system_names[i], system_names[j]) for i, j in pairs))


def _summaries(rows, convs, columns, system_names, pairs, inputs: _Inputs) -> list[PairSummary]:
    """Each pair's verdicts under every convention, and each flip's causes."""
    from ..evaluation.explain import explain

    by_key = {(r["convention"], r["metric"], r["a"], r["b"]): r for r in rows}
    labels = list(convs)
    reference = labels[0]
    splits: dict[tuple, dict[str, float]] = {}

    def split(system: str, label: str, column: str) -> dict[str, float] | None:
        fam, _, k = column.partition("@")
        if not k:
            return None
        key = (system, label, column)
        if key not in splits:
            run = inputs.evaluate[system]

            def evaluate(conv):
                return next(iter(run([conv], [int(k)], (fam,)).values()))

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # said once already, by the evaluation itself
                (e,) = explain(convs[reference], convs[label], evaluate, [int(k)], fam)
            splits[key] = {c.axis: c.contribution for c in e.causes}
        return splits[key]

    out = []
    for column in columns:
        for i, j in pairs:
            a, b = system_names[i], system_names[j]
            verdicts = {label: by_key[label, column, a, b]["verdict"] for label in labels}
            flips = []
            for label in labels[1:]:
                if verdicts[label] == verdicts[reference]:
                    continue
                sa, sb = split(a, label, column), split(b, label, column)
                causes = None if sa is None else tuple((axis, sa[axis] - sb[axis]) for axis in sa)
                ref, row = by_key[reference, column, a, b], by_key[label, column, a, b]
                flips.append(Flip(label, verdicts[label], ref["diff"], row["diff"], ref["effect"],
                                  row["effect"], causes))
            out.append(PairSummary(a, b, column, reference, verdicts, tuple(flips)))
    return out
