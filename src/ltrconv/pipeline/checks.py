"""The checks of a configuration beyond its schema, each raising :class:`ConfigError` with one
line that names the config key. :func:`ltrconv.pipeline.plan.build_plan` runs them once, in
order, on a configuration the schema has accepted (defaults filled)."""

from __future__ import annotations

import os
import re
import string
from pathlib import Path

from ltrconv.pipeline.config import ConfigError

SPLITS = ("train", "vali", "test")
# A dataset name is a directory name under results_dir and resources_dir.
PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# Results over every dataset (winning numbers) live in RESULTS/STUDY, never a dataset's name.
STUDY = "study"


def check_params(algorithm: str, params: dict, key: str) -> None:
    """``params`` (config key ``key``) by :func:`ltrconv.rankers.check_params`, the check the
    command line's ``--param`` gets too: an unknown name is reported at ``key``, a bad value at
    ``key.name``."""
    from ltrconv import rankers

    try:
        rankers.check_params(algorithm, params)
    except rankers.ParamError as exc:
        if exc.param == "metric":
            raise ConfigError(f"config key '{key}.metric': the training metric is set by "
                              "train_conventions and train_cutoff, not per algorithm") from None
        where = key if exc.param is None or exc.unknown else f"{key}.{exc.param}"
        raise ConfigError(f"config key '{where}': {exc}") from None


def check_directory(key: str, value: str) -> None:
    """A directory the workflow writes under: not empty, not the filesystem root."""
    path = Path(os.path.abspath(value)) if value.strip() else None
    if path is None or path == path.parent:
        raise ConfigError(f"config key '{key}': {value!r} is "
                          f"{'empty' if path is None else 'the filesystem root'}; name a "
                          "directory of the workflow's own (relative to the working directory)")


def _relative_path_error(path: str) -> str | None:
    """Why ``path`` is not a relative path that stays inside its directory, or None."""
    if "\x00" in path:
        return "holds a NUL character, which no file name can"
    if path.startswith("/"):
        return "is an absolute path"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return "must name a file or directory inside its directory (no '..', '.' or empty part)"
    return None


def _template_error(template: str, placeholders) -> str | None:
    """Why ``template`` is not a str.format template of ``placeholders`` only, or None."""
    try:
        parsed = [p for p in string.Formatter().parse(template) if p[1] is not None]
    except ValueError as exc:
        return f"is not a template ({exc})"
    fields = {name for _, name, _, _ in parsed}
    odd = [(name, f"{{{name}{'!' + conv if conv else ''}{':' + spec if spec else ''}}}")
           for _, name, spec, conv in parsed if spec or conv]
    if odd:
        return (f"has {odd[0][1]!r}: a placeholder takes no conversion or format (write "
                f"{{{odd[0][0]}}})")
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


def check_dataset(name: str, spec: dict) -> None:
    """The dataset's name, layout templates, search templates, label scale and width."""
    from ltrconv.data.letor import MAX_FEATURES
    from ltrconv.evaluation.queries import MAX_LABEL

    key = f"datasets.{name}"
    if not PLAIN_NAME.fullmatch(name):
        raise ConfigError(f"config key '{key}': {name!r} is not a plain name (letters, digits, "
                          "'.', '_', '-', not starting with '.'): it names a directory")
    check_layout(key, spec["layout"])
    for i, value in enumerate(spec["search"]):
        why = _template_error(value, ("dataset",))
        if why:
            raise ConfigError(f"config key '{key}.search': entry {i} {value!r} {why}")
    if spec.get("n_features") is not None and spec["n_features"] > MAX_FEATURES:
        raise ConfigError(f"config key '{key}.n_features': {spec['n_features']} is above "
                          f"{MAX_FEATURES}, the most features the LETOR reader accepts")
    above = [lab for lab in spec["labels"] if lab > MAX_LABEL]
    if above:
        raise ConfigError(f"config key '{key}.labels': {above} above {MAX_LABEL}, the largest "
                          "label the evaluation accepts")


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def check_layout(key: str, layout: dict) -> None:
    """The fold directory (``"."``: the top of the copy) and the file names are relative
    templates of ``{k}``; each fold's files differ from one another, and from another fold's
    when there are several folds; ``vali`` may be None (drawn from the training file)."""
    parts = ("fold_dir",) + tuple(s for s in SPLITS if layout[s] is not None)
    for part in parts:
        value = layout[part]
        why = _template_error(value, ("k",))
        if why is None and not (part == "fold_dir" and value == "."):
            why = _relative_path_error(value.format(k=1))
        if why:
            raise ConfigError(f"config key '{key}.layout.{part}': {value!r} {why}")
    names = {s: layout[s].format(k=1) for s in parts[1:]}
    if len(set(names.values())) < len(names):
        raise ConfigError(f"config key '{key}.layout': the files of a fold must differ, "
                          f"got {names}")
    if layout["n_folds"] > 1 and "k" not in _fields(layout["fold_dir"]):
        fixed = [s for s in parts[1:] if "k" not in _fields(layout[s])]
        if fixed:
            raise ConfigError(
                f"config key '{key}.layout': fold_dir {layout['fold_dir']!r} has no {{k}}, so "
                f"with n_folds {layout['n_folds']} each file name needs {{k}} (the fold "
                f"number), or every fold reads the same file; {', '.join(fixed)} "
                f"({', '.join(repr(layout[s]) for s in fixed)}) lack it")


