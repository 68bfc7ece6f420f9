"""What a result was made with, recorded beside it (``provenance.json``), and what two such
records disagree on.

A record holds the installed version of every package the study's dependencies reach
(``packages``, name -> version, names in PEP 503 normal form), ltrconv's version and the
checkout's commit (and whether tracked files were modified), Python, the CPU model, the vector
instructions numpy dispatches on (its SIMD sorts order tied scores by them), the BLAS the linear
algebra runs on, matplotlib's FreeType and font files (they draw the figures' pixels), and what
the pipeline adds: the data files' digests, the configuration's digest and the seeds.

:func:`environment` collects the machine's part; :func:`changes` lists what two records
disagree on, each change under the key :data:`ltrconv.study.reference.DEPENDENCE` names the
outputs it can move by.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import json
import platform
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .._version import __version__

FILE = "provenance.json"
"""The record's file name, in each dataset's results directory and beside each reference."""

FORMAT = 1
"""The record's layout version (``format``)."""


# --- packages ---------------------------------------------------------------------------------
def canonical(name: str) -> str:
    """A distribution name in PEP 503 normal form (``scikit_learn`` -> ``scikit-learn``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def project_requirements(repo: str | Path | None = None,
                         extras: tuple[str, ...] = ()) -> list[str]:
    """ltrconv's requirements (``extras`` included): from ``repo``'s pyproject.toml when it has
    one (a checkout), else from the installed distribution's metadata."""
    import tomllib

    pyproject = Path(repo) / "pyproject.toml" if repo is not None else None
    if pyproject is not None and pyproject.is_file():
        project = tomllib.loads(pyproject.read_text())["project"]
        optional = project.get("optional-dependencies", {})
        unknown = [e for e in extras if e not in optional]
        if unknown:
            raise ValueError(f"{pyproject}: no optional dependencies {unknown}; has "
                             f"{sorted(optional)}")
        return list(project["dependencies"]) + [r for e in extras for r in optional[e]]
    reqs = metadata.requires("ltrconv") or []
    return [r for r in reqs if "extra ==" not in r] + [
        r for r in reqs for e in extras if re.search(rf"extra\s*==\s*['\"]{e}['\"]", r)]


def closure(requirements: list[str]) -> tuple[dict[str, str], list[str]]:
    """(name -> installed version, names not installed) of ``requirements`` and everything
    they require, recursively; requirements whose environment markers exclude this machine
    (another platform, an extra not asked for) are left out."""
    from packaging.requirements import Requirement

    found: dict[str, str] = {}
    missing: list[str] = []
    seen: set = set()
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonical(req.name)
        if (name, frozenset(req.extras)) in seen:
            continue
        seen.add((name, frozenset(req.extras)))
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            missing.append(name)
            continue
        found[name] = dist.version
        for text in dist.requires or []:
            sub = Requirement(text)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e})
                                         for e in ("", *req.extras)):
                sub.marker = None
                todo.append(sub)
    return dict(sorted(found.items())), sorted(set(missing) - set(found))


# --- the machine ------------------------------------------------------------------------------
def cpu_model() -> str:
    """The CPU's model name (Linux: /proc/cpuinfo), else what the platform module says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Hardware", "cpu model"):
                return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def numpy_simd() -> dict:
    """The vector instructions numpy was built for (``baseline``), those it can dispatch to
    (``dispatch``), those of them this CPU has (``dispatched``: where its SIMD sorts and
    loops run) and every feature numpy detects on this CPU (``cpu_features``)."""
    try:
        from numpy._core import _multiarray_umath as um  # numpy >= 2
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as um
    features = dict(getattr(um, "__cpu_features__", {}))
    dispatch = list(getattr(um, "__cpu_dispatch__", []))
    return {"baseline": list(getattr(um, "__cpu_baseline__", [])),
            "dispatch": dispatch,
            "dispatched": [t for t in dispatch if features.get(t)],
            "cpu_features": sorted(k for k, v in features.items() if v)}


def blas() -> list[dict]:
    """The native thread pools numpy and scipy loaded (threadpoolctl): BLAS build, version and
    the CPU kernel it chose, which can change the last bits of a matrix product."""
    import numpy  # noqa: F401  (loads the BLAS threadpoolctl reports)
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    keep = ("user_api", "internal_api", "prefix", "version", "architecture", "threading_layer")
    return sorted(({k: p[k] for k in keep if p.get(k) is not None} for p in threadpool_info()),
                  key=lambda p: json.dumps(p, sort_keys=True))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def drawing() -> dict:
    """What turns a figure into pixels besides matplotlib's version: the FreeType it rasterises
    text with and the font files its default family resolves to (name and SHA-256)."""
    import matplotlib
    from matplotlib import font_manager, ft2font

    fonts = {}
    for family in matplotlib.rcParams["font.family"]:
        path = Path(font_manager.findfont(font_manager.FontProperties(family=[family])))
        fonts[family] = {"file": path.name, "sha256": _sha256(path)}
    return {"freetype": ft2font.__freetype_version__, "fonts": fonts,
            "backend": matplotlib.get_backend()}


def git_state(repo: str | Path | None) -> dict:
    """The checkout's commit and whether tracked files differ from it (``modified`` lists
    them); ``commit`` is None where ``repo`` is no git checkout or git is absent."""
    if repo is None:
        return {"commit": None, "dirty": None, "modified": []}

    def git(*args):
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              timeout=60)

    try:
        head = git("rev-parse", "HEAD")
        if head.returncode != 0:
            return {"commit": None, "dirty": None, "modified": []}
        status = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.TimeoutExpired):
        return {"commit": None, "dirty": None, "modified": []}
    modified = sorted(line[3:] for line in status.stdout.splitlines() if line.strip())
    return {"commit": head.stdout.strip(), "dirty": bool(modified), "modified": modified}


def checkout() -> Path | None:
    """The checkout this ltrconv is imported from (src/ltrconv in a git work tree), else None."""
    root = Path(__file__).resolve().parents[3]
    return root if (root / ".git").exists() and (root / "pyproject.toml").is_file() else None


def environment(repo: str | Path | None = None, extras: tuple[str, ...] = ()) -> dict:
    """This machine's part of a record: packages (the closure of ltrconv's requirements with
    ``extras``), ltrconv and the checkout ``repo`` (default: the one ltrconv is imported from),
    Python, platform, CPU, numpy's SIMD dispatch, BLAS, matplotlib's drawing."""
    repo = checkout() if repo is None else Path(repo)
    packages, missing = closure(project_requirements(repo, extras))
    return {
        "format": FORMAT,
        "packages": packages,
        **({"packages_missing": missing} if missing else {}),
        "ltrconv": {"version": __version__, **git_state(repo)},
        "python": {"version": platform.python_version(),
                   "implementation": platform.python_implementation(),
                   "build": " ".join(platform.python_build()), "compiler": platform.python_compiler()},
        "platform": {"system": platform.system(), "release": platform.release(),
                     "machine": platform.machine(), "libc": " ".join(platform.libc_ver()).strip()},
        "cpu": {"model": cpu_model()},
        "numpy_simd": numpy_simd(),
        "blas": blas(),
        "matplotlib": drawing(),
    }


def dump(record: dict) -> str:
    """The record's text: indented JSON, sorted keys."""
    return json.dumps(record, indent=2, sort_keys=True) + "\n"


