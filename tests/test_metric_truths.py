"""Every metric of ``evaluate`` against values worked out by hand and an independent model.

The model below is written from the definitions, not from the kernels: rank by score (ties per
the tool), then, for rank r = 1..n and cutoff k,

* ``DCG@k = sum_{r <= min(k,n)} (2^l_r - 1) disc(r)``, ``disc(r) = 1/log2(r+1)``, or for
  LETOR 4.0 ``1`` for r <= 2 and ``1/log2(r)`` after; NDCG@k = DCG@k / IDCG@k, except that a
  query without relevant document scores the tool's empty value and, for LETOR, n < k scores 0;
* ``P@k = #{r <= k: l_r >= 1} / d``, d = min(k, n) (RankLib, Yahoo) or k (trec_eval, LETOR);
* ``AP = sum_{relevant r} P@r / #relevant`` (0 without relevant document), ``RR = 1/r_first``;
* ERR (Chapelle, Metzler, Zhang & Grinspan 2009, Sec. 4):
  ``ERR@k = sum_{r <= min(k,n)} (1/r) R_r prod_{j<r} (1 - R_j)``, ``R = (2^l - 1) / 2^l_max``.

``l_max``: Chapelle et al. take the largest grade of the judging scale. ``evaluate`` takes the
``max_label`` it is given, else the largest label of the whole evaluated set (not of each query),
which is the scale's maximum whenever some document reaches it. ERR ignores the empty and n < k
rules of NDCG (it is a sum over the ranks there are), and under tie-averaging it is NaN.

Both engines (numba and numpy) are checked. On MQ2008, P@k, MAP, RR and NDCG@k under ``trec``
are compared with pytrec_eval (trec_eval 9).
"""

import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest

from ltrconv import NDCGScorer, evaluate, evaluate_dataset

ENGINES = ("numpy", "numba")
CUTOFFS = list(range(1, 13))

# The tools' rules as Busa-Fekete et al. (2012, Sec. 3) and the tools' documentation state them.
TOOLS = {
    "ranklib": dict(disc="log2", empty=0.0, short="truncate", pk="min", ties="input"),
    "yahoo": dict(disc="log2", empty=1.0, short="truncate", pk="min", ties="input"),
    "yahoo-half": dict(disc="log2", empty=0.5, short="truncate", pk="min", ties="input"),
    "letor": dict(disc="letor", empty=0.0, short="zero", pk="k", ties="input"),
    "trec": dict(disc="log2", empty=0.0, short="truncate", pk="k", ties="docid"),
    "ranklib-tiepess": dict(disc="log2", empty=0.0, short="truncate", pk="min", ties="worst"),
    "ranklib-tieopt": dict(disc="log2", empty=0.0, short="truncate", pk="min", ties="best"),
}


# ---- the independent model ---------------------------------------------------------------
def disc(r: int, kind: str) -> float:
    if kind == "letor":
        return 1.0 if r <= 2 else 1.0 / math.log2(r)
    return 1.0 / math.log2(r + 1)


def dcg(ranked, k: int, kind: str) -> float:
    return sum((2 ** l - 1) * disc(r, kind) for r, l in enumerate(ranked[:k], start=1))


def ranked_labels(labels, scores, ties: str, docid=None) -> list[int]:
    """Labels in rank order: highest score first, ties by the tool's rule."""
    idx = range(len(labels))
    if ties == "input":  # Python's sort is stable
        order = sorted(idx, key=lambda i: -scores[i])
    elif ties == "worst":
        order = sorted(idx, key=lambda i: (-scores[i], labels[i]))
    elif ties == "best":
        order = sorted(idx, key=lambda i: (-scores[i], -labels[i]))
    else:  # trec_eval: float32 scores descending, then docid descending
        order = sorted(idx, key=lambda i: (float(np.float32(scores[i])), docid[i].encode()),
                       reverse=True)
    return [int(labels[i]) for i in order]


