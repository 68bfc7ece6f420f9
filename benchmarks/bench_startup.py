"""Start-up time of the command line, as a ratio to ``python -c "import numpy"``.

Each command runs N times in a fresh process (subprocess, wall clock, this checkout's ``src``
first on ``PYTHONPATH``); the commands take turns, so that load from other processes on a
shared machine falls on all of them alike. Printed: the median of each command and its ratio
to the median of ``python -c "import numpy"`` measured in the same run.

Targets: ``ltrconv eval FOLD/test.txt SCORES -c ranklib`` (MQ2008, one score per line) in
under 0.6 s wall and at most 3x the numpy import; importing ``ltrconv`` or ``ltrconv.cli``
loads none of scikit-learn, LightGBM, matplotlib, SciPy, pandas, Snakemake or numba.

With ``--numba`` it also reports what numba costs a process: ``import numba``, and the first
call of the evaluation kernel (``evaluate(..., engine="numba")``) and of the training metric
(``NDCGScorer``) on the fold, cold (an empty ``NUMBA_CACHE_DIR``: compiled) and warm (the
cache the cold run wrote: loaded), beside the numpy engine's run of the same evaluation.

    python benchmarks/bench_startup.py [--data DIR] [--fold 1] [--repeats 15] [--numba]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
SRC = HERE.parents[1] / "src"
DEFAULT_DATA = HERE.parents[2] / "shared" / "data" / "MQ2008"
HEAVY = ("sklearn", "lightgbm", "matplotlib", "scipy", "pandas", "snakemake", "numba")


def ltrconv_command() -> list[str]:
    """The installed console script when there is one, else ``python -m ltrconv.cli``."""
    script = Path(sysconfig.get_path("scripts")) / "ltrconv"
    return [str(script)] if script.exists() else [sys.executable, "-m", "ltrconv.cli"]


def environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(SRC)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])))
    env.update(extra)
    return env


def wall(cmd: list[str], env: dict[str, str]) -> float:
    """Seconds of one run; a failing command stops the benchmark with its stderr."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    return seconds


def loaded_heavy(module: str) -> list[str]:
    """Heavy packages that importing ``module`` loads, in a fresh interpreter."""
    code = (f"import sys, {module}; "
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], env=environment(), check=True,
                         capture_output=True, text=True).stdout
    return out.split()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--fold", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--numba", action="store_true", help="also time numba: import, cold, warm")
    args = ap.parse_args()
    test = args.data / f"Fold{args.fold}" / "test.txt"
    if not test.exists():
        sys.exit(f"{test} not found (--data DIR holding Fold1..Fold5)")
    py, cli = sys.executable, ltrconv_command()
    with tempfile.TemporaryDirectory() as tmp:
        n_docs = sum(1 for line in test.read_text().splitlines()
                     if line.strip() and not line.lstrip().startswith("#"))
        scores = Path(tmp) / "scores.txt"
        rng = np.random.default_rng(0)
        scores.write_text("".join(f"{s!r}\n" for s in rng.random(n_docs).round(3).tolist()))
        commands = {
            'python -c "import numpy"': [py, "-c", "import numpy"],
            'python -c "import ltrconv"': [py, "-c", "import ltrconv"],
            'python -c "import ltrconv.cli"': [py, "-c", "import ltrconv.cli"],
            "ltrconv --help": [*cli, "--help"],
            "ltrconv eval ... -c ranklib": [*cli, "eval", str(test), str(scores), "-c", "ranklib"],
            "ltrconv audit ...": [*cli, "audit", str(test)],
        }
        env = environment()
        for cmd in commands.values():  # warm the page cache and the bytecode caches
            wall(cmd, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeats):
            for name, cmd in commands.items():
                times[name].append(wall(cmd, env))
        base = statistics.median(times['python -c "import numpy"'])
        print(f"{test} ({n_docs} documents); console script: {cli[0]}")
        print(f"{'command':46s} {'median s':>9s} {'min s':>7s} {'x numpy':>8s}   "
              f"(medians of {args.repeats}, {os.cpu_count()} CPUs)")
        for name, ts in times.items():
            med = statistics.median(ts)
            print(f"{name:46s} {med:9.3f} {min(ts):7.3f} {med / base:8.2f}")
        ev = statistics.median(times["ltrconv eval ... -c ranklib"])
        print(f"target eval <= 3x numpy: {'met' if ev / base <= 3 else 'NOT met'} "
              f"({ev / base:.2f}x); eval < 0.6 s: {'met' if ev < 0.6 else 'NOT met'} ({ev:.3f} s, "
              f"with the numpy import at {base:.3f} s on this machine now)")
        for module in ("ltrconv", "ltrconv.cli"):
            heavy = loaded_heavy(module)
            print(f"import {module} loads: {', '.join(heavy) if heavy else 'none of ' + ', '.join(HEAVY)}")
        if args.numba:
            numba_costs(py, test, scores, args.repeats, base)


def numba_costs(py: str, test: Path, scores: Path, repeats: int, base: float) -> None:
    """``import numba``, and each kernel family's first call in a fresh process, with an empty
    cache (compiled) and with the cache that run wrote (loaded)."""
    setup = ("import numpy as np; from ltrconv.data.letor import read_letor, read_scores; "
             f"d = read_letor({str(test)!r}); s = read_scores({str(scores)!r}, d.n_docs); ")
    jobs = {
        "evaluate, numba kernel": setup + ("from ltrconv.evaluation.metrics import evaluate_dataset; "
                                           "evaluate_dataset(d, s, conventions=['ranklib'], "
                                           "engine='numba')"),
        "NDCGScorer (training metric)": setup + ("from ltrconv.evaluation.metrics import MetricSpec; "
                                                 "MetricSpec.parse('ndcg@10:ranklib')"
                                                 ".scorer(d.y, d.offsets).mean(s)"),
        "evaluate, numpy engine": setup + ("from ltrconv.evaluation.metrics import evaluate_dataset; "
                                           "evaluate_dataset(d, s, conventions=['ranklib'], "
                                           "engine='numpy')"),
    }
    print(f"\n{'numba, fresh process each':46s} {'median s':>9s} {'min s':>7s} {'x numpy':>8s}")
    with tempfile.TemporaryDirectory() as cache:
        env = environment(NUMBA_CACHE_DIR=cache)
        for name, code in jobs.items():
            if "numba" in name or "Scorer" in name:
                cold = wall([py, "-c", code], env)
                print(f"{name + ', cold cache':46s} {cold:9.3f} {cold:7.3f} {cold / base:8.2f}"
                      "   (one run: compiles)")
        timings: dict[str, list[float]] = {'python -c "import numba"': []}
        timings.update({f"{name}, warm cache" if "numpy" not in name else name: []
                        for name in jobs})
        for _ in range(repeats):
            timings['python -c "import numba"'].append(wall([py, "-c", "import numba"], env))
            for name, code in jobs.items():
                key = f"{name}, warm cache" if "numpy" not in name else name
                timings[key].append(wall([py, "-c", code], env))
    for name, ts in timings.items():
        med = statistics.median(ts)
        print(f"{name:46s} {med:9.3f} {min(ts):7.3f} {med / base:8.2f}")


if __name__ == "__main__":
    main()
