"""The convention engine against pytrec_eval, scikit-learn and brute force."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ltrconv import evaluate
from ltrconv.evaluation.conventions import get
from ltrconv.errors import LtrconvError
from ltrconv.evaluation.metrics import MAX_CUTOFF, MAX_CUTOFFS, parse_cutoffs
from ltrconv.evaluation.scorer import NDCGScorer

def random_queries(seed, n_queries=40, tie_heavy=True):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    n = len(qid)
    y = rng.choice([0, 0, 0, 1, 2], size=n)
    # multiples of 1/8 are exact in float32 and float64: many ties, same ties for both tools
    s = rng.integers(0, 6, n) / 8.0 if tie_heavy else rng.random(n)
    docid = np.array([f"D{rng.integers(0, 10**6):07d}-{i}" for i in range(n)])
    return y, s, qid, docid


@pytest.mark.parametrize("seed,tie_heavy", [(0, True), (1, True), (2, False), (3, True)])
def test_trec_matches_pytrec_eval(seed, tie_heavy):
    pytrec_eval = pytest.importorskip("pytrec_eval")  # the only test that needs it
    y, s, qid, docid = random_queries(seed, tie_heavy=tie_heavy)
    ev = evaluate(y, s, qid, conventions=["trec"], docid=docid)["trec"]
    remap = {0: 0, 1: 1, 2: 3}
    qrel, run = {}, {}
    for q, d, lab, sc in zip(qid, docid, y, s):
        qrel.setdefault(str(q), {})[d] = remap[int(lab)]
        run.setdefault(str(q), {})[d] = float(sc)
    measures = {f"ndcg_cut_{k}" for k in range(1, 11)} | {"map"} | {f"P_{k}" for k in (1, 5, 10)}
    ref = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)
    for i, q in enumerate(ev.qids):
        r = ref[str(q)]
        for k in range(1, 11):
            assert ev[f"NDCG@{k}"][i] == pytest.approx(r[f"ndcg_cut_{k}"], abs=1e-9), (q, k)
        assert ev["MAP"][i] == pytest.approx(r["map"], abs=1e-9)
        for k in (1, 5, 10):
            assert ev[f"P@{k}"][i] == pytest.approx(r[f"P_{k}"], abs=1e-9)


def test_average_ties_match_sklearn_linear_gain():
    from sklearn.metrics import ndcg_score

    y, s, qid, _ = random_queries(5)
    conv = get("ranklib-tieavg").with_(gain="linear")
    ev = evaluate(y, s, qid, conventions=[conv])[str(conv)]
    offsets = np.concatenate(([0], np.flatnonzero(np.diff(qid)) + 1, [len(qid)]))
    checked = 0
    for i in range(len(offsets) - 1):
        a, b = offsets[i], offsets[i + 1]
        if y[a:b].max() == 0 or b - a < 2:
            continue
        for k in (1, 3, 5, 10):
            ref = ndcg_score(y[None, a:b], s[None, a:b], k=k, ignore_ties=False)
            assert ev[f"NDCG@{k}"][i] == pytest.approx(ref, abs=1e-12)
        checked += 1
    assert checked > 10


def brute_force(y, s, conv, k):
    """Mean NDCG@k, AP, P@k and RR over every order of tied documents."""
    groups = [np.flatnonzero(s == v) for v in sorted(set(s), reverse=True)]
    gains = conv.gain_table(int(y.max()))
    disc = conv.discounts(len(y))
    ideal = np.sort(gains[y])[::-1]
    idcg = (ideal[:k] * disc[:k]).sum()
    vals = []
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = np.concatenate([np.array(p, dtype=int) for p in perm])
        lab = y[order]
        rel = lab >= 1
        dcg = (gains[lab][:k] * disc[: min(k, len(y))]).sum()
        prec = np.cumsum(rel) / np.arange(1, len(y) + 1)
        ap = (prec * rel).sum() / rel.sum() if rel.any() else 0.0
        rr = 1.0 / (np.argmax(rel) + 1) if rel.any() else 0.0
        vals.append([dcg / idcg if idcg > 0 else 0.0, ap, rel[:k].sum() / min(k, len(y)), rr])
    return np.mean(vals, axis=0)


@pytest.mark.parametrize("seed", range(6))
def test_average_ties_equal_brute_force_expectation(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    y = rng.integers(0, 3, n)
    s = rng.integers(0, 3, n).astype(float)
    conv = get("ranklib-tieavg")
    for k in (1, 3, 5):
        ev = evaluate(y, s, np.zeros(n, int), conventions=[conv], cutoffs=[k])[str(conv)]
        expect = brute_force(y, s, conv, k)
        got = [ev[f"NDCG@{k}"][0], ev["MAP"][0], ev[f"P@{k}"][0], ev["RR"][0]]
        np.testing.assert_allclose(got, expect, atol=1e-12)


def test_bad_inputs_rejected():
    y = np.array([1, 0, 2])
    with pytest.raises(ValueError, match="not finite"):
        evaluate(y, np.array([0.1, np.nan, 0.3]), np.zeros(3, int))
    with pytest.raises(ValueError, match="2 scores for 3 documents"):
        evaluate(y, np.array([0.1, 0.2]), np.zeros(3, int))
    with pytest.raises(ValueError, match="not contiguous"):
        evaluate(y, np.zeros(3), np.array([1, 2, 1]))
    with pytest.raises(LtrconvError, match="cutoffs"):
        parse_cutoffs("0-3")
    with pytest.raises(ValueError, match=r"docid_rank has shape \(1,\) for 3 documents"):
        evaluate(y, np.zeros(3), np.zeros(3, int), conventions=["trec"], docid_rank=[0])


def test_cutoffs_parse_and_are_bounded():
    assert parse_cutoffs("1-3,5, 10").tolist() == [1, 2, 3, 5, 10]
    assert parse_cutoffs([10, 5.0, 5]).tolist() == [5, 10] and parse_cutoffs(7).tolist() == [7]
    assert len(parse_cutoffs(f"1-{MAX_CUTOFFS}")) == MAX_CUTOFFS
    for spec, message in [
        ("10-1", r"cutoffs '10-1': range 10-1 is empty \(its end is below its start\); did you "
                 r"mean 1-10\?"),
        ("0-3", r"cutoffs '0-3': cutoff 0 must be >= 1"),
        ("1-100000000", rf"cutoffs '1-100000000': cutoff 100000000 is above {MAX_CUTOFF}"),
        ("99999999999999999999999999", r"cutoff 99999999999999999999999999 is above"),
        (f"1-{MAX_CUTOFFS + 1}", rf"more than {MAX_CUTOFFS} distinct cutoffs"),
        ("ten", r"cutoffs 'ten': expected e.g. '1-10'"),
        ("", r"expected e.g. '1-10'"),
        ([], r"need at least one cutoff"),
        ([1, "5"], r"cutoff '5' is not an integer"),
        ([1.5], r"cutoff 1.5 is not an integer"),
        (True, r"expected e.g."),
    ]:
        with pytest.raises(LtrconvError, match=message):
            parse_cutoffs(spec)


def test_huge_labels_are_refused_before_any_table_is_built():
    with pytest.raises(ValueError, match="label 100000000000 is above 1000"):
        evaluate(np.array([0, 10**11]), np.zeros(2), np.zeros(2, int))
    with pytest.raises(ValueError, match=r"label 1e\+30 is above 1000"):
        evaluate(np.array([0, 1e30]), np.zeros(2), np.zeros(2, int))
    with pytest.raises(ValueError, match="max_label 100000000000 must lie in 0..1000"):
        evaluate(np.array([0, 1]), np.zeros(2), np.zeros(2, int), max_label=10**11)


def test_scorer_agrees_with_evaluate():
    y, s, qid, docid = random_queries(7)
    offsets = np.concatenate(([0], np.flatnonzero(np.diff(qid)) + 1, [len(qid)]))
    for name in ("ranklib", "trec", "yahoo", "letor", "ranklib-tieavg", "ranklib-tiepess"):
        ev = evaluate(y, s, qid, conventions=[name], docid=docid)[name]
        scorer = NDCGScorer(y, offsets, name, 10, docid=docid)
        np.testing.assert_allclose(scorer.per_query(s), ev["NDCG@10"], atol=1e-12)


def test_swap_delta_equals_recomputed_ndcg_difference():
    from ltrconv.evaluation import scorer as K

    y, s, qid, docid = random_queries(8, tie_heavy=False)
    offsets = np.concatenate(([0], np.flatnonzero(np.diff(qid)) + 1, [len(qid)]))
    checked = 0
    for name in ("ranklib", "letor", "yahoo", "trec"):
        scorer = NDCGScorer(y, offsets, name, 5, docid=docid)
        base = scorer.per_query(s)
        for q in range(6):
            a, b = offsets[q], offsets[q + 1]
            d = K.rank_discounts(s[a:b], scorer.y[a:b], scorer.tiekey[a:b], scorer.disc, 5,
                                 scorer.tie_code)
            for i, j in [(0, 1), (0, b - a - 1), (1, 2)]:
                if j >= b - a or i == j:
                    continue
                t = s.copy()
                t[a + i], t[a + j] = s[a + j], s[a + i]
                delta = K.swap_delta(scorer.gains[a:b], d, i, j, scorer.inv_idcg[q])
                assert delta == K.swap_delta(scorer.gains[a:b], d, j, i, scorer.inv_idcg[q])
                assert delta == pytest.approx(abs(scorer.per_query(t)[q] - base[q]), abs=1e-12)
                checked += delta > 0
    assert checked > 10


# --- properties ---------------------------------------------------------------------------
@st.composite
def ranked_queries(draw):
    n_q = draw(st.integers(1, 6))
    ys, ss, qs = [], [], []
    for q in range(n_q):
        n = draw(st.integers(1, 14))
        ys += draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
        ss += draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
        qs += [q] * n
    return np.array(ys), np.array(ss, dtype=float) / 4, np.array(qs)


PROP = settings(max_examples=60, deadline=None)


@PROP
@given(ranked_queries())
def test_yahoo_minus_ranklib_is_the_empty_share(data):
    y, s, qid = data
    ev = evaluate(y, s, qid, conventions=["ranklib", "yahoo"])
    empty = np.array([y[qid == q].max() == 0 for q in np.unique(qid)])
    for k in range(1, 11):
        diff = ev["yahoo"].mean()[f"NDCG@{k}"] - ev["ranklib"].mean()[f"NDCG@{k}"]
        assert diff == pytest.approx(empty.mean(), abs=1e-12)


@PROP
@given(ranked_queries())
def test_tie_bounds_and_range(data):
    y, s, qid = data
    names = ["ranklib-tiepess", "ranklib-tieavg", "ranklib-tieopt", "ranklib", "trec", "yahoo", "letor"]
    ev = evaluate(y, s, qid, conventions=names, docid=np.arange(len(y)).astype(str))
    for k in range(1, 11):
        lo, mid, hi = (ev[n][f"NDCG@{k}"] for n in names[:3])
        assert np.all(lo <= mid + 1e-12) and np.all(mid <= hi + 1e-12)
        assert np.all(lo <= ev["ranklib"][f"NDCG@{k}"] + 1e-12)
        assert np.all(ev["ranklib"][f"NDCG@{k}"] <= hi + 1e-12)
    for n in names:
        vals = ev[n].values[:, [c.startswith(("NDCG", "P@", "MAP", "RR")) for c in ev[n].columns]]
        assert np.all((vals >= -1e-12) & (vals <= 1 + 1e-12))


@PROP
@given(ranked_queries(), st.integers(0, 2**32 - 1))
def test_average_is_invariant_to_permuting_tied_documents(data, seed):
    y, s, qid = data
    rng = np.random.default_rng(seed)
    perm = np.arange(len(y))
    for q in np.unique(qid):
        idx = np.flatnonzero(qid == q)
        perm[idx] = rng.permutation(idx)
    a = evaluate(y, s, qid, conventions=["ranklib-tieavg"])["ranklib-tieavg"].values
    b = evaluate(y[perm], s[perm], qid[perm], conventions=["ranklib-tieavg"])["ranklib-tieavg"].values
    keep = ~np.isnan(a[0])
    np.testing.assert_allclose(a[:, keep], b[:, keep], atol=1e-12)


@PROP
@given(ranked_queries())
def test_perfect_ranking_scores_one_on_nonempty_queries(data):
    y, _, qid = data
    perfect = y + 0.0
    ev = evaluate(y, perfect, qid, conventions=["ranklib", "trec", "yahoo", "ranklib-tieavg"],
                  docid=np.arange(len(y)).astype(str))
    nonempty = np.array([y[qid == q].max() > 0 for q in np.unique(qid)])
    for name, e in ev.items():
        for k in range(1, 11):
            assert np.allclose(e[f"NDCG@{k}"][nonempty], 1.0)


def _tie_heavy_queries(seed: int, n_queries: int = 300):
    """Queries of 1..200 documents; scores on a coarse grid plus float32-equal pairs that
    differ as float64, and repeated docids, so every tie policy has boundary groups to split."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 200, n_queries)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(offsets[-1])
    y = rng.integers(0, 5, n)
    s = rng.integers(0, 12, n) / 4.0
    near = rng.random(n) < 0.2
    s[near] += 1e-12  # equal to its neighbours as float32, not as float64
    docid = [f"D{v}" for v in rng.integers(0, 40, n)]
    return y, s, offsets, docid


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cutoffs", ["1-10", "3", "1,5,20", "1-60"])
@pytest.mark.parametrize("engine", ["numba", "numba-parallel"])
def test_cutoff_metrics_alone_equal_the_whole_ranking(seed, cutoffs, engine, monkeypatch):
    from ltrconv import jit
    from ltrconv.evaluation.conventions import BUILTIN

    if engine == "numba-parallel":
        monkeypatch.setattr(jit, "PARALLEL_MIN_DOCS", 0)
    y, s, offsets, docid = _tie_heavy_queries(seed)
    convs = sorted(BUILTIN)
    whole = evaluate(y, s, offsets=offsets, conventions=convs, cutoffs=cutoffs, docid=docid,
                     engine="numba")
    top = evaluate(y, s, offsets=offsets, conventions=convs, cutoffs=cutoffs, docid=docid,
                   metrics=("NDCG", "DCG", "P", "ERR"), engine="numba")
    for c in convs:
        assert top[c].columns == whole[c].columns[:-2]
        np.testing.assert_array_equal(top[c].values, whole[c].values[:, :-2])
    ndcg = evaluate(y, s, offsets=offsets, conventions=convs, cutoffs=cutoffs, docid=docid,
                    metrics="NDCG", engine="numpy")
    for c in convs:
        cols = [i for i, name in enumerate(whole[c].columns) if name.startswith("NDCG@")]
        np.testing.assert_array_equal(ndcg[c].values, whole[c].values[:, cols])


def test_metric_families_are_checked_and_ordered():
    y, s = np.array([1, 0, 2]), np.array([0.3, 0.2, 0.1])
    got = evaluate(y, s, qid=[1, 1, 1], cutoffs="1,2", metrics=("RR", "P"))["ranklib"]
    assert got.columns == ("P@1", "P@2", "RR")
    assert got["RR"][0] == 1.0 and got["P@2"][0] == 0.5
    with pytest.raises(LtrconvError, match="metrics nDCG: expected some of NDCG, DCG"):
        evaluate(y, s, qid=[1, 1, 1], metrics=("nDCG",))
    with pytest.raises(LtrconvError, match=r"metrics \(none\)"):
        evaluate(y, s, qid=[1, 1, 1], metrics=())
