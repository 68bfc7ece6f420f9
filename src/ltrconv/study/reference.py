"""A run's results against a committed reference result, byte for byte.

The compared files are those the reference holds: ``claims.md``, ``tables/*.tsv`` and the
figures (``figures/**/*.png`` and ``*.pdf``, written without dates or version metadata so that
equal figures are equal files). Files named ``runtime.*`` hold wall times, which no two runs
share, and are left out; extra files in the results are ignored, and so is ``provenance.json``,
which records what made them (:mod:`ltrconv.study.provenance`).

When both directories hold a provenance record, :func:`explain` says what the two runs' records
disagree on and, for each differing file, which of those differences can move it:
:data:`DEPENDENCE` is what each output is known to depend on.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections import Counter
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


# --- why files differ -------------------------------------------------------------------------
@dataclass(frozen=True)
class Dependence:
    """Outputs (``files``: patterns relative to a dataset's results, ``*`` crossing ``/``; with
    ``rows``, only text lines holding it) and the provenance keys that can move their bytes
    (``keys``: a :class:`~ltrconv.study.provenance.Change` key, or a prefix ending in ``.``),
    with the reason."""

    outputs: str
    files: tuple[str, ...]
    keys: tuple[str, ...]
    why: str
    rows: str | None = None

    def matches(self, change_key: str) -> bool:
        return any(change_key == k or (k.endswith(".") and change_key.startswith(k))
                   for k in self.keys)


_NUMBERS = ("ltrconv.commit", "ltrconv.dirty", "data", "config.sha256", "seeds", "python.version",
            "packages.numpy", "packages.scipy", "packages.numba", "packages.llvmlite",
            "packages.scikit-learn", "packages.lightgbm", "packages.pandas", "packages.pyarrow",
            "blas", "platform.machine")

DEPENDENCE: tuple[Dependence, ...] = (
    Dependence("sklearn-ignore-ties rows", ("tables/*.tsv", "claims.md"),
               ("packages.numpy", "packages.scikit-learn", "numpy_simd", "cpu"),
               "scikit-learn's ndcg_score(ignore_ties=True) ranks tied scores in the order "
               "numpy's unstable argsort leaves them, and numpy picks its sort by the vector "
               "instructions of the CPU (its SIMD sorts on AVX2 and AVX-512)",
               rows="sklearn-ignore-ties"),
    Dependence("outputs drawn across the library conventions",
               ("tables/library_spread.tsv", "tables/library_flips.tsv",
                "tables/library_winning.tsv", "tables/winning.tsv", "figures/libraries*",
                "figures/winning*"),
               ("packages.numpy", "packages.scikit-learn", "numpy_simd", "cpu"),
               "their rows and points combine every library convention's values, the "
               "sklearn-ignore-ties rows among them"),
    Dependence("figures (PNG)", ("figures/*.png",),
               ("packages.matplotlib", "packages.pillow", "packages.kiwisolver",
                "packages.contourpy", "matplotlib.freetype", "matplotlib.fonts"),
               "matplotlib lays them out (kiwisolver), rasterises the text with FreeType and its "
               "font files, and pillow encodes the PNG"),
    Dependence("figures (PDF)", ("figures/*.pdf",),
               ("packages.matplotlib", "packages.fonttools", "matplotlib.fonts"),
               "matplotlib's PDF backend embeds font subsets made by fontTools"),
    Dependence("tables and claims.md", ("tables/*.tsv", "claims.md"), ("packages.pandas",),
               "pandas formats the numbers they print"),
    Dependence("every number", ("*",), _NUMBERS,
               "the models and their scores follow ltrconv's code, the data, the configuration "
               "and the seeds, and the arithmetic of numpy, scipy, numba (compiled by llvmlite), "
               "the BLAS kernel chosen for the CPU, scikit-learn and LightGBM"),
    Dependence("wall times", tuple(f"*{t}.*" for t in TIMINGS), ("cpu",),
               "they time the run on its machine (not compared)"),
)
"""What each output is known to depend on, most specific first: the one table
:func:`explain` reads."""


def _changed_lines(a: bytes, b: bytes) -> list[str]:
    """The lines of ``a`` and ``b`` that the other lacks (as many times as they are missing)."""
    ca = Counter(a.decode("utf-8", "replace").split("\n"))
    cb = Counter(b.decode("utf-8", "replace").split("\n"))
    return list(((ca - cb) + (cb - ca)).elements())


@dataclass(frozen=True)
class Reason:
    """A known dependence of one differing file, and the recorded changes that touch it."""

    dependence: Dependence
    changes: tuple
    only_rows: bool = False


def reasons(name: str, mine: bytes | None, theirs: bytes | None, changes) -> list[Reason]:
    """The dependences of :data:`DEPENDENCE` that apply to the file ``name`` (relative to the
    results), each with the ``changes`` (:class:`~ltrconv.study.provenance.Change`) it can be
    moved by. A dependence on ``rows`` applies when every line that differs holds them
    (``only_rows``); it is then the only one given."""
    lines = (_changed_lines(mine, theirs)
             if mine is not None and theirs is not None and name.endswith((".md", ".tsv"))
             else None)
    out = []
    for dep in DEPENDENCE:
        if not any(fnmatch.fnmatch(name, pattern) for pattern in dep.files):
            continue
        if dep.rows is not None:
            if not lines or not all(dep.rows in line for line in lines):
                continue
            return [Reason(dep, tuple(c for c in changes if dep.matches(c.key)), True)]
        out.append(Reason(dep, tuple(c for c in changes if dep.matches(c.key))))
    return out


def provenance_changes(results: str | Path, reference: str | Path):
    """(changes, note): what the two directories' provenance records disagree on (a list of
    :class:`~ltrconv.study.provenance.Change`), or None and why there is nothing to compare."""
    from . import provenance

    paths = [Path(results) / provenance.FILE, Path(reference) / provenance.FILE]
    absent = [printable(p) for p in paths if not p.is_file()]
    if absent:
        return None, f"no provenance record at {' and '.join(absent)}"
    mine, theirs = (provenance.read(p) for p in paths)
    return provenance.changes(mine, theirs), theirs.get("note")


def explain(difference: Difference, results: str | Path, reference: str | Path,
            changes) -> tuple[list[str], list[Dependence]]:
    """Why ``difference`` may be: lines of text naming the recorded changes that can move the
    file, or saying that none recorded can (a change in something not recorded: the code when
    the commits agree, a library of the machine); and the dependences named, whose reasons
    the caller gives once."""
    def read(path: Path) -> bytes | None:
        return path.read_bytes() if not _not_regular(path) and path.is_file() else None

    mine = read(Path(results) / difference.name)
    theirs = read(Path(reference) / difference.name)
    found = reasons(difference.name, mine, theirs, changes or [])
    if not found:
        return [], []
    lines = []
    if found[0].only_rows:
        lines.append(f"every differing line is a {found[0].dependence.outputs[:-5]} row")
    if changes is None:
        return lines + ["depends on: " + "; ".join(
            f"{', '.join(r.dependence.keys)} ({r.dependence.outputs})" for r in found)], \
            [r.dependence for r in found]
    moved = [r for r in found if r.changes]
    for r in moved:
        lines.append(f"may follow ({r.dependence.outputs}): "
                     + "; ".join(c.text() for c in r.changes))
    if not moved:
        lines.append("no recorded difference explains it; equal in both records: "
                     + "; ".join(f"{', '.join(r.dependence.keys)} ({r.dependence.outputs})"
                                 for r in found))
    return lines, [r.dependence for r in (moved or found)]
