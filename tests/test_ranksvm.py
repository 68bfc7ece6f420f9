"""RankSVM: pair construction and C selection on the training convention's validation NDCG."""

import numpy as np
import pytest

from ltrconv import NDCGScorer, evaluate_dataset
from ltrconv.rankers import DegenerateDataError, ParamError, load, make
from ltrconv.rankers.ranksvm import RankSVM, pairwise_differences
from ltrconv.data.synthetic import make_letor, split

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
                                         ("loss", "log"), ("max_iter", 0), ("random_state", -1)])
def test_bad_params(data, param, value):
    tr, va, _ = data
    with pytest.raises(ParamError, match=param):
        fit(tr, va, **{param: value})


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
