"""Configuration: validation, paths, target lists (the only file that reads config)."""

import os
from pathlib import Path

import jsonschema
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

min_version("8.20")

REPO = Path(workflow.basedir)
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"
SPLITS = ("train", "vali", "test")


def _readable_config_errors(cfg, schema):
    """One line per schema violation, naming the config key and what it should be."""
    validator = jsonschema.Draft202012Validator(schema)
    lines = []
    for err in sorted(validator.iter_errors(cfg), key=lambda e: [str(p) for p in e.absolute_path]):
        key = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        desc = err.schema.get("description") if isinstance(err.schema, dict) else None
        lines.append(f"config key '{key}': {err.message}" + (f" -- {desc}" if desc else ""))
    return lines


def _check_config(cfg):
    schema = yaml.safe_load(SCHEMA.read_text())
    errors = _readable_config_errors(cfg, schema)
    if errors:
        raise WorkflowError("Invalid configuration:\n  " + "\n  ".join(errors))
    validate(cfg, str(SCHEMA))  # fills in the schema defaults
    from ltrconv import conventions

    known = set(conventions.names())
    for key in ("train_conventions", "eval_conventions"):
        for name in cfg[key]:
            if name not in known:
                raise WorkflowError(
                    f"config key '{key}': unknown convention {name!r}; known: {', '.join(sorted(known))}"
                )
    enabled = [d for d, spec in cfg["datasets"].items() if spec["enabled"]]
    if not enabled:
        raise WorkflowError("config key 'datasets': no dataset has enabled: true")
    for d in enabled:
        n = cfg["datasets"][d]["layout"]["n_folds"]
        bad = [k for k in cfg["folds"] if k > n]
        if bad:
            raise WorkflowError(
                f"config key 'folds': fold(s) {bad} exceed datasets.{d}.layout.n_folds = {n}"
            )
    from ltrconv import algorithms

    for a in cfg["algorithms"]:
        if a not in algorithms.REGISTRY:
            raise WorkflowError(
                f"config key 'algorithms.{a}': unknown algorithm; known: {', '.join(algorithms.ORDER)}"
            )
    algos = [a for a, p in cfg["algorithms"].items() if p is not None]
    if not algos:
        raise WorkflowError("config key 'algorithms': every algorithm is disabled (null)")
    for v, spec in cfg["variants"].items():
        if v in cfg["algorithms"]:
            raise WorkflowError(f"config key 'variants.{v}': the name is already under 'algorithms'")
        if v in algorithms.REGISTRY:
            raise WorkflowError(f"config key 'variants.{v}': the name is a registered algorithm's")
        if spec["of"] not in algorithms.REGISTRY:
            raise WorkflowError(
                f"config key 'variants.{v}.of': unknown algorithm {spec['of']!r}; known: "
                f"{', '.join(algorithms.ORDER)}"
            )
        if cfg["algorithms"].get(spec["of"], None) is None:
            raise WorkflowError(
                f"config key 'variants.{v}.of': base algorithm {spec['of']!r} is not enabled under 'algorithms'"
            )
        from ltrconv import rankers

        unknown = sorted(set(spec["params"]) - set(rankers.get_class(spec["of"])._param_names()))
        if unknown:
            raise WorkflowError(f"config key 'variants.{v}.params': {spec['of']} has no parameter(s) {unknown}")
    for a in cfg["figures"]["figure1_algorithms"]:
        if a not in cfg["algorithms"]:
            raise WorkflowError(f"config key 'figures.figure1_algorithms': {a!r} is not under 'algorithms'")
    for key in ("figure1_eval_conventions", "figure2_eval_conventions"):
        missing = [c for c in cfg["figures"][key] if c not in cfg["eval_conventions"]]
        if missing:
            raise WorkflowError(f"config key 'figures.{key}': {missing} not in eval_conventions")
    if cfg["figures"]["official_convention"] not in cfg["train_conventions"]:
        raise WorkflowError(
            "config key 'figures.official_convention': must be one of train_conventions "
            f"{cfg['train_conventions']}"
        )


_check_config(config)

