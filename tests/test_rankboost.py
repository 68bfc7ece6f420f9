"""RankBoost: weak-learner choice, round selection, persistence, errors, quality."""

import numpy as np
import pytest

from ltrconv import MetricSpec, evaluate_dataset, rankers
from ltrconv.rankers import ParamError, load
from ltrconv.rankers.rankboost import (RankBoost, _pairs_in_position_order, _sorted_columns,
                                       best_stump, potentials, quantile_thresholds,
                                       ranklib_thresholds, reweight)
from ltrconv.data.synthetic import make_letor, split



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
                                  "metric": "ndcg@10:ranklib", "thresholds": "ranklib",
                                  "objective": "signed"}


def test_beats_random_on_held_out_queries(parts, fitted):
    _, _, te = parts
    ours = evaluate_dataset(te, fitted.predict(te.X))["ranklib"].mean()["NDCG@10"]
    rand = np.mean([evaluate_dataset(te, np.random.default_rng(s).random(te.n_docs))["ranklib"]
                    .mean()["NDCG@10"] for s in range(5)])
    assert ours > rand + 0.1


X6 = np.array([[0.1, 5.0, 0.0], [0.4, 3.0, 1.0], [0.3, 3.0, 0.0],
               [0.9, 1.0, 1.0], [0.2, 4.0, 0.0], [0.6, 2.0, 1.0]])
Y6 = np.array([2, 1, 0, 0, 1, 0])
OFF6 = np.array([0, 6])


def test_pairs_and_potentials():
    hi, lo, by_worse = _pairs_in_position_order(Y6, OFF6)
    assert len(hi) == 11 and np.all(Y6[hi] > Y6[lo])
    assert sorted(zip(hi, lo)) == sorted((i, j) for i in range(6) for j in range(6) if Y6[i] > Y6[j])
    assert sorted(by_worse) == list(range(11))
    D = np.random.default_rng(1).random(len(hi))
    pi = potentials(D, hi, lo, by_worse, 6)
    naive = [D[hi == x].sum() - D[lo == x].sum() for x in range(6)]
    np.testing.assert_allclose(pi, naive, atol=1e-15)


def test_ranklib_thresholds_are_equally_spaced_from_the_top():
    X = np.array([[0.0], [0.5], [1.0]])
    np.testing.assert_allclose(ranklib_thresholds(X, 4)[0], [1.0, 0.75, 0.5, 0.25, -1e8])
    thr = quantile_thresholds(X, 4)[0]
    assert np.all(thr < 1.0) and len(thr) == 2


@pytest.mark.parametrize("objective", ["signed", "abs"])
@pytest.mark.parametrize("make_thr", [ranklib_thresholds, quantile_thresholds])
def test_weak_learner_matches_brute_force(objective, make_thr):
    hi, lo, by_worse = _pairs_in_position_order(Y6, OFF6)
    D = np.random.default_rng(1).random(len(hi))
    D /= D.sum()
    thr = [np.sort(t)[::-1] for t in make_thr(X6, 10)]
    flat = np.concatenate(thr)
    off = np.concatenate(([0], np.cumsum([len(t) for t in thr])))
    rows, values = _sorted_columns(X6, OFF6)
    f, theta, r = best_stump(values, rows, OFF6, flat, off,
                             potentials(D, hi, lo, by_worse, 6), objective == "signed")
    best = (None, None, -10.0 if objective == "signed" else 0.0)
    for g in range(3):
        for t in thr[g]:
            h = (X6[:, g] > t).astype(float)
            rr = float(np.sum(D * (h[hi] - h[lo])))
            better = rr > best[2] + 1e-12 if objective == "signed" else abs(rr) > abs(best[2]) + 1e-12
            if better:
                best = (g, t, rr)
    assert (f, theta) == best[:2]
    assert r == pytest.approx(best[2], abs=1e-12)
    if objective == "signed":
        assert r >= 0


def test_reweight_follows_the_update_rule():
    hi, lo = np.array([0, 0, 1]), np.array([1, 2, 2])
    D = np.full(3, 1 / 3)
    fires = np.array([0.0, 1.0, 0.0])
    Z = reweight(D, hi, lo, fires, 0.5)
    expected = np.array([np.exp(0.5), 1.0, np.exp(-0.5)]) / 3
    np.testing.assert_allclose(D, expected)
    assert Z == pytest.approx(expected.sum())


def test_kept_rounds_are_the_first_best_validation_prefix(parts, fitted):
    _, va, _ = parts
    vals = np.array([row[3] for row in fitted.log_])
    assert len(vals) == 60
    assert fitted.best_iteration_ == int(np.argmax(vals)) + 1
    assert len(fitted.alphas_) == fitted.best_iteration_
    assert fitted.val_score_ == vals.max()
    scorer = MetricSpec.parse("ndcg@10:ranklib").scorer(va.y, va.offsets, docid=va.docid,
                                                        max_label=2)
    assert scorer.mean(fitted.predict(va.X)) == pytest.approx(fitted.val_score_, abs=1e-12)


def test_variants_differ(parts, fitted):
    tr, va, te = parts
    kw = dict(X_val=va.X, y_val=va.y, qid_val=va.qid)
    variant = RankBoost(n_rounds=60, thresholds="quantile", objective="abs").fit(tr.X, tr.y, tr.qid, **kw)
    assert not np.array_equal(variant.predict(te.X), fitted.predict(te.X))


def test_training_convention_drives_selection(parts):
    tr, va, _ = parts
    kw = dict(X_val=va.X, y_val=va.y, qid_val=va.qid)
    letor = RankBoost(n_rounds=60, metric="ndcg@10:letor").fit(tr.X, tr.y, tr.qid, **kw)
    yahoo = RankBoost(n_rounds=60, metric="ndcg@10:yahoo").fit(tr.X, tr.y, tr.qid, **kw)
    scorer = MetricSpec.parse("ndcg@10:letor").scorer(va.y, va.offsets, max_label=2)
    assert scorer.mean(letor.predict(va.X)) == pytest.approx(letor.val_score_, abs=1e-12)
    # same boosting path, different validation curve
    assert np.array_equal(letor.features_[:5], yahoo.features_[:5])
    assert not np.allclose([r[3] for r in letor.log_], [r[3] for r in yahoo.log_])


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
    ({"thresholds": "uniform"}, "thresholds"),
    ({"objective": "max"}, "objective"),
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
