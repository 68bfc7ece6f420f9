"""The six rankers as scikit-learn estimators (ltrconv.rankers.sklearn): scikit-learn's common
checks, cloning, parameters, pickling, the fitted state, and one parameter-validation rule for
all."""

import inspect
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import check_is_fitted

from ltrconv.errors import InputError
from ltrconv import rankers
from ltrconv.rankers import ALGORITHMS, ParamError, TrainingSelectionWarning, load
from ltrconv.rankers.sklearn import get_class, make
from ltrconv.rankers.params import Integer, Number, RandomState
from ltrconv.rankers.params import RESULT_FREE
from ltrconv.data.synthetic import make_letor, split

# Small settings: scikit-learn's checks build every estimator many times.
FAST = {
    "adarank": dict(n_rounds=3),
    "coordinate_ascent": dict(n_restarts=2, n_steps=5, max_sweeps=1, n_jobs=1),
    "lambdamart": dict(n_estimators=3, early_stopping_rounds=1),
    "ranknet": dict(architectures=((3,),), max_epochs=2, patience=1),
    "rankboost": dict(n_rounds=3),
    "ranksvm": dict(C_grid=(0.1, 1.0)),
}
NAMES = sorted(ALGORITHMS)
SEEDED = {"coordinate_ascent", "ranknet", "ranksvm"}

# scikit-learn's checks call fit(X, y); a ranker needs the query of every row as well
# (fit(X, y, qid), qid required). The checks run on a test-only subclass of each ranker whose fit
# takes every row as one query when qid is omitted: the structure LightGBM's own tests give
# LGBMRanker (fit(X, y, group=[n_rows]), tests/python_package_test/test_sklearn.py, LightGBM
# 4.x), which leaves it out of its parametrize_with_checks. The subclass changes nothing else,
# so every check (parameters, cloning, input validation, pickling, invariances) exercises the
# ranker's own code; none is expected to fail.
def _one_query(cls):
    """``cls`` whose ``fit(X, y)`` without ``qid`` takes all rows as one query (and selects on
    them: the checks give no validation data)."""
    def fit(self, X, y, qid=None, **kwargs):
        if qid is None:
            shape = np.shape(X)
            qid = np.zeros(shape[0] if shape else 0, dtype=np.int64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TrainingSelectionWarning)
            return cls.fit(self, X, y, qid, **kwargs)

    name = f"{cls.__name__}OneQuery"
    wrapped = type(name, (cls,), {"fit": fit, "__module__": __name__, "__qualname__": name})
    globals()[name] = wrapped  # found by name when scikit-learn's checks pickle a model
    return wrapped


ONE_QUERY = {n: _one_query(get_class(n)) for n in NAMES}


def fast(name):
    return make(name, **FAST[name])


@parametrize_with_checks([ONE_QUERY[n](**FAST[n]) for n in NAMES])
def test_sklearn_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("name", NAMES)
def test_fit_needs_qid(name):
    """The rankers themselves keep qid required: only the checks' subclass supplies one."""
    X, y = np.arange(12.0).reshape(6, 2), np.array([0, 1, 2, 0, 1, 2])
    with pytest.raises(TypeError, match="qid"):
        fast(name).fit(X, y)
    with pytest.warns(TrainingSelectionWarning):
        alone = fast(name).fit(X, y, np.zeros(6)).predict(X)
    np.testing.assert_array_equal(ONE_QUERY[name](**FAST[name]).fit(X, y).predict(X), alone)


# --- data -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def parts():
    d = make_letor(n_queries=24, n_features=4, empty_share=0.1, seed=21)
    idx = np.arange(d.n_queries)
    return split(d, idx[:16]), split(d, idx[16:])


def fit(model, parts):
    tr, va = parts
    return model.fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid,
                     docid=tr.docid, docid_val=va.docid)


# --- interface --------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_signature_is_keyword_only_metric_first_and_fully_constrained(name):
    cls = get_class(name)
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)
    assert params[0].name == "metric" and params[0].default == "ndcg@10:ranklib"
    assert [p.name for p in params] == list(cls._parameter_constraints)
    fit_params = inspect.signature(cls.fit).parameters
    assert list(fit_params)[1:4] == ["X", "y", "qid"]
    assert all(fit_params[k].kind is inspect.Parameter.KEYWORD_ONLY
               for k in ("X_val", "y_val", "qid_val", "docid", "docid_val"))
    assert ("random_state" in cls._parameter_constraints) == (name in SEEDED)