def truth(ranked, tool: str, k: int, l_max: int) -> dict[str, float]:
    """Every metric of one query, from its labels in rank order."""
    t = TOOLS[tool]
    n = len(ranked)
    rel = [l >= 1 for l in ranked]
    ideal = sorted(ranked, reverse=True)
    d, i = dcg(ranked, k, t["disc"]), dcg(ideal, k, t["disc"])
    if i == 0:
        ndcg = t["empty"]
    elif t["short"] == "zero" and n < k:
        ndcg = 0.0
    else:
        ndcg = d / i
    n_rel = sum(rel)
    ap = sum(sum(rel[:r]) / r for r in range(1, n + 1) if rel[r - 1]) / n_rel if n_rel else 0.0
    rr = 1.0 / (rel.index(True) + 1) if n_rel else 0.0
    err, cont = 0.0, 1.0
    for r, l in enumerate(ranked[:k], start=1):
        stop = (2 ** l - 1) / 2 ** l_max
        err += cont * stop / r
        cont *= 1 - stop
    return {f"NDCG@{k}": ndcg, f"DCG@{k}": d,
            f"P@{k}": sum(rel[:k]) / (k if t["pk"] == "k" else min(k, n)),
            f"ERR@{k}": err, "MAP": ap, "RR": rr}


def random_queries(seed: int, n_queries: int = 60):
    """Queries of 1-15 documents, labels 0-4 (some queries all 0), scores with many ties."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 16, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.choice([0, 0, 0, 1, 2, 3, 4], size=len(qid))
    y[qid % 7 == 3] = 0
    s = rng.integers(0, 5, len(qid)).astype(float)
    docid = np.array([f"d{rng.integers(0, 10**6):06d}-{i}" for i in range(len(qid))])
    return y, s, qid, docid


def one(labels, scores, tool, engine, *, cutoffs=CUTOFFS, max_label=None, docid=None):
    """``evaluate`` on one query; {metric: value}."""
    labels = np.asarray(labels)
    ev = evaluate(labels, np.asarray(scores, dtype=float), np.zeros(len(labels), int),
                  conventions=[tool], cutoffs=cutoffs, max_label=max_label, docid=docid,
                  engine=engine)[tool]
    return dict(zip(ev.columns, ev.values[0].tolist()))


def check(got: dict, want: dict) -> None:
    for name, value in want.items():
        assert got[name] == pytest.approx(float(value), abs=1e-12), name


# ---- against the model on random queries ------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [0, 1])
def test_every_metric_equals_the_model(seed, engine):
    y, s, qid, docid = random_queries(seed)
    tools = list(TOOLS)
    res = evaluate(y, s, qid, conventions=tools, cutoffs=CUTOFFS, docid=docid, engine=engine)
    l_max = int(y.max())
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    for q, a in enumerate(starts):
        b = starts[q + 1] if q + 1 < len(starts) else len(y)
        for tool in tools:
            ranked = ranked_labels(y[a:b], s[a:b], TOOLS[tool]["ties"], docid[a:b])
            ev = res[tool]
            for k in CUTOFFS:
                for name, value in truth(ranked, tool, k, l_max).items():
                    assert ev[name][q] == pytest.approx(value, abs=1e-12), (tool, q, name)


@pytest.mark.parametrize("seed", [0, 1])
def test_training_scorer_equals_the_model(seed):
    """NDCGScorer, the rankers' training and selection metric, applies the same rules."""
    y, s, qid, docid = random_queries(seed)
    offsets = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1], True])
    for tool in TOOLS:
        for k in (1, 3, 5, 10):
            got = NDCGScorer(y, offsets, tool, k, docid=docid).per_query(s)
            want = [truth(ranked_labels(y[a:b], s[a:b], TOOLS[tool]["ties"], docid[a:b]),
                          tool, k, 4)[f"NDCG@{k}"] for a, b in zip(offsets[:-1], offsets[1:])]
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"{tool} @{k}")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", range(4))
def test_tie_average_is_the_mean_over_tied_orders(seed, engine):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 7))
    y = rng.integers(0, 3, n)
    y[0] = 1  # at least one relevant document
    s = rng.integers(0, 2, n).astype(float)
    levels = sorted(set(s), reverse=True)
    orders = [sum(p, ()) for p in itertools.product(
        *(itertools.permutations(np.flatnonzero(s == v)) for v in levels))]
    for tool in ("ranklib-tieavg", "letor-tieavg"):
        base = tool.removesuffix("-tieavg")
        got = one(y, s, tool, engine)
        for k in CUTOFFS:
            rows = [truth([int(y[i]) for i in o], base, k, int(y.max())) for o in orders]
            for name in (f"NDCG@{k}", f"DCG@{k}", f"P@{k}", "MAP", "RR"):
                assert got[name] == pytest.approx(np.mean([r[name] for r in rows]), abs=1e-12)
            assert math.isnan(got[f"ERR@{k}"])


