"""Configuration: validation, paths, parameter values, target lists.

The only file that reads ``config``: the other rule files and every job script get what they
need through the names and functions defined here, or through their rule's ``params``."""

import hashlib
import os
import re
import string
import sys
from pathlib import Path

import jsonschema
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

min_version("8.20")

REPO = Path(workflow.basedir)
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"
SPLITS = ("train", "vali", "test")

# The ltrconv of this checkout, whatever else is installed (the job scripts do the same, see
# _job.py).
sys.path.insert(0, str(REPO / "src"))
# workflow/scripts: job_requests.py (cluster requests from measured figures, job_resources
# below) and openblas_kernels.py.
if str(REPO / "workflow/scripts") not in sys.path:
    sys.path.append(str(REPO / "workflow/scripts"))

import openblas_kernels  # noqa: E402
import output_records  # noqa: E402
from ltrconv import rankers as _rankers  # noqa: E402
from untracked import Untracked  # noqa: E402

# The config checks read the rankers' declared parameters and hand no ranker to scikit-learn:
# they are built without its second-long import (ltrconv.rankers.estimator).
_rankers.use_plain_estimators()

# RankSVM's models depend on OpenBLAS's CPU kernels: the jobs run the AVX2 ones (see the module).
openblas_kernels.pin()
# OpenMP threads (LightGBM's, numba's) that wait for work sleep instead of spinning, unless the
# user chose: on a shared machine spinning multiplied a LightGBM fit's CPU time 12-fold
# (benchmarks/bench_wait_policy.py). libgomp reads it when it loads: jobs inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from ltrconv.evaluation.libraries import LIBRARIES as _LIBRARIES  # noqa: E402
from ltrconv.rankers import registry as algorithms  # noqa: E402
from ltrconv.study import tie_ranges  # noqa: E402
from ltrconv.study.paper.busa_fekete_2012 import Setting as PaperSetting  # noqa: E402

# The tie conventions the ties table and figures read: worst-first, expected, best-first, input.
TIE_CONVENTIONS = (tie_ranges.PESS, tie_ranges.AVG, tie_ranges.OPT, tie_ranges.INPUT)
# The evaluation convention winning numbers and the audit's predictions are set against.
REFERENCE_CONVENTION = PaperSetting.reference


# JSON Schema counts 1.0 as an integer; a fold, seed or count written 1.0 would then become
# part of a path ("Fold1.0") or a float where a count is meant.
_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)),
)
# A dataset name is a directory name under results_dir and resources_dir.
PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _readable_config_errors(cfg, schema):
    """One line per schema violation, naming the config key and what it should be."""
    validator = _Validator(schema)
    lines = []
    for err in sorted(validator.iter_errors(cfg), key=lambda e: [str(p) for p in e.absolute_path]):
        key = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        desc = err.schema.get("description") if isinstance(err.schema, dict) else None
        lines.append(f"config key '{key}': {err.message}" + (f" -- {desc}" if desc else ""))
    return lines


def _check_hyperparams(algorithm, params, key):
    """``params`` (config key ``key``) against the ranker's declared constraints: an unknown name
    is reported at ``key``, a bad value at ``key.name``."""
    from ltrconv import rankers

    if "metric" in params:
        raise WorkflowError(f"config key '{key}.metric': the training metric is set by "
                            "train_conventions and train_cutoff, not per algorithm")
    try:
        rankers.validate_params(algorithm, params)
    except rankers.ParamError as exc:
        where = f"{key}.{exc.param}" if exc.param in rankers.param_names(algorithm) else key
        raise WorkflowError(f"config key '{where}': {exc}") from None


def _check_directory(key, value):
    """A directory the workflow writes under: not empty, not the filesystem root."""
    path = Path(os.path.abspath(value)) if value.strip() else None
    if path is None or path == path.parent:
        raise WorkflowError(f"config key '{key}': {value!r} is "
                            f"{'empty' if path is None else 'the filesystem root'}; name a "
                            "directory of the workflow's own (relative to the working directory)")


def _relative_path_error(path):
    """Why ``path`` is not a relative path that stays inside its directory, or None."""
    if path.startswith("/"):
        return "is an absolute path"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return "must name a file or directory inside its directory (no '..', '.' or empty part)"
    return None


def _template_error(template, placeholders):
    """Why ``template`` is not a str.format template of ``placeholders`` only, or None."""
    try:
        fields = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as exc:
        return f"is not a template ({exc})"
    unknown = sorted(fields - set(placeholders))
    if unknown:
        allowed = ", ".join(f"{{{p}}}" for p in placeholders) or "none"
        return (f"has the unknown placeholder(s) {', '.join(f'{{{u}}}' for u in unknown)} "
                f"(allowed: {allowed})")
    try:
        template.format(**{p: 1 for p in placeholders})
    except (ValueError, KeyError, IndexError, AttributeError) as exc:
        return f"is not a template ({exc})"
    return None


