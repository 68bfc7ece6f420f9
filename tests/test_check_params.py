"""rankers.check_params: the one check of the hyperparameters a user gives (config, --param)."""

import pytest

from ltrconv import rankers


def refusal(algorithm, params):
    with pytest.raises(rankers.ParamError) as info:
        rankers.check_params(algorithm, params)
    return info.value


def test_good_params_pass():
    rankers.check_params("lambdamart", {"n_estimators": 5, "learning_rate": 0.2})
    rankers.check_params("adarank", {})


def test_metric_is_refused_first():
    exc = refusal("lambdamart", {"nope": 1, "metric": "ndcg@5:trec"})
    assert exc.param == "metric" and exc.unknown == []


def test_unknown_names_with_the_valid_ones_and_why_removed():
    exc = refusal("lambdamart", {"zzz": 1, "random_state": 3, "n_estimators": 5})
    assert exc.param == "random_state"  # the first in sorted order
    assert exc.unknown == ["zzz", "random_state"]
    assert exc.valid == [p for p in rankers.param_names("lambdamart") if p != "metric"]
    assert exc.removed == {"random_state": rankers.removed_params("lambdamart")["random_state"]}
    assert str(exc) == ("lambdamart: unknown parameter(s) ['random_state', 'zzz'] (random_state: "
                        f"{exc.removed['random_state']}); valid: "
                        f"{', '.join(rankers.param_names('lambdamart'))}")


def test_each_value_against_its_constraints():
    exc = refusal("lambdamart", {"learning_rate": 0.1, "n_estimators": -1})
    assert exc.param == "n_estimators" and exc.unknown == []
    assert str(exc) == "lambdamart: n_estimators must be an integer >= 1, got -1"


@pytest.mark.parametrize("params", [{"nope": 1}, {"n_rounds": 0}, {"n_rounds": True}])
def test_same_message_as_validate_params(params):
    """A config check reports str(error) as it reported validate_params' error before."""
    with pytest.raises(rankers.ParamError) as before:
        rankers.validate_params("adarank", params)
    exc = refusal("adarank", params)
    assert (str(exc), exc.param) == (str(before.value), before.value.param)


def test_unknown_algorithm():
    exc = refusal("nope", {"a": 1})
    assert exc.param is None
