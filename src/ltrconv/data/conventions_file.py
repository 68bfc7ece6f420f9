"""Conventions files: YAML ``{conventions: {NAME: {key: value}}}`` read into a
:class:`~ltrconv.evaluation.convention_set.ConventionSet` (the built-in conventions plus the
file's)."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError, printable
from ..evaluation.convention_set import BUILTINS, ConventionError, ConventionSet
from .fileio import check_regular, decode

MAX_BYTES = 1 << 20
"""Largest conventions file read (about 25,000 one-line definitions): PyYAML's nodes take over
100 bytes per byte of text (a 3.8 MB file of 100,000 definitions held 510 MB and was still
being read after three minutes), so a larger file is refused by its size before it is parsed."""


def load_conventions(path: str | Path | None, base: ConventionSet = BUILTINS) -> ConventionSet:
    """``base`` (default: the built-in conventions) with the conventions of the YAML file
    ``path`` added, in order (a later one may name an earlier one as ``base``); ``base`` itself
    when no file is given (None or ""). The one reader of conventions files: the command line
    (``--conventions-file``), the plan and the pipeline's jobs (config key
    ``conventions_file``) and the Python API call it.

    Any problem is one :class:`~ltrconv.evaluation.conventions.ConventionError` line naming the
    file (and the line for YAML syntax errors). Nothing else changes: ``base`` and the built-in
    conventions are the same after, whether the file loads or not."""
    if not path:
        return base
    import yaml

    from ..evaluation import safe_yaml

    path = Path(path)
    name = printable(path)
    try:
        check_regular(path)  # a FIFO would block, /dev/zero would fill the memory
    except InputError as exc:
        raise ConventionError(f"{name}: cannot read conventions: "
                              f"{str(exc).removeprefix(name + ': ')}") from None
    size = os.stat(path).st_size
    if size > MAX_BYTES:
        raise ConventionError(f"{name}: cannot read conventions: {size:,} bytes, more than "
                              f"the {MAX_BYTES:,} a conventions file may have")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConventionError(f"{name}: cannot read conventions: {exc.strerror or exc}") from None
    try:
        text = decode(raw, path)
    except InputError as exc:  # not UTF-8, or a NUL byte: the message names the line
        where = f"{name}:{exc.line}"
        raise ConventionError(f"{where}: cannot read conventions: "
                              f"{str(exc).removeprefix(where + ': ')}") from None
    try:
        doc = safe_yaml.load(text)
    except yaml.YAMLError as exc:
        raise ConventionError(f"{_yaml_where(name, exc)}: not valid YAML: "
                              f"{safe_yaml.reason(exc)}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("conventions"), dict):
        raise ConventionError(f"{name}: expected a mapping with key 'conventions'")
    return base.define(doc["conventions"], where=name)


def _yaml_where(path: str, exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return f"{path}:{mark.line + 1}" if mark is not None else str(path)
