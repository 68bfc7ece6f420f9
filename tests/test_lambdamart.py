"""LambdaMART as RankLib 2.x runs it: threshold candidates, splits, leaf growth, λ, early stopping,
and RankLib's own Fold1 model of MQ2008."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ltrconv import NDCGScorer, evaluate
from ltrconv.rankers import ParamError, TrainingSelectionWarning, load, make
from ltrconv.rankers import regression_tree as RT
from ltrconv.rankers.fdlibm import fdlibm_exp, fdlibm_log
from ltrconv.rankers.lambdamart import LambdaMART, float32_mean, lambdas, swap_discounts
from ltrconv.data.synthetic import make_letor, split

FLT_MAX = np.finfo(np.float32).max
FAST = dict(n_estimators=40, early_stopping_rounds=8)


def grow(X, r, w=None, num_leaves=10, min_leaf=1, n_thresholds=256):
    """One tree on responses ``r`` (Newton weights ``w``, default 1): node arrays and outputs."""
    X32 = np.asarray(X, dtype=np.float32)
    r = np.asarray(r, dtype=np.float64)
    w = np.ones_like(r) if w is None else np.asarray(w, dtype=np.float64)
    thr, nb = RT.threshold_candidates(X32, n_thresholds)
    bins = RT.bin_index(X32, thr, nb)
    counts = RT.bin_counts(bins, nb, thr.shape[1])
    perm, work = np.empty(len(r), dtype=np.int64), np.empty(len(r), dtype=np.int64)
    feature, threshold, left, right, start, size = RT.fit_tree(bins, nb, thr, counts, r,
                                                               num_leaves, min_leaf, perm, work)
    value = RT.newton_outputs(feature, start, size, perm, r, w)
    leaves = {int(n): sorted(perm[start[n]:start[n] + size[n]]) for n in np.flatnonzero(feature == -1)}
    return dict(feature=feature, threshold=threshold, left=left, right=right, value=value,
                leaves=leaves, X32=X32)


# --- threshold candidates ----------------------------------------------------------------------

def test_few_values_are_their_own_candidates():
    X = np.array([[0.5, 3.0], [0.25, 3.0], [0.5, 3.0], [0.75, 3.0]])
    thr, nb = RT.threshold_candidates(X.astype(np.float32), 256)
    assert list(nb) == [4, 2]
    assert list(thr[0, :4]) == [0.25, 0.5, 0.75, FLT_MAX]
    assert list(thr[1, :2]) == [3.0, FLT_MAX]
    assert RT.bin_index(X.astype(np.float32), thr, nb)[:, 0].tolist() == [1, 0, 1, 2]


def test_many_values_give_evenly_spaced_float32_candidates():
    x = np.linspace(0.0, 1.0, 11, dtype=np.float32)[:, None]  # 11 distinct values, 4 candidates
    thr, nb = RT.threshold_candidates(x, 4)
    step = np.float32(np.float32(1.0) / np.float32(4))
    assert nb[0] == 5
    assert list(thr[0]) == [0.0, step, np.float32(step + step), np.float32(3 * step), FLT_MAX]


# --- one tree -----------------------------------------------------------------------------------

def test_one_split_on_four_documents():
    # S(t) = L^2/n_L + R^2/n_R: t = 0.1: 1 + 4/3; t = 0.2: 4/2 + 9/2 = 6.5; t = 0.3: 1/3 + 4.
    t = grow([[0.1], [0.2], [0.3], [0.4]], [-1.0, -1.0, 1.0, 2.0], num_leaves=2)
    assert t["feature"][0] == 0 and t["threshold"][0] == np.float32(0.2)
    assert t["leaves"] == {1: [0, 1], 2: [2, 3]}
    assert t["value"][1] == -1.0 and t["value"][2] == 1.5  # sum r / sum w per leaf


def test_newton_output_is_sum_over_sum_of_weights():
    t = grow([[0.1], [0.2], [0.3], [0.4]], [-1.0, -1.0, 1.0, 2.0], [0.5, 0.25, 1.0, 3.0],
             num_leaves=2)
    assert t["value"][1] == np.float32(-2.0 / 0.75) and t["value"][2] == np.float32(3.0 / 4.0)


def test_min_leaf_support_can_leave_the_root_a_leaf():
    t = grow([[0.1], [0.2], [0.3], [0.4]], [-1.0, -1.0, 1.0, 2.0], num_leaves=4, min_leaf=3)
    assert list(t["feature"]) == [-1] and t["value"][0] == np.float32(0.25)


def test_nodes_of_zero_deviance_are_not_split():
    """The root is always tried (RankLib gives it deviance FLT_MAX); its children, whose
    responses are all equal, are not."""
    t = grow([[0.1], [0.2], [0.3], [0.4]], [0.5, 0.5, 0.5, 0.5])
    assert list(t["feature"]) == [0, -1, -1] and list(t["value"]) == [0.0, 0.5, 0.5]


def test_ties_between_candidates_keep_the_first_feature():
    X = np.array([[0.1, 5.0], [0.2, 6.0], [0.3, 7.0], [0.4, 8.0]])  # both features order alike
    t = grow(X, [-1.0, -1.0, 1.0, 2.0], num_leaves=2)
    assert t["feature"][0] == 0


def deviance(r):
    return float(np.sum(r * r) - np.sum(r) ** 2 / len(r))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_best_split_and_next_leaf(seed):
    """The root split maximises S over every candidate; the second split goes to the child of
    larger deviance."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 40))
    X = rng.random((n, 3))
    r = rng.normal(size=n)
    t = grow(X, r, num_leaves=3)
    thr, nb = RT.threshold_candidates(t["X32"], 256)
    best = max(
        (np.sum(r[m]) ** 2 / m.sum() + np.sum(r[~m]) ** 2 / (~m).sum())
        for f in range(3) for c in thr[f, :nb[f]]
        for m in [t["X32"][:, f] <= c] if 0 < m.sum() < n)
    m = t["X32"][:, t["feature"][0]] <= t["threshold"][0]
    chosen = np.sum(r[m]) ** 2 / m.sum() + np.sum(r[~m]) ** 2 / (~m).sum()
    assert chosen == pytest.approx(best, rel=1e-12)
    lo, hi = t["left"][0], t["right"][0]
    d_lo, d_hi = deviance(r[m]), deviance(r[~m])
    if abs(d_hi - d_lo) > 1e-9 * max(d_lo, d_hi):
        split = hi if d_hi > d_lo else lo
        assert t["feature"][split] != -1 and t["feature"][lo + hi - split] == -1


