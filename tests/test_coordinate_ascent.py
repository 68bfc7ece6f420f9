"""Coordinate Ascent: sort-free NDCG objective, learning, determinism, convention effects."""

import numpy as np
import pytest

from ltrconv import evaluate
from ltrconv.evaluation.scorer import NDCGScorer
from ltrconv.rankers import ParamError, load, make
from ltrconv.rankers.linear_objective import LinearObjective
from ltrconv.data.synthetic import make_letor, split

# Most fits here have no validation data and select on the training data on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::ltrconv.rankers.TrainingSelectionWarning")

FAST = dict(n_restarts=3, n_steps=20, max_sweeps=10)


@pytest.fixture(scope="module")
def data():
    d = make_letor(n_queries=90, n_features=8, min_docs=5, max_docs=25, seed=7)
    return split(d, np.arange(60)), split(d, np.arange(60, 90))


def fit(train, **params):
    return make("coordinate_ascent", **{**FAST, **params}).fit(
        train.X, train.y, train.qid, docid=train.docid)


def ndcg10(d, scores, conv="ranklib"):
    return evaluate(d.y, scores, d.qid, conventions=[conv], cutoffs=10, docid=d.docid)[conv].mean()["NDCG@10"]


def short_rows(d, k=10):
    sizes = np.diff(d.offsets)
    return [np.arange(d.offsets[q], d.offsets[q + 1]) for q in np.flatnonzero(sizes < k)]


@pytest.mark.parametrize("conv", ["ranklib", "trec", "yahoo", "letor", "ranklib-tieavg",
                                  "ranklib-tiepess", "ranklib-tieopt"])
def test_objective_matches_scorer(data, conv):
    d = data[0]
    sc = NDCGScorer(d.y, d.offsets, conv, 10, docid=d.docid)
    obj = LinearObjective(sc)
    rng = np.random.default_rng(1)
    for s in (rng.random(len(d.y)), np.round(rng.random(len(d.y)) * 2) / 2):
        np.testing.assert_allclose(obj.per_query(s), sc.per_query(s), rtol=0, atol=1e-12)
        x, deltas = rng.random(len(d.y)), np.array([0.0, -0.4, 2.5])
        want = [sc.per_query(s + dl * x)[obj.active].sum() for dl in deltas]
        np.testing.assert_allclose(obj.line(s, x, deltas), want, rtol=0, atol=1e-10)


def test_beats_random_and_roundtrips(data, tmp_path):
    train, test = data
    m = fit(train)
    pred = m.predict(test.X)
    rand = np.random.default_rng(0).random(len(test.y))
    assert pred.dtype == np.float64 and pred.shape == (len(test.y),)
    assert ndcg10(test, pred) >= ndcg10(test, rand) + 0.1
    assert np.isclose(np.abs(m.coef_).sum(), 1.0)
    assert len(m.history_) == 3 and m.val_score_ == max(m.history_)
    m.save(tmp_path / "ca.pkl")
    np.testing.assert_array_equal(load(tmp_path / "ca.pkl").predict(test.X), pred)


def test_deterministic_and_independent_of_n_jobs(data):
    train, test = data
    a = fit(train, n_jobs=1).predict(test.X)
    b = fit(train, n_jobs=2).predict(test.X)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(fit(train, random_state=5).coef_, fit(train, random_state=0).coef_)


def test_validation_selects_restart(data):
    train, test = data
    m = make("coordinate_ascent", **FAST).fit(train.X, train.y, train.qid, X_val=test.X,
                                              y_val=test.y, qid_val=test.qid)
    assert m.val_score_ == pytest.approx(ndcg10(test, m.predict(test.X)), abs=1e-12)
    assert m.best_restart_ == int(np.argmax(m.history_))


@pytest.mark.parametrize("params, match", [
    (dict(n_restarts=0), "n_restarts"), (dict(n_steps=1.5), "n_steps"), (dict(max_sweeps=0), "max_sweeps"), (dict(init="zero"), "init"),
    (dict(tolerance=-1.0), "tolerance"), (dict(n_jobs=0), "n_jobs"),
    (dict(metric="ndcg@10:nosuch"), "nosuch"), (dict(step_base=float("nan")), "step_base"),
])
def test_bad_params(data, params, match):
    with pytest.raises(ParamError, match=match):
        fit(data[0], **params)


