"""Coordinate Ascent and RankNet beside RankLib 2.x as distributions: seed-to-seed spread.

RankLib 2.x draws Coordinate Ascent's feature orders and RankNet's initial weights from an
unseeded ``java.util.Random``, so its models cannot be matched one for one. Per fold this fits
ours with every seed of ``--seeds`` (the paper protocol's parameters, trained and selected
with ``ndcg@10:ranklib``, test NDCG@10 under ``ranklib``) and runs the jar ``--runs`` times
with the fold's train, vali and test files (its own test NDCG@10, which is the ``ranklib``
convention, read from its log). Printed per fold: our mean, sd and min-max over seeds, each
RankLib run, and whether a RankLib run lies inside our seed range; over five folds: the
five-fold mean per seed and per RankLib run (run i of every fold), their mean, sd and range,
and the verdict whether the difference of the two means exceeds both the sd of our five-fold
mean over seeds and RankLib's run-to-run sd.

Variants: ``coordinate_ascent`` (``-ranker 4 -r 30 -i 100``; ours ``n_restarts=30,
n_steps=100``), ``ranknet`` (``-ranker 1``: RankLib's one hidden layer of 10 units, 100
epochs, learning rate 5e-5, best validation epoch kept) against ours with the paper's grid of
12 architectures, and against ours with the single ``[10]`` architecture run all 100 epochs
(``patience=100``), best validation epoch kept, as RankLib does. ``ranknet`` now trains as
RankLib's RankNet does, its seed that of RankLib's ``java.util.Random``, so the two spreads are
of one algorithm; ``bench_fidelity.py`` compares it with the seeded jar run for run.

Coordinate Ascent in RankLib takes about 260 s of CPU per fold (MQ2008, one core), so
``RECORDED`` holds one earlier RankLib run per fold, counted as a run unless ``--no-recorded``,
and ``--ranklib-folds`` limits the fresh runs to some folds (a five-fold mean per RankLib run
needs the run on every fold).

With ``--timing``, on fold ``--timing-fold`` only: our single ``[10]`` net, 100 epochs, end to end
(``ltrconv train`` + ``ltrconv predict``, fresh processes) beside the jar's RankNet
(``-save``, then ``-load -rank -score``), alternately, ``--repeats`` times each; median wall
and CPU seconds (CPU includes every thread, the JVM's compiler and collector among them); and
one end-to-end fit of the paper grid.

    python benchmarks/ranklib_spread.py --jar RankLib.jar --data MQ2008 [--folds 1-5]
        [--seeds 0,1,2] [--runs 3] [--ranklib-folds 1-5] [--algorithms coordinate_ascent,ranknet]
        [--no-recorded] [--timing] [--timing-fold 1] [--repeats 3]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_fidelity import HERE, ndcg10, timed

from ltrconv.data.letor import read_letor
from ltrconv.rankers import make

RANKLIB_ARGS = {"coordinate_ascent": ["-ranker", "4", "-r", "30", "-i", "100"],
                "ranknet": ["-ranker", "1"]}
ONE_NET = {"architectures": [[10]], "max_epochs": 100, "patience": 100}
VARIANTS = {  # algorithm -> [(label, our parameters)]
    "coordinate_ascent": [("paper protocol", {"n_restarts": 30, "n_steps": 100, "n_jobs": 1})],
    "ranknet": [("paper grid", {}), ("1x10, 100 epochs", ONE_NET)],
}
# One run of RankLib 2.x per fold, `-ranker 4 -r 30 -i 100 -metric2t NDCG@10` with the fold's
# validation file, test NDCG@10 as RankLib prints it (MQ2008 Fold1..Fold5).
RECORDED = {"coordinate_ascent": (0.4800, 0.4510, 0.4907, 0.5583, 0.5454)}
TEST_LINE = re.compile(r"NDCG@10 on test data:\s*([0-9.]+)")


def run_jar(jar: Path, fold: Path, algo: str, tmp: str) -> tuple[float, float]:
    """(test NDCG@10, CPU seconds) of one RankLib run."""
    tr, va, te = (str(fold / f"{s}.txt") for s in ("train", "vali", "test"))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(["java", "-jar", str(jar), "-train", tr, "-validate", va, "-test", te,
                           *RANKLIB_ARGS[algo], "-metric2t", "NDCG@10"], cwd=tmp, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    found = TEST_LINE.findall(done.stdout)  # RankLib logs to stderr
    if not found:
        raise SystemExit(f"ranklib_spread: no 'NDCG@10 on test data' line in RankLib's log "
                         f"of {fold} ({algo})")
    return float(found[-1]), (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def summary(xs) -> str:
    xs = list(xs)
    sd = statistics.stdev(xs) if len(xs) > 1 else float("nan")
    return f"{statistics.mean(xs):.4f} sd {sd:.4f} [{min(xs):.4f}, {max(xs):.4f}]"


def spread(args, folds: list[int]) -> None:
    cpu_ours = cpu_jar = 0.0
    for algo in [a.strip() for a in args.algorithms.split(",") if a.strip()]:
        ours = {label: {} for label, _ in VARIANTS[algo]}  # label -> fold -> [NDCG per seed]
        theirs = {}  # fold -> [NDCG per run]
        print(f"== {algo}: RankLib `{' '.join(RANKLIB_ARGS[algo])} -metric2t NDCG@10`", flush=True)
        for k in folds:
            tr, va, te = (read_letor(args.data / f"Fold{k}" / f"{s}.txt")
                          for s in ("train", "vali", "test"))
            for label, params in VARIANTS[algo]:
                vals = []
                for seed in args.seeds:
                    c0 = time.process_time()
                    model = make(algo, random_state=seed, **params).fit(
                        tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
                    cpu_ours += time.process_time() - c0
                    vals.append(ndcg10(te, model.predict(te.X)))
                ours[label][k] = vals
            runs = []
            if not args.no_recorded and algo in RECORDED:
                runs.append(RECORDED[algo][k - 1])
            with tempfile.TemporaryDirectory() as tmp:
                for _ in range(args.runs if k in args.ranklib_folds else 0):
                    v, c = run_jar(args.jar, args.data / f"Fold{k}", algo, tmp)
                    runs.append(v)
                    cpu_jar += c
            theirs[k] = runs
            for label, _ in VARIANTS[algo]:
                vals = ours[label][k]
                inside = sum(min(vals) <= r <= max(vals) for r in runs)
                print(f"Fold{k} ours ({label}) seeds {' '.join(f'{v:.4f}' for v in vals)}: "
                      f"{summary(vals)}; RankLib {' '.join(f'{r:.4f}' for r in runs)}; "
                      f"inside our range {inside}/{len(runs)}", flush=True)
        if len(folds) < 2:
            continue
        n_runs = min(len(r) for r in theirs.values())
        rl = [statistics.mean(theirs[k][i] for k in folds) for i in range(n_runs)]
        for label, _ in VARIANTS[algo]:
            per_seed = [statistics.mean(ours[label][k][j] for k in folds)
                        for j in range(len(args.seeds))]
            d = statistics.mean(rl) - statistics.mean(per_seed)
            sd_o = statistics.stdev(per_seed) if len(per_seed) > 1 else float("nan")
            sd_r = statistics.stdev(rl) if len(rl) > 1 else float("nan")
            inside = sum(min(per_seed) <= r <= max(per_seed) for r in rl)
            sds = [x for x in (sd_o, sd_r) if not math.isnan(x)]
            exceeds = bool(sds) and all(abs(d) > x for x in sds)
            print(f"{len(folds)}-fold ours ({label}) per seed "
                  f"{' '.join(f'{v:.4f}' for v in per_seed)}: {summary(per_seed)}; RankLib per "
                  f"run {' '.join(f'{v:.4f}' for v in rl)}: {summary(rl)}; RankLib inside our "
                  f"range {inside}/{len(rl)}; difference RankLib - ours {d:+.4f}: "
                  f"{'exceeds' if exceeds else 'within'} the spread (sd ours {sd_o:.4f}, "
                  f"sd RankLib {sd_r:.4f}{' (one five-fold run)' if math.isnan(sd_r) else ''})",
                  flush=True)
    print(f"CPU s: ours {cpu_ours:.0f}, RankLib {cpu_jar:.0f}", flush=True)


def timing(args) -> None:
    """RankNet end to end, ours (one [10] net, 100 epochs) beside the jar; module docstring."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parents[1] / "src")}
    fold = args.data / f"Fold{args.timing_fold}"
    tr, va, te = (str(fold / f"{s}.txt") for s in ("train", "vali", "test"))
    cli = [sys.executable, "-m", "ltrconv.cli"]

    def ours(tmp: Path, params: dict) -> tuple[float, float]:
        extra = [a for key, v in params.items() for a in ("--param", f"{key}={v}")]
        with open(tmp / "scores", "w") as out:
            a = timed([*cli, "train", "--algorithm", "ranknet", "--train", tr, "--vali", va,
                       "--out", str(tmp / "model"), *extra], env=env)
            b = timed([*cli, "predict", str(tmp / "model"), te], env=env, stdout=out)
        return a[0] + b[0], a[1] + b[1]

    def jar(tmp: Path) -> tuple[float, float]:
        a = timed(["java", "-jar", str(args.jar), "-train", tr, "-validate", va, "-test", te,
                   *RANKLIB_ARGS["ranknet"], "-metric2t", "NDCG@10", "-save",
                   str(tmp / "rl.model")], cwd=tmp)
        b = timed(["java", "-jar", str(args.jar), "-load", str(tmp / "rl.model"), "-rank", te,
                   "-score", str(tmp / "rl.scores")], cwd=tmp)
        return a[0] + b[0], a[1] + b[1]

    with tempfile.TemporaryDirectory() as t:
        tmp, o, j = Path(t), [], []
        for _ in range(args.repeats):
            o.append(ours(tmp, ONE_NET))
            j.append(jar(tmp))
        test = read_letor(te)
        got = (ndcg10(test, np.loadtxt(tmp / "scores")),
               ndcg10(test, np.loadtxt(tmp / "rl.scores", usecols=2)))
        grid = ours(tmp, {})
        got_grid = ndcg10(test, np.loadtxt(tmp / "scores"))
    (ow, oc), (jw, jc) = ([statistics.median(r[i] for r in runs) for i in (0, 1)]
                          for runs in (o, j))
    print(f"RankNet Fold{args.timing_fold} end to end (train + predict), median of "
          f"{args.repeats}, wall (CPU) s: ltrconv 1x10 100 epochs {ow:.2f} ({oc:.2f}); RankLib "
          f"jar 1x10 100 epochs {jw:.2f} ({jc:.2f}); ratio wall {ow / jw:.2f}, CPU {oc / jc:.2f}; "
          f"last runs' test NDCG@10 {got[0]:.4f} vs {got[1]:.4f}; ltrconv paper grid (one run) "
          f"{grid[0]:.2f} ({grid[1]:.2f}), test NDCG@10 {got_grid:.4f}", flush=True)


