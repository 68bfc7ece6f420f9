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


def test_schema_names_only_existing_modules_and_attributes():
    """Every dotted ltrconv name the config schema's descriptions cite resolves."""
    import importlib
    import re

    schema = (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text()
    names = set(re.findall(r"\bltrconv(?:\.\w+)+", schema))
    assert "ltrconv.rankers.registry.REGISTRY" in names
    missing = []
    for name in sorted(names):
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
                break
            except ImportError:
                continue
        for attr in parts[i:]:
            obj = getattr(obj, attr, None)
        if obj is None:
            missing.append(name)
    assert missing == []


TWIN_MODULE = '''
from ltrconv.rankers.adarank import AdaRank


class AdaRankTwin(AdaRank):
    """AdaRank under another registry name."""

    name = "adarank_twin"
'''
TWIN_ENTRY = '''    Algorithm("adarank_twin", "AdaRank twin", "ranker_twin:AdaRankTwin", OBJECTIVE,
              "#999999", "h", "-"),
'''
# Loads ltrconv.rankers.registry from its source with TWIN_ENTRY added to _ALGORITHMS (argv[1],
# argv[2]), before anything imports it; then asks the warmup, the estimators and the CLI.
WITH_TWIN = r'''
import contextlib, io, json, sys, types
path, entry, train = sys.argv[1], sys.argv[2], sys.argv[3]
source = open(path).read()
marker = "_ALGORITHMS = (\n"
assert source.count(marker) == 1, "the registry's tuple of algorithms moved"
module = types.ModuleType("ltrconv.rankers.registry")
module.__file__, module.__package__ = path, "ltrconv.rankers"
sys.modules[module.__name__] = module
exec(compile(source.replace(marker, marker + entry), path, "exec"), module.__dict__)
import ltrconv.rankers
ltrconv.rankers.registry = module

from ltrconv import cli, warmup
from ltrconv.rankers import sklearn as sk
from ranker_twin import AdaRankTwin

warmed = []


def record(argv):
    if argv[0] == "train":
        warmed.append(argv[argv.index("--algorithm") + 1])
    return 0


real_main, cli.main = cli.main, record
warmup.run(say=lambda text: None, evaluation=False)  # the rankers alone
cli.main = real_main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
    cli.main(["train", "--help"])
model = train + ".model"
with contextlib.redirect_stderr(io.StringIO()):
    status = cli.main(["train", "--algorithm", "adarank_twin", "--train", train, "--out", model,
                       "--param", "n_rounds=2"])
estimator = sk.get_class("adarank_twin")
print(json.dumps({
    "warmed": warmed,
    "help": " ".join(out.getvalue().split()),
    "trained": status,
    "estimator": [estimator.__name__, issubclass(estimator, AdaRankTwin),
                  issubclass(estimator, sk.RankerEstimator), sk.AdaRankTwin is estimator,
                  "AdaRankTwin" in sk.__all__, type(sk.load(model)) is estimator],
}))
'''


def test_a_ranker_added_to_the_registry_reaches_warmup_estimators_and_cli(tmp_path):
    """One entry in the registry's tuple is all the warmup, the scikit-learn estimators and
    ``ltrconv train`` need to know a ranker."""
    import json
    import os
    import subprocess
    import sys

    from ltrconv.data.writer import write_letor

    (tmp_path / "ranker_twin.py").write_text(TWIN_MODULE)
    write_letor(make_letor(n_queries=12, n_features=4, seed=3), tmp_path / "train.txt")
    src = REPO / "src"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(src), str(tmp_path)]))
    proc = subprocess.run([sys.executable, "-c", WITH_TWIN,
                           str(src / "ltrconv" / "rankers" / "registry.py"), TWIN_ENTRY,
                           str(tmp_path / "train.txt")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    from ltrconv import warmup

    named = ["adarank_twin", *algorithms.ORDER]  # first in the tuple
    # each ranker the registry knows (the study's, then the other implementations) trained
    # once, and again with the parallel kernels forced where it has them
    known = named + [a for a in algorithms.KNOWN if a not in named]
    assert got["warmed"] == [a for a in known for _ in range(1 + (a in warmup.PARALLEL_TWINS))]
    assert f"one of {', '.join(named)}" in got["help"]
    assert "adarank_twin (validation data selects" in got["help"]
    assert got["trained"] == 0
    assert got["estimator"] == ["AdaRankTwin", True, True, True, True, True]