def test_tree_values_follow_the_splits():
    rng = np.random.default_rng(4)
    X = rng.random((50, 4))
    t = grow(X, rng.normal(size=50), num_leaves=6)
    got = RT.tree_values(t["X32"], t["feature"], t["threshold"], t["left"], t["right"], t["value"])
    for leaf, docs in t["leaves"].items():
        assert np.all(got[docs] == t["value"][leaf])


# --- λ -----------------------------------------------------------------------------------------

def test_lambda_of_a_two_document_query():
    sc = NDCGScorer(np.array([1, 0]), np.array([0, 2]), "ranklib", 10)
    lam, w = lambdas(sc, np.array([0.0, 0.0]))
    delta = 1.0 - 1.0 / math.log2(3.0)  # (d_1 - d_2)(g_1 - g_0) / IDCG, IDCG = 1
    assert lam == pytest.approx([0.5 * delta, -0.5 * delta], rel=1e-15)
    assert w == pytest.approx([0.25 * delta, 0.25 * delta], rel=1e-15)
    # the relevant document below the other: rho = 1 / (1 + e^(0 - 1))
    lam, w = lambdas(sc, np.array([0.0, 1.0]))
    rho = 1.0 / (1.0 + math.exp(-1.0))
    assert lam == pytest.approx([rho * delta, -rho * delta], rel=1e-15)
    assert w == pytest.approx([rho * (1 - rho) * delta] * 2, rel=1e-15)