def span(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jar", type=Path, required=True, help="RankLib 2.x jar")
    ap.add_argument("--data", type=Path, required=True, help="MQ2008 folder (Fold1..Fold5)")
    ap.add_argument("--folds", default="1-5")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--runs", type=int, default=3, help="fresh RankLib runs per fold")
    ap.add_argument("--ranklib-folds", help="the folds with fresh RankLib runs (default --folds)")
    ap.add_argument("--algorithms", default="coordinate_ascent,ranknet")
    ap.add_argument("--no-recorded", action="store_true", help="leave RECORDED runs out")
    ap.add_argument("--timing", action="store_true", help="only the RankNet timing")
    ap.add_argument("--timing-fold", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    args.seeds = [int(s) for s in args.seeds.split(",")]
    if not (args.data / "Fold1" / "train.txt").exists():
        print(f"ranklib_spread: no MQ2008 folds under {args.data} (set --data)", file=sys.stderr)
        return 2
    if not args.jar.is_file():
        print(f"ranklib_spread: no RankLib jar at {args.jar}", file=sys.stderr)
        return 2
    if args.timing:
        timing(args)
        return 0
    folds = span(args.folds)
    args.ranklib_folds = span(args.ranklib_folds) if args.ranklib_folds else folds
    spread(args, folds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
