"""A run's results against a committed reference result, byte for byte.

The compared files are those the reference holds: ``claims.md``, ``tables/*.tsv`` and the
figures (``figures/**/*.png`` and ``*.pdf``, written without dates or version metadata so that
equal figures are equal files). Files named ``runtime.*`` hold wall times, which no two runs
share, and are left out; extra files in the results are ignored.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import LtrconvError, printable

TIMINGS = ("runtime",)
"""Stems of the machine-dependent outputs (wall times), left out of the comparison."""


def reference_files(reference: str | Path) -> list[Path]:
    """The files of ``reference`` a run must reproduce, in a fixed order."""
    reference = Path(reference)
    files = [reference / "claims.md"] if (reference / "claims.md").is_file() else []
    files += sorted((reference / "tables").glob("*.tsv"))
    files += sorted(f for f in (reference / "figures").rglob("*") if f.suffix in (".png", ".pdf"))
    return [f for f in files if f.stem not in TIMINGS]


def skipped_files(reference: str | Path) -> list[str]:
    """The reference's timing files, by relative path (not compared)."""
    reference = Path(reference)
    return sorted(f.relative_to(reference).as_posix() for f in reference.rglob("*")
                  if f.is_file() and f.stem in TIMINGS)


@dataclass(frozen=True)
class Difference:
    """One reference file the results do not reproduce; ``detail`` says how."""

    name: str
    detail: str


def _first_difference(a: bytes, b: bytes, text: bool) -> str:
    if text:
        la, lb = a.split(b"\n"), b.split(b"\n")
        for i, (x, y) in enumerate(zip(la, lb), start=1):
            if x != y:
                return f"line {i} differs"
        return f"{len(la)} lines against the reference's {len(lb)}"
    return f"{len(a):,} bytes against the reference's {len(b):,}" if len(a) != len(b) else \
        f"byte {next(i for i, (x, y) in enumerate(zip(a, b)) if x != y):,} differs"


def _not_regular(path: Path) -> str | None:
    """What ``path`` is when it exists but is no regular file (after links), else None: a FIFO
    or a device is never read, since reading it could block or never end."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return ("a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")


def compare(results: str | Path, reference: str | Path) -> tuple[list[str], list[Difference]]:
    """(names compared, differences) of ``results`` against ``reference``, names relative to
    the reference; a missing directory is an :class:`LtrconvError`."""
    results, reference = Path(results), Path(reference)
    for what, d in (("reference", reference), ("results", results)):
        if not d.is_dir():
            raise LtrconvError(f"{printable(d)}: no such directory (the {what} to compare)")
    names, differences = [], []
    for ref in reference_files(reference):
        name = ref.relative_to(reference).as_posix()
        kind = _not_regular(ref)
        if kind:
            raise LtrconvError(f"{printable(ref)}: is {kind}, not a reference file; not read")
        names.append(name)
        mine = results / name
        kind = _not_regular(mine)
        if kind:
            differences.append(Difference(name, f"is {kind} in the results; not read"))
            continue
        if not mine.is_file():
            differences.append(Difference(name, "missing from the results"))
            continue
        a, b = mine.read_bytes(), ref.read_bytes()
        if a != b:
            text = ref.suffix in (".md", ".tsv")
            differences.append(Difference(name, _first_difference(a, b, text)))
    if not names:
        raise LtrconvError(f"{printable(reference)}: holds no claims.md, tables or figures to "
                           "compare with")
    return names, differences
