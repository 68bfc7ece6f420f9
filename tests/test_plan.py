"""The workflow's plan (ltrconv.pipeline) built from plain dicts, without Snakemake: the shipped
configurations' lists, paths and requests, and each configuration error as one line naming the
config key."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from ltrconv.pipeline import ConfigError, build_plan, config as pconfig
from ltrconv.pipeline import datasets, paths, report, resources
from ltrconv.pipeline.repair import made_here
from ltrconv.pipeline.records import Damage

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "config"
SCHEMA = pconfig.load_schema(REPO)
BASE = yaml.safe_load((CONFIG / "config.yaml").read_text())
# config/config.yaml's algorithms, in its order
SIX = ["adarank", "coordinate_ascent", "lambdamart", "ranknet", "rankboost", "ranksvm"]


def merged(*overlays) -> dict:
    """config/config.yaml with ``overlays`` (file names under config/ or dicts) merged on top,
    validated, defaults filled: what Snakemake hands common.smk."""
    loaded = [yaml.safe_load((CONFIG / o).read_text()) if isinstance(o, str) else o
              for o in overlays]
    return pconfig.fill_defaults(pconfig.merge(BASE, *loaded), SCHEMA)


@pytest.fixture(scope="module")
def paper():
    return build_plan(merged())


@pytest.fixture(scope="module")
def extended():
    return build_plan(merged("extended.yaml"))


@pytest.fixture(scope="module")
def ci():
    return build_plan(merged("ci.yaml"))


def test_merge_replaces_lists_and_merges_mappings():
    out = pconfig.merge({"a": [1, 2], "m": {"x": 1, "y": {"z": 2}}},
                        {"a": [3], "m": {"y": {"w": 4}}})
    assert out == {"a": [3], "m": {"x": 1, "y": {"z": 2, "w": 4}}}


@pytest.mark.parametrize("overlay", [(), ("ci.yaml",), ("extended.yaml",), ("quick.yaml",)])
def test_defaults_are_those_snakemake_fills_in(overlay):
    from snakemake.utils import validate

    raw = pconfig.merge(BASE, *(yaml.safe_load((CONFIG / o).read_text()) for o in overlay))
    theirs = copy.deepcopy(raw)
    validate(theirs, str(REPO / "workflow" / "schemas" / "config.schema.yaml"))
    assert pconfig.fill_defaults(raw, SCHEMA) == theirs


def test_paper_run(paper):
    assert list(paper.datasets) == ["MQ2008"] and paper.folds == (1, 2, 3, 4, 5)
    assert paper.seeds == (0,) and paper.seed_dir == "" and not paper.multi_seed
    assert paper.base_algorithms == SIX
    assert paper.variants == ["adarank_stable_ties", "rankboost_quantile", "lambdamart_minleaf50",
                              "lambdamart_lightgbm", "ranknet_adam"]
    assert paper.other_rankers == {"lambdamart_lightgbm": "lambdamart_lightgbm",
                                   "ranknet_adam": "ranknet_adam"}
    lgb = paper.algorithms["lambdamart_lightgbm"]
    assert lgb.base == "lambdamart" and "n_thresholds" not in lgb.params
    assert paper.algorithms["rankboost_quantile"].params["thresholds"] == "quantile"
    assert paper.train_conventions == ("yahoo", "ranklib", "letor") and paper.official == "ranklib"
    assert paper.evaluate_rules == [
        ("evaluate", list(paper.algorithms), ["yahoo", "ranklib", "letor"])]
    assert paper.grouped == ["MQ2008"] and not paper.scattered
    assert paper.unit_algorithms == ["coordinate_ascent", "ranknet", "ranknet_adam"]
    assert [a for a, p in paper.algorithms.items() if p.random] == ["coordinate_ascent", "ranknet",
                                                                   "ranknet_adam"]
    assert paper.conventions_sha256 is None


def test_paper_run_paths(paper):
    assert paths.model_stem(paper, "models") == \
        "results/{dataset}/models/{algorithm}/{train_convention}/fold{fold}"
    models = paths.model_files(paper, "MQ2008", "models", ".pkl")
    assert len(models) == 11 * 3 * 5 and models[0] == \
        "results/MQ2008/models/adarank/yahoo/fold1.pkl"
    assert paths.fit_records(paper, "MQ2008")[-1] == \
        "results/MQ2008/models/ranknet_adam/letor/fits.tsv"
    assert paths.gather_inputs(paper, "MQ2008", "adarank", "ranklib")["scores"][0] == \
        "results/MQ2008/parts/adarank/ranklib/fold1/whole.test_scores.npy"
    assert "implementation" in paths.claims_extra_inputs(paper, "MQ2008")
    pages = report.report_pages(paper)
    assert "table_implementation" in pages and "table_ties" not in pages
    assert report.study_pages(paper) == {}
    targets = paths.all_targets(paper, pages, {})
    assert len(targets) == len(set(targets)) == 165 + 2 * len(pages) + 4 + 1  # + provenance.json


def test_extended_run(extended):
    assert list(extended.datasets) == ["MQ2008", "OHSUMED"] and extended.seeds == (0, 1, 2, 3, 4)
    assert extended.seed_dir == "seed{seed}/" and extended.multi_seed
    assert extended.variants == ["adarank_stable_ties", "adarank_tieavg_ties"]
    assert extended.algorithms["ranknet"].seeds == extended.seeds
    assert extended.algorithms["adarank"].seeds == (0,)
    assert [name for name, _, _ in extended.evaluate_rules] == [
        "evaluate", "evaluate_adarank", "evaluate_coordinate_ascent", "evaluate_lambdamart"]
    assert extended.all_train_conventions == ["yahoo", "ranklib", "letor", "sklearn", "catboost"]
    assert extended.library_train_conventions == ["sklearn", "catboost"]
    assert "sklearn" in extended.library_eval_conventions
    assert extended.train_params("ranknet", "3")["random_state"] == 3
    assert "random_state" not in extended.train_params("adarank", "0")
    assert paths.convention_stem(extended, "models", None, "OHSUMED", "ranknet", "letor", 2) == \
        "results/extended/OHSUMED/models/ranknet/letor/seed2/"
    assert set(report.study_pages(extended)) == {
        "table_winning", "figure_winning", "table_library_winning", "table_library_flips"}
    facts = report.caption_facts(extended)
    assert facts["random_algorithms"] == ["Coordinate Ascent", "RankNet"]
    assert facts["library_trained_algorithms"] == ["AdaRank", "Coordinate Ascent", "LambdaMART"]


def test_ci_run(ci):
    assert ci.folds == (1, 2) and ci.train_conventions == ("ranklib", "yahoo", "letor")
    assert ci.base_algorithms == ["adarank", "coordinate_ascent", "lambdamart", "rankboost"]
    assert ci.variants == ["adarank_stable_ties"]
    assert ci.figure1_algorithms == ("adarank", "lambdamart", "coordinate_ascent")
    assert ci.results == "results/ci"


def test_requests_scale_with_rows_and_take_hand_set_values():
    cfg = merged({"datasets": {"MQ2008": {"resources": {
        "rows": 15211 * 10, "train": {"runtime": 999, "ranknet": {"mem_mb": 12345}}}}}})
    plan = build_plan(cfg)
    assert plan.datasets["MQ2008"].scale == pytest.approx(10.0)
    measured = cfg["resources"]["measured"]
    req = resources.job_request(plan, "train", "MQ2008", "adarank")
    want = resources.for_rule(measured, "train", "adarank", "adarank", scale=10.0)
    assert req == {**want, "runtime": 999}
    assert resources.job_request(plan, "train", "MQ2008", "ranknet")["mem_mb"] == 12345
    # a variant without figures of its own takes its base's
    assert resources.job_request(plan, "evaluate", "MQ2008", "lambdamart_lightgbm") == \
        resources.job_request(plan, "evaluate", "MQ2008", "lambdamart")
    assert resources.job_request(plan, "winning", None, None) == \
        resources.for_rule(measured, "winning", scale=10.0)


@pytest.mark.parametrize("rows, scatter, scattered", [
    (10**7, {"mode": "never"}, False),
    (None, {"mode": "always"}, True),
    (None, {"mode": "auto", "min_rows": 1}, False),  # rows unknown: grouped
    (150, {"mode": "auto", "min_rows": 150}, True),
    (150, {"mode": "auto", "min_rows": 151}, False),
    (199_999, {}, False),  # the default: auto from 200,000 rows
    (200_000, {}, True),
    (300_000, {"mode": "never"}, False),
])
def test_scatter_follows_rows_and_mode(rows, scatter, scattered):
    cfg = merged({"datasets": {"MQ2008": {"resources": {"rows": rows} if rows else {}}},
                  "scatter": scatter})
    del cfg["datasets"]["MQ2008"]["expect"]["rows"]  # the rows known from resources.rows only
    plan = build_plan(cfg)
    assert plan.scattered == (["MQ2008"] if scattered else [])
    assert plan.grouped == ([] if scattered else ["MQ2008"])


def test_repair_keeps_to_what_the_configuration_makes(paper):
    outputs = {"train": ["results/{dataset}/models/{algorithm}/{train_convention}/fold1.pkl"]}
    path = "results/MQ2008/models/adarank/ranklib/fold1.pkl"
    wc = {"dataset": "MQ2008", "algorithm": "adarank", "train_convention": "ranklib"}
    assert made_here(paper, Damage(path, "train", wc, "cut"), outputs.__getitem__)
    assert not made_here(paper, Damage(path, "train", {**wc, "algorithm": "listnet"}, "cut"),
                         outputs.__getitem__)
    assert not made_here(paper, Damage(path, "gone", wc, "cut"), outputs.__getitem__)


def test_unreachable_dataset_names_the_key(tmp_path):
    cfg = merged({"datasets": {"MQ2008": {"search": [str(tmp_path / "nowhere")],
                                          "urls": []}}, "offline": True,
                  "resources_dir": str(tmp_path / "res")})
    with pytest.raises(ConfigError, match="Set config key datasets.MQ2008.local"):
        datasets.check_reachable(build_plan(cfg), REPO)
    cfg["datasets"]["MQ2008"]["local"] = str(tmp_path)
    datasets.check_reachable(build_plan(cfg), REPO)


def _algorithms(**change):
    return {"algorithms": change}


def _variant(**spec):
    return {"variants": {"odd": spec}}


@pytest.mark.parametrize("overlay, key, message", [
    ({"results_dir": ""}, "results_dir", "'' is empty"),
    ({"resources_dir": ""}, "resources_dir", "'' is empty"),
    ({"logs_dir": "/"}, "logs_dir", "'/' is the filesystem root"),
    ({"results_dir": "/"}, "results_dir", "'/' is the filesystem root"),
    ({"datasets": {"a/b": BASE["datasets"]["MQ2008"]}}, "datasets.a/b", "is not a plain name"),
    ({"datasets": {"..": BASE["datasets"]["MQ2008"]}}, "datasets...", "'..' is not a plain name"),
    ({"datasets": {"../x": BASE["datasets"]["MQ2008"]}}, "datasets.../x",
     "'../x' is not a plain name"),
    ({"datasets": {"": BASE["datasets"]["MQ2008"]}}, "datasets.", "'' is not a plain name"),
    ({"datasets": {"MQ2008": {"layout": {"fold_dir": "/data/Fold{k}"}}}},
     "datasets.MQ2008.layout.fold_dir", "'/data/Fold{k}' is an absolute path"),
    ({"datasets": {"MQ2008": {"layout": {"fold_dir": "Fold{j}"}}}},
     "datasets.MQ2008.layout.fold_dir", "'Fold{j}' has the unknown placeholder(s) {j}"),
    ({"datasets": {"MQ2008": {"layout": {"train": "../x.txt"}}}}, "datasets.MQ2008.layout.train",
     "must name a file or directory inside its directory"),
    ({"datasets": {"MQ2008": {"layout": {"fold_dir": "."}}}}, "datasets.MQ2008.layout",
     "fold_dir '.' has no {k}, so with n_folds 5 each file name needs {k}"),
    ({"datasets": {"MQ2008": {"layout": {"fold_dir": "./Fold{k}"}}}},
     "datasets.MQ2008.layout.fold_dir", "must name a file or directory inside its directory"),
    ({"datasets": {"MQ2008": {"layout": {"vali": "train.txt"}}}}, "datasets.MQ2008.layout",
     "the files of a fold must differ"),
    # a format spec made a 99,999-character directory name, a conversion passed unnoticed
    ({"datasets": {"MQ2008": {"layout": {"fold_dir": "Fold{k:>99999}"}}}},
     "datasets.MQ2008.layout.fold_dir", "has '{k:>99999}': a placeholder takes no conversion "
                                        "or format (write {k})"),
    ({"datasets": {"MQ2008": {"layout": {"test": "t{k!r}.txt"}}}},
     "datasets.MQ2008.layout.test", "has '{k!r}'"),
    ({"datasets": {"MQ2008": {"search": ["data/{dataset:.3}"]}}}, "datasets.MQ2008.search",
     "has '{dataset:.3}'"),
    ({"datasets": {"MQ2008": {"layout": {"train": "tr\x00ain.txt"}}}},
     "datasets.MQ2008.layout.train", "holds a NUL character"),
    ({"datasets": {"MQ2008": {"search": ["{datasett}"]}}}, "datasets.MQ2008.search",
     "entry 0 '{datasett}' has the unknown placeholder(s)"),
    ({"datasets": {"MQ2008": {"n_features": 200000}}}, "datasets.MQ2008.n_features",
     "200000 is above 100000"),
    ({"datasets": {"MQ2008": {"labels": [0, 1, 2, 5000]}}}, "datasets.MQ2008.labels",
     "[5000] above 1000"),
    ({"train_conventions": ["nope"]}, "train_conventions", "unknown convention 'nope'; known: "),
    ({"datasets": {"MQ2008": {"enabled": False}}}, "datasets", "no dataset has enabled: true"),
    ({"folds": [6]}, "folds", "fold(s) [6] exceed datasets.MQ2008.layout.n_folds = 5"),
    (_algorithms(listnet={}), "algorithms.listnet", "unknown algorithm; known: coordinate_ascent,"),
    (_algorithms(**{a: None for a in SIX}), "algorithms", "every algorithm is disabled (null)"),
    (_algorithms(adarank={"n_roundz": 5}), "algorithms.adarank",
     "unknown parameter(s) ['n_roundz']"),
    (_algorithms(adarank={"n_rounds": "ten"}), "algorithms.adarank.n_rounds",
     "n_rounds must be an integer >= 1, got 'ten'"),
    (_algorithms(coordinate_ascent={"step_base": True}), "algorithms.coordinate_ascent.step_base",
     "step_base must be a finite number >= 0 and <= 1e+06, got True"),
    (_algorithms(rankboost={"random_state": 0}), "algorithms.rankboost",
     "RankBoost is deterministic"),
    (_algorithms(ranksvm={"metric": "ndcg@10:trec"}), "algorithms.ranksvm.metric",
     "set by train_conventions and train_cutoff"),
    (_algorithms(ranknet={"random_state": 3}), "algorithms.ranknet.random_state",
     "the seed of every random algorithm is set by config key 'seeds'"),
    (_variant(of="listnet", params={"n": 1}), "variants.odd.of", "unknown algorithm 'listnet'"),
    (_variant(of="adarank"), "variants.odd.params", "needs parameters to change"),
    (_variant(of="adarank", ranker="nope"), "variants.odd.ranker", "unknown ranker 'nope'"),
    (_variant(of="adarank", params={"weak_ties": "stable-ish"}), "variants.odd.params.weak_ties",
     "weak_ties must be one of 'selection', "),
    (_variant(of="lambdamart", ranker="lambdamart_lightgbm", params={"n_thresholds": 32}),
     "variants.odd.params", "lambdamart_lightgbm: unknown parameter(s) ['n_thresholds']"),
    (_variant(of="lambdamart", ranker="lambdamart_lightgbm", params={"max_bin": 1}),
     "variants.odd.params.max_bin",
     "lambdamart_lightgbm: max_bin must be an integer in [2, 2147483647], got 1"),
    (_variant(of="lambdamart", ranker="lightgbm"), "variants.odd.ranker",
     "unknown ranker 'lightgbm'; known: adarank, coordinate_ascent, lambdamart, "),
    (_variant(of="lambdamart"), "variants.odd.params",
     "a variant that runs its base 'lambdamart' needs parameters to change (or another ranker)"),
    (_variant(of="lambdamart", ranker="lambdamart", params={}), "variants.odd.params",
     "a variant that runs its base 'lambdamart' needs parameters to change"),
    ({"variants": {"adarank": {"of": "adarank", "params": {"n_rounds": 3}}}}, "variants.adarank",
     "the name is already under 'algorithms'"),
    ({"train_conventions_by_algorithm": {"listnet": ["ranklib"]}},
     "train_conventions_by_algorithm.listnet", "'listnet' is not an enabled algorithm or variant"),
    ({"train_conventions_by_algorithm": {"adarank": ["yahoo"]}},
     "train_conventions_by_algorithm.adarank", "must hold figures.official_convention 'ranklib'"),
    ({"resources": {"train_threads": {"listnet": 2}}}, "resources.train_threads.listnet",
     "'listnet' is not an algorithm or variant; known: coordinate_ascent, "),
    ({"resources": {"train_threads": {"adarank_stable_ties": 2}}},
     "resources.train_threads.adarank_stable_ties",
     "adarank fits on one thread (it has no num_threads or n_jobs parameter)"),
    ({"eval_conventions": ["ranklib", "trec", "yahoo", "letor"], "extensions": {"ties": True}},
     "extensions.ties", "needs ['ranklib-tiepess', 'ranklib-tieavg', 'ranklib-tieopt']"),
    ({"eval_conventions": ["trec"], "figures": {"figure1_eval_conventions": ["trec"],
                                                "figure2_eval_conventions": ["trec"]},
      "extensions": {"winning": True}}, "extensions", "winning and audit need ranklib"),
    ({"cutoffs": "ten"}, "cutoffs", "cutoffs 'ten': expected e.g. '1-10'"),
    ({"figures": {"figure1_algorithms": ["listnet"]}}, "figures.figure1_algorithms",
     "'listnet' is not under 'algorithms'"),
    ({"figures": {"official_convention": "trec"}}, "figures.official_convention",
     "must be one of train_conventions ['yahoo', 'ranklib', 'letor']"),
])
def test_config_error_names_the_key(overlay, key, message):
    with pytest.raises(ConfigError) as info:
        build_plan(merged(overlay))
    lines = str(info.value).splitlines()
    if len(lines) > 1:  # every refusal at once, one line each
        assert lines[0] == f"{len(lines) - 1} configuration errors:", lines
        lines = [line.strip() for line in lines[1:]]
    assert any(line.startswith(f"config key '{key}': ") and message in line
               for line in lines), lines


def test_training_threads_by_algorithm(paper, ci):
    """resources.train_threads: the paper's RankNet jobs take 2 threads, its variant
    ranknet_adam the 1 of its own entry (without one, its base's), the others
    resources.train.threads; an algorithm a config turns off keeps its entry (config/ci.yaml
    disables RankNet)."""
    assert BASE["resources"]["train_threads"] == {"ranknet": 2, "ranknet_adam": 1}
    assert (paper.fit_threads("ranknet"), paper.fit_threads("ranknet_adam")) == (2, 1)
    inherits = copy.deepcopy(BASE)
    del inherits["resources"]["train_threads"]["ranknet_adam"]
    assert build_plan(pconfig.fill_defaults(inherits, SCHEMA)).fit_threads("ranknet_adam") == 2
    assert {a: paper.fit_threads(a) for a in paper.algorithms if "ranknet" not in a} == {
        a: 1 for a in paper.algorithms if "ranknet" not in a}
    assert "ranknet" not in ci.algorithms
    own = build_plan(merged({"resources": {"train": {"threads": 3},
                                           "train_threads": {"ranknet_adam": 1}}}))
    assert (own.fit_threads("ranknet"), own.fit_threads("ranknet_adam"),
            own.fit_threads("adarank")) == (2, 1, 3)
    # a variant of RankNet that runs a ranker without threads does not take RankNet's
    other = build_plan(merged({"variants": {"rb": {"of": "ranknet", "ranker": "rankboost"}}}))
    assert (other.fit_threads("rb"), other.fit_threads("ranknet_adam")) == (1, 1)


def test_each_refusal_is_said_once_and_only_where_it_applies():
    """A variant inherits its base's hyperparameters: the base's refusal, found again while the
    variant (adarank_stable_ties of config.yaml) is checked, is one line; RankBoost, which draws
    nothing, is told its random_state does nothing, not that config key 'seeds' sets it."""
    assert BASE["variants"]["adarank_stable_ties"]["of"] == "adarank"
    with pytest.raises(ConfigError) as info:
        build_plan(merged(_algorithms(adarank={"n_rounds": "ten"}, rankboost={"random_state": 0},
                                      ranknet={"random_state": 3})))
    lines = str(info.value).splitlines()
    assert lines[0] == "3 configuration errors:", lines
    assert sum("'algorithms.adarank.n_rounds'" in line for line in lines) == 1
    assert sum("'algorithms.rankboost" in line for line in lines) == 1
    assert any("'algorithms.ranknet.random_state': the seed of every random algorithm is set by "
               "config key 'seeds'" in line for line in lines)


def test_a_one_split_dataset_runs_its_fold_without_a_folds_edit(paper):
    """config.yaml's folds: all is every fold of the enabled datasets' layout: MQ2008's five,
    or a one-split set's one; two sets of different layouts need the folds named."""
    assert BASE["folds"] == "all" and paper.folds == (1, 2, 3, 4, 5)
    one = {"MQ2008": {"enabled": False}, "Yahoo-set1": {"enabled": True}}
    assert BASE["datasets"]["Yahoo-set1"]["layout"]["n_folds"] == 1
    assert build_plan(merged({"datasets": one})).folds == (1,)
    both = {"Yahoo-set1": {"enabled": True}}
    with pytest.raises(ConfigError) as info:
        build_plan(merged({"datasets": both}))
    assert str(info.value) == (
        "config key 'folds': 'all' runs every fold of each enabled dataset, but their layouts "
        "differ (datasets.MQ2008.layout.n_folds = 5, datasets.Yahoo-set1.layout.n_folds = 1): "
        "name the folds to run in each (e.g. folds: [1]) or run them apart")
    assert build_plan(merged({"datasets": both, "folds": [1]})).folds == (1,)


def test_one_check_names_every_error_at_once():
    # a trial run with the slow algorithms off stopped on one variant's disabled base per dry
    # run (three runs to find three); a figure panel of a disabled algorithm was left out
    overlay = _algorithms(lambdamart=None, ranknet=None, rankboost=None, adarank=None)
    overlay["folds"] = [1, 9]
    with pytest.raises(ConfigError) as info:
        build_plan(merged(overlay))
    lines = str(info.value).splitlines()
    found = "\n".join(lines)
    for variant, base in (("adarank_stable_ties", "adarank"), ("rankboost_quantile", "rankboost"),
                          ("lambdamart_minleaf50", "lambdamart"),
                          ("lambdamart_lightgbm", "lambdamart"), ("ranknet_adam", "ranknet")):
        assert (f"config key 'variants.{variant}.of': base algorithm '{base}' is not enabled"
                in found), found
    assert "config key 'folds': fold(s) [9] exceed" in found
    assert "config key 'figures.figure1_algorithms': 'adarank' is disabled" in found
    assert lines[0] == f"{len(lines) - 1} configuration errors:"


def test_schema_errors_name_the_key():
    with pytest.raises(ConfigError) as info:
        merged({"folds": [1.0], "seeds": [0, 0], "cutoffs": 10,
                "resources": {"train_threads": {"ranknet": 0}}})
    lines = str(info.value).splitlines()
    assert any("config key 'resources.train_threads.ranknet': 0 is less than the minimum of 1"
               in line for line in lines)
    assert any("config key 'cutoffs': 10 is not of type 'string'" in line for line in lines)
    assert lines[0] == "Invalid configuration:"
    assert any(line.strip().startswith("config key 'folds.0': 1.0 is not of type 'integer'")
               for line in lines)
    assert any("config key 'seeds': " in line and "non-unique elements" in line for line in lines)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_a_number_that_is_not_finite_is_refused_anywhere(value):
    # nan passes every JSON Schema bound (each comparison with it is false): vali_fraction
    # .nan reached the prepare job's round() as a traceback
    novali = {"layout": {"vali": None}, "vali_fraction": value}
    for overlay, key in (({"datasets": {"MQ2008": novali}}, "datasets.MQ2008.vali_fraction"),
                         ({"download": {"timeout": value}}, "download.timeout")):
        with pytest.raises(ConfigError) as info:
            merged(overlay)
        assert f"config key '{key}': {value} is not a finite number" in str(info.value)


def test_conventions_file_and_its_gains(tmp_path):
    conv = tmp_path / "conventions.yaml"
    conv.write_text("conventions:\n  plan-gain012: {base: ranklib, gain: '0:0;1:1;2:3'}\n")
    cfg = merged({"conventions_file": str(conv),
                  "eval_conventions": [*BASE.get("eval_conventions", ["ranklib"]), "plan-gain012"]})
    plan = build_plan(cfg)
    assert plan.conventions_file == str(conv) and len(plan.conventions_sha256) == 64
    cfg["datasets"]["MQ2008"]["labels"] = [0, 1, 2, 3]
    with pytest.raises(ConfigError, match=r"^config key 'eval_conventions': .*no value for "
                                          r"label\(s\) \[3\], a label of datasets.MQ2008.labels"):
        build_plan(cfg)
    conv.write_text("conventions:\n  plan-bad: {base: yahoo, empty: lots}\n")
    with pytest.raises(ConfigError, match=f"^config key 'conventions_file': {conv}"):
        build_plan(merged({"conventions_file": str(conv)}))


def test_top_level_files_and_a_drawn_validation_split_are_planned():
    """fold_dir "." (one split, or {k} in each name) and vali null: the prepare job draws
    the validation queries with the configured fraction and seed (defaults 0.2 and 0)."""
    top = {"n_folds": 1, "fold_dir": ".", "train": "set1.train.txt.gz", "vali": None,
           "test": "set1.test.txt"}
    plan = build_plan(merged({"folds": [1], "datasets": {"MQ2008": {"layout": top}}}))
    assert datasets.identity(plan, "MQ2008")["layout"]["splits"] == {
        "train": "set1.train.txt.gz", "vali": None, "test": "set1.test.txt"}
    assert datasets.vali_split(plan, "MQ2008") == {"fraction": 0.2, "seed": 0}
    assert datasets.drawn_vali(plan) == ["MQ2008"]
    named = {"n_folds": 2, "fold_dir": ".", "train": "s{k}.train", "vali": "s{k}.vali",
             "test": "s{k}.test"}
    plan = build_plan(merged({"folds": [1, 2], "datasets": {"MQ2008": {
        "layout": named, "vali_fraction": 0.5, "vali_seed": 9}}}))
    assert datasets.vali_split(plan, "MQ2008") is None and datasets.drawn_vali(plan) == []
    from ltrconv.data.verify import Layout
    assert Layout(**datasets.identity(plan, "MQ2008")["layout"]).files() == [
        "s1.train", "s1.vali", "s1.test", "s2.train", "s2.vali", "s2.test"]
    assert datasets.vali_split(build_plan(merged()), "MQ2008") is None


@pytest.mark.parametrize("name", [d for d in BASE["datasets"] if d != "MQ2008"])
def test_each_shipped_dataset_entry_plans_when_enabled(name):
    """config/config.yaml's other datasets, each enabled alone (a one-split set with folds
    [1]): the checks accept the entry and its layout lists one file per split and fold."""
    from ltrconv.data.verify import Layout

    spec = BASE["datasets"][name]
    folds = list(range(1, spec["layout"]["n_folds"] + 1))
    plan = build_plan(merged({"folds": folds, "datasets": {"MQ2008": {"enabled": False},
                                                           name: {"enabled": True}}}))
    assert list(plan.datasets) == [name]
    layout = Layout(**datasets.identity(plan, name)["layout"])
    n_splits = 3 - (spec["layout"]["vali"] is None)
    assert len(set(layout.files())) == len(folds) * n_splits
    assert plan.datasets[name].rows is not None and spec["page"].startswith("http")


MADE_UP = dict(name="made_up", title="A made-up figure", rule="made_up_figure",
               draw="ltrconv.study.figures:runtime_figure", tables=("runtime",),
               caption="runtime")


def test_a_figure_is_one_declaration(monkeypatch, paper):
    """A figure added to FIGURES is made by the plan, a target and a report page; one per
    algorithm when its name holds {algorithm}; none when its ``when`` says no."""
    from ltrconv.pipeline import figures

    made_up = figures.Figure(**MADE_UP)
    each = figures.Figure("made_up/{algorithm}", "Made up: {algorithm}", "made_up_each",
                          "ltrconv.study.figures:ties_figure", ("summary",))
    never = figures.Figure("never", "Never", "never_figure", "ltrconv.study.figures:ties_figure",
                           when=lambda plan: False)
    monkeypatch.setattr(figures, "FIGURES", figures.FIGURES + (made_up, each, never))
    assert paper.figures[-2:] == [made_up, each]
    pages = report.report_pages(paper)
    assert pages["figure_made_up"] == dict(source="figures/made_up.png", caption="runtime",
                                           category="Figures", title="A made-up figure")
    assert pages["figure_made_up_ranksvm"]["title"] == "Made up: ranksvm"
    assert not any("never" in key for key in pages)
    targets = paths.all_targets(paper, pages, {})
    assert "results/MQ2008/figures/made_up.pdf" in targets
    assert [t for t in targets if "/figures/made_up/" in t and t.endswith(".pdf")] == [
        f"results/MQ2008/figures/made_up/{a}.pdf" for a in paper.algorithms]
    assert figures.by_rule("made_up_figure") is made_up and made_up.function() is not None
    # one rule job draws every algorithm's figure, each into its own files, in the plan's order
    pngs = paths.figure_output(paper, each.name)["png"]
    assert pngs == [f"results/{{dataset}}/figures/made_up/{a}.png" for a in paper.algorithms]
    assert each.rule_params(paper)["algorithms"] == list(paper.algorithms)
    assert "algorithms" not in made_up.rule_params(paper)
    assert paths.figure_output(paper, made_up.name)["pdf"] == "results/{dataset}/figures/made_up.pdf"


def test_every_declared_figure_has_its_caption_and_function(paper, extended):
    from ltrconv.pipeline import figures

    for figure in figures.FIGURES:
        assert (REPO / "workflow" / "report" / f"{figure.page_caption}.rst").exists(), figure
        assert callable(figure.function()), figure
    assert [f.name for f in paper.figures] == ["figure1", "figure2", "runtime", "implementation"]
    assert [f.name for f in extended.figures] == [
        "figure1", "figure2", "runtime", "implementation", "ties/{algorithm}", "libraries"]


def _recipe(name: str) -> dict:
    """The YAML block of docs/pipeline.md whose first line names file ``name``."""
    blocks = (REPO / "docs" / "pipeline.md").read_text().split("```yaml\n")[1:]
    texts = [b.split("```", 1)[0] for b in blocks if b.startswith(f"# {name}:")]
    assert len(texts) == 1, name
    return yaml.safe_load(texts[0])


def test_the_docs_recipe_for_lightgbm_files_is_the_plan_it_describes():
    """docs/pipeline.md's lambdarank.yaml and trial.yaml: one fold, AdaRank and LambdaMART, the
    sizes files named among the digests; trial.yaml without its last two lines is the dry run's
    three errors the page quotes, in one message."""
    data, trial = _recipe("lambdarank.yaml"), _recipe("trial.yaml")
    plan = build_plan(merged(data, trial))
    assert list(plan.datasets) == ["LAMBDARANK"] and list(plan.folds) == [1]
    assert set(plan.algorithms) == {"adarank", "lambdamart"}
    layout = datasets.identity(plan, "LAMBDARANK")["layout"]
    assert set(data["datasets"]["LAMBDARANK"]["sha256"]) == {
        f for s in ("train", "test") for f in (layout["splits"][s], layout["splits"][s] + ".query")}
    with pytest.raises(ConfigError) as info:
        build_plan(merged(data, {"algorithms": trial["algorithms"]}))
    lines = str(info.value).splitlines()
    assert lines[0] == "3 configuration errors:", lines
    for key in ("variants.rankboost_quantile.of", "variants.ranknet_adam.of",
                "figures.figure1_algorithms"):
        assert sum(f"config key '{key}'" in line for line in lines) == 1, (key, lines)