def check_known(key: str, names, known) -> None:
    """Every convention of ``names`` (config key ``key``) is defined."""
    for name in names:
        if name not in known:
            raise ConfigError(f"config key '{key}': unknown convention {name!r}; known: "
                              f"{', '.join(sorted(known))}")


def check_gain(key: str, convention, dataset: str, labels) -> None:
    """``convention`` (a Convention listed at config key ``key``) has a gain for each label of
    ``dataset``."""
    from ltrconv.errors import LtrconvError

    try:
        convention.gain_table(max(labels))
    except LtrconvError as exc:
        raise ConfigError(f"config key '{key}': {exc}, a label of datasets.{dataset}.labels "
                          f"{list(labels)}") from None


def check_objective(ranker: str, convention, key: str) -> None:
    """A ranker that optimises the training NDCG (AdaRank, Coordinate Ascent, LambdaMART) can
    take ``convention`` as its objective: the scorer's training arrays accept it."""
    import numpy as np

    from ltrconv.errors import LtrconvError
    from ltrconv.evaluation import NDCGScorer
    from ltrconv.rankers import registry

    if registry.get(ranker).convention != registry.OBJECTIVE:
        return
    try:
        NDCGScorer(np.array([1, 0]), np.array([0, 2]), convention, 1).arrays
    except LtrconvError as exc:
        raise ConfigError(f"config key '{key}': {ranker}: {exc}") from None


def check_threads(algorithm: str, known: list[str], ranker: str | None) -> None:
    """resources.train_threads names a registered algorithm or a variant (one disabled is let
    be, as a config that turns an algorithm off keeps its settings), whose ranker runs in
    threads (has a thread parameter)."""
    from ltrconv.pipeline.job import THREAD_PARAMS, thread_params
    from ltrconv.rankers import registry

    key = f"config key 'resources.train_threads.{algorithm}'"
    if algorithm not in known:
        raise ConfigError(f"{key}: {algorithm!r} is not an algorithm or variant; known: "
                          f"{', '.join(known)}")
    if ranker in registry.REGISTRY and not thread_params(ranker):
        raise ConfigError(f"{key}: {ranker} fits on one thread (it has no "
                          f"{' or '.join(THREAD_PARAMS)} parameter)")


def check_variant_name(cfg: dict, name: str, spec: dict) -> None:
    """A variant's name is its own and its base is an enabled registered algorithm."""
    from ltrconv.rankers import registry

    if name in cfg["algorithms"]:
        raise ConfigError(f"config key 'variants.{name}': the name is already under 'algorithms'")
    if name in registry.REGISTRY:
        raise ConfigError(f"config key 'variants.{name}': the name is a registered algorithm's")
    if spec["of"] not in registry.REGISTRY:
        raise ConfigError(f"config key 'variants.{name}.of': unknown algorithm {spec['of']!r}; "
                          f"known: {', '.join(registry.ORDER)}")
    if cfg["algorithms"].get(spec["of"], None) is None:
        raise ConfigError(f"config key 'variants.{name}.of': base algorithm {spec['of']!r} is "
                          "not enabled under 'algorithms'")


