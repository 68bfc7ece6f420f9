"""What each job wrote: size, modification time and SHA-256 of its outputs, beside its log.

A job writes ``LOG_STEM.outputs.json`` next to its log file once its outputs are complete
(:mod:`ltrconv.pipeline.job`); when the workflow starts, :mod:`ltrconv.pipeline.repair` reads
every record under logs_dir, and the job of an output whose bytes no longer match is redone. A
file whose size and modification time are those recorded is taken as intact without being read
again.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

SUFFIX = ".outputs.json"


def record_path(log: str | Path) -> Path:
    """The record of the job that logs to ``log``."""
    log = Path(log)
    return log.with_name(log.stem + SUFFIX)


def sha256_file(path: str | Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def write(log: str | Path, rule: str, wildcards: dict, outputs) -> Path:
    """Record ``outputs`` (paths) of the job of ``rule`` with ``wildcards``."""
    entries = []
    for path in map(str, outputs):
        st = os.stat(path)
        entries.append(dict(path=path, bytes=st.st_size, mtime_ns=st.st_mtime_ns,
                            sha256=sha256_file(path)))
    target = record_path(log)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(dict(rule=rule, wildcards=dict(wildcards), outputs=entries),
                              indent=1) + "\n")
    os.replace(tmp, target)
    return target


def forget(log: str | Path) -> None:
    """Remove the record of the job that logs to ``log`` (the job is about to rewrite it)."""
    record_path(log).unlink(missing_ok=True)


@dataclass(frozen=True)
class Damage:
    """An output that differs from its record: its job's ``rule`` and ``wildcards``."""

    path: str
    rule: str
    wildcards: dict
    why: str


def _why(entry: dict) -> str | None:
    """How the file of ``entry`` differs from it, None when it does not (or is gone)."""
    try:
        st = os.stat(entry["path"])
    except FileNotFoundError:
        return None  # a missing output is Snakemake's to notice
    if st.st_size != entry["bytes"]:
        return f"{st.st_size} bytes where its job wrote {entry['bytes']}"
    if st.st_mtime_ns != entry["mtime_ns"] and sha256_file(entry["path"]) != entry["sha256"]:
        return "its SHA-256 differs from the one its job recorded"
    return None


def damaged(logs_dir: str | Path) -> list[Damage]:
    """Every recorded output under ``logs_dir``'s records whose bytes changed since."""
    found = []
    for record in sorted(Path(logs_dir).rglob("*" + SUFFIX)):
        try:
            data = json.loads(record.read_text())
            entries = [(e["path"], e) for e in data["outputs"]]
            rule, wildcards = data["rule"], data["wildcards"]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a record cut short says nothing: its outputs go unchecked
        for path, entry in entries:
            why = _why(entry)
            if why:
                found.append(Damage(path, rule, wildcards, why))
    return found
