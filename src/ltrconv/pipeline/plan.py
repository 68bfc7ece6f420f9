"""The workflow's configuration as one frozen plan: what runs, with what, where.

:func:`build_plan` takes the merged configuration (schema-checked, defaults filled: see
:mod:`ltrconv.pipeline.config`), checks it once (:mod:`ltrconv.pipeline.checks`) and returns a
:class:`Plan`: the enabled datasets, folds and seeds, each algorithm and variant with its
ranker, parameters, training conventions, seeds and units, the evaluation conventions, the
extensions, the directories and the resource settings. workflow/rules/common.smk builds it
once; the rule files read it; the tests build it from plain dicts, without Snakemake.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from ltrconv.pipeline import checks
from ltrconv.pipeline.checks import STUDY
from ltrconv.pipeline.config import ConfigError

__all__ = ["AlgorithmPlan", "ConfigError", "DatasetPlan", "Plan", "build_plan"]


@dataclass(frozen=True)
class DatasetPlan:
    """An enabled dataset: its config entry, label scale, width, rows (config's
    ``resources.rows``, else ``expect.rows``; None when it gives neither), size over the
    measured dataset's (rows x features; 1 without rows or measured figures), its rows over the
    measured dataset's (which scale the study's jobs), and whether its training is scattered
    (config key scatter)."""

    name: str
    spec: dict = field(repr=False)
    labels: tuple[int, ...]
    n_features: int | None
    rows: int | None
    scale: float
    scattered: bool
    rows_scale: float = 1.0


@dataclass(frozen=True)
class AlgorithmPlan:
    """A study algorithm: a registered algorithm under ``algorithms``, or a variant of one.
    ``base`` is itself or the variant's base, ``ranker`` the registered ranker it runs,
    ``params`` the ranker's keyword arguments (a variant's on top of those of its base it
    takes), ``seeds`` those it is trained with (every seed when its fit is random, else the
    first), ``units`` the independent units of one fit (0: a fit in one piece)."""

    name: str
    base: str
    ranker: str
    params: dict = field(repr=False)
    train_conventions: tuple[str, ...]
    random: bool
    seeds: tuple[int, ...]
    units: int
    variant: dict | None = field(default=None, repr=False)

    @property
    def is_variant(self) -> bool:
        return self.variant is not None

    @property
    def label(self) -> str | None:
        """What a variant changes (its ``label``, else its ranker and parameters)."""
        if self.variant is None:
            return None
        spec = self.variant
        ranker = ([f"ranker={spec['ranker']}"]
                  if spec.get("ranker") not in (None, spec["of"]) else [])
        return spec.get("label") or ", ".join(
            ranker + [f"{k}={v}" for k, v in (spec.get("params") or {}).items()])


@dataclass(frozen=True)
class Plan:
    """Everything the rules read from the configuration, checked."""

    config: dict = field(repr=False)
    results: str
    resources: str
    logs: str
    datasets: dict[str, DatasetPlan]
    folds: tuple[int, ...]
    seeds: tuple[int, ...]
    algorithms: dict[str, AlgorithmPlan]
    train_conventions: tuple[str, ...]
    eval_conventions: tuple[str, ...]
    cutoffs: str
    train_cutoff: int
    official: str
    figure1_algorithms: tuple[str, ...]
    figure1_eval_conventions: tuple[str, ...]
    figure2_eval_conventions: tuple[str, ...]
    extensions: dict
    conventions_file: str | None
    conventions_sha256: str | None

    # --- algorithms ---------------------------------------------------------------------------
    @property
    def base_algorithms(self) -> list[str]:
        return [a for a, p in self.algorithms.items() if not p.is_variant]

    @property
    def variants(self) -> list[str]:
        return [a for a, p in self.algorithms.items() if p.is_variant]

    @property
    def variant_bases(self) -> dict[str, str]:
        """Variant -> its base algorithm."""
        return {v: self.algorithms[v].base for v in self.variants}

    @property
    def variant_labels(self) -> dict[str, str]:
        return {v: self.algorithms[v].label for v in self.variants}

    @property
    def other_rankers(self) -> dict[str, str]:
        """The variants that run another ranker than their base's, each with that ranker."""
        return {v: p.ranker for v, p in self.algorithms.items()
                if p.is_variant and p.ranker != p.base}

    @property
    def all_train_conventions(self) -> list[str]:
        """Every training convention of some algorithm, train_conventions first."""
        return list(dict.fromkeys(list(self.train_conventions) + [
            t for p in self.algorithms.values() for t in p.train_conventions]))

    def _by_conventions(self, algorithms: list[str]) -> list[tuple[str, list[str], list[str]]]:
        """``algorithms`` grouped by their list of training conventions, as (name suffix,
        algorithms, training conventions): "" for those trained with train_conventions, then
        "_ALGORITHM" for each with a list of its own (the outputs of a Snakemake rule are one
        list for all its jobs, so each list of conventions is a rule of its own)."""
        common = list(self.train_conventions)
        own = [a for a in algorithms if list(self.algorithms[a].train_conventions) != common]
        same = [a for a in algorithms if a not in own]
        return ([("", same, common)] if same else []) + [
            (f"_{a}", [a], list(self.algorithms[a].train_conventions)) for a in own]

    @property
    def evaluate_rules(self) -> list[tuple[str, list[str], list[str]]]:
        """The evaluate rules as (name, algorithms, training conventions): ``evaluate`` for the
        algorithms trained with train_conventions, ``evaluate_ALGORITHM`` for one with a list of
        its own."""
        return [("evaluate" + suffix, algorithms, conventions)
                for suffix, algorithms, conventions in self._by_conventions(list(self.algorithms))]

    @property
    def shared_training(self) -> list[str]:
        """The algorithms trained once for all their training conventions: the registry's
        ``selection`` rankers (the NDCG only picks among what training makes, so each
        convention's model is selected from one training), when they have more than one."""
        from ltrconv.rankers import registry

        return [a for a, p in self.algorithms.items() if len(p.train_conventions) > 1
                and registry.get(p.ranker).convention == registry.SELECTION]

    @property
    def shared_train_rules(self) -> list[tuple[str, list[str], list[str]]]:
        """The rules of shared training as (name suffix, algorithms, training conventions), one
        per list of training conventions (:meth:`_by_conventions`)."""
        return self._by_conventions(self.shared_training)

    @property
    def few_scores(self) -> list[str]:
        """The trained algorithms whose scores take few distinct values (registry order)."""
        from ltrconv.rankers import registry

        return [a for a in registry.ORDER
                if registry.get(a).few_scores and a in self.base_algorithms]

    # --- seeds and datasets -------------------------------------------------------------------
    @property
    def seed_dir(self) -> str:
        """Paths carry the seed (.../seed{seed}/fold{fold}) unless the only seed is 0, every
        random ranker's default random_state: then the paper's run keeps its paths, job params
        and models."""
        return "" if self.seeds == (0,) else "seed{seed}/"

    @property
    def multi_seed(self) -> bool:
        return len(self.seeds) > 1

    @property
    def scattered(self) -> list[str]:
        return [d for d, p in self.datasets.items() if p.scattered]

    @property
    def grouped(self) -> list[str]:
        return [d for d, p in self.datasets.items() if not p.scattered]

    @property
    def unit_algorithms(self) -> list[str]:
        return [a for a, p in self.algorithms.items() if p.units]

    @property
    def whole_algorithms(self) -> list[str]:
        return [a for a, p in self.algorithms.items() if not p.units]

    @property
    def apart_algorithms(self) -> list[str]:
        """The algorithms trained once per training convention (not :attr:`shared_training`)."""
        shared = self.shared_training
        return [a for a in self.algorithms if a not in shared]

    @property
    def train_threads(self) -> int:
        """The threads of a training job (config resources.train.threads); a fit_unit job runs
        on one."""
        return self.config["resources"]["train"]["threads"]

    def fit_threads(self, algorithm: str) -> int:
        """The threads of ``algorithm``'s training jobs that fit whole folds: config
        resources.train_threads of it, else of its base when its ranker runs in threads too,
        else :attr:`train_threads`. Its ranker's thread parameter is set to them
        (workflow/scripts/fit.py)."""
        from ltrconv.pipeline.job import thread_params

        by_algorithm = self.config["resources"]["train_threads"]
        p = self.algorithms[algorithm]
        inherited = by_algorithm.get(p.base) if thread_params(p.ranker) else None
        return by_algorithm.get(algorithm, inherited or self.train_threads)

    # --- extensions ---------------------------------------------------------------------------
    @property
    def library_eval_conventions(self) -> list[str]:
        """The library conventions evaluated (registry order)."""
        from ltrconv.evaluation.libraries import LIBRARIES

        return [c for c in LIBRARIES if c in self.eval_conventions]

    @property
    def library_train_conventions(self) -> list[str]:
        """The library conventions some algorithm is trained with (registry order)."""
        from ltrconv.evaluation.libraries import LIBRARIES

        return [c for c in LIBRARIES if c in self.all_train_conventions]

    @property
    def reference(self) -> str:
        """The evaluation convention winning numbers, the audit's predictions and today's
        libraries are set against (:func:`reference_convention`)."""
        return reference_convention()

    # --- outputs ------------------------------------------------------------------------------
    @property
    def figures(self) -> list:
        """The figures of each dataset this plan makes (:class:`~ltrconv.pipeline.figures
        .Figure`), in the order of :data:`ltrconv.pipeline.figures.FIGURES`."""
        from ltrconv.pipeline import figures

        return [f for f in figures.FIGURES if f.when(self)]

    def train_params(self, algorithm: str, seed) -> dict:
        """The ranker's keyword arguments for one job: the algorithm's ``params`` plus
        ``random_state`` = the job's seed when the paths carry seeds and the fit is random."""
        p = self.algorithms[algorithm]
        params = dict(p.params)
        if self.seed_dir and p.random:
            params["random_state"] = int(seed)
        return params