@pytest.mark.parametrize("name", NAMES)
def test_clone_get_params_set_params(name, parts):
    model = fast(name)
    params = model.get_params()
    assert set(params) == set(get_class(name)._parameter_constraints)
    twin = clone(model)
    assert twin is not model and twin.get_params() == params
    assert model.set_params(**params).get_params() == params
    model.set_params(metric="ndcg@5:letor")
    assert model.get_params()["metric"] == "ndcg@5:letor" and twin.metric == "ndcg@10:ranklib"
    with pytest.raises(ParamError, match=f"{name}: unknown parameter\\(s\\) \\['nosuch'\\]"):
        model.set_params(nosuch=1)
    fitted = fit(fast(name), parts)
    assert not hasattr(clone(fitted), "n_features_in_")  # clone copies parameters only


@pytest.mark.parametrize("name", NAMES)
def test_fitted_state_and_pickle_round_trip(name, parts, tmp_path):
    tr, va = parts
    model = fast(name)
    assert not hasattr(model, "n_features_in_")
    with pytest.raises(NotFittedError):
        check_is_fitted(model)
    with pytest.raises(NotFittedError, match=f"{name}: predict called before fit"):
        model.predict(va.X)
    assert fit(model, parts) is model
    check_is_fitted(model)
    assert model.n_features_in_ == tr.X.shape[1]
    pred = model.predict(va.X)
    assert model.get_params() == fast(name).get_params()  # fit leaves the parameters alone
    back = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(back.predict(va.X), pred)
    assert back.get_params() == model.get_params()
    model.save(tmp_path / "m.pkl")
    np.testing.assert_array_equal(load(tmp_path / "m.pkl").predict(va.X), pred)
    np.testing.assert_array_equal(fit(fast(name), parts).predict(va.X), pred)  # deterministic


def test_models_of_the_previous_format_are_refused(tmp_path):
    path = tmp_path / "old.pkl"
    path.write_bytes(pickle.dumps({"magic": "ltrconv-model-v1", "algorithm": "adarank",
                                   "model": {"random_state": 0}}))
    with pytest.raises(InputError, match="earlier ltrconv .* retrain"):
        load(path)


# --- one parameter-validation rule ------------------------------------------------------
CANDIDATES = [True, False, np.bool_(True), "ten", -3, 0, 0.5, 2.5, float("nan"), float("inf"),
              np.float32(0.5), np.int64(3), [], [[0]], None, object()]


def refused(alternatives):
    """Candidate values no alternative accepts."""
    def ok(value):
        return any((value is None) if a is None else a.accepts(value) for a in alternatives)
    return [v for v in CANDIDATES if not ok(v)]


CASES = [(n, p, v) for n in NAMES for p, alts in get_class(n)._parameter_constraints.items()
         for v in refused(alts)]


def _id(value):
    return "object()" if type(value) is object else repr(value)


@pytest.mark.parametrize("name, param, value", CASES, ids=[f"{n}-{p}-{_id(v)}" for n, p, v in CASES])
def test_parameter_errors_name_the_parameter(name, param, value, parts):
    tr, _ = parts
    with pytest.raises(ParamError, match=f"^{name}: {param} must be ") as err:
        make(name, **{param: value})
    assert err.value.param == param and isinstance(err.value, InvalidParameterError)
    model = get_class(name)(**{**FAST[name], param: value})  # __init__ stores, fit validates
    with pytest.raises(ParamError, match=f"^{name}: {param} must be "):
        model.fit(tr.X, tr.y, tr.qid)
    assert not hasattr(model, "n_features_in_")


def test_every_parameter_refuses_something():
    for name in NAMES:
        for param, alts in get_class(name)._parameter_constraints.items():
            assert refused(alts), (name, param)


@pytest.mark.parametrize("name", NAMES)
def test_numbers_are_numbers_everywhere(name):
    """Bools are refused wherever a number is expected; NumPy scalars accepted."""
    for param, alts in get_class(name)._parameter_constraints.items():
        numeric = [a for a in alts if isinstance(a, (Integer, Number, RandomState))]
        if not numeric:
            continue
        default = get_class(name)().get_params()[param]
        for flag in (True, False, np.bool_(True)):
            with pytest.raises(ParamError, match=param):
                make(name, **{param: flag})
        if default is None or isinstance(default, (bool, str)):
            continue
        if any(isinstance(a, Number) for a in alts):
            make(name, **{param: np.float32(default)})
        if any(isinstance(a, (Integer, RandomState)) for a in alts) and float(default).is_integer():
            make(name, **{param: np.int64(default)})


