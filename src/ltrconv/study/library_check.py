"""Whether the libraries installed here still compute the NDCG their conventions describe.

Each library's own NDCG@1..10 is computed on fixed scores (no model is trained: the scores
enter as LightGBM's init_score, XGBoost's base_margin, CatBoost's approx, a ranx Run, a TREC
run, a tensor) and compared, query by query, with ltrconv's value under the convention named
after it (:mod:`ltrconv.evaluation.libraries`):

* on :func:`edge_cases`, adversarial queries that pin each behaviour a convention encodes (a
  query without relevant document, fewer documents than k, one document, ties, scores equal
  only as float32, real, negative and large labels), where a library may also refuse a query
  (it must refuse those ltrconv refuses under the convention, and only those);
* on a LETOR file (MQ2008 Fold1's test queries, when given) under three score vectors: a random
  linear combination of the features, the feature with the fewest distinct values per query
  (heavily tied) and a constant.

:func:`check_libraries` runs every :data:`CALLERS` entry whose library is installed and reports
the first query and cutoff where the library departs from the convention; ``ltrconv
check-libraries`` prints it. tests/test_libraries.py holds the same calls to the versions the
conventions were checked on.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..evaluation import conventions as C
from ..evaluation.metrics import evaluate

KS = list(range(1, 11))
SLOW_KS = [1, 3, 5, 10]  # libraries called once per query and cutoff, on a whole file
EXACT = 1e-12
TORCH_ATOL = 5e-7  # torchmetrics computes in float32


def edge_cases() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name -> (labels, scores) of the adversarial queries (fixed: seeded draws)."""
    rng = np.random.default_rng(2012)
    cases = {
        "no-relevant": ([0, 0, 0], [0.3, 0.2, 0.1]),
        "n<k": ([0, 1, 2], [0.1, 0.3, 0.2]),
        "one-relevant-document": ([2], [0.5]),
        "one-irrelevant-document": ([0], [0.5]),
        "two": ([1, 0], [0.1, 0.9]),
        "all-tied": ([0, 1, 2, 0, 1], [1.0] * 5),
        "partly-tied": ([2, 0, 1, 0, 2, 1], [1, 1, 0.5, 0.5, 0.5, 0]),
        "tied-worst-first": ([0, 0, 2, 1, 0, 2], [0.7] * 6),
        "float32-equal": ([0, 2, 1, 0], [0.1, 0.1 + 1e-12, 0.1 + 2e-12, 0.05]),
        "float32-equal-reversed": ([2, 0, 1, 0], [0.1 + 2e-12, 0.1 + 1e-12, 0.1, 0.05]),
        "real-labels": ([0.5, 1.7, 0.0, 2.2], [0.4, 0.3, 0.2, 0.1]),
        "negative-label": ([-1, 2, 0, 1], [0.4, 0.3, 0.2, 0.1]),
        "nonpositive-labels": ([0, -1, -2], [0.1, 0.3, 0.2]),
        "label-4": ([4, 0, 3, 1], [0.1, 0.4, 0.3, 0.2]),
        "label-30": ([30, 0, 1], [0.1, 0.3, 0.2]),
        "label-31": ([31, 0, 1], [0.1, 0.3, 0.2]),
        "label-32": ([32, 0, 1], [0.1, 0.3, 0.2]),
    }
    for n in (8, 15, 16, 17, 20, 33, 60, 129):
        cases[f"constant-{n}"] = (rng.integers(0, 3, n), np.zeros(n))
        cases[f"3-valued-{n}"] = (rng.integers(0, 3, n), rng.integers(0, 3, n).astype(float))
    return {k: (np.asarray(y, dtype=float), np.asarray(s, dtype=float)) for k, (y, s) in
            cases.items()}


CASES = edge_cases()
DOCIDS = {name: [f"d{j:03d}" for j in range(len(y))] for name, (y, _) in CASES.items()}


class NotApplicable(Exception):
    """The library takes no such query at all (scikit-learn: one document), whatever its
    labels: ltrconv gives it its natural value, and the case is left out of the comparison."""


# --- each library's NDCG: queries [(labels, scores, docids)] -> (queries x cutoffs) ----------
def sklearn_values(queries, ks, ignore_ties=False):
    from sklearn.metrics import ndcg_score

    out = []
    for y, s, _ in queries:
        try:
            out.append([ndcg_score(y[None], s[None], k=k, ignore_ties=ignore_ties) for k in ks])
        except ValueError as exc:
            if "more than 1 document" in str(exc):
                raise NotApplicable(str(exc)) from None
            raise
    return np.array(out)