RESULTS = config["results_dir"].rstrip("/")
RESOURCES = config["resources_dir"].rstrip("/")
LOGS = config["logs_dir"].rstrip("/")
DATASETS = [d for d, spec in config["datasets"].items() if spec["enabled"]]
BASE_ALGORITHMS = [a for a, p in config["algorithms"].items() if p is not None]
VARIANTS = {v: spec for v, spec in config["variants"].items()}
ALGORITHMS = BASE_ALGORITHMS + list(VARIANTS)
TRAIN_CONVENTIONS = list(config["train_conventions"])
EVAL_CONVENTIONS = list(config["eval_conventions"])
FOLDS = sorted(config["folds"])
RES = config["resources"]


wildcard_constraints:
    dataset="[^/]+",
    algorithm="|".join(ALGORITHMS),
    train_convention="[^/]+",
    fold=r"\d+",


def dataset_identity(name):
    """What config says a dataset is (acquire's params: changing any of it re-runs the study).

    Where the data comes from (local, search, urls, archive details) is not part of it: the
    files are verified by their digests whichever copy or mirror they come from."""
    spec = config["datasets"][name]
    layout = spec["layout"]
    return dict(
        name=name,
        layout=dict(
            n_folds=layout["n_folds"],
            fold_dir=layout["fold_dir"],
            splits={s: layout[s] for s in SPLITS},
        ),
        sha256=dict(spec["sha256"]),
        content_sha256=dict(spec["content_sha256"]),
        expect=dict(spec["expect"]),
        link=spec["link"],
        config_key=f"datasets.{name}",
    )


def dataset_source(name):
    """Keyword arguments of ltrconv.acquire.Source: the identity plus where to look."""
    from ltrconv.acquire import locations

    return {**dataset_identity(name), **locations(config["datasets"][name], name, REPO)}


def _check_reachable(name):
    """Fail before any job runs when a dataset has no possible source."""
    from ltrconv.acquire import Source, no_data_message

    src = dataset_source(name)
    if src["local"] or any(Path(p).exists() for p in src["search"]):
        return
    if src["urls"] and not config["offline"]:
        return
    if Path(RESOURCES, name, "manifest.tsv").exists():
        return
    looked = [(p, "absent") for p in src["search"]]
    raise WorkflowError(no_data_message(Source.from_dict(src), looked, [], config["offline"]))


for _d in DATASETS:
    _check_reachable(_d)


def base_algorithm(algorithm):
    """The ranker a study algorithm runs: itself, or a variant's base."""
    return VARIANTS[algorithm]["of"] if algorithm in VARIANTS else algorithm


def hyperparams(algorithm):
    """Keyword arguments of the ranker: the base's from config, then a variant's overrides."""
    if algorithm in VARIANTS:
        return {**(config["algorithms"][VARIANTS[algorithm]["of"]] or {}), **VARIANTS[algorithm]["params"]}
    return dict(config["algorithms"][algorithm] or {})


def variant_label(name):
    spec = VARIANTS[name]
    return spec.get("label") or ", ".join(f"{k}={v}" for k, v in spec["params"].items())


def train_metric(convention):
    return f"ndcg@{config['train_cutoff']}:{convention}"


def cache(dataset, fold, split):
    return f"{RESOURCES}/{dataset}/cache/fold{fold}/{split}.npz"


def eval_pieces(dataset):
    return expand(
        f"{RESULTS}/{dataset}/eval/{{algorithm}}/{{train_convention}}/fold{{fold}}.parquet",
        algorithm=ALGORITHMS, train_convention=TRAIN_CONVENTIONS, fold=FOLDS,
    )


def train_benchmarks(dataset):
    return expand(
        f"{RESULTS}/{dataset}/bench/train/{{algorithm}}/{{train_convention}}/fold{{fold}}.tsv",
        algorithm=ALGORITHMS, train_convention=TRAIN_CONVENTIONS, fold=FOLDS,
    )


TABLES = ("summary", "fold_means", "ttests", "algorithm_order")
FIGURES = ("figure1", "figure2", "runtime")


def all_targets():
    out = []
    for d in DATASETS:
        out += [f"{RESULTS}/{d}/tables/{t}.tsv" for t in TABLES + ("audit", "runtime")]
        out += [f"{RESULTS}/{d}/figures/{f}.{ext}" for f in FIGURES for ext in ("png", "pdf")]
        out.append(f"{RESULTS}/{d}/claims.md")
        if VARIANTS:
            out.append(f"{RESULTS}/{d}/tables/implementation.tsv")
            out += [f"{RESULTS}/{d}/figures/implementation.{ext}" for ext in ("png", "pdf")]
    return out