def tie_conventions() -> tuple[str, ...]:
    """The tie conventions the ties table and figures read: worst-first, expected, best-first,
    input."""
    from ltrconv.study import tie_ranges

    return (tie_ranges.PESS, tie_ranges.AVG, tie_ranges.OPT, tie_ranges.INPUT)


def reference_convention() -> str:
    """The evaluation convention winning numbers and the audit's predictions are set against."""
    from ltrconv.study.paper.busa_fekete_2012 import Setting

    return Setting.reference


class _Errors:
    """Every refusal of one configuration, collected: a dry run names them all at once."""

    def __init__(self):
        self.lines: list[str] = []

    def __call__(self, check, *args) -> bool:
        """Run ``check(*args)``; False (and the refusal kept) when it refuses."""
        try:
            check(*args)
        except ConfigError as exc:
            self.lines.append(str(exc))
            return False
        return True

    def add(self, line: str) -> None:
        self.lines.append(line)

    def raise_any(self) -> None:
        # a variant inherits its base's hyperparameters: the base's refusal, found again while
        # the variant is checked, is said once
        self.lines = list(dict.fromkeys(self.lines))
        if len(self.lines) == 1:
            raise ConfigError(self.lines[0])
        if self.lines:
            raise ConfigError(f"{len(self.lines)} configuration errors:\n  "
                              + "\n  ".join(self.lines))