LGB_PARAMS = {"objective": "lambdarank", "metric": "ndcg", "verbose": -1, "num_threads": 1}


def lightgbm_values(queries, ks):
    """A Booster that never trains: its training set's init_score are the first query's
    scores, and every query is a validation set of its own."""
    import lightgbm as lgb

    params = dict(LGB_PARAMS, eval_at=list(ks))
    y0, s0, _ = queries[0]
    train = lgb.Dataset(np.zeros((len(y0), 1)), y0, group=[len(y0)], init_score=s0,
                        params={"verbose": -1})
    booster = lgb.Booster(params=params, train_set=train)
    for i, (y, s, _) in enumerate(queries):
        booster.add_valid(lgb.Dataset(np.zeros((len(y), 1)), y, group=[len(y)], init_score=s,
                                      reference=train, params={"verbose": -1}), f"q{i}")
    return np.array([r[2] for r in booster.eval_valid()]).reshape(len(queries), len(ks))


def xgboost_values(queries, ks, minus=False):
    """A Booster of 0 rounds evaluated on one DMatrix per query, the scores as base_margin."""
    import xgboost as xgb

    def dmatrix(y, s):
        dm = xgb.DMatrix(np.zeros((len(y), 1)), label=y, base_margin=s)
        dm.set_group([len(y)])
        return dm

    params = {"objective": "rank:ndcg", "nthread": 1,
              "eval_metric": [f"ndcg@{k}{'-' if minus else ''}" for k in ks]}
    mats = [dmatrix(y, s) for y, s, _ in queries]
    booster = xgb.train(params, mats[0], num_boost_round=0)
    text = booster.eval_set([(m, f"q{i}") for i, m in enumerate(mats)])
    values = [float(v) for v in re.findall(r"ndcg@\d+-?:([-0-9.eE+]+|nan|inf)", text)]
    return np.array(values).reshape(len(queries), len(ks))


def catboost_values(queries, ks, variant=""):
    from catboost.utils import eval_metric

    return np.array([[eval_metric(y.tolist(), s.tolist(), f"NDCG:top={k}{variant}",
                                  group_id=[0] * len(y))[0] for k in ks] for y, s, _ in queries])


def _label(v):
    return int(v) if float(v).is_integer() else float(v)


def doc_name(j: int) -> str:
    """The name of a query's document ``j`` in the qrels and runs handed to ranx: seven
    characters for every document up to a million a query. ranx 0.3.21 holds a run's document
    names as numpy fixed-width strings and compiles its numba kernels once for each width
    (about 45 s of CPU each, cached after), so names of one width share one compiled copy
    whatever the dataset."""
    return f"d{j:06d}"


