"""The CI comparison run: config/ci.yaml on MQ2008, and the outputs compared with reference/ci.

    python scripts/ci_reference.py [--mq2008 DIR]

runs the pipeline with config/ci.yaml (merged on top of config/config.yaml) in a temporary
directory, on 2 cores, and replaces reference/ci/ with the run's compared outputs: claims.md,
tables/*.tsv and figures/*.png, less the runtime table and figure (wall times), and the run's
provenance.json (what made them: packages, commit, CPU; not compared byte for byte). This
re-blesses the reference; commit reference/ci/ with the change that moved its numbers.
tests/test_ci_reference.py runs the same pipeline and compares the same files byte for byte.

MQ2008 is the copy the configuration finds (``datasets.MQ2008.search``, else its URLs), or DIR
(default: the LTRCONV_MQ2008_DIR environment variable, as for the tests).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "config" / "ci.yaml"
REFERENCE = REPO / "reference" / "ci"
DATASET = "MQ2008"
TIMINGS = ("runtime",)  # machine-dependent outputs, left out of the comparison
PROVENANCE = "provenance.json"  # copied beside the reference, not compared byte for byte


def compared(results: Path) -> list[str]:
    """Paths, relative to ``results`` (a dataset's results directory), of the compared outputs."""
    files = [results / "claims.md", *sorted((results / "tables").glob("*.tsv")),
             *sorted((results / "figures").glob("*.png"))]
    return [f.relative_to(results).as_posix() for f in files
            if f.exists() and f.stem not in TIMINGS]


def run(workdir: Path, mq2008: Path | None = None, timeout: float | None = None) -> Path:
    """Run config/ci.yaml in ``workdir`` (MQ2008 read from ``mq2008`` when given); returns the
    dataset's results directory. Raises RuntimeError with the end of Snakemake's log on failure."""
    import yaml

    workdir.mkdir(parents=True, exist_ok=True)
    configs = [str(CONFIG)]
    if mq2008 is not None:
        overlay = workdir / "mq2008.yaml"
        overlay.write_text(yaml.safe_dump({"datasets": {DATASET: {"local": str(mq2008)}}}))
        configs.append(str(overlay))
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory",
           str(workdir), "--cores", "2", "--configfile", *configs]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"snakemake failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    results_dir = yaml.safe_load(CONFIG.read_text())["results_dir"]
    return workdir / results_dir / DATASET


def bless(results: Path, reference: Path = REFERENCE) -> list[str]:
    """Replace ``reference`` with the compared outputs of ``results`` and its provenance record;
    returns the compared outputs' names."""
    names = compared(results)
    if not names:
        raise RuntimeError(f"no outputs under {results}")
    if not (results / PROVENANCE).is_file():
        raise RuntimeError(f"no {PROVENANCE} under {results}")
    if reference.exists():
        shutil.rmtree(reference)
    for name in names + [PROVENANCE]:
        (reference / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(results / name, reference / name)
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mq2008", type=Path, default=os.environ.get("LTRCONV_MQ2008_DIR") or None,
                        help="MQ2008 directory (Fold1..Fold5); default LTRCONV_MQ2008_DIR, else "
                             "where the configuration finds it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ltrconv-ci-") as tmp:
        try:
            results = run(Path(tmp), args.mq2008.resolve() if args.mq2008 else None)
        except RuntimeError as exc:
            print(f"ci_reference: {exc}", file=sys.stderr)
            return 1
        names = bless(results)
    print(f"{REFERENCE.relative_to(REPO)}: {len(names)} files written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