# ---- hand-worked queries -----------------------------------------------------------------
# Query A, in rank order: labels 2, 0, 1. Query B: 0, 1, 0, 0, 2. l_max = 2, so the stopping
# probabilities are R(0) = 0, R(1) = 1/4, R(2) = 3/4.
A = ([2, 0, 1], [3.0, 2.0, 1.0])
B = ([0, 1, 0, 0, 2], [5.0, 4.0, 3.0, 2.0, 1.0])
L3 = 1 / math.log2(3)


@pytest.mark.parametrize("engine", ENGINES)
def test_err_by_hand(engine):
    """ERR@k of Chapelle et al.; a wrong denominator of R moves every value."""
    a = one(*A, "ranklib", engine)
    check(a, {"ERR@1": F(3, 4), "ERR@2": F(3, 4), "ERR@3": F(3, 4) + F(1, 3) * F(1, 4) * F(1, 4),
              "ERR@10": F(37, 48)})
    b = one(*B, "ranklib", engine)
    check(b, {"ERR@1": 0, "ERR@2": F(1, 8), "ERR@4": F(1, 8),
              "ERR@5": F(1, 8) + F(1, 5) * F(3, 4) * F(3, 4), "ERR@12": F(19, 80)})
    # a scale of 0-4 (max_label=4): R(1) = 1/16, R(2) = 3/16
    wide = one(*A, "ranklib", engine, max_label=4)
    check(wide, {"ERR@1": F(3, 16), "ERR@3": F(3, 16) + F(1, 3) * F(13, 16) * F(1, 16)})
    # l_max is the evaluated set's: query [1, 0] beside a label 2 has R(1) = 1/4, alone 1/2
    ev = evaluate(np.array([1, 0, 2]), np.array([1.0, 0.0, 1.0]), np.array([1, 1, 2]),
                  cutoffs=[2], engine=engine)["ranklib"]
    assert ev["ERR@2"].tolist() == [0.25, 0.75]
    assert one([1, 0], [1.0, 0.0], "ranklib", engine, cutoffs=[2])["ERR@2"] == 0.5
    # ERR is the same under every convention that ranks alike
    for tool in ("yahoo", "letor", "trec"):
        check(one(*A, tool, engine, docid=np.array(["x", "y", "z"])), {"ERR@10": F(37, 48)})


@pytest.mark.parametrize("engine", ENGINES)
def test_dcg_and_ndcg_by_hand(engine):
    a = one(*A, "ranklib", engine)
    check(a, {"DCG@1": 3, "DCG@2": 3, "DCG@3": 3.5, "DCG@10": 3.5,
              "NDCG@1": 1, "NDCG@2": 3 / (3 + L3), "NDCG@3": 3.5 / (3 + L3)})
    letor = one(*A, "letor", engine)  # discounts 1, 1, 1/log2(3)
    check(letor, {"DCG@2": 3, "DCG@3": 3 + L3, "NDCG@2": F(3, 4), "NDCG@3": (3 + L3) / 4,
                  "NDCG@4": 0})
    flat = one([1, 1, 1, 1], [4.0, 3.0, 2.0, 1.0], "letor", engine)
    check(flat, {"DCG@1": 1, "DCG@2": 2, "DCG@3": 2 + L3, "DCG@4": 2.5 + L3})
    flat = one([1, 1, 1, 1], [4.0, 3.0, 2.0, 1.0], "ranklib", engine)
    check(flat, {"DCG@2": 1 + L3, "DCG@4": 1.5 + L3 + 1 / math.log2(5)})
    b = one(*B, "ranklib", engine)
    check(b, {"NDCG@1": 0, "DCG@2": L3, "DCG@5": L3 + 3 / math.log2(6),
              "NDCG@5": (L3 + 3 / math.log2(6)) / (3 + L3)})


@pytest.mark.parametrize("engine", ENGINES)
def test_precision_by_hand(engine):
    """P@k divides by min(k, n) (RankLib, Yahoo) or by k (trec_eval, LETOR)."""
    for tool in ("ranklib", "yahoo"):
        check(one(*A, tool, engine), {"P@1": 1, "P@2": F(1, 2), "P@3": F(2, 3), "P@5": F(2, 3),
                                      "P@12": F(2, 3)})
    for tool in ("letor", "trec"):
        check(one(*A, tool, engine, docid=np.array(["x", "y", "z"])),
              {"P@1": 1, "P@2": F(1, 2), "P@3": F(2, 3), "P@5": F(2, 5), "P@12": F(2, 12)})
    check(one(*B, "ranklib", engine), {"P@1": 0, "P@2": F(1, 2), "P@4": F(1, 4), "P@5": F(2, 5),
                                       "P@8": F(2, 5)})
    check(one(*B, "letor", engine), {"P@5": F(2, 5), "P@8": F(2, 8)})