def test_letor_ignores_short_queries(data):
    d = data[0]
    rows = short_rows(d)
    assert len(rows) >= 5
    rng = np.random.default_rng(3)
    perm = np.arange(len(d.y))
    noisy = d.X.copy()
    for r in rows:
        perm[r] = rng.permutation(r)
        noisy[r] = rng.random((len(r), d.X.shape[1]))
    shuffled = (d.X[perm], d.y[perm], d.qid, d.docid[perm])

    def coef(metric, X, y, qid, docid):
        return make("coordinate_ascent", metric=metric, **FAST).fit(X, y, qid, docid=docid).coef_

    base = coef("ndcg@10:letor", d.X, d.y, d.qid, d.docid)
    np.testing.assert_array_equal(coef("ndcg@10:letor", *shuffled), base)
    np.testing.assert_array_equal(coef("ndcg@10:letor", noisy, d.y, d.qid, d.docid), base)
    # Under ranklib the same queries count, so replacing their features changes the model.
    ranklib = coef("ndcg@10:ranklib", d.X, d.y, d.qid, d.docid)
    assert not np.array_equal(coef("ndcg@10:ranklib", noisy, d.y, d.qid, d.docid), ranklib)
    # The per-query objective of a short query is constant under letor, not under ranklib.
    q_short = int(np.searchsorted(d.offsets, rows[0][0], side="right") - 1)
    letor = LinearObjective(NDCGScorer(d.y, d.offsets, "letor", 10))
    rkl = LinearObjective(NDCGScorer(d.y, d.offsets, "ranklib", 10))
    short = [q for q in range(d.n_queries) if d.offsets[q + 1] - d.offsets[q] < 10]
    vals_l = np.array([letor.per_query(rng.random(len(d.y)))[short] for _ in range(20)])
    vals_r = np.array([rkl.per_query(rng.random(len(d.y)))[short] for _ in range(20)])
    assert q_short in short and np.all(vals_l == vals_l[0])
    assert np.ptp(vals_r, axis=0).max() > 0.1


def test_mq2008_fold1_single_restart(mq2008_fold1):
    tr, va, te = mq2008_fold1
    m = make("coordinate_ascent", n_restarts=1).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y,
                                                    qid_val=va.qid, docid=tr.docid, docid_val=va.docid)
    assert ndcg10(te, m.predict(te.X)) > 0.46


@pytest.mark.parametrize("seed", [2 ** 63, -(2 ** 63) - 1])
def test_random_state_must_be_a_java_long(data, seed):
    with pytest.raises(ParamError, match="random_state"):
        fit(data[0], random_state=seed)


def test_java_long_seeds_accepted(data):
    a = fit(data[0], n_restarts=1, random_state=-(2 ** 63))
    b = fit(data[0], n_restarts=1, random_state=2 ** 63 - 1)
    assert a.coef_.shape == b.coef_.shape == (8,)


@pytest.mark.parametrize("name, hint", [("r", "n_restarts"), ("i", "n_steps"), ("slack", "reg"),
                                        ("step_scale", "no counterpart")])
def test_ranklib_option_names_are_pointed_to_their_counterpart(name, hint):
    with pytest.raises(ParamError, match=f"unknown.*{hint}"):
        make("coordinate_ascent", **{name: 2})


def test_stops_on_a_plateau_without_max_sweeps(data):
    """With tolerance 0 and no sweep limit, a restart still ends: a win must raise the best
    training NDCG, so constant features (nothing can win) end it after d - 1 failures."""
    d = data[0]
    X = np.repeat(np.arange(d.n_queries, dtype=float)[:, None], np.diff(d.offsets), axis=0)
    X = np.hstack([X, X * 2])
    m = make("coordinate_ascent", n_restarts=2, n_steps=5, tolerance=0.0).fit(X, d.y, d.qid)
    assert m.n_sweeps_ == [1, 1] and m.log_ == [[], []]
    np.testing.assert_array_equal(m.coef_, np.float32(0.5))


def test_reg_penalises_moving_away_from_uniform(data):
    train = data[0]
    free, tied = fit(train, n_restarts=1), fit(train, n_restarts=1, reg=10.0)
    uniform = np.full(8, 1 / 8)
    assert np.linalg.norm(tied.coef_ - uniform) < np.linalg.norm(free.coef_ - uniform)