def test_fdlibm_lambda_takes_fdlibm_exp_and_log():
    """libm="fdlibm": ρ from fdlibm's exp and the discount of rank 2 from fdlibm's log, which
    differ from the C library's here (exp at -1.008919; log at 3)."""
    sc = NDCGScorer(np.array([1, 0]), np.array([0, 2]), "ranklib", 10)
    s = np.array([0.0, 1.008919])  # the relevant document second: exp(0 - 1.008919)
    by = {}
    for libm, exp, log in (("system", math.exp, math.log), ("fdlibm", fdlibm_exp, fdlibm_log)):
        delta = 1.0 - 1.0 / (log(3.0) / log(2.0))
        rho = 1.0 / (1.0 + exp(-1.008919))
        by[libm] = lambdas(sc, s, libm=libm)
        assert by[libm][0][0] == rho * delta and by[libm][1][0] == rho * (1.0 - rho) * delta
        assert swap_discounts(sc, libm)[1] == 1.0 / (log(3.0) / log(2.0))
    assert by["system"][0][0] != by["fdlibm"][0][0]
    assert swap_discounts(sc, "system")[1] != swap_discounts(sc, "fdlibm")[1]


def test_lambda_beyond_the_cutoff_uses_the_full_discount():
    """RankLib's swapChange: a swap between rank 1 and rank 2 at k = 1 weighs d_1 - d_2, not
    the change of NDCG@1 (1)."""
    sc = NDCGScorer(np.array([0, 1]), np.array([0, 2]), "ranklib", 1)
    lam, _ = lambdas(sc, np.array([1.0, 0.0]))
    rho = 1.0 / (1.0 + math.exp(-1.0))
    assert lam[1] == pytest.approx(rho * (1.0 - 1.0 / math.log2(3.0)), rel=1e-15)


def test_fixed_queries_get_no_lambda():
    y = np.array([0, 0, 0, 1, 0, 2])
    off = np.array([0, 3, 6])
    for conv in ("ranklib", "letor"):  # letor: n = 3 < k = 10 scores 0 whatever the order
        lam, w = lambdas(NDCGScorer(y, off, conv, 10), np.arange(6.0))
        assert np.all(lam[:3] == 0) and np.all(w[:3] == 0)
        assert np.any(lam[3:] != 0) == (conv == "ranklib")


def brute_lambdas(y, s, off, gains, disc, k):
    """λ and w from their definition, pair by pair (the module docstring)."""
    lam, w = np.zeros(len(y)), np.zeros(len(y))
    for a0, b0 in zip(off[:-1], off[1:]):
        idx = np.arange(a0, b0)
        order = idx[np.argsort(-s[idx], kind="stable")]
        pos = {d: p for p, d in enumerate(order)}
        size = min(k, len(idx))
        idcg = sum(np.sort(gains[idx])[::-1][p] * disc[p] for p in range(size))
        if idcg == 0:
            continue
        for i in idx:
            for j in idx:
                if y[i] <= y[j]:
                    continue
                p, q = sorted((pos[i], pos[j]))
                if p >= size:
                    continue
                delta = abs((disc[p] - disc[q]) * (gains[i] - gains[j])) / idcg
                rho = 1.0 / (1.0 + math.exp(s[i] - s[j]))
                lam[i] += rho * delta
                lam[j] -= rho * delta
                w[i] += rho * (1 - rho) * delta
                w[j] += rho * (1 - rho) * delta
    return lam, w


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 3, 10]), st.sampled_from(["ranklib", "yahoo"]))
def test_lambdas_match_their_definition(seed, k, conv):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, size=4)
    off = np.concatenate([[0], np.cumsum(sizes)])
    y = rng.integers(0, 3, size=off[-1])
    s = np.round(rng.normal(size=off[-1]), 1)  # ties
    sc = NDCGScorer(y, off, conv, k)
    lam, w = lambdas(sc, s)
    ref_lam, ref_w = brute_lambdas(y, s, off, sc.gains, swap_discounts(sc), k)
    np.testing.assert_allclose(lam, ref_lam, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-14)
    for a, b in zip(off[:-1], off[1:]):
        assert abs(lam[a:b].sum()) <= 1e-12  # every pair pushes up and down alike