@pytest.mark.parametrize("engine", ENGINES)
def test_map_and_rr_by_hand(engine):
    """AP divides by the query's number of relevant documents, graded ones included."""
    for tool in ("ranklib", "letor"):
        check(one(*A, tool, engine), {"MAP": (1 + F(2, 3)) / 2, "RR": 1})
        check(one(*B, tool, engine), {"MAP": (F(1, 2) + F(2, 5)) / 2, "RR": F(1, 2)})
    check(one([0, 0, 2, 1], [4.0, 3.0, 2.0, 1.0], "ranklib", engine),
          {"MAP": (F(1, 3) + F(2, 4)) / 2, "RR": F(1, 3)})


@pytest.mark.parametrize("engine", ENGINES)
def test_query_without_relevant_document(engine):
    y, s = [0, 0, 0], [1.0, 2.0, 3.0]
    for tool, ndcg in (("ranklib", 0.0), ("trec", 0.0), ("letor", 0.0), ("yahoo", 1.0),
                       ("yahoo-half", 0.5)):
        got = one(y, s, tool, engine, max_label=2, docid=np.array(["x", "y", "z"]))
        for k in (1, 3, 5):
            check(got, {f"NDCG@{k}": ndcg, f"DCG@{k}": 0, f"P@{k}": 0, f"ERR@{k}": 0})
        check(got, {"MAP": 0, "RR": 0})
    # beside a query with relevant documents, the mean counts it with its empty value
    ev = evaluate(np.array([0, 0, 1, 0]), np.array([1.0, 0.0, 1.0, 0.0]),
                  np.array([1, 1, 2, 2]), conventions=["yahoo", "ranklib"], cutoffs=[1],
                  engine=engine)
    assert ev["yahoo"].mean()["NDCG@1"] == 1.0
    assert ev["ranklib"].mean()["NDCG@1"] == 0.5


@pytest.mark.parametrize("engine", ENGINES)
def test_fewer_documents_than_the_cutoff(engine):
    """n < k: NDCG@n for RankLib/trec/Yahoo, 0 for LETOR; n = k is not short."""
    y, s = [1, 0], [2.0, 1.0]
    for tool in ("ranklib", "yahoo"):
        got = one(y, s, tool, engine)
        check(got, {"NDCG@2": 1, "NDCG@3": 1, "NDCG@10": 1, "P@3": F(1, 2), "DCG@5": 1})
    got = one(y, s, "letor", engine)
    check(got, {"NDCG@1": 1, "NDCG@2": 1, "NDCG@3": 0, "NDCG@10": 0, "P@2": F(1, 2),
                "P@3": F(1, 3), "DCG@3": 1, "DCG@10": 1, "ERR@3": F(1, 2)})
    # a worse order: NDCG@2 = (1/log2 3) / 1, and LETOR's NDCG@2 = 1 (discount 1 at rank 2)
    check(one(y, [1.0, 2.0], "ranklib", engine), {"NDCG@2": L3, "NDCG@3": L3})
    check(one(y, [1.0, 2.0], "letor", engine), {"NDCG@1": 0, "NDCG@2": 1, "NDCG@3": 0})


@pytest.mark.parametrize("engine", ENGINES)
def test_single_document(engine):
    for tool, short in (("ranklib", 1.0), ("letor", 0.0)):
        got = one([2], [0.5], tool, engine)
        check(got, {"NDCG@1": 1, "NDCG@2": short, "DCG@1": 3, "DCG@4": 3, "ERR@1": F(3, 4),
                    "ERR@4": F(3, 4), "MAP": 1, "RR": 1, "P@1": 1})
    check(one([2], [0.5], "ranklib", engine), {"P@4": 1})
    check(one([2], [0.5], "letor", engine), {"P@4": F(1, 4)})
    check(one([0], [0.5], "yahoo", engine), {"NDCG@1": 1, "NDCG@3": 1, "MAP": 0, "RR": 0})