def test_shared_parameters_share_constraints():
    """A parameter name that several rankers have (metric, random_state, tolerance,
    learning_rate) accepts and refuses the same values in each."""
    by_param: dict = {}
    for name in NAMES:
        for param, alts in get_class(name)._parameter_constraints.items():
            by_param.setdefault(param, []).append((name, alts))
    shared = {p: v for p, v in by_param.items() if len(v) > 1}
    assert {"metric", "random_state", "tolerance", "learning_rate"} <= set(shared)
    probes = CANDIDATES + [np.random.RandomState(0), "ndcg@10:letor", 1e-3, 0.002, 1, 2**32]
    for param, owners in shared.items():
        verdicts = {name: [any((v is None) if a is None else a.accepts(v) for a in alts)
                           for v in probes] for name, alts in owners}
        if param == "random_state":
            # RankLib's algorithms take what seeds its java.util.Random (a Java long), the
            # others what numpy takes: every one takes the seeds both do, and refuses non-seeds
            for name, alts in owners:
                ok = [any((v is None) if a is None else a.accepts(v) for a in alts)
                      for v in (None, 0, 7, 2**31 - 1, 1.5, "0", True)]
                assert ok == [True] * 4 + [False] * 3, (name, ok)
            continue
        assert len({tuple(v) for v in verdicts.values()}) == 1, (param, verdicts)


@pytest.mark.parametrize("name", sorted(SEEDED))
def test_random_state_takes_what_scikit_learn_takes(name, parts):
    _, va = parts
    by_int = fit(fast(name).set_params(random_state=3), parts).predict(va.X)
    by_np_int = fit(fast(name).set_params(random_state=np.int64(3)), parts).predict(va.X)
    np.testing.assert_array_equal(by_int, by_np_int)
    a = fit(fast(name).set_params(random_state=np.random.RandomState(5)), parts).predict(va.X)
    b = fit(fast(name).set_params(random_state=np.random.RandomState(5)), parts).predict(va.X)
    np.testing.assert_array_equal(a, b)  # the same generator state gives the same model
    assert fit(fast(name).set_params(random_state=None), parts).predict(va.X).shape == a.shape


@pytest.mark.parametrize("name", ["adarank", "rankboost"])
def test_deterministic_rankers_have_no_random_state(name):
    with pytest.raises(ParamError, match=f"random_state: .* is deterministic; the parameter had "
                                         "no effect and was removed"):
        make(name, random_state=0)
    with pytest.raises(TypeError):
        get_class(name)(random_state=0)


# --- the estimators and the rankers they wrap ---------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_estimator_and_ranker_share_model_files(name, parts, tmp_path):
    """A model file written from the estimator equals, byte for byte, the one written from the
    ranker; each file loads as either."""
    from ltrconv.rankers import sklearn as sk

    _, va = parts
    est = fit(make(name, **FAST[name]), parts)
    plain = fit(rankers.make(name, **FAST[name]), parts)
    assert isinstance(est, rankers.get_class(name)) and not isinstance(plain, sk.BaseEstimator)
    est.save(tmp_path / "est.model")
    plain.save(tmp_path / "plain.model")
    assert (tmp_path / "est.model").read_bytes() == (tmp_path / "plain.model").read_bytes()
    as_plain, as_est = load(tmp_path / "est.model"), sk.load(tmp_path / "plain.model")
    assert type(as_plain) is rankers.get_class(name) and type(as_est) is get_class(name)
    check_is_fitted(as_est)
    for model in (as_plain, as_est):
        np.testing.assert_array_equal(model.predict(va.X), est.predict(va.X))
    # a model file holds the threads' default (n_jobs: how a fit ran, not what it found)
    defaults = {k: v for k, v in rankers.get_class(name)().get_params().items()
                if k in RESULT_FREE}
    assert as_est.get_params() == as_plain.get_params() == {**est.get_params(), **defaults}
    assert sk.as_estimator(plain).__dict__ == plain.__dict__


@pytest.mark.parametrize("name", NAMES)
def test_plain_rankers_raise_errors_of_scikit_learns_bases(name, parts):
    """Without scikit-learn: predict before fit is a ValueError and an AttributeError, a bad
    parameter a ValueError and a TypeError, as scikit-learn's errors are; the estimators' are
    scikit-learn's own."""
    _, va = parts
    plain = rankers.make(name, **FAST[name])
    with pytest.raises(rankers.NotFittedModelError) as info:
        plain.predict(va.X)
    assert isinstance(info.value, ValueError) and isinstance(info.value, AttributeError)
    assert not isinstance(info.value, NotFittedError)
    with pytest.raises(ParamError) as info:
        plain.set_params(nope=1)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
    assert not isinstance(info.value, InvalidParameterError)
    with pytest.raises(InvalidParameterError, match="nope"):
        make(name).set_params(nope=1)
    with pytest.raises(InvalidParameterError, match="metric"):
        make(name, **FAST[name]).set_params(metric="ndcg@10:nosuch").fit(va.X, va.y, va.qid)
