"""Each library convention against the library itself, query by query.

The library computes NDCG@1..10 of fixed scores (no model is trained: the scores enter as
LightGBM's init_score, XGBoost's base_margin, CatBoost's approx, a ranx Run, a TREC run, a
tensor), on hand-made edge cases and on MQ2008 Fold1's test queries under continuous, heavily
tied and constant scores. The edge cases pin each behaviour a convention encodes (the empty
query, n < k, ties, float32, the labels accepted and refused), so a release that changes its
convention fails here. Each library is imported per test and skipped with the reason when it
is missing or older than the version the convention was checked on (the registry's).
"""

from __future__ import annotations

import importlib.metadata
import re
import warnings

import numpy as np
import pytest

from ltrconv.errors import InputError
from ltrconv.evaluation import conventions as C
from ltrconv.evaluation.metrics import evaluate

KS = list(range(1, 11))
MQ_KS = [1, 3, 5, 10]  # per-call libraries (scikit-learn, CatBoost, torchmetrics) on MQ2008
EXACT = 1e-12


def need(module: str, convention: str):
    """The library behind ``convention``, at least at the version it was checked on."""
    from packaging.version import Version

    mod = pytest.importorskip(module)
    lib = C.library(convention)
    have = importlib.metadata.version(lib.package)
    if Version(have) < Version(lib.version):
        pytest.skip(f"{lib.package} {have} is older than {lib.version}, on which the "
                    f"{convention} convention was checked")
    return mod


def edge_cases() -> dict[str, tuple[np.ndarray, np.ndarray]]:
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


def ours(convention: str) -> dict[str, np.ndarray | None]:
    """ltrconv's NDCG@1..10 of every edge case; None where the convention refuses its labels."""
    out = {}
    for name, (y, s) in CASES.items():
        try:
            ev = evaluate(y, s, np.zeros(len(y), int), conventions=[convention], cutoffs="1-10",
                          metrics="NDCG", docid=DOCIDS[name])
            out[name] = ev[convention].values[0]
        except InputError:
            out[name] = None
    return out


def compare(convention: str, lib: dict, atol: float = EXACT, atol_for: dict | None = None):
    """Same cases refused (None), the same values elsewhere; returns the largest difference."""
    mine = ours(convention)
    assert {c for c, v in lib.items() if v is None} == {c for c, v in mine.items() if v is None}
    worst = 0.0
    for case, v in lib.items():
        if v is None:
            continue
        diff = float(np.max(np.abs(np.asarray(v, float) - mine[case])))
        assert diff <= (atol_for or {}).get(case, atol), (convention, case, v, mine[case])
        worst = max(worst, diff)
    return worst


def refused(call, *errors):
    try:
        return call()
    except errors:
        return None


# --- MQ2008: per query, under three score vectors ------------------------------------------
@pytest.fixture(scope="module")
def mq(mq2008_fold1):
    """MQ2008 Fold1 test with three score vectors: a random linear combination of the features
    (continuous), the feature with the fewest distinct values per query (heavily tied), 0."""
    test = mq2008_fold1[2]
    off = test.offsets
    distinct = [np.mean([len(np.unique(test.X[a:b, j])) / (b - a) for a, b in
                         zip(off[:-1], off[1:])]) if np.ptp(test.X[:, j]) > 0 else np.inf
                for j in range(test.X.shape[1])]
    tied = int(np.argmin(distinct))
    w = np.random.default_rng(20240601).normal(size=test.X.shape[1])
    scores = {"linear": test.X @ w, f"feature{tied + 1}": test.X[:, tied].copy(),
              "constant": np.zeros(test.n_docs)}
    queries = [(a, b) for a, b in zip(off[:-1].tolist(), off[1:].tolist())]
    return test, scores, queries


def ours_mq(convention: str, test, s, ks=KS) -> np.ndarray:
    ev = evaluate(test.y, s, test.qid, offsets=test.offsets, docid=test.docid,
                  conventions=[convention], cutoffs=ks, metrics="NDCG")
    return ev[convention].values


def compare_mq(convention, got: np.ndarray, test, s, ks=KS, atol=EXACT) -> float:
    want = ours_mq(convention, test, s, ks)
    assert got.shape == want.shape
    diff = float(np.max(np.abs(got - want)))
    assert diff <= atol, (convention, diff)
    return diff