@pytest.mark.parametrize("engine", ENGINES)
def test_tied_scores_by_hand(engine):
    """Scores 1, 1, 0 with labels 0, 2, 1 and docids a, b, c."""
    y, s, docid = [0, 2, 1], [1.0, 1.0, 0.0], np.array(["a", "b", "c"])
    worst = {"RR": F(1, 2), "MAP": (F(1, 2) + F(2, 3)) / 2, "P@1": 0, "DCG@1": 0,
             "ERR@2": F(1, 2) * F(3, 4), "ERR@3": F(3, 8) + F(1, 3) * F(1, 4) * F(1, 4)}
    best = {"RR": 1, "MAP": (1 + F(2, 3)) / 2, "P@1": 1, "DCG@1": 3, "ERR@3": F(37, 48)}
    check(one(y, s, "ranklib", engine), worst)  # input order
    check(one(y, s, "ranklib-tiepess", engine), worst)
    check(one(y, s, "ranklib-tieopt", engine), best)
    check(one(y, s, "trec", engine, docid=docid), best)  # docid b before a
    check(one(y, s, "trec", engine, docid=np.array(["b", "a", "c"])), worst)
    avg = one(y, s, "ranklib-tieavg", engine)
    check(avg, {"RR": F(3, 4), "MAP": (F(7, 12) + F(5, 6)) / 2, "P@1": F(1, 2),
                "DCG@1": F(3, 2), "DCG@2": F(3, 2) * (1 + L3), "DCG@3": F(3, 2) * (1 + L3) + 0.5})
    assert math.isnan(avg["ERR@1"])


# ---- MQ2008 against trec_eval ------------------------------------------------------------
def mq2008_scores(data, how: str) -> np.ndarray:
    """float32-exact scores (trec_eval reads them as float): a fixed linear function of the
    features, or one feature column (many ties, broken by docid)."""
    if how == "linear":
        w = np.cos(np.arange(data.X.shape[1]) * 1.7)
        s = data.X @ w
    else:
        s = data.X[:, 7]
    return s.astype(np.float32).astype(np.float64)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("how", ["linear", "column"])
def test_mq2008_trec_equals_pytrec_eval(mq2008_fold1, how, engine):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    data = mq2008_fold1[2]
    s = mq2008_scores(data, how)
    ks = range(1, 11)
    ev = evaluate_dataset(data, s, conventions=["trec"], cutoffs="1-10", engine=engine)["trec"]
    qrel, run = {}, {}
    for q, d, lab, sc in zip(data.qid, data.docid, data.y, s):
        qrel.setdefault(str(q), {})[str(d)] = {0: 0, 1: 1, 2: 3}[int(lab)]
        run.setdefault(str(q), {})[str(d)] = float(sc)
    measures = ({f"P_{k}" for k in ks} | {f"ndcg_cut_{k}" for k in ks} | {"map", "recip_rank"})
    ref = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)
    assert len(ref) == len(ev.qids) == data.n_queries
    for name, trec_name in ([(f"P@{k}", f"P_{k}") for k in ks]
                            + [(f"NDCG@{k}", f"ndcg_cut_{k}") for k in ks]
                            + [("MAP", "map"), ("RR", "recip_rank")]):
        want = np.array([ref[str(q)][trec_name] for q in ev.qids])
        np.testing.assert_allclose(ev[name], want, rtol=0, atol=1e-9, err_msg=name)
    # the data hold empty queries (RR 0) and the scores rank others partly right
    assert 0 < np.mean(ev["NDCG@10"]) < 1
    assert np.any(want == 0)


@pytest.mark.parametrize("engine", ENGINES)
def test_mq2008_err_and_dcg_equal_the_model(mq2008_fold1, engine):
    data = mq2008_fold1[2]
    s = mq2008_scores(data, "linear")
    res = evaluate_dataset(data, s, conventions=["ranklib", "letor"], cutoffs=[1, 5, 10],
                           engine=engine)
    off = data.offsets
    for tool in ("ranklib", "letor"):
        for q in range(data.n_queries):
            a, b = off[q], off[q + 1]
            ranked = ranked_labels(data.y[a:b], s[a:b], "input")
            for k in (1, 5, 10):
                for name, value in truth(ranked, tool, k, 2).items():
                    assert res[tool][name][q] == pytest.approx(value, abs=1e-12), (tool, q, name)