def _check_dataset(name, spec):
    """The dataset's name, layout templates, search templates, label scale and width."""
    from ltrconv.data.letor import MAX_FEATURES
    from ltrconv.evaluation.queries import MAX_LABEL

    key = f"datasets.{name}"
    if not PLAIN_NAME.fullmatch(name):
        raise WorkflowError(f"config key '{key}': {name!r} is not a plain name (letters, digits, "
                            "'.', '_', '-', not starting with '.'): it names a directory")
    layout = spec["layout"]
    for part, placeholders in (("fold_dir", ("k",)),) + tuple((s, ()) for s in SPLITS):
        value = layout[part]
        why = _template_error(value, placeholders)
        if why is None:
            why = _relative_path_error(value.format(k=1) if placeholders else value)
        if why:
            raise WorkflowError(f"config key '{key}.layout.{part}': {value!r} {why}")
    for i, value in enumerate(spec["search"]):
        why = _template_error(value, ("dataset",))
        if why:
            raise WorkflowError(f"config key '{key}.search': entry {i} {value!r} {why}")
    if spec.get("n_features") is not None and spec["n_features"] > MAX_FEATURES:
        raise WorkflowError(f"config key '{key}.n_features': {spec['n_features']} is above "
                            f"{MAX_FEATURES}, the most features the LETOR reader accepts")
    above = [lab for lab in spec["labels"] if lab > MAX_LABEL]
    if above:
        raise WorkflowError(f"config key '{key}.labels': {above} above {MAX_LABEL}, the largest "
                            "label the evaluation accepts")


def _check_gains(cfg, name):
    """Every training and evaluation convention has a gain for each label of dataset ``name``."""
    from ltrconv.evaluation import conventions

    labels = cfg["datasets"][name]["labels"]
    for key in ("train_conventions", "eval_conventions"):
        for conv in cfg[key]:
            try:
                conventions.get(conv).gain_table(max(labels))
            except conventions.ConventionError as exc:
                raise WorkflowError(f"config key '{key}': {exc}, a label of datasets.{name}.labels "
                                    f"{labels}") from None


def _check_objective(algorithm, convention, key):
    """An algorithm that optimises the training NDCG (AdaRank, Coordinate Ascent, LambdaMART)
    can take ``convention`` as its objective: the scorer's training arrays accept it."""
    import numpy as np
    from ltrconv.errors import LtrconvError
    from ltrconv.evaluation import NDCGScorer

    if algorithms.get(algorithm).convention != algorithms.OBJECTIVE:
        return
    try:
        NDCGScorer(np.array([1, 0]), np.array([0, 2]), convention, 1).arrays
    except LtrconvError as exc:
        raise WorkflowError(f"config key '{key}': {algorithm}: {exc}") from None


def _variant_ranker(spec):
    """The registered ranker a variant runs (config key variants.NAME.ranker, default its base)."""
    return spec.get("ranker") or spec["of"]


def _inherited_params(cfg, spec):
    """The base's hyperparameters (algorithms.BASE) a variant takes: every one for a variant of
    the base's own ranker, only those whose name the other ranker has otherwise."""
    from ltrconv import rankers

    base = dict(cfg["algorithms"][spec["of"]] or {})
    ranker = _variant_ranker(spec)
    if ranker == spec["of"]:
        return base
    names = set(rankers.param_names(ranker))
    return {k: v for k, v in base.items() if k in names}


def _check_variant(cfg, name, spec):
    """A variant's ranker is registered, it changes something, and its own parameters and the
    base's it takes are the ranker's."""
    key = f"variants.{name}"
    ranker = _variant_ranker(spec)
    if ranker not in algorithms.KNOWN:
        raise WorkflowError(f"config key '{key}.ranker': unknown ranker {ranker!r}; known: "
                            f"{', '.join(sorted(algorithms.KNOWN))}")
    if ranker == spec["of"] and not spec.get("params"):
        raise WorkflowError(f"config key '{key}.params': a variant that runs its base "
                            f"{spec['of']!r} needs parameters to change (or another ranker)")
    _check_hyperparams(ranker, spec.get("params") or {}, f"{key}.params")
    _check_hyperparams(ranker, _inherited_params(cfg, spec), f"algorithms.{spec['of']}")