def variant_ranker(spec: dict) -> str:
    """The registered ranker a variant runs (config key variants.NAME.ranker, default its base)."""
    return spec.get("ranker") or spec["of"]


def inherited_params(cfg: dict, spec: dict) -> dict:
    """The base's hyperparameters (algorithms.BASE) a variant takes: every one for a variant of
    the base's own ranker, only those whose name the other ranker has otherwise."""
    from ltrconv import rankers

    base = dict(cfg["algorithms"][spec["of"]] or {})
    ranker = variant_ranker(spec)
    if ranker == spec["of"]:
        return base
    names = set(rankers.param_names(ranker))
    return {k: v for k, v in base.items() if k in names}


def check_variant(cfg: dict, name: str, spec: dict) -> None:
    """A variant's ranker is registered, it changes something, and its own parameters and the
    base's it takes are the ranker's."""
    from ltrconv.rankers import registry

    key = f"variants.{name}"
    ranker = variant_ranker(spec)
    if ranker not in registry.KNOWN:
        raise ConfigError(f"config key '{key}.ranker': unknown ranker {ranker!r}; known: "
                          f"{', '.join(sorted(registry.KNOWN))}")
    if ranker == spec["of"] and not spec.get("params"):
        raise ConfigError(f"config key '{key}.params': a variant that runs its base "
                          f"{spec['of']!r} needs parameters to change (or another ranker)")
    check_params(ranker, spec.get("params") or {}, f"{key}.params")
    check_params(ranker, inherited_params(cfg, spec), f"algorithms.{spec['of']}")


def check_extensions(cfg: dict, tie_conventions, reference: str, libraries) -> None:
    """What each extension needs among the evaluation conventions."""
    ext, evals = cfg["extensions"], cfg["eval_conventions"]
    if ext["ties"]:
        missing = [c for c in tie_conventions if c not in evals]
        if missing:
            raise ConfigError(f"config key 'extensions.ties': needs {missing} in eval_conventions")
    if STUDY in cfg["datasets"]:
        raise ConfigError(f"config key 'datasets.{STUDY}': the name is reserved for results over "
                          "every dataset")
    if (ext["winning"] or ext["audit"]) and reference not in evals:
        raise ConfigError(f"config key 'extensions': winning and audit need {reference} in "
                          "eval_conventions")
    if ext["libraries"]:
        if reference not in evals:
            raise ConfigError(f"config key 'extensions.libraries': needs {reference} in "
                              "eval_conventions")
        if not set(libraries) & set(evals):
            raise ConfigError("config key 'extensions.libraries': needs a library convention "
                              "(ltrconv conventions) in eval_conventions")


def check_figures(cfg: dict) -> None:
    """The cutoffs parse; the figures name configured algorithms and conventions."""
    from ltrconv.errors import LtrconvError
    from ltrconv.evaluation.metrics import parse_cutoffs

    try:
        parse_cutoffs(cfg["cutoffs"])
    except LtrconvError as exc:
        raise ConfigError(f"config key 'cutoffs': {exc}") from None
    fig = cfg["figures"]
    for a in fig["figure1_algorithms"]:
        if a not in cfg["algorithms"]:
            raise ConfigError(f"config key 'figures.figure1_algorithms': {a!r} is not under "
                              "'algorithms'")
        if cfg["algorithms"][a] is None:  # its panel would be left out without a word
            raise ConfigError(f"config key 'figures.figure1_algorithms': {a!r} is disabled "
                              f"(algorithms.{a}: null); enable it or leave it out of the list")
    for key in ("figure1_eval_conventions", "figure2_eval_conventions"):
        missing = [c for c in fig[key] if c not in cfg["eval_conventions"]]
        if missing:
            raise ConfigError(f"config key 'figures.{key}': {missing} not in eval_conventions")
    if fig["official_convention"] not in cfg["train_conventions"]:
        raise ConfigError("config key 'figures.official_convention': must be one of "
                          f"train_conventions {cfg['train_conventions']}")
