"""RankSVM: pair construction, the pair-counting objective and its Newton solver against the
pairs themselves and liblinear, C selection on the training convention's validation NDCG."""

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from ltrconv import NDCGScorer, evaluate_dataset
from ltrconv.rankers import DegenerateDataError, ParamError, load, make
from ltrconv.rankers.pair_squared_hinge import PairwiseSquaredHinge
from ltrconv.rankers.pairs import count_pairs, crucial_pairs
from ltrconv.rankers.ranksvm import RankSVM, pairwise_differences
from ltrconv.data.synthetic import make_letor, split
from ltrconv.rankers.trust_region import tron

GRID = (1e-4, 1e-2, 1.0, 100.0)


@pytest.fixture(scope="module")
def data():
    d = make_letor(n_queries=120, n_features=8, empty_share=0.1, noise=0.3, seed=5)
    idx = np.arange(d.n_queries)
    return split(d, idx[:70]), split(d, idx[70:95]), split(d, idx[95:])


def fit(tr, va, **kw):
    return RankSVM(**{"C_grid": GRID, **kw}).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y,
                                                  qid_val=va.qid)


def ndcg10(ds, scores):
    return evaluate_dataset(ds, scores, conventions=["ranklib"])["ranklib"].mean()["NDCG@10"]


def test_pairs_on_hand_made_queries():
    X = np.arange(18, dtype=float).reshape(9, 2) ** 2
    y = np.array([2, 0, 1, 0] + [0, 0] + [1, 1, 0])
    D, t = pairwise_differences(X, y, np.array([0, 4, 6, 9]))
    # q1: 2>0 twice, 2>1, 1>0 twice = 5; empty q2: 0; q3 (ties 1,1 give none): 2.
    assert len(t) == 2 * 7 and t.sum() == 0
    pos = D[t == 1]
    assert np.array_equal(D[t == -1], -pos)
    assert np.array_equal(pos[0], X[0] - X[1])
    assert {tuple(r) for r in pos} == {tuple(X[i] - X[j]) for i, j in
                                       [(0, 1), (0, 2), (0, 3), (2, 1), (2, 3), (6, 8), (7, 8)]}
    assert count_pairs(y, np.array([0, 4, 6, 9])) == 7


def test_objective_by_hand():
    """One query, labels 1 > 0 = 0, x = 1, 0, 0.5, w = 1, C = 2: pair (0, 1) has margin 1 (not
    active), pair (0, 2) margin 0.5: f = 1/2 + 2 * 0.5^2 = 1, grad = 1 + 2*2*(0.5 - 1)*0.5 = 0,
    H v = v + 2*2*0.5^2 v = 2v; w = 1 is the minimiser and the solver finds it."""
    X, y, off = np.array([[1.0], [0.0], [0.5]]), np.array([1, 0, 0]), np.array([0, 3])
    obj = PairwiseSquaredHinge(X, y, off, 2.0)
    w = np.array([1.0])
    assert obj.fun(w) == 1.0
    assert obj.grad(w) == pytest.approx([0.0], abs=1e-15)
    assert obj.hess_vec(np.array([3.0])) == pytest.approx([6.0], rel=1e-15)
    assert tron(obj, 1, 1e-10, 100).w == pytest.approx([1.0], rel=1e-9)


def brute_force(X, y, off, C, w, v):
    """f, grad f and the generalized H v over the materialised pairs."""
    hi, lo = crucial_pairs(y, off)
    s = X @ w
    m = s[hi] - s[lo]
    act = m < 1.0
    D = X[hi[act]] - X[lo[act]]
    return (0.5 * w @ w + C * np.sum((1.0 - m[act]) ** 2), w + 2 * C * D.T @ (m[act] - 1.0),
            v + 2 * C * D.T @ (D @ v))


@pytest.mark.parametrize("seed", range(4))
def test_pair_counting_equals_brute_force(seed):
    """Queries of 1-40 documents, labels 0-4 (some queries with one label), scores on a grid of
    halves so that many are tied and many margins are exactly 1."""
    rng = np.random.default_rng(seed)
    off = np.concatenate(([0], np.cumsum(rng.integers(1, 41, 30))))
    n = off[-1]
    X = rng.integers(-3, 4, (n, 4)).astype(float)
    y = rng.integers(0, 5, n)
    y[off[1]:off[2]] = 2
    C = 0.3
    obj = PairwiseSquaredHinge(X, y, off, C)
    for scale in (0.5, 1.0, 3.0):
        w = scale * rng.integers(-2, 3, 4) / 2
        v = rng.normal(size=4)
        f, g, hv = brute_force(X, y, off, C, w, v)
        assert obj.fun(w) == pytest.approx(f, rel=1e-13)
        assert np.allclose(obj.grad(w), g, rtol=1e-13, atol=1e-13 * np.abs(g).max())
        # a trial point evaluated after the gradient does not move H's active set
        obj.fun(w + 1.0)
        assert np.allclose(obj.hess_vec(v), hv, rtol=1e-13, atol=1e-13 * np.abs(hv).max())
    assert count_pairs(y, off) == len(crucial_pairs(y, off)[0])