def _check_train_conventions_by_algorithm(cfg, enabled_datasets, variants):
    """Each list of train_conventions_by_algorithm: an enabled algorithm or variant, known
    conventions with a gain for every label, the official convention among them, and each one
    a possible objective of the algorithm."""
    from ltrconv.evaluation import conventions

    known = set(conventions.names())
    enabled = [a for a, p in cfg["algorithms"].items() if p is not None] + list(variants)
    official = cfg["figures"]["official_convention"]
    for a, names in cfg["train_conventions_by_algorithm"].items():
        key = f"train_conventions_by_algorithm.{a}"
        if a not in enabled:
            raise WorkflowError(f"config key '{key}': {a!r} is not an enabled algorithm or "
                                f"variant; enabled: {', '.join(enabled)}")
        for name in names:
            if name not in known:
                raise WorkflowError(f"config key '{key}': unknown convention {name!r}; known: "
                                    f"{', '.join(sorted(known))}")
            for d in enabled_datasets:
                labels = cfg["datasets"][d]["labels"]
                try:
                    conventions.get(name).gain_table(max(labels))
                except conventions.ConventionError as exc:
                    raise WorkflowError(f"config key '{key}': {exc}, a label of "
                                        f"datasets.{d}.labels {labels}") from None
            _check_objective(_variant_ranker(variants[a]) if a in variants else a, name, key)
        if official not in names:
            raise WorkflowError(f"config key '{key}': must hold figures.official_convention "
                                f"{official!r}")


def _check_config(cfg):
    schema = yaml.safe_load(SCHEMA.read_text())
    errors = _readable_config_errors(cfg, schema)
    if errors:
        raise WorkflowError("Invalid configuration:\n  " + "\n  ".join(errors))
    validate(cfg, str(SCHEMA))  # fills in the schema defaults
    for key in ("results_dir", "resources_dir", "logs_dir"):
        _check_directory(key, cfg[key])
    for name, spec in cfg["datasets"].items():
        _check_dataset(name, spec)
    from ltrconv.evaluation import conventions
    from ltrconv.errors import LtrconvError

    if cfg["conventions_file"]:
        try:
            conventions.load_yaml(cfg["conventions_file"])
        except LtrconvError as exc:
            raise WorkflowError(f"config key 'conventions_file': {exc}") from None
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
        _check_gains(cfg, d)
    for d in enabled:
        n = cfg["datasets"][d]["layout"]["n_folds"]
        bad = [k for k in cfg["folds"] if k > n]
        if bad:
            raise WorkflowError(
                f"config key 'folds': fold(s) {bad} exceed datasets.{d}.layout.n_folds = {n}"
            )
    for a in cfg["algorithms"]:
        if a not in algorithms.REGISTRY:
            raise WorkflowError(
                f"config key 'algorithms.{a}': unknown algorithm; known: {', '.join(algorithms.ORDER)}"
            )
    algos = [a for a, p in cfg["algorithms"].items() if p is not None]
    if not algos:
        raise WorkflowError("config key 'algorithms': every algorithm is disabled (null)")
    variants = {v: spec for v, spec in cfg["variants"].items() if spec is not None}
    for v, spec in variants.items():
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
    for a in algos:
        _check_hyperparams(a, cfg["algorithms"][a], f"algorithms.{a}")
    for v, spec in variants.items():
        _check_variant(cfg, v, spec)
    for key, params in [(f"algorithms.{a}", cfg["algorithms"][a]) for a in algos] + [
            (f"variants.{v}.params", spec.get("params") or {}) for v, spec in variants.items()]:
        if "random_state" in params:
            raise WorkflowError(f"config key '{key}.random_state': the seed of every random "
                                "algorithm is set by config key 'seeds'")
    _check_train_conventions_by_algorithm(cfg, enabled, variants)
    ext = cfg["extensions"]
    if ext["ties"]:
        missing = [c for c in TIE_CONVENTIONS if c not in cfg["eval_conventions"]]
        if missing:
            raise WorkflowError(f"config key 'extensions.ties': needs {missing} in eval_conventions")
    if "study" in cfg["datasets"]:
        raise WorkflowError("config key 'datasets.study': the name is reserved for results over "
                            "every dataset")
    if ext["winning"] or ext["audit"]:
        if REFERENCE_CONVENTION not in cfg["eval_conventions"]:
            raise WorkflowError(f"config key 'extensions': winning and audit need "
                                f"{REFERENCE_CONVENTION} in eval_conventions")
    if ext["libraries"]:
        from ltrconv.evaluation.libraries import LIBRARIES

        if REFERENCE_CONVENTION not in cfg["eval_conventions"]:
            raise WorkflowError(f"config key 'extensions.libraries': needs "
                                f"{REFERENCE_CONVENTION} in eval_conventions")
        if not set(LIBRARIES) & set(cfg["eval_conventions"]):
            raise WorkflowError("config key 'extensions.libraries': needs a library convention "
                                "(ltrconv conventions) in eval_conventions")
    from ltrconv.errors import LtrconvError
    from ltrconv.evaluation.metrics import parse_cutoffs

    try:
        parse_cutoffs(cfg["cutoffs"])
    except LtrconvError as exc:
        raise WorkflowError(f"config key 'cutoffs': {exc}") from None
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
VARIANTS = {v: spec for v, spec in config["variants"].items() if spec is not None}
ALGORITHMS = BASE_ALGORITHMS + list(VARIANTS)
TRAIN_CONVENTIONS = list(config["train_conventions"])
# Each algorithm's training conventions: its own list (train_conventions_by_algorithm) or
# train_conventions.
_OWN_TRAIN_CONVENTIONS = {a: list(c) for a, c in config["train_conventions_by_algorithm"].items()}
EVAL_CONVENTIONS = list(config["eval_conventions"])
FOLDS = sorted(config["folds"])
SEEDS = list(config["seeds"])
# Paths carry the seed (.../seed{seed}/fold{fold}) unless the only seed is 0, every random
# ranker's default random_state: then the paper's run keeps its paths, job params and models.
SEED_DIR = "" if SEEDS == [0] else "seed{seed}/"
MULTI_SEED = len(SEEDS) > 1
EXTENSIONS = config["extensions"]
RES = config["resources"]
# Digest of the conventions file: a param of every rule whose results depend on the definitions,
# so that editing the file reruns them (the path is not: moving the file changes nothing).
CONVENTIONS_SHA256 = (
    hashlib.sha256(Path(config["conventions_file"]).read_bytes()).hexdigest()
    if config["conventions_file"]
    else None
)
# The path goes to the jobs untracked, for them to check the file still has that digest.
CONVENTIONS_PARAMS = ({"conventions_sha256": CONVENTIONS_SHA256,
                       "conventions_file": Untracked(config["conventions_file"])}
                      if CONVENTIONS_SHA256 else {})
