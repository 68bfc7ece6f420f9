"""The locked environment of the reproduction, written from the installed one.

    python scripts/lock.py           # rewrite requirements/lock.txt and environment-lock.yml
    python scripts/lock.py --check   # exit 1, naming each package, where they differ from here

Both files pin every package that ltrconv's runtime dependencies and its ``test`` and ``docs``
extras reach (pyproject.toml's requirements, followed through each installed package's own
requirements) to the version installed in this Python. The README's commands install with
them as pip constraints (``pip install -c requirements/lock.txt -e ".[test,docs]"``);
environment-lock.yml gives conda the same Python and the same wheels from PyPI (conda-forge's
builds of numpy and scipy link other BLAS libraries, whose last bits may differ).

Refreshing the lock is a decision: run it in an environment that has the new versions, then
run ``python scripts/ci_reference.py`` and ``ltrconv check-reference`` on a full run; if any
reference byte moved, commit the re-blessed reference/ (and its provenance.json) with the lock.
pyproject.toml keeps its lower bounds: ``pip install ltrconv`` is not locked.
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ltrconv.study.provenance import closure, project_requirements  # noqa: E402

LOCK = REPO / "requirements" / "lock.txt"
CONDA_LOCK = REPO / "environment-lock.yml"
EXTRAS = ("test", "docs")
"""The extras locked with the runtime dependencies: what the README's test command installs.
The torch, notebook and slurm extras are left out (torch's CPU build comes from PyTorch's own
index; the others are not part of the tests)."""


def locked() -> tuple[dict[str, str], list[str]]:
    """(name -> installed version, names required but not installed) of the locked closure."""
    return closure(project_requirements(REPO, EXTRAS))


def python_version() -> str:
    return platform.python_version()


def pip_text(pins: dict[str, str], python: str) -> str:
    head = [
        "# The locked environment of the reproduction: every package ltrconv's runtime",
        f"# dependencies and its {' and '.join(EXTRAS)} extras reach, at the versions installed",
        f"# when reference/ was last checked (Python {python}, {platform.system()} "
        f"{platform.machine()}).",
        '#   pip install -c requirements/lock.txt -e ".[test,docs]"',
        "# Written by python scripts/lock.py from the installed environment; do not edit.",
    ]
    return "\n".join(head + [f"{n}=={v}" for n, v in pins.items()]) + "\n"


def conda_text(pins: dict[str, str], python: str) -> str:
    lines = [
        "# requirements/lock.txt for conda: the same Python and the same PyPI wheels",
        "# (conda-forge's numpy and scipy link other BLAS builds). Written by",
        "# python scripts/lock.py; do not edit.",
        "#   conda env create -f environment-lock.yml",
        "name: ltrconv-lock",
        "channels:",
        "  - conda-forge",
        "dependencies:",
        f"  - python={python}",
        "  - pip",
        "  - pip:",
    ]
    lines += [f"      - {n}=={v}" for n, v in pins.items()]
    lines.append("      - -e .")
    return "\n".join(lines) + "\n"


def read_lock(path: Path | None = None) -> dict[str, str]:
    """name -> version of a pip lock file's ``name==version`` lines (default: the lock)."""
    out = {}
    for line in (path or LOCK).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[name] = version
    return out


def lock_python(path: Path | None = None) -> str:
    """The Python version environment-lock.yml (default) pins."""
    path = path or CONDA_LOCK
    for line in path.read_text().splitlines():
        if line.strip().startswith("- python="):
            return line.split("=", 1)[1].strip()
    raise ValueError(f"{path}: no python= line")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="compare the lock files with the installed versions; write nothing")
    args = parser.parse_args(argv)
    pins, missing = locked()
    if missing:
        print(f"lock.py: required but not installed: {', '.join(missing)}; install "
              f'pip install -e ".[{",".join(EXTRAS)}]" first', file=sys.stderr)
        return 1
    python = python_version()
    if args.check:
        have = read_lock() if LOCK.is_file() else {}
        diffs = [f"{n}: locked {have.get(n, 'absent')}, installed {pins.get(n, 'absent')}"
                 for n in sorted(set(have) | set(pins)) if have.get(n) != pins.get(n)]
        if CONDA_LOCK.is_file() and lock_python() != python:
            diffs.append(f"python: locked {lock_python()}, installed {python}")
        print("\n".join(diffs) if diffs else
              f"the lock equals this environment ({len(pins)} packages, Python {python})")
        return 1 if diffs else 0
    from ltrconv.outputs import atomic_path

    LOCK.parent.mkdir(exist_ok=True)
    for path, text in ((LOCK, pip_text(pins, python)), (CONDA_LOCK, conda_text(pins, python))):
        with atomic_path(path) as tmp:
            tmp.write_text(text)
    print(f"{LOCK.relative_to(REPO)}, {CONDA_LOCK.relative_to(REPO)}: {len(pins)} packages, "
          f"Python {python}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
