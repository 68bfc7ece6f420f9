"""AdaRank: learning, stopping and selection rules, determinism, convention effects."""

import numpy as np
import pytest

from ltrconv import evaluate
from ltrconv.evaluation.scorer import NDCGScorer
from ltrconv.rankers import ParamError, load, make
from ltrconv.rankers.adarank import selection_sort_ranks
from ltrconv.rankers.linear_objective import LinearObjective
from ltrconv.data.synthetic import make_letor, split

# Most fits here have no validation data and select on the training data on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::ltrconv.rankers.TrainingSelectionWarning")


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
@pytest.mark.parametrize("weak_ties", ["selection", "convention", "average"])
def test_log_follows_the_control_flow(data, weighting, enqueue, weak_ties):
    train, test = data
    m = fit(train, test, weighting=weighting, enqueue=enqueue, weak_ties=weak_ties)
    log = m.log_
    done = [r for r in log if r[4] != "ROLLBACK" and r[2] is not None]
    assert done and all(r[0] <= m.n_rounds for r in log)
    # Round numbers never decrease; a phase that ends in a failure is followed by one that
    # starts at the same round number.
    rounds = [r[0] for r in log]
    assert rounds == sorted(rounds)
    for a, b in zip(log, log[1:]):
        if a[4] == "DAMN":
            assert b[0] == a[0]
    # A rollback undoes the round of the feature chosen right before it.
    for i, r in enumerate(log):
        if r[4] == "ROLLBACK":
            assert enqueue and log[i - 1][1] == r[1] and log[i - 1][4] == "OK"
    # The kept model is the first round with the best validation NDCG (failed rounds included),
    # counted from the last rollback.
    last_undo = max((i for i, r in enumerate(log) if r[4] == "ROLLBACK"), default=-1)
    vals = [r[3] for r in log[last_undo + 1:] if r[3] is not None]
    assert m.val_score_ == max(vals)
    assert m.val_score_ == pytest.approx(ndcg10(test, m.predict(test.X)), abs=1e-12)
    assert np.all(np.array([a for _, a in m.rounds_]) >= 0)


def test_selection_sort_is_not_stable():
    # Descending selection sort of 2, 1, 2, 3: position 0 takes 3 (swapping the first 2 to
    # the end), position 1 takes the second 2, position 2 the first 2: order 3, 2, 0, 1.
    s = selection_sort_ranks(np.array([2.0, 1.0, 2.0, 3.0]), np.array([0, 4]))
    assert list(np.argsort(-s)) == [3, 2, 0, 1]
    # Ties of a stable sort keep the input order instead: 3, 0, 2, 1.
    assert list(np.argsort(-np.array([2.0, 1.0, 2.0, 3.0]), kind="stable")) == [3, 0, 2, 1]


@pytest.mark.parametrize("weak_ties, expected", [
    ("selection", 1 / np.log2(4)),                       # doc 0 third
    ("convention", 1 / np.log2(3)),                      # doc 0 second (input order)
    ("average", (1 / np.log2(3) + 1 / np.log2(4)) / 2),  # second or third, equally likely
])
def test_weak_ranker_tie_order(weak_ties, expected):
    X = np.array([[2.0], [1.0], [2.0], [3.0]])
    y = np.array([1, 0, 0, 0])
    model = make("adarank", weak_ties=weak_ties)
    scorer = NDCGScorer(y, np.array([0, 4]), "ranklib", 10)
    m = model._weak_table(X, scorer, LinearObjective(scorer))
    assert m.shape == (1, 1) and m[0, 0] == pytest.approx(expected, abs=1e-12)


def test_tolerance_stops_early(data):
    train = data[0]
    strict = fit(train, tolerance=0.0, enqueue=False)
    assert strict.log_[-1][4] == "DAMN" and strict.log_[-1][0] < 500
    loose = fit(train, tolerance=10.0, n_rounds=30)
    assert max(r[0] for r in loose.log_) == 30 and "DAMN" not in [r[4] for r in loose.log_]


@pytest.mark.parametrize("params, match", [
    (dict(n_rounds=0), "n_rounds"), (dict(max_consecutive=True), "max_consecutive"),
    (dict(tolerance=-0.1), "tolerance"), (dict(weighting="adaboost"), "weighting"),
    (dict(enqueue="yes"), "enqueue"), (dict(metric="ndcg@0:ranklib"), "metric"),
    (dict(weak_ties="stable-ish"), "weak_ties"),
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
        return m.coef_, m.rounds_

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


def test_reported_validation_score_is_the_models_after_a_rollback(data):
    """RankLib zeroes its best validation score on a rollback; the model keeps its rounds, so
    the score reported (and printed by 'ltrconv train') must be the kept model's."""
    train, val = data
    rolled_back = 0
    for n in range(1, 7):
        m = fit(train, val, n_rounds=n)
        rolled_back += m.log_[-1][-1] == "ROLLBACK"
        assert m.val_score_ == pytest.approx(ndcg10(val, m.predict(val.X)), abs=1e-12)
    assert rolled_back, "no fit ended on a rollback: the case is not exercised"