CUTOFFS = config["cutoffs"]
TRAIN_CUTOFF = config["train_cutoff"]
# The official training convention: Figure 2, the algorithm order, the claims.
OFFICIAL = config["figures"]["official_convention"]
FIGURE1_EVAL_CONVENTIONS = list(config["figures"]["figure1_eval_conventions"])
FIGURE2_EVAL_CONVENTIONS = list(config["figures"]["figure2_eval_conventions"])
# One software environment for every job: the runtime dependencies of environment.yml.
CONDA_ENV = "../envs/ltrconv.yml"


wildcard_constraints:
    dataset="[^/]+",
    algorithm="|".join(ALGORITHMS),
    train_convention="[^/]+",
    fold=r"\d+",
    seed=r"\d+",


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


def dataset_locations(name):
    """Where to look for dataset ``name`` (ltrconv.data.acquire.locations)."""
    from ltrconv.data.acquire import locations

    return locations(config["datasets"][name], name, REPO)


def dataset_source(name):
    """Keyword arguments of ltrconv.data.acquire.Source: the identity plus where to look."""
    return {**dataset_identity(name), **dataset_locations(name)}


def acquire_settings(wc):
    """Where to look, whether to download and how: untracked (changing them redoes nothing)."""
    return Untracked(dict(locations=dataset_locations(wc.dataset), offline=config["offline"],
                          download=dict(config["download"])))


def dataset_labels(wc):
    """The label scale of the job's dataset."""
    return list(config["datasets"][wc.dataset]["labels"])


def dataset_max_label(wc):
    return max(config["datasets"][wc.dataset]["labels"])


def dataset_n_features(wc):
    """The dataset's number of features, None when config does not fix it."""
    return config["datasets"][wc.dataset].get("n_features")


def _check_reachable(name):
    """Fail before any job runs when a dataset has no possible source."""
    from ltrconv.data.acquire import Source, no_data_message

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


def dataset_rows(name):
    """Rows of dataset ``name`` (all of one fold's files) as config gives them: its
    resources.rows, else expect.rows; None when it gives neither."""
    spec = config["datasets"][name]
    return spec["resources"].get("rows") or spec["expect"].get("rows")


def _dataset_scale(name):
    """Rows x features of dataset ``name`` over the measured dataset's (1 when its rows are
    not in config: the measured requests then apply unscaled)."""
    ref = config["resources"]["measured"]["reference"]
    spec = config["datasets"][name]
    rows = dataset_rows(name)
    features = spec.get("n_features") or ref["features"]
    return rows * features / (ref["rows"] * ref["features"]) if rows else 1.0


def _dataset_rows_scale(name):
    """Rows of dataset ``name`` over the measured dataset's (1 when not in config)."""
    rows = dataset_rows(name)
    return rows / config["resources"]["measured"]["reference"]["rows"] if rows else 1.0


def _job_request(rule_name, wildcards):
    """mem_mb, runtime and disk_mb of one job of ``rule_name`` (workflow/scripts/job_requests.py),
    with the dataset's hand-set requests (datasets.NAME.resources) on top."""
    import job_requests

    algorithm = wildcards.get("algorithm")
    dataset = wildcards.get("dataset")
    # A study-wide job (winning numbers, the study's pages) reads every dataset's tables: it is
    # scaled as the largest, and no dataset's hand-set requests apply to it.
    scale = _dataset_scale(dataset) if dataset else max(_dataset_scale(d) for d in DATASETS)
    rows = (_dataset_rows_scale(dataset) if dataset
            else max(_dataset_rows_scale(d) for d in DATASETS))
    req = job_requests.for_rule(config["resources"]["measured"], rule_name, algorithm,
                                base_algorithm(algorithm) if algorithm else None, scale=scale,
                                rows_scale=rows)
    if not dataset:
        return req
    by_hand = config["datasets"][dataset]["resources"].get(rule_name, {})
    if rule_name in job_requests.RULES_BY_ALGORITHM:
        by_hand = {k: v for k, v in by_hand.items() if not isinstance(v, dict)} | by_hand.get(algorithm, {})
    return {**req, **by_hand}


