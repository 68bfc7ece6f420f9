"""Input checks every ranker shares (base.Ranker): one case table, run for all six algorithms."""

import numpy as np
import pytest

from ltrconv.errors import InputError, LtrconvError
from ltrconv.rankers import ALGORITHMS, ParamError, make
from ltrconv.synthetic import make_letor, split

FAST = {
    "adarank": dict(n_rounds=5),
    "coordinate_ascent": dict(n_restarts=1, n_steps=10, max_sweeps=2),
    "lambdamart": dict(n_estimators=5, early_stopping_rounds=2, min_data_in_leaf=5),
    "ranknet": dict(architectures=((4,),), max_epochs=2, patience=1),
    "rankboost": dict(n_rounds=3),
    "ranksvm": dict(C_grid=(1.0,)),
}


@pytest.fixture(scope="module")
def parts():
    d = make_letor(n_queries=30, n_features=5, empty_share=0.1, seed=11)
    idx = np.arange(d.n_queries)
    return split(d, idx[:20]), split(d, idx[20:])


def _fit(name, tr, **overrides):
    args = dict(X=tr.X, y=tr.y, qid=tr.qid)
    args.update(overrides)
    return make(name, **FAST[name]).fit(args.pop("X"), args.pop("y"), args.pop("qid"), **args)


def test_fast_parameters_cover_the_registry():
    assert set(FAST) == set(ALGORITHMS)


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("case, error, match", [
    ("short_y", InputError, "training y has"),
    ("short_qid", InputError, "training qid has"),
    ("nan_X", InputError, "non-finite"),
    ("negative_label", InputError, "non-negative integer"),
    ("val_features", InputError, "validation X has 2 features"),
    ("val_short_y", InputError, "validation y has"),
    ("split_query", InputError, "not contiguous"),
])
def test_bad_training_inputs(parts, name, case, error, match):
    tr, va = parts
    X, y, qid = tr.X.copy(), tr.y.copy(), tr.qid.copy()
    kw = {}
    if case == "short_y":
        y = y[:-1]
    elif case == "short_qid":
        qid = qid[1:]
    elif case == "nan_X":
        X[3, 1] = np.nan
    elif case == "negative_label":
        y[0] = -1
    elif case == "val_features":
        kw = dict(X_val=va.X[:, :2], y_val=va.y, qid_val=va.qid)
    elif case == "val_short_y":
        kw = dict(X_val=va.X, y_val=va.y[:-1], qid_val=va.qid)
    elif case == "split_query":
        qid = np.concatenate([qid[-1:], qid[:-1]])
    with pytest.raises(error, match=match):
        _fit(name, tr, X=X, y=y, qid=qid, **kw)


@pytest.mark.parametrize("name", ["rankboost", "ranknet"])
def test_pairwise_rankers_refuse_single_label_data(parts, name):
    tr, _ = parts
    with pytest.raises(InputError, match="two different labels"):
        _fit(name, tr, y=np.zeros_like(tr.y))


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_bad_metric_and_unknown_parameter(parts, name):
    tr, _ = parts
    with pytest.raises(ParamError, match="nosuch"):
        make(name, **FAST[name], metric="ndcg@10:nosuch").fit(tr.X, tr.y, tr.qid)
    with pytest.raises(ParamError, match="unknown parameter"):
        make(name, no_such_parameter=1)


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_predict_checks(parts, name):
    tr, va = parts
    with pytest.raises(LtrconvError, match="before fit"):
        make(name).predict(va.X)
    model = _fit(name, tr)
    with pytest.raises(InputError, match="fitted on 5 features"):
        model.predict(va.X[:, :3])
    assert model.predict(va.X).shape == (va.n_docs,)
