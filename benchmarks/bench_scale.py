"""Scale of training and evaluation on MSLR-shaped synthetic data.

Training: each of the six rankers fitted at the given training sizes (documents; validation set
a quarter of that, drawn with another seed) on :func:`ltrconv.data.synthetic.make_mslr_like` data,
each fit in a fresh process (peak RSS is its own; ``data MB`` is its RSS once the data exist,
so ``peak - data`` is what the fit adds). Reported: wall and CPU seconds of ``fit``, peak
memory, the crucial pairs (``l_i > l_j`` within a query) of the training data, and the log-log
slopes of CPU time against documents and against pairs over the measured sizes (CPU time,
since wall time on a shared machine depends on the load; for the single-threaded rankers it is
the wall time on an idle core). Targets: time at
most linear-times-log in documents (pairwise rankers: linear in pairs), and a fold of
MSLR-WEB10K's size (720k training documents) in at most 15 min and 8 GB on 2 cores.

Parameters are each ranker's defaults, except where a default fit at scale would take hours and
say nothing more; there a cheaper variant is timed and the default's cost scaled from it:
Coordinate Ascent runs one restart (``n_restarts=1``, sweeps to convergence; the default's 30
restarts are independent, about 30 times the CPU over ``n_jobs`` threads) and one sweep
(``max_sweeps=1``, the unit of its work); RankSVM runs its default (Newton solver, 11 values
of C) and one value of C (``C_grid=[1.0]``, about a tenth of the default's time); LambdaMART also runs 100 trees (``n_estimators=100``, its unit; the default grows up to 1000
trees by early stopping); RankNet runs its default grid where the budget allows and one epoch of
the smallest architecture (``architectures=((10,),), max_epochs=1``), its unit, everywhere. A size
whose predicted CPU time (power law through the sizes measured so far; linear from one point) is
above ``--max-fit`` CPU seconds, or whose predicted memory is above ``--max-mem`` GB, is not run: its
row gives the prediction, marked ``~``, and says why.

Units (``--part units``): one Coordinate Ascent restart or one RankNet architecture of the
default parameters (``fit(..., units=[u])``), the work of one job when the pipeline scatters
them, each in a fresh process at each size, with its figure at the fold (measured, or
extrapolated on the log-log line of the sizes measured) against 15 min and 8 GB per job.

RankLib (``--ranklib JAR``, with ``--part train`` beside ours or ``--part ranklib`` alone):
RankLib 2.x's jar on the same documents (train and validation written as LETOR text with 9
significant digits, which give back every float32 value; a test file of n/4 more documents),
``-Xmx8g``, ``-metric2t NDCG@10``, RankLib's defaults except Coordinate Ascent's ``-r 1 -i 100``
(one restart of 100 steps, the work of one restart job). Its RankNet is its default, one
hidden layer of 10 nodes for all 100 epochs, beside our (10,) architecture. The row gives its
training's wall time on the jar's own clock (time stamps of its log records, from the ranker's
``init`` to its ``learn``'s last record), the JVM's CPU over the same span (every thread, read
from /proc), its peak RSS (rusage) and its RSS once the data are read; the notes give the whole
run's CPU and the wall time of reading and JVM start-up. A run past ``--ranklib-timeout`` is
stopped (``> timeout``, with the CPU time extrapolated from the smaller sizes); a size whose
extrapolated CPU time is above ``--max-fit`` is not run (memory is bounded by ``-Xmx``), and ``--ranklib-results FILE`` keeps
measured rows for a later run with more sizes. RankLib 2.x has no RankSVM.

Evaluation: ``ltrconv.evaluation.metrics.evaluate`` on MSLR-WEB30K's size (3,771,125 documents, about
31,500 queries) under every built-in convention at cutoffs 1..10, against pytrec_eval's
``ndcg_cut_1..10`` (trec_eval's NDCG, labels mapped to gains 2^l - 1) for the ``trec``
convention, and against ranx's ``ndcg_burges@1..10`` (the same gains and discounts; ranx orders
tied scores as its unstable sort leaves them, so its values are checked to lie between ltrconv's
``ranklib-tiepess`` and ``ranklib-tieopt``), each side in its own process (medians of
``--eval-repeats`` calls). The peers' input structures (pytrec_eval's dicts, ranx's ``Qrels`` and
``Run``, sorted) are built once, timed apart. Ours runs with NDCG only (``metrics=("NDCG",)``:
each query ranked only as deep as the last cutoff), the work the peers do, and with every
metric (the whole ranking, for MAP and RR).

    python benchmarks/bench_scale.py [--sizes 10000,100000,1200000] [--algorithms all]
        [--max-fit 600] [--max-mem 8] [--eval-docs 3771125] [--eval-repeats 5] [--part all]
    python benchmarks/bench_scale.py --part units --sizes 10000,100000,720000 [--ca-restarts 0,1,2]
        [--ranknet-units all]
    python benchmarks/bench_scale.py --part ranklib --ranklib RankLib.jar --sizes 10000,100000
        [--ranklib-timeout 900] [--ranklib-xmx 8g] [--algorithms adarank,...]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ltrconv.rankers.registry import ORDER, UnknownAlgorithm, get
from ltrconv.data.synthetic import MSLR_WEB30K_DOCS, make_mslr_like

HERE = Path(__file__).resolve()


def _sibling(name: str) -> None:
    """Load benchmarks/<name>.py once under its own name, so that the ``from <name> import``
    lines below and in the siblings find it also when this file is loaded from its path."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE.with_name(f"{name}.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)