def job_resources(rule_name):
    """The ``resources`` of ``rule_name``: cluster requests per job, derived from measured figures
    (config resources.measured) when config has them, else resources.train/light. A retry
    (``attempt`` 2) asks for twice the memory and wall time."""
    if "measured" not in config["resources"]:
        res = RES["train" if rule_name == "train" else "light"]
        return dict(mem_mb=res["mem_mb"], runtime=res["runtime"])
    return dict(
        mem_mb=lambda wildcards, attempt: _job_request(rule_name, wildcards)["mem_mb"] * attempt,
        runtime=lambda wildcards, attempt: _job_request(rule_name, wildcards)["runtime"] * attempt,
        disk_mb=lambda wildcards: _job_request(rule_name, wildcards)["disk_mb"],
    )


def prune_empty_dirs(*tops):
    """Remove the empty directories under each of ``tops``, and ``tops`` left empty: those
    Snakemake made for the outputs and benchmark of a job that then failed. Files (the failed
    job's log among them) stay."""
    for top in tops:
        if not os.path.isdir(top):
            continue
        for root, _, _ in os.walk(top, topdown=False):
            try:
                os.rmdir(root)
            except OSError:
                pass


def base_algorithm(algorithm):
    """The study algorithm behind a name: itself, or a variant's base (which the variant is
    compared with, and whose measured job figures stand in for the variant's)."""
    return VARIANTS[algorithm]["of"] if algorithm in VARIANTS else algorithm


def ranker_of(algorithm):
    """The registered ranker a study algorithm runs: itself, a variant's `ranker`, else its base."""
    return _variant_ranker(VARIANTS[algorithm]) if algorithm in VARIANTS else algorithm


def hyperparams(algorithm):
    """Keyword arguments of the ranker: the base's from config (for a variant with a ranker of
    its own, those the ranker has), then a variant's own."""
    if algorithm in VARIANTS:
        spec = VARIANTS[algorithm]
        return {**_inherited_params(config, spec), **(spec.get("params") or {})}
    return dict(config["algorithms"][algorithm] or {})


def is_random(algorithm):
    """Whether the algorithm's fit draws random numbers with its configured hyperparameters."""
    return algorithms.is_random(ranker_of(algorithm), hyperparams(algorithm))


def model_seeds(algorithm):
    """Seeds an algorithm is trained with: every configured seed when its fit is random, else
    the first only (a deterministic algorithm is trained once)."""
    return SEEDS if is_random(algorithm) else SEEDS[:1]


def train_hyperparams(wc):
    """The ranker's keyword arguments for one job: ``hyperparams`` plus ``random_state`` = the
    job's seed when the paths carry seeds and the algorithm is random."""
    params = hyperparams(wc.algorithm)
    if SEED_DIR and is_random(wc.algorithm):
        params["random_state"] = int(wc.seed)
    return params


def job_seed(wc):
    return int(wc.get("seed", SEEDS[0]))


def _scattered(name):
    """Whether dataset ``name`` is trained in scattered jobs (config key scatter)."""
    mode, rows = config["scatter"]["mode"], dataset_rows(name)
    return mode == "always" or (mode == "auto" and rows is not None
                                and rows >= config["scatter"]["min_rows"])


def one_of(names):
    """A wildcard constraint that matches exactly ``names`` (none: a pattern matching nothing)."""
    return "|".join(re.escape(n) for n in names) or "(?!)"


def unit_count(algorithm):
    """Independent units of one fit of ``algorithm``: Coordinate Ascent's restarts, RankNet's
    architectures (ltrconv.rankers.units); 0 for a fit in one piece."""
    from ltrconv import rankers

    return rankers.unit_count(ranker_of(algorithm), hyperparams(algorithm))


# Scattered datasets: a job per fold (rule fit_fold), or per fold and unit (rule fit_unit), then
# one gather job per algorithm and training convention in place of the train job.
SCATTERED = [d for d in DATASETS if _scattered(d)]
GROUPED = [d for d in DATASETS if d not in SCATTERED]
UNITS = {a: unit_count(a) for a in ALGORITHMS}
UNIT_ALGORITHMS = [a for a in ALGORITHMS if UNITS[a]]
WHOLE_ALGORITHMS = [a for a in ALGORITHMS if not UNITS[a]]


def convention_stem(kind, root=None, dataset="{dataset}", algorithm="{algorithm}",
                    train_convention="{train_convention}", seed="{seed}"):
    """ROOT/DATASET/KIND/ALGORITHM/CONVENTION/[seedS/]: the directory of one training
    convention's models (a train job's log, benchmark and fit records; as a pattern with the
    defaults); ROOT is the results directory unless given."""
    return (f"{root or RESULTS}/{dataset}/{kind}/{algorithm}/{train_convention}/"
            f"{SEED_DIR.format(seed=seed)}")


