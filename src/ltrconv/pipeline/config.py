"""The workflow's configuration before it becomes a plan: merging files, the schema's errors as
one line per config key, the schema's defaults.

Snakemake merges ``--configfile`` files on top of ``configfile:`` (mappings key by key, any
other value replaced: :func:`merge`), then common.smk checks the result against
workflow/schemas/config.schema.yaml and fills in its defaults, as :func:`schema_errors` and
:func:`fill_defaults` do here without Snakemake."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import jsonschema
import yaml

from ltrconv.errors import LtrconvError

SCHEMA = Path("workflow") / "schemas" / "config.schema.yaml"  # relative to the checkout


class ConfigError(LtrconvError):
    """A configuration the workflow refuses: one line naming the config key."""


# JSON Schema counts 1.0 as an integer; a fold, seed or count written 1.0 would then become
# part of a path ("Fold1.0") or a float where a count is meant.
_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)),
)


def load_schema(repo: str | Path) -> dict:
    """The workflow's config schema from checkout ``repo`` (a key given twice refused)."""
    return load_file(Path(repo) / SCHEMA)


def load_file(path: str | Path) -> dict:
    """A YAML (or JSON) config file as ``yaml.safe_load`` reads it, the way Snakemake reads
    ``--configfile``, but a mapping that gives a key twice is a :class:`ConfigError` naming
    the file, the key and both lines: ``safe_load`` (and Snakemake) keep the last value
    silently."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the config file: "
                          f"{getattr(exc, 'strerror', None) or exc}") from None
    check_keys_once(text, str(path))
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {' '.join(str(exc).split())}") from None


def check_files(paths) -> None:
    """Refuse a key given twice in any of the config files ``paths`` (Snakemake's
    ``workflow.configfiles``), as :func:`load_file` does; files Snakemake could not read are
    left to its own message."""
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        check_keys_once(text, str(path))


_MERGE = "tag:yaml.org,2002:merge"


def check_keys_once(text: str, name: str) -> None:
    """Raise :class:`ConfigError` at the first mapping of the YAML ``text`` (the file
    ``name``) that repeats a key: ``config key 'a.b': given twice (lines 3 and 7)``. Keys
    merged in with ``<<`` may be overridden, as YAML intends; text that is not YAML is left
    to the reader."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return
    todo, seen = [(root, "")], set()
    while todo:
        node, where = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            todo += [(item, f"{where}.{i}" if where else str(i))
                     for i, item in enumerate(node.value)]
        elif isinstance(node, yaml.MappingNode):
            first: dict = {}
            for key, value in node.value:
                if key.tag == _MERGE:
                    continue
                label = key.value if isinstance(key, yaml.ScalarNode) else "?"
                path = f"{where}.{label}" if where else str(label)
                ident = (key.tag, key.value) if isinstance(key, yaml.ScalarNode) else id(key)
                if ident in first:
                    raise ConfigError(f"{name}:{key.start_mark.line + 1}: config key "
                                      f"'{path}' is given twice (first on line {first[ident]}); "
                                      "each key may appear once")
                first[ident] = key.start_mark.line + 1
                todo.append((value, path))


def merge(base: dict, *overlays: dict) -> dict:
    """``base`` with each of ``overlays`` merged on top as Snakemake merges config files:
    mappings key by key, every other value (lists among them) replaced."""
    out = copy.deepcopy(base)
    for overlay in overlays:
        _merge_into(out, overlay)
    return out


def _merge_into(target: dict, overlay: dict) -> None:
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge_into(target[key], value)
        else:
            target[key] = copy.deepcopy(value)


def schema_errors(cfg: dict, schema: dict) -> list[str]:
    """One line per schema violation, naming the config key and what it should be; a number
    that is not finite (YAML's .nan, .inf) is one anywhere: JSON Schema's bounds let nan
    through, as every comparison with it is false."""
    lines = [f"config key '{key}': {value} is not a finite number"
             for key, value in _non_finite(cfg, "")]
    errors = [e for err in _Validator(schema).iter_errors(cfg) for e in _alternative(err)]
    for err in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        key = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        desc = err.schema.get("description") if isinstance(err.schema, dict) else None
        lines.append(f"config key '{key}': {err.message}" + (f" -- {desc}" if desc else ""))
    return lines


def _alternative(err) -> list:
    """A value that fits none of a ``oneOf``'s forms: the errors of the form of its own type
    (a list of folds holding 1.0: "folds.0: 1.0 is not of type 'integer'"), else ``err``
    itself ("is not valid under any of the given schemas", the description saying which)."""
    if err.validator != "oneOf" or not err.context:
        return [err]
    checker = _Validator.TYPE_CHECKER
    for i, form in enumerate(err.validator_value):
        kind = form.get("type") if isinstance(form, dict) else None
        if isinstance(kind, str) and checker.is_type(err.instance, kind):
            return [e for e in err.context if e.relative_schema_path[0] == i] or [err]
    return [err]


def _non_finite(value, key: str):
    """(key, value) of every float in ``value`` that is nan or infinite."""
    if isinstance(value, float) and not math.isfinite(value):
        yield key or "(top level)", value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _non_finite(v, f"{key}.{k}" if key else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _non_finite(v, f"{key}.{i}")


def _set_defaults(validator, properties, instance, schema):
    if isinstance(instance, dict):
        for name, sub in properties.items():
            if isinstance(sub, dict) and "default" in sub:
                instance.setdefault(name, copy.deepcopy(sub["default"]))
    yield from jsonschema.Draft202012Validator.VALIDATORS["properties"](
        validator, properties, instance, schema)


_Filler = jsonschema.validators.extend(_Validator, {"properties": _set_defaults})


def fill_defaults(cfg: dict, schema: dict) -> dict:
    """``cfg`` with the schema's defaults filled in where a key is absent, at every level the
    validation reaches (as ``snakemake.utils.validate`` does); :class:`ConfigError` listing the
    schema's errors when it has any."""
    errors = schema_errors(cfg, schema)
    if errors:
        raise ConfigError("Invalid configuration:\n  " + "\n  ".join(errors))
    out = copy.deepcopy(cfg)
    for _ in _Filler(schema).iter_errors(out):
        pass
    return out