def test_swap_discounts_are_the_conventions_to_the_last_bit():
    for conv in ("ranklib", "letor"):
        sc = NDCGScorer(np.zeros(300, dtype=int), np.array([0, 300]), conv, 10)
        np.testing.assert_allclose(swap_discounts(sc), sc.disc, rtol=4e-16, atol=0)


# --- the ranker ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def data():
    d = make_letor(n_queries=120, n_features=6, empty_share=0.1, noise=0.3, seed=5)
    idx = np.arange(d.n_queries)
    return split(d, idx[:70]), split(d, idx[70:95]), split(d, idx[95:])


def fit(parts, **kw):
    tr, va, _ = parts
    return LambdaMART(**{**FAST, **kw}).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y,
                                             qid_val=va.qid, docid=tr.docid, docid_val=va.docid)


def test_early_stopping_keeps_the_best_round(data):
    m = fit(data)
    best = int(np.argmax(m.history_)) + 1  # the first maximum
    assert m.best_iteration_ == best and len(m.trees()) == best
    assert m.val_score_ == m.history_[best - 1] == max(m.history_)
    assert len(m.history_) in (FAST["n_estimators"], best + FAST["early_stopping_rounds"] + 1)
    _, va, _ = data
    sc = NDCGScorer(va.y, va.offsets, "ranklib", 10)
    assert m.val_score_ == pytest.approx(float32_mean(sc.per_query(m.predict(va.X))), abs=1e-6)


def test_the_metric_steers_training(data):
    """letor scores the validation NDCG of its convention and yields another model."""
    _, va, te = data
    a, b = fit(data), fit(data, metric="ndcg@10:letor")
    sc = NDCGScorer(va.y, va.offsets, "letor", 10)
    assert b.val_score_ == pytest.approx(float32_mean(sc.per_query(b.predict(va.X))), abs=1e-6)
    assert not np.array_equal(a.predict(te.X), b.predict(te.X))


def test_scores_are_float32_sums_of_tree_outputs(data):
    _, _, te = data
    m = fit(data)
    p = m.predict(te.X)
    assert p.dtype == np.float64 and np.array_equal(p, p.astype(np.float32))
    X32 = te.X.astype(np.float32)
    total = sum(np.float64(m.rate_) * RT.tree_values(X32, t["feature"], t["threshold"], t["left"],
                                                     t["right"], t["value"]).astype(np.float64)
                for t in m.trees())
    np.testing.assert_allclose(p, total, rtol=1e-5, atol=1e-5)


def test_numpy_and_compiled_scoring_agree(data):
    _, _, te = data
    m = fit(data)
    args = (te.X.astype(np.float32), m.tree_offsets_, m.feature_, m.threshold_, m.left_,
            m.right_, m.value_, m.rate_)
    a, b = RT.ensemble_scores_numpy(*args), RT.ensemble_scores(*args)
    assert np.array_equal(a, b) and np.array_equal(m.predict(te.X), a)
    assert len(np.unique(a)) > 10


def test_deterministic_and_save_load(data, tmp_path):
    _, _, te = data
    a, b = fit(data), fit(data)
    assert np.array_equal(a.predict(te.X), b.predict(te.X))
    a.save(tmp_path / "m.model")
    back = load(tmp_path / "m.model")
    assert isinstance(back, LambdaMART) and back.best_iteration_ == a.best_iteration_
    assert np.array_equal(back.predict(te.X), a.predict(te.X))