def model_stem(kind, root=None, dataset="{dataset}", algorithm="{algorithm}",
               train_convention="{train_convention}", fold="{fold}", seed="{seed}"):
    """CONVENTION_STEM/foldK: the stem of one model's files (as a pattern with the defaults)."""
    return f"{convention_stem(kind, root, dataset, algorithm, train_convention, seed)}fold{fold}"


def part_stem(kind, root=None):
    """ROOT/{dataset}/KIND/{algorithm}/{train_convention}/[seed{seed}/]fold{fold}/: the directory
    of one fold's parts of a scattered fit (their files, logs or benchmarks)."""
    return f"{model_stem(kind, root)}/"


def gather_inputs(wc):
    """A gather job's inputs, fold by fold: each part's file (a whole fit's model, or every
    unit's partial model) and fit record; a whole fit's test scores, or the test splits the
    gathered models score."""
    n = UNITS[wc.algorithm]
    names = [f"unit{u}" for u in range(n)] if n else ["whole"]
    out = {"parts": [], "fits": []}
    out.update({"tests": [cache(wc.dataset, f, "test") for f in FOLDS]} if n else {"scores": []})
    for f in FOLDS:
        stem = model_stem("parts", None, wc.dataset, wc.algorithm, wc.train_convention, f,
                          wc.get("seed", ""))
        out["parts"] += [f"{stem}/{name}.pkl" for name in names]
        out["fits"] += [f"{stem}/{name}.tsv" for name in names]
        if not n:
            out["scores"].append(f"{stem}/whole.test_scores.npy")
    return out


def algorithm_stem(kind, root=None):
    """ROOT/{dataset}/KIND/{algorithm}/[seed{seed}/]: the directory of one algorithm's files
    (an evaluate job's log and benchmark); ROOT is the results directory unless given."""
    return f"{root or RESULTS}/{{dataset}}/{kind}/{{algorithm}}/{SEED_DIR}"


def fold_models(kind, suffix):
    """One file per fold of an algorithm under one training convention: a train job's."""
    return [model_stem(kind, fold=f) + suffix for f in FOLDS]


def train_conventions(algorithm):
    """The conventions ``algorithm`` is trained with."""
    return _OWN_TRAIN_CONVENTIONS.get(algorithm, TRAIN_CONVENTIONS)


def _evaluate_rules():
    """The evaluate rules as (name, algorithms, training conventions): ``evaluate`` for the
    algorithms trained with train_conventions, ``evaluate_ALGORITHM`` for one with a list of its
    own (the outputs of a rule are one list for all its jobs)."""
    own = [a for a in ALGORITHMS if train_conventions(a) != TRAIN_CONVENTIONS]
    common = [a for a in ALGORITHMS if a not in own]
    return ([("evaluate", common, TRAIN_CONVENTIONS)] if common else []) + [
        (f"evaluate_{a}", [a], train_conventions(a)) for a in own]


EVALUATE_RULES = _evaluate_rules()
# Every training convention of some algorithm, train_conventions first.
ALL_TRAIN_CONVENTIONS = list(dict.fromkeys(
    TRAIN_CONVENTIONS + [t for a in ALGORITHMS for t in train_conventions(a)]))


def algorithm_models(kind, suffix, conventions=None):
    """One file per training convention (``conventions``, default train_conventions) and fold
    of an algorithm: an evaluate job's."""
    return [model_stem(kind, train_convention=t, fold=f) + suffix
            for t in (TRAIN_CONVENTIONS if conventions is None else conventions) for f in FOLDS]


def variant_label(name):
    spec = VARIANTS[name]
    ranker = [f"ranker={spec['ranker']}"] if spec.get("ranker") not in (None, spec["of"]) else []
    return spec.get("label") or ", ".join(ranker + [f"{k}={v}" for k, v in
                                                     (spec.get("params") or {}).items()])


# The variants that run another ranker than their base's, each with that ranker.
OTHER_RANKERS = {v: ranker_of(v) for v in VARIANTS if ranker_of(v) != base_algorithm(v)}


def train_metric(convention):
    return f"ndcg@{TRAIN_CUTOFF}:{convention}"


def cache(dataset, fold, split):
    return f"{RESOURCES}/{dataset}/cache/fold{fold}/{split}.npz"


def _model_files(dataset, kind, suffix):
    return [model_stem(kind, None, dataset, a, t, f, s) + suffix
            for a in ALGORITHMS for t in train_conventions(a) for f in FOLDS for s in model_seeds(a)]


def eval_pieces(dataset):
    return _model_files(dataset, "eval", ".parquet")