for _name in ("scale_parts", "scale_ranklib", "scale_eval"):
    _sibling(_name)

# training_data and ranklib_files: not used here, reached through this module by its tests
from scale_parts import (  # noqa: E402, F401
    FOLD_DOCS, PAIRWISE, TARGET_GB, TARGET_S, crucial_pairs, fit_one, fold_estimate, nlogn_slope,
    power_law, predict_mb, slope, training_data)
from scale_ranklib import RANKLIB, ranklib_files, run_ranklib  # noqa: E402, F401
from scale_eval import eval_child, run_eval  # noqa: E402

# (label, parameters, how the default's cost follows from this variant's)
VARIANTS = {
    "adarank": [("default", {}, None)],
    "rankboost": [("default", {}, None)],
    "lambdamart": [("default", {}, None),
                   ("100 trees", {"n_estimators": 100}, "unit")],
    "ranksvm": [("default", {}, None), ("C=1 only", {"C_grid": [1.0]}, "cgrid")],
    "ranknet": [("default", {}, None),
                ("1 epoch (10,)", {"architectures": [[10]], "max_epochs": 1}, "unit")],
    "coordinate_ascent": [("1 restart", {"n_restarts": 1}, "restart"),
                          ("1 sweep", {"n_restarts": 1, "max_sweeps": 1}, "unit")],
}
CA_RESTARTS = 30  # CoordinateAscent's default n_restarts
MAX_EPOCHS = 100  # RankNet's default max_epochs