# --- scikit-learn ---------------------------------------------------------------------------
def sklearn_values(y, s, ks, ignore_ties):
    from sklearn.metrics import ndcg_score

    return np.array([ndcg_score(y[None], s[None], k=k, ignore_ties=ignore_ties) for k in ks])


@pytest.mark.parametrize("convention, ignore_ties", [("sklearn", False),
                                                     ("sklearn-ignore-ties", True)])
def test_sklearn_edge_cases(convention, ignore_ties):
    need("sklearn", convention)
    lib, single = {}, []
    for case, (y, s) in CASES.items():
        try:
            lib[case] = sklearn_values(y, s, KS, ignore_ties)
        except ValueError as exc:
            if "more than 1 document" in str(exc):
                single.append(case)  # ltrconv gives such a query its natural value
                continue
            assert "negative y_true" in str(exc), exc
            lib[case] = None
    assert single == ["one-relevant-document", "one-irrelevant-document"]
    compare(convention, lib | {c: ours(convention)[c] for c in single})


@pytest.mark.parametrize("convention, ignore_ties", [("sklearn", False),
                                                     ("sklearn-ignore-ties", True)])
def test_sklearn_mq2008(mq, convention, ignore_ties):
    need("sklearn", convention)
    test, scores, queries = mq
    for s in scores.values():
        got = np.array([sklearn_values(test.y[a:b], s[a:b], MQ_KS, ignore_ties)
                        for a, b in queries])
        compare_mq(convention, got, test, s, MQ_KS)


# --- LightGBM -------------------------------------------------------------------------------
LGB_PARAMS = {"objective": "lambdarank", "metric": "ndcg", "eval_at": KS, "verbose": -1,
              "num_threads": 1}


def lightgbm_booster(lgb, y, s):
    """A Booster that never trains: its training set's init_score are the scores."""
    train = lgb.Dataset(np.zeros((len(y), 1)), y, group=[len(y)], init_score=s,
                        params={"verbose": -1})
    return lgb.Booster(params=LGB_PARAMS, train_set=train), train


def test_lightgbm_edge_cases():
    lgb = need("lightgbm", "lightgbm")
    lib = {case: refused(lambda: [r[2] for r in lightgbm_booster(lgb, y, s)[0].eval_train()],
                         lgb.basic.LightGBMError)
           for case, (y, s) in CASES.items()}
    compare("lightgbm", lib)


def test_lightgbm_mq2008(mq):
    lgb = need("lightgbm", "lightgbm")
    test, scores, queries = mq
    for s in scores.values():
        booster, train = lightgbm_booster(lgb, test.y[:1].astype(float), s[:1])
        for i, (a, b) in enumerate(queries):  # one validation set per query
            booster.add_valid(lgb.Dataset(np.zeros((b - a, 1)), test.y[a:b].astype(float),
                                          group=[b - a], init_score=s[a:b], reference=train,
                                          params={"verbose": -1}), f"q{i}")
        got = np.array([r[2] for r in booster.eval_valid()]).reshape(len(queries), len(KS))
        compare_mq("lightgbm", got, test, s)


# --- XGBoost --------------------------------------------------------------------------------
def xgboost_values(xgb, queries, minus):
    """NDCG@1..10 of each (labels, scores) query: a Booster of 0 rounds evaluated on one
    DMatrix per query, the scores as base_margin."""
    def dmatrix(y, s):
        dm = xgb.DMatrix(np.zeros((len(y), 1)), label=y, base_margin=s)
        dm.set_group([len(y)])
        return dm

    params = {"objective": "rank:ndcg", "nthread": 1,
              "eval_metric": [f"ndcg@{k}{'-' if minus else ''}" for k in KS]}
    mats = [dmatrix(y, s) for y, s in queries]
    booster = xgb.train(params, mats[0], num_boost_round=0)
    text = booster.eval_set([(m, f"q{i}") for i, m in enumerate(mats)])
    values = [float(v) for v in re.findall(r"ndcg@\d+-?:([-0-9.eE+]+|nan|inf)", text)]
    return np.array(values).reshape(len(queries), len(KS))