def fit_records(dataset):
    """Every train job's fits.tsv (fit time and peak memory of each fold's model)."""
    return [convention_stem("models", None, dataset, a, t, s) + "fits.tsv"
            for a in ALGORITHMS for t in train_conventions(a) for s in model_seeds(a)]





TABLES = ("summary", "fold_means", "ttests", "algorithm_order")
FIGURES = ("figure1", "figure2", "runtime")
# Beyond the paper, as configured: each seed's results, the tie-order ranges.
EXTENDED_TABLES = (("seed_fold_means", "seed_ttests") if MULTI_SEED else ()) + (
    ("ties",) if EXTENSIONS["ties"] else ())
# Today's libraries (extensions.libraries): their tables, the library conventions evaluated
# and those some algorithm is trained with (registry order).
LIBRARY_TABLES = ("libraries", "library_spread", "library_ttests")
LIBRARY_EVAL_CONVENTIONS = [c for c in _LIBRARIES if c in EVAL_CONVENTIONS]
LIBRARY_TRAIN_CONVENTIONS = [c for c in _LIBRARIES if c in ALL_TRAIN_CONVENTIONS]
if EXTENSIONS["libraries"]:
    EXTENDED_TABLES += LIBRARY_TABLES
# Results over every dataset (winning numbers) live in RESULTS/STUDY, never a dataset's name.
STUDY = "study"
FIGURE1_ALGORITHMS = [a for a in config["figures"]["figure1_algorithms"] if a in ALGORITHMS]
# The trained algorithms whose scores take few distinct values (registry order).
FEW_SCORES = [a for a in algorithms.ORDER
              if algorithms.get(a).few_scores and a in BASE_ALGORITHMS]


def figure_output(name):
    return {
        "png": f"{RESULTS}/{{dataset}}/figures/{name}.png",
        "pdf": f"{RESULTS}/{{dataset}}/figures/{name}.pdf",
    }


def _report_pages():
    """Key -> what the report shows: source file, caption (workflow/report/CAPTION.rst),
    category and title. Each becomes RESULTS/DATASET/report/KEY.html (rule report_pages)."""
    extra = ("implementation",) if VARIANTS else ()
    table_captions = {"runtime": "runtime_table", "implementation": "implementation_table",
                      "ties": "ties_table", "libraries": "libraries_table"}
    figure_titles = {"figure1": "Figure 1", "figure2": "Figure 2", "runtime": "Training time",
                     "implementation": "Implementation variants"}
    pages = {"claims": dict(source="claims.md", caption="claims", category="Claims",
                            title="Claims of the paper checked on this run")}
    for t in TABLES + ("audit", "runtime") + extra + EXTENDED_TABLES:
        pages[f"table_{t}"] = dict(source=f"tables/{t}.tsv", caption=table_captions.get(t, t),
                                   category="Tables", title=f"Table {t}")
    for f in FIGURES + extra:
        pages[f"figure_{f}"] = dict(source=f"figures/{f}.png", caption=f, category="Figures",
                                    title=figure_titles[f])
    if EXTENSIONS["ties"]:
        for a in ALGORITHMS:
            pages[f"figure_ties_{a}"] = dict(source=f"figures/ties/{a}.png", caption="ties",
                                             category="Figures", title=f"Tie orders: {a}")
    if EXTENSIONS["libraries"]:
        pages["figure_libraries"] = dict(source="figures/libraries.png", caption="libraries",
                                         category="Figures", title="Today's libraries")
    return pages


def _study_pages():
    """The report pages of results over all datasets (rule study_report_pages)."""
    pages = {}
    if EXTENSIONS["winning"]:
        pages = {"table_winning": dict(source="tables/winning.tsv", caption="winning_table",
                                       category="Tables", title="Table winning"),
                 "figure_winning": dict(source="figures/winning.png", caption="winning",
                                        category="Figures", title="Winning numbers")}
    if EXTENSIONS["libraries"]:
        for t in ("library_winning", "library_flips"):
            pages[f"table_{t}"] = dict(source=f"tables/{t}.tsv", caption=t, category="Tables",
                                       title=f"Table {t}")
    return pages


REPORT_PAGES = _report_pages()
STUDY_PAGES = _study_pages()


def _rst(text):
    """``text`` with reStructuredText markup characters escaped (captions are rst)."""
    return re.sub(r"([\\`*_|@<>\[\]])", r"\\\1", str(text))