def run_training(args, names) -> None:
    sizes = sorted(args.sizes)
    pairs = {}
    for n in sorted(set(sizes) | {FOLD_DOCS}):
        d = make_mslr_like(n, n_features=1, seed=args.seed)
        pairs[n] = crucial_pairs(d.y, d.offsets)
    print(f"OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}")
    print(f"training data: make_mslr_like(n, seed={args.seed}), validation n/4 "
          f"(seed {args.seed + 1}); metric {args.metric}; one process per fit; "
          f"budget {args.max_fit:.0f} s and {args.max_mem:.0f} GB per fit")
    print("crucial pairs: " + ", ".join(f"{n:,} docs -> {p:,}" for n, p in pairs.items()))
    if args.ranklib:
        print(f"RankLib: java -Xmx{args.ranklib_xmx} -jar {Path(args.ranklib).name} -train T "
              f"-validate V -test TEST -ranker R -metric2t NDCG@10 [-r 1 -i 100 for Coordinate "
              f"Ascent], the same train and vali documents as ours written with 9 digits, TEST "
              f"n/4 (seed {args.seed + 4}); timeout {args.ranklib_timeout:.0f} s wall; wall s and CPU s "
              f"of its training (init to the end of learn), jar CPU s the whole run's")
    head = (f"{'algorithm':18s} {'variant':14s} {'docs':>9s} {'pairs':>11s} {'wall s':>9s} "
            f"{'CPU s':>9s} {'peak MB':>8s} {'data MB':>8s}  notes")
    print(head)
    print("-" * len(head))
    tmp = tempfile.TemporaryDirectory(prefix="bench_scale_ranklib_") if args.ranklib else None
    summary = []
    for name in names:
        results = {}
        for label, params, role in ([] if args.part == "ranklib" else VARIANTS[name]):
            if args.variants and label not in args.variants:
                continue
            done: list[tuple[int, dict]] = []
            for n in sizes:
                why = None
                if done:
                    xs = [m for m, _ in done]
                    t_hat = power_law(xs, [r["cpu"] for _, r in done], n)
                    m_hat = predict_mb(name, done, pairs, n)
                    if t_hat > args.max_fit:
                        why = f"predicted {t_hat:,.0f} s > {args.max_fit:.0f} s budget"
                    elif m_hat > args.max_mem * 1024:
                        why = f"predicted {m_hat / 1024:,.1f} GB > {args.max_mem:.0f} GB"
                if why is None:
                    cmd = [sys.executable, str(HERE), "--one", name, "--n", str(n), "--params",
                           json.dumps(params), "--metric", args.metric, "--seed", str(args.seed)]
                    try:
                        out = subprocess.run(cmd, capture_output=True, text=True,
                                             timeout=3 * args.max_fit)
                    except subprocess.TimeoutExpired:
                        print(f"{name:18s} {label:14s} {n:9,d} {pairs[n]:11,d}  stopped after "
                              f"{3 * args.max_fit:.0f} s wall (3 x --max-fit)", flush=True)
                        break
                    if out.returncode != 0:
                        err = (out.stderr.strip().splitlines() or ["no output"])[-1]
                        print(f"{name:18s} {label:14s} {n:9,d} {pairs[n]:11,d}  failed: {err}")
                        break
                    r = json.loads(out.stdout.strip().splitlines()[-1])
                    done.append((n, r))
                    print(f"{name:18s} {label:14s} {n:9,d} {pairs[n]:11,d} {r['wall']:9.1f} "
                          f"{r['cpu']:9.1f} {r['peak_mb']:8.0f} {r['data_mb']:8.0f}  "
                          f"{json.dumps(r['info'])}", flush=True)
                else:
                    xs = [m for m, _ in done]
                    t = power_law(xs, [r["cpu"] for _, r in done], n)
                    print(f"{name:18s} {label:14s} {n:9,d} {pairs[n]:11,d} {'~' + format(t, ',.0f'):>9s} "
                          f"{'':9s} {'':8s} {'':8s}  not run: {why}; time extrapolated", flush=True)
            results[label] = (role, done)
        if tmp and name in RANKLIB:
            results[RANKLIB[name][2]] = (None, run_ranklib(args, name, sizes, pairs, Path(tmp.name)))
        elif tmp:
            print(f"{name:18s} {'RankLib':14s} none: RankLib 2.x has no {name}")
        summary.append((name, results))
    if tmp:
        tmp.cleanup()
    print()
    report(summary, pairs, sizes, args)