def _check(cfg: dict) -> tuple[list[str], list[str], dict]:
    """Every check of ``cfg``, once, every refusal reported together (a check that needs what
    an earlier one refused is left out); the enabled datasets, algorithms and variants."""
    from ltrconv.data.conventions_file import load_conventions
    from ltrconv.errors import LtrconvError
    from ltrconv.evaluation.libraries import LIBRARIES
    from ltrconv.rankers import registry

    err = _Errors()
    for key in ("results_dir", "resources_dir", "logs_dir"):
        err(checks.check_directory, key, cfg[key])
    for name, spec in cfg["datasets"].items():
        err(checks.check_dataset, name, spec)
    try:
        cset = load_conventions(cfg["conventions_file"])
    except LtrconvError as exc:
        cset = None
        err.add(f"config key 'conventions_file': {exc}")
    known = set(cset.names()) if cset is not None else None
    conventions_ok = known is not None and all(
        [err(checks.check_known, key, cfg[key], known)
         for key in ("train_conventions", "eval_conventions")])
    datasets = [d for d, spec in cfg["datasets"].items() if spec["enabled"]]
    if not datasets:
        err.add("config key 'datasets': no dataset has enabled: true")
    for d in datasets:
        if conventions_ok:
            for key in ("train_conventions", "eval_conventions"):
                for conv in cfg[key]:
                    err(checks.check_gain, key, cset.get(conv), d, cfg["datasets"][d]["labels"])
        n = cfg["datasets"][d]["layout"]["n_folds"]
        bad = [k for k in cfg["folds"] if k > n] if cfg["folds"] != "all" else []
        if bad:
            err.add(f"config key 'folds': fold(s) {bad} exceed datasets.{d}.layout.n_folds = {n}")
    n_folds = {d: cfg["datasets"][d]["layout"]["n_folds"] for d in datasets}
    if cfg["folds"] == "all" and len(set(n_folds.values())) > 1:
        err.add("config key 'folds': 'all' runs every fold of each enabled dataset, but their "
                "layouts differ (" + ", ".join(f"datasets.{d}.layout.n_folds = {n}"
                                               for d, n in n_folds.items())
                + "): name the folds to run in each (e.g. folds: [1]) or run them apart")
    for a in cfg["algorithms"]:
        if a not in registry.REGISTRY:
            err.add(f"config key 'algorithms.{a}': unknown algorithm; known: "
                    f"{', '.join(registry.ORDER)}")
    algos = [a for a, p in cfg["algorithms"].items() if p is not None and a in registry.REGISTRY]
    if not [a for a, p in cfg["algorithms"].items() if p is not None]:
        err.add("config key 'algorithms': every algorithm is disabled (null)")
    variants = {v: spec for v, spec in cfg["variants"].items() if spec is not None}
    named = {v: spec for v, spec in variants.items() if err(checks.check_variant_name, cfg, v, spec)}
    for a in algos:
        err(checks.check_params, a, cfg["algorithms"][a], f"algorithms.{a}")
    for v, spec in named.items():
        err(checks.check_variant, cfg, v, spec)
    # random_state of a ranker that draws nothing is refused by its own parameter check above
    for key, ranker, params in [(f"algorithms.{a}", a, cfg["algorithms"][a]) for a in algos] + [
            (f"variants.{v}.params", checks.variant_ranker(spec), spec.get("params") or {})
            for v, spec in named.items()]:
        if "random_state" in params and ranker in registry.REGISTRY \
                and registry.get(ranker).randomness:
            err.add(f"config key '{key}.random_state': the seed of every random algorithm is "
                    "set by config key 'seeds'")
    enabled, official = algos + list(named), cfg["figures"]["official_convention"]
    for a, names in cfg["train_conventions_by_algorithm"].items():
        key = f"train_conventions_by_algorithm.{a}"
        if a not in enabled:
            err.add(f"config key '{key}': {a!r} is not an enabled algorithm or variant; "
                    f"enabled: {', '.join(enabled)}")
            continue
        for name in names:
            if known is None or not err(checks.check_known, key, [name], known):
                continue
            for d in datasets:
                err(checks.check_gain, key, cset.get(name), d, cfg["datasets"][d]["labels"])
            ranker = checks.variant_ranker(named[a]) if a in named else a
            err(checks.check_objective, ranker, cset.get(name), key)
        if official not in names:
            err.add(f"config key '{key}': must hold figures.official_convention {official!r}")
    for a in cfg["resources"]["train_threads"]:
        spec = cfg["variants"].get(a)
        err(checks.check_threads, a, list(registry.ORDER) + list(cfg["variants"]),
            checks.variant_ranker(spec) if spec and a not in registry.REGISTRY else a)
    err(checks.check_extensions, cfg, tie_conventions(), reference_convention(), LIBRARIES)
    err(checks.check_figures, cfg)
    err.raise_any()
    return datasets, algos, variants


