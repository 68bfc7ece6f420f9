"""AdaRank: learning, stopping and selection rules, determinism, convention effects."""

import numpy as np
import pytest

from ltrconv import evaluate
from ltrconv.metrics import NDCGScorer
from ltrconv.rankers import ParamError, load, make
from ltrconv.synthetic import make_letor, split


@pytest.fixture(scope="module")
def data():
    d = make_letor(n_queries=90, n_features=8, min_docs=5, max_docs=25, seed=7)
    return split(d, np.arange(60)), split(d, np.arange(60, 90))


def fit(train, val=None, **params):
    kw = {} if val is None else dict(X_val=val.X, y_val=val.y, qid_val=val.qid, docid_val=val.docid)
    return make("adarank", **params).fit(train.X, train.y, train.qid, docid=train.docid, **kw)


def ndcg10(d, scores, conv="ranklib"):
    return evaluate(d.y, scores, d.qid, conventions=[conv], cutoffs=10, docid=d.docid)[conv].mean()["NDCG@10"]


def test_beats_random_and_roundtrips(data, tmp_path):
    train, test = data
    m = fit(train)
    pred = m.predict(test.X)
    rand = np.random.default_rng(0).random(len(test.y))
    assert pred.dtype == np.float64 and pred.shape == (len(test.y),)
    assert ndcg10(test, pred) >= ndcg10(test, rand) + 0.1
    m.save(tmp_path / "ada.pkl")
    np.testing.assert_array_equal(load(tmp_path / "ada.pkl").predict(test.X), pred)
    np.testing.assert_array_equal(fit(train).predict(test.X), pred)


@pytest.mark.parametrize("weighting", ["cumulative", "ensemble"])
@pytest.mark.parametrize("enqueue", [True, False])
def test_selection_and_history(data, weighting, enqueue):
    train, test = data
    m = fit(train, test, weighting=weighting, enqueue=enqueue)
    assert 1 <= m.best_iteration_ <= len(m.history_) <= m.n_rounds_ <= 500
    # An undo forgets the validation record: selection among the rounds after the last undo.
    assert bool(m.undone_) == enqueue
    last = max(m.undone_, default=0)
    assert last < len(m.history_)
    tail = m.history_[last:]
    assert m.best_iteration_ == last + 1 + int(np.argmax(tail))
    assert m.val_score_ == max(tail) == m.history_[m.best_iteration_ - 1]
    assert m.val_score_ == pytest.approx(ndcg10(test, m.predict(test.X)), abs=1e-12)
    assert np.all(np.array(m.alphas_) >= 0)
    feats = m.features_
    runs = max(len(r) for r in np.split(feats, np.flatnonzero(np.diff(feats)) + 1))
    assert runs <= m.max_consecutive
    # The first round is the feature with the best unweighted training NDCG.
    sc = NDCGScorer(train.y, train.offsets, "ranklib", 10)
    assert feats[0] == int(np.argmax([sc.mean(train.X[:, f]) for f in range(train.X.shape[1])]))


def test_undone_round_is_not_selected():
    # Round 1 has the best validation NDCG of the whole run, but the enqueue rule undoes it.
    d = make_letor(n_queries=60, n_features=6, min_docs=5, max_docs=20, seed=1)
    m = fit(split(d, np.arange(40)), split(d, np.arange(40, 60)))
    assert 1 in m.undone_ and int(np.argmax(m.history_)) == 0
    assert m.best_iteration_ > max(m.undone_)
    assert m.val_score_ < m.history_[0]


def test_tolerance_stops_early(data):
    train = data[0]
    m = fit(train, tolerance=0.0, enqueue=False)
    assert np.all(np.diff(m.train_history_) > 0) and m.n_rounds_ < 500
    assert fit(train, tolerance=10.0, n_rounds=30).n_rounds_ == 30


@pytest.mark.parametrize("params, match", [
    (dict(n_rounds=0), "n_rounds"), (dict(max_consecutive=True), "max_consecutive"),
    (dict(tolerance=-0.1), "tolerance"), (dict(weighting="adaboost"), "weighting"),
    (dict(enqueue="yes"), "enqueue"), (dict(metric="ndcg@0:ranklib"), "metric"),
])
def test_bad_params(data, params, match):
    with pytest.raises(ParamError, match=match):
        fit(data[0], **params)


def test_letor_ignores_short_queries(data):
    d = data[0]
    sizes = np.diff(d.offsets)
    short = np.flatnonzero(sizes < 10)
    assert len(short) >= 5
    rng = np.random.default_rng(4)
    perm = np.arange(len(d.y))
    noisy = d.X.copy()
    for q in short:
        r = np.arange(d.offsets[q], d.offsets[q + 1])
        perm[r] = rng.permutation(r)
        noisy[r] = rng.random((len(r), d.X.shape[1]))

    def model(metric, X, y=d.y, docid=d.docid):
        m = make("adarank", metric=metric).fit(X, y, d.qid, docid=docid)
        return m.coef_, m.features_

    base = model("ndcg@10:letor", d.X)
    for other in (model("ndcg@10:letor", d.X[perm], d.y[perm], d.docid[perm]),
                  model("ndcg@10:letor", noisy)):
        np.testing.assert_array_equal(other[0], base[0])
        assert other[1] == base[1]
    # Under ranklib the short queries count: replacing their features changes the model.
    assert not np.array_equal(model("ndcg@10:ranklib", noisy)[0], model("ndcg@10:ranklib", d.X)[0])
    # Their per-query NDCG under letor is 0 whatever the order; under ranklib it moves.
    letor = NDCGScorer(d.y, d.offsets, "letor", 10)
    ranklib = NDCGScorer(d.y, d.offsets, "ranklib", 10)
    draws = [rng.random(len(d.y)) for _ in range(20)]
    assert np.all(np.array([letor.per_query(s)[short] for s in draws]) == 0.0)
    assert np.ptp([ranklib.per_query(s)[short] for s in draws], axis=0).max() > 0.1


def test_mq2008_fold1(mq2008_fold1):
    tr, va, te = mq2008_fold1
    m = fit(tr, va)
    assert ndcg10(te, m.predict(te.X)) > 0.44
    assert m.history_[m.best_iteration_ - 1] == m.val_score_