def test_libm_is_kept_and_defaults_for_older_models(data, tmp_path):
    _, _, te = data
    a, b = fit(data), fit(data, libm="fdlibm")
    b.save(tmp_path / "b.model")
    assert a.libm == "system" and load(tmp_path / "b.model").get_params()["libm"] == "fdlibm"
    # a model pickled before the parameter existed loads as the C library's
    state = dict(a.__dict__)
    del state["libm"]
    old = LambdaMART.__new__(LambdaMART)
    old.__setstate__(state)
    assert old.libm == "system" and np.array_equal(old.predict(te.X), a.predict(te.X))


def test_no_validation_set_uses_training(data):
    tr, _, _ = data
    with pytest.warns(TrainingSelectionWarning, match="number of trees"):
        m = LambdaMART(**FAST).fit(tr.X, tr.y, tr.qid)
    assert m.history_ == m.train_history_


@pytest.mark.parametrize("param,value", [("learning_rate", 0.0), ("num_leaves", 1),
                                         ("n_estimators", 0), ("n_thresholds", 0),
                                         ("min_data_in_leaf", 2.5), ("sigma", 1.0),
                                         ("random_state", 0), ("libm", "glibc")])
def test_bad_params(param, value):
    with pytest.raises(ParamError, match=param):
        make("lambdamart", **{param: value})


# --- RankLib 2.x's model of MQ2008 Fold1 ----------------------------------------------------------

def ranklib_trees(path):
    """Each tree of a RankLib ensemble file in preorder: ("split", 0-based feature, float32
    threshold) or ("leaf", output)."""
    trees = []
    for body in re.findall(r"<tree [^>]*>(.*?)</tree>", path.read_text(), flags=re.S):
        items = re.findall(r"<(feature|threshold|output)>\s*(\S+)\s*</", body)
        nodes, i = [], 0
        while i < len(items):
            if items[i][0] == "feature":
                nodes.append(("split", int(items[i][1]) - 1, np.float32(items[i + 1][1])))
                i += 2
            else:
                nodes.append(("leaf", np.float32(items[i][1])))
                i += 1
        trees.append(nodes)
    return trees


def preorder(tree, node=0):
    if tree["feature"][node] == -1:
        return [("leaf", tree["value"][node])]
    return ([("split", int(tree["feature"][node]), tree["threshold"][node])]
            + preorder(tree, tree["left"][node]) + preorder(tree, tree["right"][node]))


def ranklib_round4(x):
    """RankLib's SimpleMath.round(x, 4) of its log."""
    return math.floor(x * 10000 + 0.5) / 10000


def test_mq2008_fold1_is_ranklibs_model(mq2008_fold1, ranklib_fold1):
    tr, va, te = mq2008_fold1
    m = LambdaMART().fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
    ref = ranklib_trees(ranklib_fold1 / "lambdamart.model")
    ours = [preorder(t) for t in m.trees()]
    assert len(ours) == len(ref) == m.best_iteration_
    for i, (a, b) in enumerate(zip(ours, ref)):
        assert a == b, f"tree {i + 1}"
    theirs = np.loadtxt(ranklib_fold1 / "lambdamart.test-scores.txt", usecols=2)
    assert np.array_equal(m.predict(te.X), theirs)
    ndcg = evaluate(te.y, m.predict(te.X), te.qid, conventions=["ranklib"], cutoffs=10)
    assert ndcg["ranklib"]["NDCG@10"].mean() == pytest.approx(0.4891, abs=5e-5)
    rows = re.findall(r"^(\d+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|",
                      (ranklib_fold1 / "lambdamart.log").read_text(), flags=re.M)
    assert len(rows) == len(m.history_)
    for (r, train, val), ot, ov in zip(rows, m.train_history_, m.history_):
        assert (float(train), float(val)) == (ranklib_round4(ot), ranklib_round4(ov)), r