@pytest.mark.parametrize("convention, minus", [("xgboost", False), ("xgboost-minus", True)])
def test_xgboost_edge_cases(convention, minus):
    xgb = need("xgboost", convention)
    lib = {case: refused(lambda: xgboost_values(xgb, [(y, s)], minus)[0], xgb.core.XGBoostError)
           for case, (y, s) in CASES.items()}
    compare(convention, lib)


@pytest.mark.parametrize("convention, minus", [("xgboost", False), ("xgboost-minus", True)])
def test_xgboost_mq2008(mq, convention, minus):
    xgb = need("xgboost", convention)
    test, scores, queries = mq
    for s in scores.values():
        got = xgboost_values(xgb, [(test.y[a:b], s[a:b]) for a, b in queries], minus)
        compare_mq(convention, got, test, s)


# --- CatBoost -------------------------------------------------------------------------------
CATBOOST = {"catboost": "", "catboost-exp": ";type=Exp", "catboost-position": ";denominator=Position"}


def catboost_values(y, s, ks, variant):
    from catboost.utils import eval_metric

    return np.array([eval_metric(y.tolist(), s.tolist(), f"NDCG:top={k}{variant}",
                                 group_id=[0] * len(y))[0] for k in ks])


@pytest.mark.parametrize("convention", CATBOOST)
def test_catboost_edge_cases(convention):
    need("catboost", convention)
    lib = {case: catboost_values(y, s, KS, CATBOOST[convention]) for case, (y, s) in CASES.items()}
    # labels are stored as float32: the real labels' values agree to that precision only
    compare(convention, lib, atol_for={"real-labels": 1e-8})


@pytest.mark.parametrize("convention", CATBOOST)
def test_catboost_mq2008(mq, convention):
    need("catboost", convention)
    test, scores, queries = mq
    for s in scores.values():
        got = np.array([catboost_values(test.y[a:b], s[a:b], MQ_KS, CATBOOST[convention])
                        for a, b in queries])
        compare_mq(convention, got, test, s, MQ_KS)


