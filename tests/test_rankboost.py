"""RankBoost: weak-learner choice, round selection, persistence, errors, quality."""

import numpy as np
import pytest

from ltrconv import MetricSpec, evaluate_dataset, rankers
from ltrconv.rankers import ParamError, load
from ltrconv.rankers.pairs import crucial_pairs
from ltrconv.rankers.rankboost import (RankBoost, best_stump, bin_features, candidate_thresholds,
                                       potentials, reweight)
from ltrconv.synthetic import make_letor, split



@pytest.fixture(scope="module")
def parts():
    data = make_letor(n_queries=90, n_features=9, seed=3)
    idx = np.arange(data.n_queries)
    return split(data, idx[:50]), split(data, idx[50:70]), split(data, idx[70:])


@pytest.fixture(scope="module")
def fitted(parts):
    tr, va, _ = parts
    return RankBoost(n_rounds=60).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid,
                                      docid=tr.docid, docid_val=va.docid)


def test_registry_name_and_defaults():
    model = rankers.make("rankboost")
    assert isinstance(model, RankBoost)
    assert model.get_params() == {"n_rounds": 300, "n_thresholds": 10,
                                  "metric": "ndcg@10:ranklib", "random_state": 0}


def test_beats_random_on_held_out_queries(parts, fitted):
    _, _, te = parts
    ours = evaluate_dataset(te, fitted.predict(te.X))["ranklib"].mean()["NDCG@10"]
    rand = np.mean([evaluate_dataset(te, np.random.default_rng(s).random(te.n_docs))["ranklib"]
                    .mean()["NDCG@10"] for s in range(5)])
    assert ours > rand + 0.1


def test_weak_learner_matches_brute_force():
    # one query, six documents, three features; a non-uniform pair distribution
    X = np.array([[0.1, 5.0, 0.0], [0.4, 3.0, 1.0], [0.3, 3.0, 0.0],
                  [0.9, 1.0, 1.0], [0.2, 4.0, 0.0], [0.6, 2.0, 1.0]])
    y = np.array([2, 1, 0, 0, 1, 0])
    off = np.array([0, 6])
    hi, lo = crucial_pairs(y, off)
    assert len(hi) == 11 and np.all(y[hi] > y[lo])
    D = np.random.default_rng(1).random(len(hi))
    D /= D.sum()
    thr = candidate_thresholds(X, 10)
    f, t, r = best_stump(bin_features(X, thr), potentials(D, hi, lo, 6),
                         np.array([len(a) for a in thr]))
    best = (None, None, 0.0)
    for g in range(3):
        for theta in thr[g]:
            h = (X[:, g] > theta).astype(float)
            rr = float(np.sum(D * (h[hi] - h[lo])))
            if abs(rr) > abs(best[2]) + 1e-12:
                best = (g, theta, rr)
    assert (f, thr[f][t]) == best[:2]
    assert r == pytest.approx(best[2], abs=1e-12)


def test_reweight_follows_the_update_rule():
    hi, lo = np.array([0, 0, 1]), np.array([1, 2, 2])
    D = np.full(3, 1 / 3)
    fires = np.array([0, 1, 0])
    reweight(D, hi, lo, fires, 0.5)
    expected = np.array([np.exp(0.5), 1.0, np.exp(-0.5)])
    np.testing.assert_allclose(D, expected / expected.sum())


def test_selected_rounds_is_argmax_of_validation_curve(parts, fitted):
    _, va, _ = parts
    hist = np.asarray(fitted.history_)
    assert len(hist) == 60
    assert fitted.best_iteration_ == int(np.argmax(hist)) + 1
    assert len(fitted.alphas_) == fitted.best_iteration_
    assert fitted.val_score_ == hist.max()
    scorer = MetricSpec.parse("ndcg@10:ranklib").scorer(va.y, va.offsets, docid=va.docid,
                                                        max_label=2)
    assert scorer.mean(fitted.predict(va.X)) == pytest.approx(fitted.val_score_, abs=1e-12)


def test_training_convention_drives_selection(parts):
    tr, va, _ = parts
    kw = dict(X_val=va.X, y_val=va.y, qid_val=va.qid)
    letor = RankBoost(n_rounds=60, metric="ndcg@10:letor").fit(tr.X, tr.y, tr.qid, **kw)
    yahoo = RankBoost(n_rounds=60, metric="ndcg@10:yahoo").fit(tr.X, tr.y, tr.qid, **kw)
    scorer = MetricSpec.parse("ndcg@10:letor").scorer(va.y, va.offsets, max_label=2)
    assert scorer.mean(letor.predict(va.X)) == pytest.approx(letor.val_score_, abs=1e-12)
    # same boosting path, different validation curve
    assert np.array_equal(letor.features_[:5], yahoo.features_[:5])
    assert not np.allclose(letor.history_, yahoo.history_)


def test_same_seed_identical_and_save_load_roundtrip(parts, fitted, tmp_path):
    tr, va, te = parts
    again = RankBoost(n_rounds=60).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid,
                                       docid=tr.docid, docid_val=va.docid)
    assert np.array_equal(again.predict(te.X), fitted.predict(te.X))
    fitted.save(tmp_path / "rb.pkl")
    back = load(tmp_path / "rb.pkl")
    pred = back.predict(te.X)
    assert pred.dtype == np.float64 and np.array_equal(pred, fitted.predict(te.X))


@pytest.mark.parametrize("params, match", [
    ({"n_rounds": 0}, "n_rounds"),
    ({"n_rounds": 2.5}, "n_rounds"),
    ({"n_thresholds": 0}, "n_thresholds"),
    ({"metric": "map@10:ranklib"}, "metric"),
])
def test_bad_parameters(parts, params, match):
    tr = parts[0]
    with pytest.raises(ParamError, match=match):
        RankBoost(**params).fit(tr.X, tr.y, tr.qid)


@pytest.mark.mq2008
def test_mq2008_fold1_quality(mq2008_fold1):
    tr, va, te = mq2008_fold1
    model = RankBoost().fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid,
                            docid=tr.docid, docid_val=va.docid)
    score = evaluate_dataset(te, model.predict(te.X))["ranklib"].mean()["NDCG@10"]
    assert score >= 0.48
