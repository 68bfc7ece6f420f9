"""Training under a convention that skips queries (empty=skip): a query without relevant document
adds nothing to the objective, and the means that select models leave it out."""

import numpy as np
import pytest

from ltrconv import rankers
from ltrconv.data.synthetic import make_letor
from ltrconv.evaluation.metrics import evaluate
from ltrconv.evaluation.scorer import NDCGScorer
from ltrconv.rankers.lambdamart import lambdas
from ltrconv.rankers.lambdamart_lightgbm import lambda_gradients
from ltrconv.rankers.linear_objective import LinearObjective

SKIP = "ndcg(empty=skip)"


@pytest.fixture(scope="module")
def data():
    d = make_letor(n_queries=24, n_features=6, empty_share=0.35, seed=11)
    nonempty = np.array([d.y[a:b].max() > 0 for a, b in zip(d.offsets[:-1], d.offsets[1:])])
    assert 0 < (~nonempty).sum() < len(nonempty)  # the data has queries to skip
    rows = np.concatenate([np.arange(a, b) for a, b, keep in
                           zip(d.offsets[:-1], d.offsets[1:], nonempty) if keep])
    return d, nonempty, rows


def test_scorer_leaves_skipped_queries_out(data):
    d, nonempty, rows = data
    s = d.X @ np.arange(1.0, 7.0)
    skip = NDCGScorer(d.y, d.offsets, SKIP, 10)
    zero = NDCGScorer(d.y, d.offsets, "ranklib", 10)
    pq = skip.per_query(s)
    assert np.array_equal(np.isnan(pq), ~nonempty) and np.array_equal(skip.counted, nonempty)
    np.testing.assert_array_equal(pq[nonempty], zero.per_query(s)[nonempty])
    assert np.all(skip.inv_idcg[~nonempty] == 0)
    assert skip.mean(s) == pytest.approx(pq[nonempty].mean(), abs=1e-15)
    assert skip.mean(s) > zero.mean(s)  # ranklib counts the empty queries as 0
    (ev,) = evaluate(d.y, s, d.qid, conventions=[SKIP], cutoffs=10).values()
    assert ev.mean()["NDCG@10"] == pytest.approx(skip.mean(s), abs=1e-15)
    assert LinearObjective(skip).mean(s) == pytest.approx(skip.mean(s), abs=1e-12)


def test_lambda_gradients_ignore_skipped_queries(data):
    d, nonempty, rows = data
    s = d.X @ np.arange(1.0, 7.0)
    grad, hess = lambda_gradients(NDCGScorer(d.y, d.offsets, SKIP, 10), s)
    empty_rows = np.setdiff1d(np.arange(len(d.y)), rows)
    assert np.all(grad[empty_rows] == 0) and np.all(hess[empty_rows] == 0)
    sizes = np.diff(d.offsets)[nonempty]
    off = np.concatenate(([0], np.cumsum(sizes)))
    g2, h2 = lambda_gradients(NDCGScorer(d.y[rows], off, SKIP, 10), s[rows])
    np.testing.assert_array_equal(grad[rows], g2)
    np.testing.assert_array_equal(hess[rows], h2)


def test_ranklib_lambdas_ignore_skipped_queries(data):
    d, nonempty, rows = data
    s = d.X @ np.arange(1.0, 7.0)
    lam, w = lambdas(NDCGScorer(d.y, d.offsets, SKIP, 10), s)
    empty_rows = np.setdiff1d(np.arange(len(d.y)), rows)
    assert np.all(lam[empty_rows] == 0) and np.all(w[empty_rows] == 0)
    assert np.any(lam[rows] != 0)
    sizes = np.diff(d.offsets)[nonempty]
    off = np.concatenate(([0], np.cumsum(sizes)))
    lam2, w2 = lambdas(NDCGScorer(d.y[rows], off, SKIP, 10), s[rows])
    np.testing.assert_array_equal(lam[rows], lam2)
    np.testing.assert_array_equal(w[rows], w2)


def test_every_query_skipped_is_refused():
    with pytest.raises(ValueError, match="none of the 2 queries has a relevant document"):
        NDCGScorer(np.zeros(4, int), [0, 2, 4], SKIP, 10)


@pytest.mark.parametrize("algorithm, params", [
    ("coordinate_ascent", dict(n_restarts=2, n_steps=6, n_jobs=1, random_state=3)),
    ("adarank", dict(n_rounds=15)),
])
def test_linear_rankers_train_as_without_the_skipped_queries(data, algorithm, params):
    """The same model as trained on the data without those queries: they change neither the
    line searches nor the means that stop and select."""
    d, nonempty, rows = data
    metric = f"ndcg@10:{SKIP}"
    full = rankers.make(algorithm, metric=metric, **params)
    full.fit(d.X, d.y, d.qid, X_val=d.X, y_val=d.y, qid_val=d.qid)
    part = rankers.make(algorithm, metric=metric, **params)
    part.fit(d.X[rows], d.y[rows], d.qid[rows], X_val=d.X[rows], y_val=d.y[rows],
             qid_val=d.qid[rows])
    np.testing.assert_array_equal(full.predict(d.X), part.predict(d.X))
    # and ranklib's empty=0 on the full data is another objective (the empty queries count)
    ranklib = rankers.make(algorithm, metric="ndcg@10:ranklib", **params)
    ranklib.fit(d.X, d.y, d.qid, X_val=d.X, y_val=d.y, qid_val=d.qid)
    assert full.val_score_ > ranklib.val_score_