# --- ranx -----------------------------------------------------------------------------------
def ranx_values(queries, metric):
    """Per query (in input order) NDCG@1..10 by ranx's default path, ``Qrels``/``Run``."""
    from ranx import Qrels, Run, evaluate as ranx_evaluate

    def label(v):
        return int(v) if float(v).is_integer() else float(v)

    qrels = Qrels({f"q{i:05d}": {f"d{j}": label(v) for j, v in enumerate(y)}
                   for i, (y, _) in enumerate(queries)})
    run = Run({f"q{i:05d}": {f"d{j}": float(v) for j, v in enumerate(s)}
               for i, (_, s) in enumerate(queries)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ranx_evaluate(qrels, run, [f"{metric}@{k}" for k in KS], return_mean=False)
    return np.array([np.atleast_1d(res[f"{metric}@{k}"]) for k in KS]).T


@pytest.mark.parametrize("convention, metric", [("ranx", "ndcg"), ("ranx-burges", "ndcg_burges")])
def test_ranx_edge_cases(convention, metric):
    need("ranx", convention)
    lib = {case: ranx_values([(y, s)], metric)[0] for case, (y, s) in CASES.items()}
    compare(convention, lib)


@pytest.mark.parametrize("convention, metric", [("ranx", "ndcg"), ("ranx-burges", "ndcg_burges")])
def test_ranx_mq2008(mq, convention, metric):
    need("ranx", convention)
    test, scores, queries = mq
    for s in scores.values():
        got = ranx_values([(test.y[a:b], s[a:b]) for a, b in queries], metric)
        compare_mq(convention, got, test, s)


# --- trec_eval (pytrec_eval) and ir_measures ------------------------------------------------
def _rel(v):
    return int(v) if float(v).is_integer() else float(v)


def pytrec_values(queries, docids):
    import pytrec_eval

    qrels = {f"q{i}": {d: _rel(v) for d, v in zip(docids[i], y)} for i, (y, _) in enumerate(queries)}
    run = {f"q{i}": {d: float(v) for d, v in zip(docids[i], s)} for i, (_, s) in enumerate(queries)}
    res = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut." + ",".join(map(str, KS))}).evaluate(run)
    return np.array([[res[f"q{i}"][f"ndcg_cut_{k}"] for k in KS] for i in range(len(queries))])


def ir_measures_values(queries, docids):
    import ir_measures
    from ir_measures import nDCG

    qrels = [ir_measures.Qrel(f"q{i}", d, _rel(v)) for i, (y, _) in enumerate(queries)
             for d, v in zip(docids[i], y)]
    run = [ir_measures.ScoredDoc(f"q{i}", d, float(v)) for i, (_, s) in enumerate(queries)
           for d, v in zip(docids[i], s)]
    got: dict = {}
    for m in ir_measures.iter_calc([nDCG @ k for k in KS], qrels, run):
        got.setdefault(m.query_id, {})[m.measure] = m.value
    return np.array([[got[f"q{i}"][nDCG @ k] for k in KS] for i in range(len(queries))])


@pytest.mark.parametrize("module, values", [("pytrec_eval", pytrec_values),
                                            ("ir_measures", ir_measures_values)])
def test_trec_raw_edge_cases(module, values):
    need(module, "trec-raw")
    if module == "ir_measures":
        need("pytrec_eval", "trec-raw")  # ir_measures computes nDCG@k with pytrec_eval
    lib = {case: refused(lambda: values([(y, s)], [DOCIDS[case]])[0], TypeError)
           for case, (y, s) in CASES.items()}
    compare("trec-raw", lib)


@pytest.mark.parametrize("module, values", [("pytrec_eval", pytrec_values),
                                            ("ir_measures", ir_measures_values)])
def test_trec_raw_mq2008(mq, module, values):
    need(module, "trec-raw")
    need("pytrec_eval", "trec-raw")
    test, scores, queries = mq
    docids = [test.docid[a:b].tolist() for a, b in queries]
    for s in scores.values():
        got = values([(test.y[a:b], s[a:b]) for a, b in queries], docids)
        compare_mq("trec-raw", got, test, s)


# --- torchmetrics ---------------------------------------------------------------------------
TORCH_ATOL = 5e-7  # torchmetrics computes in float32


def torchmetrics_values(y, s, ks):
    import torch
    from torchmetrics.functional.retrieval import retrieval_normalized_dcg

    target = torch.tensor(y, dtype=torch.long) if np.all(y == np.round(y)) else \
        torch.tensor(y, dtype=torch.float64)
    preds = torch.tensor(s, dtype=torch.float64)
    return np.array([float(retrieval_normalized_dcg(preds, target, top_k=k)) for k in ks])


def need_torchmetrics():
    pytest.importorskip("torch", reason="torchmetrics needs torch: install the CPU build of "
                                        "torch, then the torch extra (docs/libraries.md)")
    return need("torchmetrics", "torchmetrics")


def test_torchmetrics_edge_cases():
    need_torchmetrics()
    lib = {case: torchmetrics_values(y, s, KS) for case, (y, s) in CASES.items()}
    compare("torchmetrics", lib, atol=TORCH_ATOL)


def test_torchmetrics_mq2008(mq):
    """Per query (the functional form), and the module's means: its default counts a query
    without relevant document as 0, ``empty_target_action="skip"`` leaves it out (empty=skip)."""
    need_torchmetrics()
    import torch
    from torchmetrics.retrieval import RetrievalNormalizedDCG

    test, scores, queries = mq
    index = torch.tensor(np.repeat(np.arange(len(queries)), np.diff(test.offsets)))
    skip = C.get("torchmetrics").with_(empty="skip")
    for s in scores.values():
        got = np.array([torchmetrics_values(test.y[a:b], s[a:b], MQ_KS) for a, b in queries])
        compare_mq("torchmetrics", got, test, s, MQ_KS, atol=TORCH_ATOL)
        for action, conv in (("neg", "torchmetrics"), ("skip", skip)):
            module = RetrievalNormalizedDCG(top_k=10, empty_target_action=action)
            mean = float(module(torch.tensor(s, dtype=torch.float32),
                                torch.tensor(test.y, dtype=torch.long), indexes=index))
            (ev,) = evaluate(test.y, s, test.qid, offsets=test.offsets, conventions=[conv],
                             cutoffs=10, metrics="NDCG").values()
            assert mean == pytest.approx(ev.mean()["NDCG@10"], abs=TORCH_ATOL)