def report(summary, pairs, sizes, args) -> None:
    """Slopes, the 720k-document fold against the targets, and why a ranker misses them."""
    lo, hi = min(sizes), max(sizes)
    bound = (f"n log n between {lo:,} and {hi:,} has slope {nlogn_slope(lo, hi):.2f}" if hi > lo
             else "one size: no slope")
    print(f"CPU-time slopes over measured sizes ({bound}); fold = {FOLD_DOCS:,} training "
          f"documents, {pairs[FOLD_DOCS]:,} pairs; targets <= {TARGET_S / 60:.0f} min, <= {TARGET_GB:.0f} GB (fold CPU s: of the timed "
          f"variant; for a single-threaded ranker, its wall time on an idle core)")
    head = (f"{'algorithm':18s} {'variant':14s} {'slope/docs':>10s} {'slope/pairs':>11s} "
            f"{'fold CPU s':>10s} {'fold GB':>8s}  verdict for the default parameters")
    print(head)
    print("-" * len(head))
    for name, results in summary:
        unit = next((d for role, d in results.values() if role == "unit" and d), None)
        for label, (role, done) in results.items():
            stopped = [(n, r) for n, r in done if "timeout" in r]  # the jar past its timeout
            done = [(n, r) for n, r in done if "timeout" not in r]
            if not done:
                print(f"{name:18s} {label:14s} no measurement" + "".join(
                    f"; stopped at {m:,} docs after {r['jar_wall']:,.0f} s" for m, r in stopped))
                continue
            ns = [n for n, _ in done]
            cpus = [r["cpu"] for _, r in done]
            s_docs = slope(ns, cpus)
            s_pairs = slope([pairs[n] for n in ns], cpus)
            fold_s, how = fold_estimate(done, None if role == "unit" else unit)
            fold_gb = predict_mb(name, done, pairs, FOLD_DOCS) / 1024
            full, note = fold_s, ""
            if role == "cgrid":
                full, note = fold_s * 11, " x 11 values of C"
            elif role == "restart":
                full, note = fold_s * CA_RESTARTS / 2, f" x {CA_RESTARTS} restarts / 2 threads"
            if role == "unit":
                verdict = "the unit of work, for scaling"
            else:
                ok_t, ok_m = full <= TARGET_S, fold_gb <= TARGET_GB
                verdict = ("meets both" if ok_t and ok_m else "MISSES " + " and ".join(
                    w for w, ok in (("time", ok_t), ("memory", ok_m)) if not ok))
                verdict += f": ~{full:,.0f} s ({how}{note})"
                if stopped and stopped[0][0] <= FOLD_DOCS:
                    m, r = stopped[0]
                    verdict = (f"MISSES time: stopped at {m:,} docs after {r['jar_wall']:,.0f} s "
                               f"wall, {r['jar_cpu']:,.0f} s CPU (the fit through smaller sizes "
                               f"said ~{full:,.0f} s)")
            grow = s_pairs if name in PAIRWISE else s_docs
            limit = 1.0 if name in PAIRWISE else nlogn_slope(lo, hi) if hi > lo else 1.0
            if not math.isnan(grow) and grow > limit + 0.1:
                verdict += f"; grows faster than {'linear in pairs' if name in PAIRWISE else 'n log n'}"
            print(f"{name:18s} {label:14s} {s_docs:10.2f} {s_pairs:11.2f} {fold_s:10,.0f} "
                  f"{fold_gb:8.1f}  {verdict}")
    svm_gb = 2 * 2 * pairs[FOLD_DOCS] * 136 * 8 / 2**30
    if args.part != "ranklib":
        print(WHY.format(svm=svm_gb))


WHY = """\
why a ranker misses a target, and what it would need:
  ranksvm: with solver="liblinear" (and loss="hinge") liblinear is given every pair difference
    as a dense row, 2 x pairs x 136 float64 (twice: liblinear copies it) -- ~{svm:,.0f} GB at
    the fold; the default Newton solver counts the pairs per document instead (O(n log n) per
    Hessian-vector product, two passes over X), so it meets both.
  coordinate_ascent: each sweep runs 3 line searches of 101 steps for each of 136 features; a
    query's ranking is repaired between steps and the steps that cannot change its top k are
    skipped, but every sweep still touches every varying query: the paper's 30 restarts need
    more cores (restarts are independent), fewer restarts, or a subsample of queries.
  ranknet: 12 architectures x up to 100 epochs of one Adam step per query; cost per epoch is
    linear in documents and pairs, so it is the grid (and the 500-unit layers) that costs:
    at scale a smaller grid, or mini-batches of queries on more cores.
  lambdamart: RankLib 2.x's trees: per tree a histogram over every document and feature at the
    root and over the left child of every split (O(features x documents x depth)), right
    children by subtraction; λ visit O(n_q (k + 2)) pairs of a query. Up to 1000 trees.
  rankboost: meets both on an idle core; per round it walks every feature's values of each
    query in sorted order (O(features x documents)) and updates the pairs' weights (O(pairs)).
    Reading those values in place, one row of X per document, grew faster than linear (1.15
    vs documents, 1.20 vs pairs, on 10k-100k): a copy of each feature's values in walk order
    made it 1.02 / 1.06 and 1.5x faster at 100k, with the same models. From 100k to 1.2M
    documents it grows with slope 1.12 (1.10 vs pairs), probably in the weight updates, which
    read 61M pairs through a permutation (not profiled).
  all pairwise loops (crucial pairs) are O(n_q^2) per query, fine for MSLR's ~120
    documents per query, not for queries of thousands of documents without pair sampling."""