def _dataset(cfg: dict, name: str) -> DatasetPlan:
    spec = cfg["datasets"][name]
    rows = spec["resources"].get("rows") or spec["expect"].get("rows")
    measured = cfg["resources"].get("measured")
    scale = rows_scale = 1.0
    if measured and rows:
        ref = measured["reference"]
        features = spec.get("n_features") or ref["features"]
        scale = rows * features / (ref["rows"] * ref["features"])
        rows_scale = rows / ref["rows"]
    mode = cfg["scatter"]["mode"]
    scattered = mode == "always" or (mode == "auto" and rows is not None
                                     and rows >= cfg["scatter"]["min_rows"])
    return DatasetPlan(name, spec, tuple(spec["labels"]), spec.get("n_features"), rows, scale,
                       scattered, rows_scale)


def _algorithm(cfg: dict, name: str, variant: dict | None) -> AlgorithmPlan:
    from ltrconv import rankers
    from ltrconv.rankers import registry

    if variant is None:
        base, ranker, params = name, name, dict(cfg["algorithms"][name] or {})
    else:
        base, ranker = variant["of"], checks.variant_ranker(variant)
        params = {**checks.inherited_params(cfg, variant), **(variant.get("params") or {})}
    seeds = tuple(cfg["seeds"])
    random = registry.is_random(ranker, params)
    own = cfg["train_conventions_by_algorithm"].get(name)
    return AlgorithmPlan(
        name=name, base=base, ranker=ranker, params=params,
        train_conventions=tuple(own if own is not None else cfg["train_conventions"]),
        random=random, seeds=seeds if random else seeds[:1],
        units=rankers.unit_count(ranker, params), variant=variant)


