"""``fit_many``: one training for several metrics. Each model equals the single fit under its
metric to the last byte of its pickle, for the rankers that train once (the metric only
selects) and for those that fit once per metric."""

import pickle

import numpy as np
import pytest

from ltrconv.data.synthetic import make_letor, split
from ltrconv.errors import InputError
from ltrconv.rankers import make

# Conventions that disagree on ties, empty queries, short queries and gain, so that the metrics
# choose different epochs, rounds, C and architectures.
METRICS = ["ndcg@5:ranklib", "ndcg@5:yahoo", "ndcg@5:letor", "ndcg@3:trec",
           "ndcg@5:ndcg(gain=linear,disc=log2,empty=skip,short=zero,ties=pessimistic)"]
SHARED = {
    "ranknet": dict(architectures=((4,), (3, 3)), max_epochs=12, patience=3,
                    learning_rate=0.02),
    "ranknet_adam": dict(architectures=((4,), (6,)), max_epochs=25, patience=2,
                         learning_rate=0.01),
    "rankboost": dict(n_rounds=40),
    "ranksvm": dict(C_grid=[1e-4, 1e-2, 1.0, 100.0]),
}
STEERED = {"adarank": dict(n_rounds=8),
           "coordinate_ascent": dict(n_restarts=2, n_steps=4, max_sweeps=2)}
SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def parts():
    data = make_letor(n_queries=70, n_features=6, min_docs=2, max_docs=14, empty_share=0.3,
                      seed=5)
    idx = np.arange(data.n_queries)
    return split(data, idx[:40]), split(data, idx[40:])


def single(parts, name, metric, params, **kw):
    tr, va = parts
    return make(name, metric=metric, **params).fit(
        tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid, docid=tr.docid,
        docid_val=va.docid, **kw)


def many(parts, name, params, metrics=METRICS, **kw):
    tr, va = parts
    return make(name, **params).fit_many(
        metrics, tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid, docid=tr.docid,
        docid_val=va.docid, **kw)


def choice(model):
    """What selection chose, and how far each metric let training run."""
    runs = [len(r["history"]) for r in getattr(model, "search_", [])]
    return model._selected(), runs


@pytest.mark.parametrize("name", [*SHARED, *STEERED])
def test_each_model_is_the_single_fit_byte_for_byte(parts, name):
    cases = {**SHARED, **STEERED}
    seeds = SEEDS if "random_state" in make(name).get_params() else (None,)
    choices = set()
    for seed in seeds:
        params = {**cases[name], **({} if seed is None else {"random_state": seed})}
        models = many(parts, name, params)
        assert list(models) == METRICS
        for metric in METRICS:
            alone = single(parts, name, metric, params)
            assert models[metric].metric == metric
            assert pickle.dumps(models[metric]) == pickle.dumps(alone), (name, seed, metric)
            choices.add(repr(choice(alone)))
    if name in SHARED:  # the metrics chose differently somewhere, or the test would not see
        # a shared training keep one metric's choice for another's
        assert len(choices) > 1, choices


def test_the_shared_rankers_train_once(parts, monkeypatch):
    """A shared ranker's training loop runs once for all metrics; a steered one once each."""
    from ltrconv.rankers import rankboost, ranknet

    calls = {"rounds": 0, "epochs": 0}
    best_stump = rankboost.best_stump
    train_epoch = ranknet._train_epoch

    def count(key, fn):
        def wrapped(*args):
            calls[key] += 1
            return fn(*args)
        return wrapped

    monkeypatch.setattr(rankboost, "best_stump", count("rounds", best_stump))
    monkeypatch.setattr(ranknet, "_train_epoch", count("epochs", train_epoch))
    many(parts, "rankboost", dict(n_rounds=10))
    assert calls["rounds"] == 10
    many(parts, "ranknet", dict(architectures=((3,),), max_epochs=4))
    assert calls["epochs"] == 4


@pytest.mark.parametrize("name", ["ranknet", "ranknet_adam"])
def test_partial_fits_under_several_metrics(parts, name):
    """``units=`` with several metrics: each model is the single partial fit of those units."""
    params = {**SHARED[name], "random_state": 1}
    models = many(parts, name, params, units=[1])
    for metric in METRICS:
        alone = single(parts, name, metric, params, units=[1])
        assert pickle.dumps(models[metric]) == pickle.dumps(alone), metric


def test_patience_stops_each_metric_where_it_would_alone(parts):
    """With patience, training runs until the last metric stops; each history ends where that
    metric's own fit stopped (RankNet keeps the weights at its stop when no epoch scores above
    0, RankLib's start)."""
    params = dict(architectures=((3,),), max_epochs=30, patience=1, learning_rate=0.05,
                  random_state=3)
    models = many(parts, "ranknet", params)
    lengths = {m: len(models[m].history_) for m in METRICS}
    for metric in METRICS:
        assert lengths[metric] == len(single(parts, "ranknet", metric, params).history_)
    assert len(set(lengths.values())) > 1, lengths


def test_bad_metric_lists_are_refused(parts):
    for metrics in ([], ["ndcg@5:yahoo", "ndcg@5:yahoo"]):
        with pytest.raises(InputError, match="distinct metrics"):
            many(parts, "rankboost", dict(n_rounds=3), metrics=metrics)
    with pytest.raises(Exception, match="nosuch"):
        many(parts, "rankboost", dict(n_rounds=3), metrics=["ndcg@5:yahoo", "ndcg@5:nosuch"])
