"""The algorithm registry: names, classes, styles and how the training convention enters."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from ltrconv.rankers import registry as algorithms
from ltrconv.study import figures
from ltrconv import rankers
from ltrconv.rankers import ParamError, Ranker
from ltrconv.data.synthetic import make_letor, split

REPO = Path(__file__).resolve().parents[1]

# one candidate model wherever an algorithm selects on validation data
ONE_CANDIDATE = {
    "adarank": dict(n_rounds=5),
    "coordinate_ascent": dict(n_restarts=1, n_steps=10, max_sweeps=2),
    "lambdamart": dict(n_estimators=5, early_stopping_rounds=2, min_data_in_leaf=5),
    "ranknet": dict(architectures=((4,),), max_epochs=1, patience=1),
    "rankboost": dict(n_rounds=1),
    "ranksvm": dict(C_grid=(1.0,)),
}


def test_order_and_roles():
    assert algorithms.ORDER == tuple(algorithms.REGISTRY) == algorithms.names()
    assert algorithms.ORDER == ("coordinate_ascent", "lambdamart", "rankboost", "ranksvm",
                                "ranknet", "adarank")
    objective = algorithms.names(algorithms.OBJECTIVE)
    selection = algorithms.names(algorithms.SELECTION)
    assert objective == ("coordinate_ascent", "lambdamart", "adarank")
    assert selection == ("rankboost", "ranksvm", "ranknet")
    with pytest.raises(ValueError, match="convention must be"):
        algorithms.names("loss")


@pytest.mark.parametrize("name", algorithms.ORDER)
def test_entry_loads_its_ranker(name):
    entry = algorithms.get(name)
    cls = entry.load_class()
    assert issubclass(cls, Ranker) and cls is rankers.get_class(name)
    assert cls.name == name  # the name a saved model records
    assert isinstance(rankers.make(name), cls)
    assert rankers.ALGORITHMS[name] is entry


def test_unknown_names():
    with pytest.raises(algorithms.UnknownAlgorithm, match=r"unknown algorithm 'nope'; known: adarank, "):
        algorithms.get("nope")
    with pytest.raises(ParamError, match="unknown algorithm 'nope'"):
        rankers.get_class("nope")
    with pytest.raises(algorithms.UnknownAlgorithm):
        algorithms.get(["ranksvm"])
    assert algorithms.display_name("adarank_stable_ties") == "adarank_stable_ties"
    assert algorithms.display_name("coordinate_ascent") == "Coordinate Ascent"


def test_styles_are_distinct_okabe_ito():
    styles = [a.style for a in algorithms.REGISTRY.values()]
    assert len({s["color"] for s in styles}) == len({s["marker"] for s in styles}) == len(styles)
    assert {s["color"].upper() for s in styles} <= {c.upper() for c in figures.OKABE_ITO.values()}
    assert figures.ALGORITHM_STYLE == {a.name: a.style for a in algorithms.REGISTRY.values()}


def test_config_and_schema_use_registry_names():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    assert set(config["algorithms"]) == set(algorithms.REGISTRY)
    assert {v["of"] for v in config["variants"].values()} <= set(algorithms.REGISTRY)
    assert set(config["figures"]["figure1_algorithms"]) <= set(algorithms.REGISTRY)
    schema = (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text()
    assert "enum: [adarank" not in schema  # names are checked against the registry instead


@pytest.fixture(scope="module")
def parts():
    d = make_letor(n_queries=30, n_features=5, empty_share=0.1, seed=11)
    idx = np.arange(d.n_queries)
    return split(d, idx[:20]), split(d, idx[20:])


@pytest.mark.parametrize("name", algorithms.ORDER)
def test_convention_role_matches_training(parts, name):
    """With a single candidate model, an algorithm that only selects with the convention learns
    the same model under ranklib and letor; one that optimises it learns another."""
    tr, va = parts

    def scores(convention):
        model = rankers.make(name, metric=f"ndcg@10:{convention}", **ONE_CANDIDATE[name])
        model.fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
        return model.predict(va.X)

    same = np.array_equal(scores("ranklib"), scores("letor"))
    assert same == (algorithms.get(name).convention == algorithms.SELECTION)


@pytest.mark.parametrize("name, params", [(n, {}) for n in algorithms.ORDER]
                         + [("ranksvm", {"loss": "hinge"})])
def test_random_flag_matches_training(parts, name, params):
    """The registry says which fits depend on random_state: two seeds give two models exactly
    when is_random is true (AdaRank and RankBoost take no seed at all)."""
    tr, va = parts
    random = algorithms.is_random(name, params)
    if "random_state" not in rankers.param_names(name):
        assert not random
        return
    kw = {**ONE_CANDIDATE[name], **params}
    if name == "coordinate_ascent":
        kw["n_restarts"] = 2  # the seed draws each restart's feature order

    def scores(seed):
        model = rankers.make(name, random_state=seed, **kw)
        model.fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
        return model.predict(va.X)

    assert np.array_equal(scores(0), scores(1)) != random


def test_random_algorithms():
    assert [a for a in algorithms.ORDER if algorithms.is_random(a)] == ["coordinate_ascent",
                                                                        "ranknet"]
    assert algorithms.is_random("ranksvm", {"loss": "hinge"})
    assert not algorithms.is_random("ranksvm", {"loss": "squared_hinge"})