# --- one unit per job: a Coordinate Ascent restart, a RankNet architecture --------------------
def unit_label(name: str, unit: int) -> str:
    if name == "ranknet":
        from ltrconv.rankers.ranknet import PAPER_GRID

        return "arch " + "x".join(map(str, PAPER_GRID[unit]))
    return f"restart {unit}"


def run_units(args) -> None:
    """Each unit fitted alone (``fit(..., units=[u])``, the rankers' defaults: 30 restarts, the
    paper's 12 architectures) in a fresh process at each size while the power law through the
    sizes run so far predicts it within --max-fit and --max-mem; its figure at the fold is
    measured when the fold's size was run, else extrapolated on that line."""
    sizes = sorted(args.sizes)
    pairs = {}
    for n in sorted(set(sizes) | {FOLD_DOCS}):
        d = make_mslr_like(n, n_features=1, seed=args.seed)
        pairs[n] = crucial_pairs(d.y, d.offsets)
    plan = [("coordinate_ascent", u) for u in args.ca_restarts] + \
        [("ranknet", u) for u in args.ranknet_units]
    print(f"OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}")
    print(f"one unit per fit (default parameters; fit(..., units=[u])), make_mslr_like(n, "
          f"seed={args.seed}), validation n/4; metric {args.metric}; budget {args.max_fit:.0f} s "
          f"and {args.max_mem:.0f} GB per fit")
    head = (f"{'algorithm':18s} {'unit':16s} {'docs':>9s} {'wall s':>9s} {'CPU s':>9s} "
            f"{'peak MB':>8s} {'data MB':>8s}  notes")
    print(head)
    print("-" * len(head))
    rows = []
    for name, unit in plan:
        label = unit_label(name, unit)
        done: list[tuple[int, dict]] = []
        for n in sizes:
            if done:
                t_hat = power_law([m for m, _ in done], [r["cpu"] for _, r in done], n)
                m_hat = predict_mb(name, done, pairs, n)
                if t_hat > args.max_fit or m_hat > args.max_mem * 1024:
                    print(f"{name:18s} {label:16s} {n:9,d} {'~' + format(t_hat, ',.0f'):>9s}  "
                          f"not run: predicted {t_hat:,.0f} s, {m_hat / 1024:.1f} GB", flush=True)
                    continue
            cmd = [sys.executable, str(HERE), "--one", name, "--n", str(n), "--units", str(unit),
                   "--metric", args.metric, "--seed", str(args.seed)]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode != 0:
                err = (out.stderr.strip().splitlines() or ["no output"])[-1]
                print(f"{name:18s} {label:16s} {n:9,d}  failed: {err}")
                break
            r = json.loads(out.stdout.strip().splitlines()[-1])
            done.append((n, r))
            print(f"{name:18s} {label:16s} {n:9,d} {r['wall']:9.1f} {r['cpu']:9.1f} "
                  f"{r['peak_mb']:8.0f} {r['data_mb']:8.0f}  {json.dumps(r['info'])}", flush=True)
        if done:
            rows.append((name, label, done))
    print()
    print(f"per job at the fold ({FOLD_DOCS:,} training documents; CPU s = wall on an idle core, "
          f"one thread); target <= {TARGET_S / 60:.0f} min and <= {TARGET_GB:.0f} GB per job")
    print("(RankNet stops early, after a number of epochs that varies with the data; 'bound' is "
          f"{MAX_EPOCHS} epochs at the fold's per-epoch time, on the line of the measured ones)")
    head = (f"{'algorithm':18s} {'unit':16s} {'slope':>6s} {'fold CPU s':>10s} {'bound s':>8s} "
            f"{'fold GB':>8s}  how")
    print(head)
    print("-" * len(head))
    for name, label, done in rows:
        ns, cpus = [n for n, _ in done], [r["cpu"] for _, r in done]
        fold_s, how = fold_estimate(done, None)
        fold_gb = predict_mb(name, done, pairs, FOLD_DOCS) / 1024
        bound = ""
        worst = fold_s
        if "epochs" in done[0][1]["info"]:
            per_epoch = [r["cpu"] / r["info"]["epochs"][0] for _, r in done]
            worst = MAX_EPOCHS * power_law(ns, per_epoch, FOLD_DOCS)
            bound = f"{worst:,.0f}"
        ok = "meets" if worst <= TARGET_S and fold_gb <= TARGET_GB else "MISSES"
        print(f"{name:18s} {label:16s} {slope(ns, cpus):6.2f} {fold_s:10,.0f} {bound:>8s} "
              f"{fold_gb:8.1f}  {how}: {ok}")