def ranx_values(queries, ks, metric="ndcg"):
    """ranx's default path, ``Qrels``/``Run``, per query in input order."""
    from ranx import Qrels, Run, evaluate as ranx_evaluate

    qrels = Qrels({f"q{i:05d}": {doc_name(j): _label(v) for j, v in enumerate(y)}
                   for i, (y, _, _) in enumerate(queries)})
    run = Run({f"q{i:05d}": {doc_name(j): float(v) for j, v in enumerate(s)}
               for i, (_, s, _) in enumerate(queries)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ranx_evaluate(qrels, run, [f"{metric}@{k}" for k in ks], return_mean=False)
    return np.array([np.atleast_1d(res[f"{metric}@{k}"]) for k in ks]).T


def pytrec_values(queries, ks):
    import pytrec_eval

    qrels = {f"q{i}": {d: _label(v) for d, v in zip(docids, y)}
             for i, (y, _, docids) in enumerate(queries)}
    run = {f"q{i}": {d: float(v) for d, v in zip(docids, s)}
           for i, (_, s, docids) in enumerate(queries)}
    res = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut." + ",".join(map(str, ks))}).evaluate(run)
    return np.array([[res[f"q{i}"][f"ndcg_cut_{k}"] for k in ks] for i in range(len(queries))])


def ir_measures_values(queries, ks):
    import ir_measures
    from ir_measures import nDCG

    qrels = [ir_measures.Qrel(f"q{i}", d, _label(v)) for i, (y, _, docids) in enumerate(queries)
             for d, v in zip(docids, y)]
    run = [ir_measures.ScoredDoc(f"q{i}", d, float(v)) for i, (_, s, docids) in enumerate(queries)
           for d, v in zip(docids, s)]
    got: dict = {}
    for m in ir_measures.iter_calc([nDCG @ k for k in ks], qrels, run):
        got.setdefault(m.query_id, {})[m.measure] = m.value
    return np.array([[got[f"q{i}"][nDCG @ k] for k in ks] for i in range(len(queries))])


def torchmetrics_values(queries, ks):
    import torch
    from torchmetrics.functional.retrieval import retrieval_normalized_dcg

    out = []
    for y, s, _ in queries:
        target = torch.tensor(y, dtype=torch.long) if np.all(y == np.round(y)) else \
            torch.tensor(y, dtype=torch.float64)
        preds = torch.tensor(s, dtype=torch.float64)
        out.append([float(retrieval_normalized_dcg(preds, target, top_k=k)) for k in ks])
    return np.array(out)


def _refusals(*names: str) -> Callable[[], tuple]:
    """The exception classes (``module:attribute`` paths) a library refuses a query with,
    imported when asked."""
    def classes():
        out = []
        for name in names:
            module, _, attr = name.partition(":")
            obj = importlib.import_module(module or "builtins")
            for part in attr.split("."):
                obj = getattr(obj, part)
            out.append(obj)
        return tuple(out)
    return classes


@dataclass(frozen=True)
class Caller:
    """How one library computes one convention's NDCG: ``values`` (queries, cutoffs) -> array;
    ``modules`` must import for it to run (the first is the library's own); ``package`` is the
    distribution whose version is reported; ``refuses``, the exceptions that mean "this query
    is refused"; ``atol`` the agreement the convention claims (``atol_for``: per edge case);
    ``slow`` when the library is called once per query and cutoff (fewer cutoffs on a file)."""

    library: str
    package: str
    convention: str
    values: Callable
    modules: tuple[str, ...]
    refuses: Callable[[], tuple] = field(default=lambda: ())
    atol: float = EXACT
    atol_for: dict = field(default_factory=dict)
    slow: bool = False
    needs: str | None = None


def _with(f, **kw):
    def call(queries, ks):
        return f(queries, ks, **kw)
    return call


CATBOOST_REAL = {"real-labels": 1e-8}  # labels stored as float32: equal to that precision only
CALLERS: tuple[Caller, ...] = (
    Caller("scikit-learn", "scikit-learn", "sklearn", sklearn_values, ("sklearn",),
           _refusals(":ValueError"), slow=True),
    Caller("scikit-learn", "scikit-learn", "sklearn-ignore-ties",
           _with(sklearn_values, ignore_ties=True), ("sklearn",), _refusals(":ValueError"),
           slow=True),
    Caller("LightGBM", "lightgbm", "lightgbm", lightgbm_values, ("lightgbm",),
           _refusals("lightgbm:basic.LightGBMError")),
    Caller("XGBoost", "xgboost", "xgboost", xgboost_values, ("xgboost",),
           _refusals("xgboost:core.XGBoostError")),
    Caller("XGBoost", "xgboost", "xgboost-minus", _with(xgboost_values, minus=True),
           ("xgboost",), _refusals("xgboost:core.XGBoostError")),
    Caller("CatBoost", "catboost", "catboost", catboost_values, ("catboost",),
           atol_for=CATBOOST_REAL, slow=True),
    Caller("CatBoost", "catboost", "catboost-exp", _with(catboost_values, variant=";type=Exp"),
           ("catboost",), atol_for=CATBOOST_REAL, slow=True),
    Caller("CatBoost", "catboost", "catboost-position",
           _with(catboost_values, variant=";denominator=Position"), ("catboost",),
           atol_for=CATBOOST_REAL, slow=True),
    Caller("ranx", "ranx", "ranx", ranx_values, ("ranx",)),
    Caller("ranx", "ranx", "ranx-burges", _with(ranx_values, metric="ndcg_burges"), ("ranx",)),
    Caller("pytrec_eval", "pytrec-eval-terrier", "trec-raw", pytrec_values, ("pytrec_eval",),
           _refusals(":TypeError")),
    # ir_measures computes nDCG@k with pytrec_eval
    Caller("ir_measures", "ir-measures", "trec-raw", ir_measures_values,
           ("ir_measures", "pytrec_eval"), _refusals(":TypeError")),
    Caller("torchmetrics", "torchmetrics", "torchmetrics", torchmetrics_values,
           ("torchmetrics", "torch"), atol=TORCH_ATOL, slow=True,
           needs="torch's CPU build, then the torch extra (docs/libraries.md)"),
)
"""Every library's NDCG this module can call, one entry per (library, convention)."""


# --- ltrconv's side and the comparison --------------------------------------------------------
def ours(convention, queries, ks) -> list[np.ndarray | None]:
    """ltrconv's NDCG@``ks`` of each (labels, scores, docids) query under ``convention``; None
    where the convention refuses the query's labels."""
    from ..errors import InputError

    out = []
    for y, s, docids in queries:
        try:
            ev = evaluate(y, s, np.zeros(len(y), int), conventions=[convention], cutoffs=ks,
                          metrics="NDCG", docid=docids)
            (frame,) = ev.values()
            out.append(frame.values[0])
        except InputError:
            out.append(None)
    return out


def ours_file(convention, data, scores, ks) -> np.ndarray:
    """ltrconv's NDCG@``ks`` of every query of ``data`` (a LETOR dataset) ranked by ``scores``."""
    ev = evaluate(data.y, scores, data.qid, offsets=data.offsets, docid=data.docid,
                  conventions=[convention], cutoffs=ks, metrics="NDCG")
    (frame,) = ev.values()
    return frame.values


def file_scores(data) -> dict[str, np.ndarray]:
    """Three score vectors over ``data``: a random linear combination of the features
    (continuous; seed 20240601), the feature with the fewest distinct values per query
    (heavily tied), and 0 (every query one tie)."""
    off = data.offsets
    distinct = [np.mean([len(np.unique(data.X[a:b, j])) / (b - a) for a, b in
                         zip(off[:-1], off[1:])]) if np.ptp(data.X[:, j]) > 0 else np.inf
                for j in range(data.X.shape[1])]
    tied = int(np.argmin(distinct))
    w = np.random.default_rng(20240601).normal(size=data.X.shape[1])
    return {"linear": data.X @ w, f"feature{tied + 1}": data.X[:, tied].copy(),
            "constant": np.zeros(data.n_docs)}


def _fmt(v) -> float | str | None:
    if v is None:
        return None
    v = float(v)
    return v if np.isfinite(v) else str(v)


@dataclass
class Outcome:
    """One library's result for one convention: ``equal`` True, False, or None when the
    library is not installed (``reason``); the first difference (case, k, both values); the
    largest difference and the number of queries compared."""

    library: str
    package: str
    convention: str
    version: str | None
    checked_on: str
    equal: bool | None
    queries: int = 0
    largest_difference: float = 0.0
    first_difference: dict | None = None
    reason: str | None = None

    def as_dict(self) -> dict:
        out = {"library": self.library, "package": self.package, "version": self.version,
               "convention": self.convention, "checked_on": self.checked_on,
               "equal": self.equal, "queries": self.queries,
               "largest_difference": self.largest_difference}
        if self.first_difference is not None:
            out["first_difference"] = self.first_difference
        if self.reason is not None:
            out["reason"] = self.reason
        return out


def installed(caller: Caller) -> str | None:
    """Why ``caller`` cannot run here (a module missing), else None."""
    for module in caller.modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            return f"{module} is not installed ({exc})" + (
                f"; install {caller.needs}" if caller.needs else "")
    return None


def distribution(caller: Caller) -> tuple[str, str]:
    """(distribution, version) that provides the library's module here: ``caller.package``,
    or whichever distribution installed the module (XGBoost comes as xgboost or xgboost-cpu)."""
    try:
        return caller.package, importlib.metadata.version(caller.package)
    except importlib.metadata.PackageNotFoundError:
        dists = importlib.metadata.packages_distributions().get(caller.modules[0], [])
        for name in dists:
            return name, importlib.metadata.version(name)
        return caller.package, "unknown"


def checked_version(caller: Caller) -> str:
    """The version of the library's distribution its convention was checked on (the
    registry's ``checked``: ``package version[, other version]``)."""
    lib = C.library(caller.convention)
    names = {caller.package, distribution(caller)[0]} if installed(caller) is None \
        else {caller.package}
    for part in lib.checked.split(", "):
        name, _, version = part.rpartition(" ")
        if name in names or name.replace("xgboost-cpu", "xgboost") in names:
            return version
    return lib.version


def _library_side(caller: Caller, queries, ks):
    """The library's values per query, or 'refused: ...' / NotApplicable per query: one call
    per query, so that one refusal does not hide the others."""
    refuses = caller.refuses()
    out = []
    for q in queries:
        try:
            out.append(caller.values([q], ks)[0])
        except NotApplicable:
            out.append(NotApplicable)
        except refuses as exc:
            out.append(f"refused: {str(exc).strip().splitlines()[0][:200] if str(exc) else type(exc).__name__}")
    return out


def check(caller: Caller, data=None, data_name: str = "data") -> Outcome:
    """``caller``'s library against its convention on :data:`CASES`, then on ``data`` (a
    LETOR dataset, optional) under :func:`file_scores`."""
    lib = C.library(caller.convention)
    why = installed(caller)
    if why is not None:
        return Outcome(caller.library, caller.package, caller.convention, None, lib.checked,
                       None, reason=why)
    package, version = distribution(caller)
    outcome = Outcome(caller.library, package, caller.convention, version, lib.checked, True)

    def depart(where, k, theirs, mine, diff):
        outcome.equal = False
        if outcome.first_difference is None:
            outcome.first_difference = {"case": where, "k": k, "library": theirs,
                                        "ltrconv": mine}
        if diff is not None:
            outcome.largest_difference = max(outcome.largest_difference, diff)

    names = list(CASES)
    queries = [(*CASES[n], DOCIDS[n]) for n in names]
    theirs_all = _library_side(caller, queries, KS)
    mine_all = ours(caller.convention, queries, KS)
    for name, theirs, mine in zip(names, theirs_all, mine_all):
        if theirs is NotApplicable:
            continue
        outcome.queries += 1
        if isinstance(theirs, str) or mine is None:
            if not (isinstance(theirs, str) and mine is None):
                depart(f"edge case {name}", None, theirs if isinstance(theirs, str)
                       else [_fmt(v) for v in theirs], "refused" if mine is None
                       else [_fmt(v) for v in mine], None)
            continue
        diff = np.abs(np.asarray(theirs, float) - mine)
        tol = caller.atol_for.get(name, caller.atol)
        bad = np.flatnonzero(~(diff <= tol))
        finite = diff[np.isfinite(diff)]
        outcome.largest_difference = max(outcome.largest_difference,
                                         float(finite.max()) if finite.size else 0.0)
        if bad.size:
            i = int(bad[0])
            depart(f"edge case {name}", KS[i], _fmt(theirs[i]), _fmt(mine[i]),
                   float(diff[i]) if np.isfinite(diff[i]) else None)
    if data is not None:
        ks = SLOW_KS if caller.slow else KS
        off = data.offsets.tolist()
        spans = list(zip(off[:-1], off[1:]))
        docids = [data.docid[a:b].tolist() for a, b in spans]
        for label, s in file_scores(data).items():
            qs = [(data.y[a:b].astype(float), s[a:b], d) for (a, b), d in zip(spans, docids)]
            theirs = np.asarray(caller.values(qs, ks), float)
            mine = ours_file(caller.convention, data, s, ks)
            diff = np.abs(theirs - mine)
            outcome.queries += len(spans)
            finite = diff[np.isfinite(diff)]
            outcome.largest_difference = max(outcome.largest_difference,
                                             float(finite.max()) if finite.size else 0.0)
            bad = np.argwhere(~(diff <= caller.atol))
            if bad.size:
                q, i = (int(x) for x in bad[0])
                depart(f"{data_name} query {data.qid[spans[q][0]]} (scores: {label})", ks[i],
                       _fmt(theirs[q, i]), _fmt(mine[q, i]),
                       float(diff[q, i]) if np.isfinite(diff[q, i]) else None)
    return outcome


def check_libraries(data=None, data_name: str = "data", libraries=None) -> list[Outcome]:
    """Every :data:`CALLERS` entry (or those whose library is in ``libraries``) checked here
    (:func:`check`), in order; a library not installed gives ``equal=None`` and the reason."""
    wanted = None if libraries is None else {x.lower() for x in libraries}
    known = {c.library.lower() for c in CALLERS} | {c.convention for c in CALLERS}
    if wanted is not None and wanted - known:
        from ..errors import LtrconvError

        raise LtrconvError(f"unknown library or convention {sorted(wanted - known)}; known: "
                           f"{', '.join(dict.fromkeys(c.library for c in CALLERS))} and the "
                           f"conventions {', '.join(dict.fromkeys(c.convention for c in CALLERS))}")
    return [check(c, data, data_name) for c in CALLERS
            if wanted is None or c.library.lower() in wanted or c.convention in wanted]