@pytest.mark.parametrize("C", [1e-3, 1.0, 100.0])
def test_newton_objective_not_above_liblinear(data, C):
    """At the same tolerance (tight, so both are near the minimiser) the Newton solution's
    objective is not above liblinear's on the materialised pairs, and at the default tolerance
    both follow the same path on this well-conditioned set."""
    tr = data[0]
    D, t = pairwise_differences(tr.X, tr.y, tr.offsets)
    obj = PairwiseSquaredHinge(tr.X, tr.y, tr.offsets, 2 * C)
    for tol, close in ((1e-8, 1e-6), (1e-3, 1e-10)):
        w_lib = LinearSVC(C=C, dual=False, tol=tol, fit_intercept=False).fit(D, t).coef_.ravel()
        res = tron(obj, tr.X.shape[1], tol / 2, 1000)
        assert res.converged
        f_lib = obj.fun(w_lib)
        assert obj.fun(res.w) <= f_lib + 1e-12 * f_lib
        assert np.linalg.norm(res.w - w_lib) <= close * np.linalg.norm(w_lib)


def test_beats_random_and_chosen_C_is_best(data):
    tr, va, te = data
    m = RankSVM().fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
    rand = np.random.default_rng(0).random(len(te.y))
    assert ndcg10(te, m.predict(te.X)) > ndcg10(te, rand) + 0.1
    assert len(m.val_scores_) == 11 == len(m.converged_)
    best = int(np.argmax(m.val_scores_))
    assert m.best_C_ == RankSVM().C_grid[best]
    assert m.val_score_ == max(m.val_scores_)
    sc = NDCGScorer(va.y, va.offsets, "ranklib", 10)
    assert sc.mean(m.predict(va.X)) == m.val_score_


def test_selection_follows_convention(data):
    tr, va, _ = data
    m = fit(tr, va, metric="ndcg@5:letor")
    sc = NDCGScorer(va.y, va.offsets, "letor", 5)
    assert m.val_score_ == pytest.approx(sc.mean(m.predict(va.X)), abs=1e-12)


def test_newton_and_liblinear_select_the_same_model(data):
    tr, va, te = data
    a, b = fit(tr, va), fit(tr, va, solver="liblinear")
    assert a.best_C_ == b.best_C_ and a.n_pairs_ == b.n_pairs_
    assert a.val_scores_ == pytest.approx(b.val_scores_, abs=1e-12)
    assert np.allclose(a.predict(te.X), b.predict(te.X), rtol=1e-9, atol=1e-12)


def test_deterministic_and_save_load(data, tmp_path):
    tr, va, te = data
    a = fit(tr, va, loss="hinge", max_iter=200)
    b = fit(tr, va, loss="hinge", max_iter=200)
    assert np.array_equal(a.predict(te.X), b.predict(te.X))
    a.save(tmp_path / "svm.pkl")
    back = load(tmp_path / "svm.pkl")
    assert isinstance(back, RankSVM) and back.best_C_ == a.best_C_
    assert np.array_equal(back.predict(te.X), a.predict(te.X))


@pytest.mark.parametrize("param,value", [("C_grid", [1.0, -1.0]), ("C_grid", []), ("tol", 0),
                                         ("loss", "log"), ("max_iter", 0), ("random_state", -1),
                                         ("solver", "lbfgs")])
def test_bad_params(data, param, value):
    tr, va, _ = data
    with pytest.raises(ParamError, match=param):
        fit(tr, va, **{param: value})


def test_hinge_needs_liblinear():
    with pytest.raises(ParamError, match="hinge.*liblinear"):
        make("ranksvm", loss="hinge", solver="newton")
    assert make("ranksvm", loss="hinge")._solver() == "liblinear"


def test_unknown_parameter_names_the_valid_ones():
    with pytest.raises(ParamError, match="unknown.*C_grid"):
        make("ranksvm", C=1.0)


def test_no_pairs_is_refused():
    X = np.random.default_rng(0).random((6, 3))
    with pytest.raises(DegenerateDataError, match="no query with two different labels"):
        RankSVM().fit(X, np.repeat([1, 2], 3), np.repeat([1, 2], 3))


def test_mq2008_fold1_pairs(mq2008_fold1):
    tr = mq2008_fold1[0]
    D, t = pairwise_differences(tr.X, tr.y, tr.offsets)
    assert len(t) == 2 * 52325 and D.shape[1] == 46
    assert count_pairs(tr.y, tr.offsets) == 52325
    # liblinear's path, step for step, where the problem is well conditioned (small C; for
    # C >= 1e-2 both stop at liblinear's tolerance some 1e-4 apart, as liblinear does with
    # the pairs in another order)
    for C in (1e-5, 1e-3):
        w_lib = LinearSVC(C=C, dual=False, tol=1e-3, fit_intercept=False).fit(D, t).coef_.ravel()
        res = tron(PairwiseSquaredHinge(tr.X, tr.y, tr.offsets, 2 * C), 46, 1e-3 / 2, 1000)
        assert np.linalg.norm(res.w - w_lib) <= 1e-8 * np.linalg.norm(w_lib)