def main() -> None:
    # OpenMP threads (LightGBM's, numba's "omp" layer) busy-wait at every barrier by default; on
    # a machine shared with other jobs a spinning thread burns the time slices its partner
    # needs (LightGBM, 100 trees on 10,000 documents, 2 threads, load ~6 on 2 cores: 36 s of
    # CPU spinning, 1.7 s passive). Children inherit this unless the caller chose a policy.
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1200000",
                    type=lambda s: [int(float(x)) for x in s.split(",")])
    ap.add_argument("--algorithms", default="all")
    ap.add_argument("--variants", type=lambda s: s.split(","), default=None,
                    help="run only these variants (labels as printed, e.g. 'default,100 trees')")
    ap.add_argument("--metric", default="ndcg@10:ranklib")
    ap.add_argument("--max-fit", type=float, default=600.0, help="seconds a fit may take")
    ap.add_argument("--max-mem", type=float, default=8.0, help="GB a fit may use")
    ap.add_argument("--eval-docs", type=int, default=MSLR_WEB30K_DOCS)
    ap.add_argument("--eval-repeats", type=int, default=5)
    ap.add_argument("--part", choices=("all", "train", "eval", "units", "ranklib"), default="all",
                    help="ranklib: only the jar's rows (needs --ranklib)")
    ap.add_argument("--ranklib", metavar="JAR", help="also run RankLib 2.x's jar on the training "
                    "sizes (--part train, all or ranklib)")
    ap.add_argument("--ranklib-timeout", type=float, default=900.0, metavar="SECONDS",
                    help="wall seconds after which a run of the jar is stopped")
    ap.add_argument("--ranklib-results", metavar="FILE",
                    help="append the jar's measured rows to FILE and reuse those found there")
    ap.add_argument("--ranklib-xmx", default="8g", help="the JVM's -Xmx")
    ap.add_argument("--ca-restarts", default="0,1,2", type=lambda s: [int(x) for x in s.split(",")],
                    help="--part units: the Coordinate Ascent restarts fitted, one per process")
    ap.add_argument("--ranknet-units", default="all",
                    help="--part units: RankNet architectures (indices into the paper's grid)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--params", default="{}", help=argparse.SUPPRESS)
    ap.add_argument("--units", help="with --one: fit only these units, e.g. 0 or 0,3")
    ap.add_argument("--eval-child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        units = None if args.units is None else [int(u) for u in args.units.split(",")]
        print(json.dumps(fit_one(args.one, args.n, json.loads(args.params), args.metric,
                                 args.seed, units)))
        return
    if args.eval_child:
        print(json.dumps(eval_child(*args.eval_child, args.eval_repeats)))
        return
    try:
        names = ORDER if args.algorithms == "all" else [get(n).name for n in args.algorithms.split(",")]
    except UnknownAlgorithm as exc:
        sys.exit(f"bench_scale: --algorithms: {exc}")
    if any(n < 200 for n in args.sizes):
        sys.exit("bench_scale: --sizes: every size must be at least 200 documents")
    if args.part == "ranklib" and not args.ranklib:
        sys.exit("bench_scale: --part ranklib needs --ranklib JAR")
    if args.ranklib and not Path(args.ranklib).is_file():
        sys.exit(f"bench_scale: --ranklib: no such file: {args.ranklib}")
    if args.part == "units":
        from ltrconv.rankers.ranknet import PAPER_GRID

        if args.ranknet_units == "all":
            args.ranknet_units = list(range(len(PAPER_GRID)))
        elif args.ranknet_units == "none":
            args.ranknet_units = []
        else:
            args.ranknet_units = [int(u) for u in args.ranknet_units.split(",")]
        run_units(args)
        return
    if args.part in ("all", "train", "ranklib"):
        run_training(args, list(names))
        print()
    if args.part in ("all", "eval"):
        run_eval(args)


if __name__ == "__main__":
    main()