def _folds(cfg: dict, datasets: list[str]) -> tuple[int, ...]:
    """The folds to run (config key folds): the list given, or with "all" every fold of the
    enabled datasets' layout (:func:`_check` made sure they have as many)."""
    if cfg["folds"] == "all":
        return tuple(range(1, cfg["datasets"][datasets[0]]["layout"]["n_folds"] + 1))
    return tuple(sorted(cfg["folds"]))


def build_plan(cfg: dict) -> Plan:
    """The plan of ``cfg``, a configuration the schema accepted with its defaults filled in;
    :class:`ConfigError` (one line naming the config key) when a check fails."""
    datasets, algos, variants = _check(cfg)
    algorithms = {a: _algorithm(cfg, a, None) for a in algos}
    algorithms.update({v: _algorithm(cfg, v, spec) for v, spec in variants.items()})
    conv_file = cfg["conventions_file"]
    # Digest of the conventions file: a param of every rule whose results depend on the
    # definitions, so that editing the file reruns them (moving the file changes nothing).
    sha = hashlib.sha256(Path(conv_file).read_bytes()).hexdigest() if conv_file else None
    fig = cfg["figures"]
    return Plan(
        config=cfg,
        results=cfg["results_dir"].rstrip("/"),
        resources=cfg["resources_dir"].rstrip("/"),
        logs=cfg["logs_dir"].rstrip("/"),
        datasets={d: _dataset(cfg, d) for d in datasets},
        folds=_folds(cfg, datasets),
        seeds=tuple(cfg["seeds"]),
        algorithms=algorithms,
        train_conventions=tuple(cfg["train_conventions"]),
        eval_conventions=tuple(cfg["eval_conventions"]),
        cutoffs=cfg["cutoffs"],
        train_cutoff=cfg["train_cutoff"],
        official=fig["official_convention"],
        figure1_algorithms=tuple(a for a in fig["figure1_algorithms"] if a in algorithms),
        figure1_eval_conventions=tuple(fig["figure1_eval_conventions"]),
        figure2_eval_conventions=tuple(fig["figure2_eval_conventions"]),
        extensions=dict(cfg["extensions"]),
        conventions_file=conv_file,
        conventions_sha256=sha,
    )


__all__ += ["STUDY"]
