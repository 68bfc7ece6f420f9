"""First fit on a fresh install: numba compile time, with and without ``python -m ltrconv.warmup``.

For each ranker, on one MQ2008 fold, wall time of ``ltrconv train`` (a fresh process each):

* ``cold``: the first fit with an empty numba cache (a fresh clone right after ``pip install``);
* ``after warmup``: the first fit after ``python -m ltrconv.warmup`` filled an empty cache;
* ``later``: a second fit with the same cache;
* ``jar``: RankLib 2.x's training run of the same ranker on the same fold (``--jar``).

Each numba cache is a fresh directory (``NUMBA_CACHE_DIR``), so the figures do not depend on
what earlier runs left in ``__pycache__``. Medians over ``--repeats`` runs, all in one run::

    python benchmarks/bench_first_fit.py --data MQ2008 --jar RankLib.jar
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RANKLIB_IDS = {"adarank": 3, "rankboost": 2, "lambdamart": 6, "coordinate_ascent": 4,
               "ranknet": 1}


def _timed(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr[-2000:]}")
    return time.perf_counter() - t0


def _train(algorithm: str, fold: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "ltrconv.cli", "train", "--algorithm", algorithm,
            "--train", str(fold / "train.txt"), "--vali", str(fold / "vali.txt"), "--out", str(out)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="MQ2008 directory (Fold1..Fold5)")
    ap.add_argument("--fold", type=int, default=1)
    ap.add_argument("--jar", help="RankLib 2.x jar, to time its training run beside ours")
    ap.add_argument("--algorithms", default="adarank,rankboost,lambdamart")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    fold = Path(args.data) / f"Fold{args.fold}"
    algorithms = [a for a in args.algorithms.split(",") if a]
    base = dict(os.environ, OMP_WAIT_POLICY=os.environ.get("OMP_WAIT_POLICY", "passive"))
    rows = {a: {"cold": [], "after warmup": [], "later": [], "jar": []} for a in algorithms}
    warmups = []
    with tempfile.TemporaryDirectory(prefix="ltrconv-first-fit-") as tmp:
        tmp = Path(tmp)
        for r in range(args.repeats):
            for a in algorithms:
                cache = tmp / f"cold-{r}-{a}"
                env = dict(base, NUMBA_CACHE_DIR=str(cache))
                rows[a]["cold"].append(_timed(_train(a, fold, tmp / "m"), env))
                rows[a]["later"].append(_timed(_train(a, fold, tmp / "m"), env))
            cache = tmp / f"warm-{r}"
            env = dict(base, NUMBA_CACHE_DIR=str(cache))
            warmups.append(_timed([sys.executable, "-m", "ltrconv.warmup", *algorithms], env))
            for a in algorithms:
                rows[a]["after warmup"].append(_timed(_train(a, fold, tmp / "m"), env))
            if args.jar:
                for a in algorithms:
                    if a in RANKLIB_IDS:
                        rows[a]["jar"].append(_timed(
                            ["java", "-jar", args.jar, "-train", str(fold / "train.txt"),
                             "-validate", str(fold / "vali.txt"), "-ranker", str(RANKLIB_IDS[a]),
                             "-metric2t", "NDCG@10", "-save", str(tmp / "jar.model")], base))
    cols = ["cold", "after warmup", "later", "jar"]
    print(f"MQ2008 Fold{args.fold}, wall s, median of {args.repeats} "
          f"(warmup of {', '.join(algorithms)}: {statistics.median(warmups):.1f} s)")
    print("| ranker | " + " | ".join(cols) + " | after warmup / jar |")
    print("|---|" + "---|" * (len(cols) + 1))
    for a in algorithms:
        med = {c: statistics.median(v) if v else None for c, v in rows[a].items()}
        cells = [f"{med[c]:.2f}" if med[c] is not None else "" for c in cols]
        ratio = f"{med['after warmup'] / med['jar']:.2f}" if med["jar"] else ""
        print(f"| {a} | " + " | ".join(cells) + f" | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
