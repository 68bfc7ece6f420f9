"""Parameters and training inputs a hostile user gives: bounded, refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

from ltrconv.data.synthetic import make_letor
from ltrconv.errors import InputError, LtrconvError
from ltrconv.evaluation import safe_yaml
from ltrconv.evaluation.spec import MetricSpec
from ltrconv.rankers import ParamError, make


@pytest.mark.parametrize("text", ["ndcg@100000000:ranklib", "ndcg@" + "9" * 100_001 + ":ranklib"])
def test_training_cutoff_is_bounded(text):
    with pytest.raises(LtrconvError, match="above 100000, the largest accepted"):
        MetricSpec.parse(text)
    assert MetricSpec.parse("ndcg@100000:ranklib").k == 100_000


@pytest.mark.parametrize("algorithm,params,match", [
    ("lambdamart", {"num_leaves": 100_000_000}, "num_leaves must be an integer in"),
    ("lambdamart", {"n_thresholds": 10**9}, "n_thresholds must be an integer in"),
    ("rankboost", {"n_thresholds": 10**9}, "n_thresholds must be an integer in"),
    # OverflowError / MemoryError tracebacks in the fit
    ("coordinate_ascent", {"n_restarts": 10**26}, r"n_restarts must be an integer in \[1, 100000\]"),
    ("coordinate_ascent", {"n_steps": 10**26}, r"n_steps must be an integer in \[1, 1000\]"),
    ("lambdamart", {"min_data_in_leaf": 10**26}, r"min_data_in_leaf must be an integer in \[1, 2147483647\]"),
    # the step doubles n_steps times: 1100 steps or step_base 1e308 made the weights nan
    ("coordinate_ascent", {"n_steps": 1100}, r"n_steps must be an integer in \[1, 1000\]"),
    ("coordinate_ascent", {"step_base": 1e308}, r"step_base must be a finite number >= 0 and <= 1e\+06"),
    # LightGBM reads C ints: LightGBMError or SystemError tracebacks, or a fit that never ended
    ("lambdamart_lightgbm", {"num_leaves": 200_000}, r"num_leaves must be an integer in \[2, 131072\]"),
    ("lambdamart_lightgbm", {"n_estimators": 10**26}, "n_estimators must be an integer in"),
    ("lambdamart_lightgbm", {"early_stopping_rounds": 10**26}, "early_stopping_rounds must be an"),
    ("lambdamart_lightgbm", {"min_data_in_leaf": 10**26}, "min_data_in_leaf must be an integer in"),
    ("lambdamart_lightgbm", {"max_bin": 10**26}, "max_bin must be an integer in"),
    ("lambdamart_lightgbm", {"num_threads": 10**26}, r"num_threads must be an integer in \[1, 1024\]"),
    # sigma^2 overflowed LightGBM's float32 Hessians
    ("lambdamart_lightgbm", {"sigma": 1e308}, r"sigma must be a finite number > 0 and <= 1e\+06"),
])
def test_parameters_have_upper_bounds(algorithm, params, match):
    with pytest.raises(ParamError, match=match):
        make(algorithm, **params)


@pytest.mark.parametrize("algorithm,params", [
    ("coordinate_ascent", {"n_steps": 1000, "step_base": 1e6, "n_restarts": 2}),
    ("lambdamart_lightgbm", {"sigma": 1e6, "n_estimators": 5}),
])
def test_the_largest_accepted_values_fit_finite_models(algorithm, params):
    d = make_letor(n_queries=6, n_features=4, seed=0)
    m = make(algorithm, **params).fit(d.X, d.y, d.qid, X_val=d.X, y_val=d.y, qid_val=d.qid)
    assert np.all(np.isfinite(m.predict(d.X))) and np.isfinite(m.val_score_)


def test_lambdamart_tree_memory_is_checked_against_the_data():
    d = make_letor(n_queries=8, n_features=300, seed=0)
    d.X[:] = np.random.default_rng(0).random(d.X.shape)  # many distinct values per feature
    m = make("lambdamart", num_leaves=60_000, n_thresholds=256, n_estimators=1)
    with pytest.raises(ParamError, match=r"num_leaves=60000 with 300 features .* GiB"):
        m.fit(d.X, d.y, d.qid, X_val=d.X, y_val=d.y, qid_val=d.qid)


@pytest.mark.parametrize("algorithm", ["adarank", "rankboost", "lambdamart", "coordinate_ascent",
                                       "ranksvm", "ranknet"])
def test_rankers_refuse_labels_evaluation_refuses(algorithm):
    d = make_letor(n_queries=6, n_features=3, seed=1)
    y = d.y.copy()
    y[0] = 1001
    with pytest.raises(InputError, match="label 1001, above 1000"):
        make(algorithm).fit(d.X, y, d.qid, X_val=d.X, y_val=d.y, qid_val=d.qid)


def test_yaml_exponent_numbers_are_numbers():
    assert safe_yaml.load("[1e-9, 1E+3, -2e5, 1.5e3, .5e-2]") == [1e-9, 1e3, -2e5, 1.5e3, 0.005]
    assert safe_yaml.load("[e5, 1e, 1.2.3e4, 0x10, 1_0]") == ["e5", "1e", "1.2.3e4", 16, 10]


def test_a_long_document_without_aliases_is_not_refused():
    doc = "\n".join(f"c{i}: {{gain: exp, empty: 0.5}}" for i in range(3000))
    assert len(safe_yaml.load(doc)) == 3000


def test_an_alias_bomb_is_still_refused():
    rows = ["a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    for prev, name in zip("abcd", "bcde"):
        rows.append(f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]")
    import yaml
    with pytest.raises(yaml.YAMLError, match="alias repeats what it refers to"):
        safe_yaml.load("\n".join(rows))


@pytest.mark.parametrize("algorithm", ["ranknet", "ranknet_adam"])
def test_ranknet_layers_are_bounded(algorithm):
    with pytest.raises(ParamError, match=r"architectures must be .*integers in 1\.\.4096"):
        make(algorithm, architectures=[[100_000_000]])
    make(algorithm, architectures=[[4096], [10, 10]])


@pytest.mark.parametrize("text, value", [
    # YAML 1.1 reads a leading zero as octal and colons as base 60: n_rounds=010 trained 8
    # rounds, max_epochs=1:30 ninety epochs
    ("010", 10), ("0o10", 8), ("-007", -7), ("1_000", 1000), ("0x1F", 31),
    ("1:30", "1:30"), ("1:30.5", "1:30.5"), ("1e3", 1000.0), ("010.5", 10.5),
])
def test_yaml_numbers_are_read_as_written(text, value):
    got = safe_yaml.load(text)
    assert got == value and type(got) is type(value)


def test_a_huge_integer_parameter_is_one_line():
    from ltrconv.cli.train import parse_params

    # was Python's ValueError "Exceeds the limit (4300 digits)" as a traceback
    with pytest.raises(LtrconvError, match=r"n_rounds=9999.*: cannot parse the value: an "
                                           r"integer of 5,000 digits \(at most 4,300\)"):
        parse_params(["n_rounds=" + "9" * 5000])
    assert parse_params(["n_rounds=" + "9" * 40])["n_rounds"] == 10**40 - 1