def write(path: str | Path, record: dict) -> None:
    """``record`` as indented JSON with sorted keys, written atomically."""
    from ..outputs import atomic_path

    with atomic_path(path) as tmp:
        tmp.write_text(dump(record))


def read(path: str | Path) -> dict:
    """A record; :class:`~ltrconv.errors.InputError` naming the file when it is no record."""
    from ..errors import InputError, printable

    try:
        record = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{printable(path)}: not a provenance record ({exc})") from None
    if not isinstance(record, dict) or not isinstance(record.get("packages"), dict):
        raise InputError(f"{printable(path)}: not a provenance record (no 'packages' object)")
    return record


# --- two records ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Change:
    """One thing two records disagree on: ``key`` is what :data:`ltrconv.study.reference
    .DEPENDENCE` names (``packages.numpy``, ``numpy_simd``, ``cpu``, ...), ``mine`` and
    ``theirs`` the two values as text (``absent`` where a record lacks it)."""

    key: str
    what: str
    mine: str
    theirs: str

    def text(self) -> str:
        return f"{self.what}: {self.mine} here, {self.theirs} in the reference"


def _get(record: dict, dotted: str):
    value = record
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _show(value) -> str:
    if value is None:
        return "absent"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return str(value)


COMPARED = (
    ("ltrconv.commit", "ltrconv commit"),
    ("ltrconv.dirty", "checkout modified"),
    ("python.version", "Python"),
    ("platform.machine", "machine"),
    ("cpu.model", "CPU"),
    ("numpy_simd.dispatched", "numpy SIMD targets this CPU runs"),
    ("numpy_simd.baseline", "numpy's SIMD baseline"),
    ("blas", "BLAS"),
    ("matplotlib.freetype", "matplotlib's FreeType"),
    ("matplotlib.fonts", "matplotlib's fonts"),
    ("data", "data files"),
    ("config.sha256", "configuration digest"),
    ("seeds", "seeds"),
)
"""The fields compared besides ``packages``, as (dotted key, what it is)."""


def changes(mine: dict, theirs: dict) -> list[Change]:
    """What ``mine`` and ``theirs`` disagree on: each package whose version differs (or that one
    of them lacks), then each field of :data:`COMPARED` both records hold and disagree on."""
    out = []
    a, b = mine.get("packages", {}), theirs.get("packages", {})
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            out.append(Change(f"packages.{name}", name, a.get(name) or "not installed",
                              b.get(name) or "not installed"))
    for key, what in COMPARED:
        x, y = _get(mine, key), _get(theirs, key)
        if x is None or y is None or x == y:
            continue
        if key == "data" and isinstance(x, dict) and isinstance(y, dict):
            for f in sorted(set(x) | set(y)):
                if x.get(f) != y.get(f):
                    out.append(Change("data", f"data file {f}", _show(x.get(f)), _show(y.get(f))))
            continue
        out.append(Change(key.split(".")[0] if key.startswith(("numpy_simd", "cpu")) else key,
                          what, _show(x), _show(y)))
    return out