def caption_facts():
    """What the captions (workflow/report/*.rst, Jinja) say about this configuration."""
    from ltrconv.rankers.registry import display_name as name

    names = lambda items: [_rst(name(a)) for a in items]  # noqa: E731
    return dict(
        cutoffs=_rst(CUTOFFS),
        train_cutoff=TRAIN_CUTOFF,
        train_conventions=names(TRAIN_CONVENTIONS),
        official=_rst(OFFICIAL),
        figure1_algorithms=names(FIGURE1_ALGORITHMS),
        figure1_eval_conventions=names(FIGURE1_EVAL_CONVENTIONS),
        figure2_algorithms=names(BASE_ALGORITHMS),
        figure2_eval_conventions=names(FIGURE2_EVAL_CONVENTIONS),
        variants=[_rst(f"{v} ({name(VARIANTS[v]['of'])}: {variant_label(v)})") for v in VARIANTS],
        seeds=[str(s) for s in SEEDS],
        random_algorithms=names(a for a in BASE_ALGORITHMS if is_random(a)),
        deterministic_algorithms=names(a for a in BASE_ALGORITHMS if not is_random(a)),
        few_scores=names(FEW_SCORES),
        datasets=[_rst(d) for d in DATASETS],
        folds=[str(f) for f in FOLDS],
        reference=_rst(REFERENCE_CONVENTION),
        library_eval_conventions=[_rst(c) for c in LIBRARY_EVAL_CONVENTIONS],
        library_train_conventions=[_rst(c) for c in LIBRARY_TRAIN_CONVENTIONS],
        library_trained_algorithms=names(a for a in BASE_ALGORITHMS
                                         if set(train_conventions(a)) & set(LIBRARY_TRAIN_CONVENTIONS)),
    )


def claims_extra_inputs(dataset):
    """Inputs of claims.md beyond the paper's tables, as configured."""
    out = {}
    if VARIANTS:
        out["implementation"] = f"{RESULTS}/{dataset}/tables/implementation.tsv"
    if MULTI_SEED:
        out["seed_ttests"] = f"{RESULTS}/{dataset}/tables/seed_ttests.tsv"
    if EXTENSIONS["audit"]:
        out["per_query"] = f"{RESULTS}/{dataset}/per_query.parquet"
    if EXTENSIONS["winning"]:
        out["winning"] = f"{RESULTS}/{STUDY}/tables/winning.tsv"
    if EXTENSIONS["libraries"]:
        out |= {t: f"{RESULTS}/{dataset}/tables/{t}.tsv" for t in LIBRARY_TABLES}
        out |= {t: f"{RESULTS}/{STUDY}/tables/{t}.tsv" for t in ("library_winning", "library_flips")}
    return out


def all_targets():
    out = []
    for d in DATASETS:
        out += _model_files(d, "models", ".pkl")
        out += [f"{RESULTS}/{d}/{page['source']}" for page in REPORT_PAGES.values()]
        out += [f"{RESULTS}/{d}/report/{key}.html" for key in REPORT_PAGES]
        out += [f"{RESULTS}/{d}/figures/{f}.pdf" for f in FIGURES]
        if VARIANTS:
            out.append(f"{RESULTS}/{d}/figures/implementation.pdf")
        if EXTENSIONS["ties"]:
            out += [f"{RESULTS}/{d}/figures/ties/{a}.pdf" for a in ALGORITHMS]
        if EXTENSIONS["libraries"]:
            out.append(f"{RESULTS}/{d}/figures/libraries.pdf")
    out += [f"{RESULTS}/{STUDY}/{page['source']}" for page in STUDY_PAGES.values()]
    out += [f"{RESULTS}/{STUDY}/report/{key}.html" for key in STUDY_PAGES]
    if EXTENSIONS["winning"]:
        out.append(f"{RESULTS}/{STUDY}/figures/winning.pdf")
    return out


def _made_here(damage):
    """Whether the configured workflow makes ``damage.path`` by the recorded job: its rule,
    wildcard values and output pattern are still configured (not a leftover of another
    configuration, which is left alone)."""
    wc = damage.wildcards
    configured = {"dataset": DATASETS, "algorithm": ALGORITHMS,
                  "train_convention": ALL_TRAIN_CONVENTIONS}
    if any(key in wc and wc[key] not in values for key, values in configured.items()):
        return False
    if ("train_convention" in wc and "algorithm" in wc
            and wc["train_convention"] not in train_conventions(wc["algorithm"])):
        return False
    if "seed" in wc and not (SEED_DIR and int(wc["seed"]) in model_seeds(wc["algorithm"])):
        return False
    try:
        return damage.path in {str(p).format(**wc) for p in getattr(rules, damage.rule).output}
    except (AttributeError, KeyError, IndexError, ValueError):
        return False


def remake_damaged_outputs():
    """Remove each output whose bytes are no longer those its job recorded
    (workflow/scripts/output_records.py), so that Snakemake makes it again as it makes a
    missing output: a truncated model or table is redone instead of being taken as done. A dry
    run only says which. Outputs the configured workflow does not make are left alone; only the
    main Snakemake process checks. Called once every rule is defined."""
    from snakemake.logging import logger

    if not workflow.is_main_process:
        return
    dry_run = workflow.output_settings.dryrun
    for d in output_records.damaged(LOGS):
        if not _made_here(d):
            continue
        if not dry_run:
            os.remove(d.path)
        done = "a run removes it and" if dry_run else "removed:"
        logger.warning(f"{d.path}: {d.why}; {done} rule {d.rule} makes it again")
