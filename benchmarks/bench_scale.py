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
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from ltrconv.rankers.registry import ORDER, UnknownAlgorithm, get
from ltrconv.data.synthetic import MSLR_WEB30K_DOCS, make_mslr_like
from ltrconv.data.writer import FLOAT32_EXACT, write_letor

HERE = Path(__file__).resolve()
FOLD_DOCS = 720_000  # training part of an MSLR-WEB10K fold: 3 of 5 parts of 1,200,192
TARGET_S, TARGET_GB = 15 * 60, 8.0
# work per round grows with pairs (RankSVM's Newton solver counts them per document: n log n)
PAIRWISE = ("rankboost", "ranknet", "lambdamart")

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
WARM = {"adarank": {"n_rounds": 2}, "rankboost": {"n_rounds": 2}, "lambdamart": {"n_estimators": 2},
        "ranksvm": {"C_grid": [1.0]}, "ranknet": {"architectures": [[10]], "max_epochs": 1},
        "coordinate_ascent": {"n_restarts": 1, "max_sweeps": 1},
        "lambdamart_lightgbm": {"n_estimators": 2}}


def rss_mb() -> float:
    """Current resident set size of this process (Linux /proc)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def crucial_pairs(y: np.ndarray, offsets: np.ndarray) -> int:
    """Number of pairs l_i > l_j within a query: sum_q (n_q^2 - sum_l c_ql^2) / 2."""
    q = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    counts = np.bincount(q * (int(y.max()) + 1) + y).astype(np.int64)
    sizes = np.diff(offsets).astype(np.int64)
    return int(((sizes ** 2).sum() - (counts ** 2).sum()) // 2)


def training_data(n: int, seed: int):
    return make_mslr_like(n, seed=seed), make_mslr_like(max(n // 4, 200), seed=seed + 1)


# --- one fit, in a child process -------------------------------------------------------------
def fit_one(name: str, n: int, params: dict, metric: str, seed: int, units=None) -> dict:
    from ltrconv import rankers

    # an untimed fit on tiny data loads or compiles the numba kernels this ranker uses
    wt, wv = make_mslr_like(400, seed=seed + 2), make_mslr_like(200, seed=seed + 3)
    rankers.make(name, metric=metric, **{**params, **WARM[name]}).fit(
        wt.X, wt.y, wt.qid, X_val=wv.X, y_val=wv.y, qid_val=wv.qid)
    start = rss_mb()  # libraries loaded: what follows grows with the data
    tr, va = training_data(n, seed)
    base = rss_mb()
    model = rankers.make(name, metric=metric, **params)
    w0, c0 = time.perf_counter(), time.process_time()
    model.fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid, **(
        {} if units is None else {"units": units}))
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    info = {}
    for attr in ("best_iteration_", "n_pairs_", "best_C_", "architecture_", "best_epoch_"):
        if hasattr(model, attr):
            info[attr.rstrip("_")] = getattr(model, attr)
    if hasattr(model, "n_sweeps_"):
        info["sweeps"] = model.n_sweeps_
    if hasattr(model, "rounds_"):
        info["rounds"] = len(model.rounds_)
    if hasattr(model, "search_"):
        info["epochs"] = [len(a["history"]) for a in model.search_]
    return {"wall": wall, "cpu": cpu, "peak_mb": peak_mb(), "data_mb": base, "start_mb": start,
            "val_ndcg": float(model.val_score_), "info": info}


# --- the training table ---------------------------------------------------------------------
def slope(xs, ys) -> float:
    """Least-squares slope of log y on log x."""
    if len(xs) < 2:
        return float("nan")
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def power_law(xs, ys, x) -> float:
    """y at x on the log-log line through the points (linear in x from a single point)."""
    if len(xs) == 1:
        return ys[0] * x / xs[0]
    b, a = np.polyfit(np.log(xs), np.log(ys), 1)
    return float(math.exp(a + b * math.log(x)))


def predict_mb(name: str, done, pairs, n) -> float:
    """Peak RSS at n: the process's start-up RSS plus what data and fit add, scaled on the
    log-log line of the measured sizes (in pairs for pairwise rankers, else documents)."""
    x = pairs if name in PAIRWISE else {m: m for m in pairs}
    grown = [max(r["peak_mb"] - r["start_mb"], 1.0) for _, r in done]
    return done[0][1]["start_mb"] + power_law([x[m] for m, _ in done], grown, x[n])


def nlogn_slope(n0: float, n1: float) -> float:
    """Log-log slope of n log n between n0 and n1."""
    return 1.0 + math.log(math.log(n1) / math.log(n0)) / math.log(n1 / n0)


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


def fold_estimate(done, unit) -> tuple[float, str]:
    """CPU seconds at the fold and how they were obtained: measured, a power law through two
    or more sizes, else the largest measured size scaled like the unit of work (same number
    of epochs/sweeps/trees assumed), else linear from one size."""
    ns = [n for n, _ in done]
    cpus = [r["cpu"] for _, r in done]
    if FOLD_DOCS in ns:
        return cpus[ns.index(FOLD_DOCS)], "measured"
    if len(ns) >= 2:
        return power_law(ns, cpus, FOLD_DOCS), ("interpolated" if max(ns) > FOLD_DOCS
                                                else "extrapolated")
    if unit and len(unit) >= 2:
        u_ns, u_c = [n for n, _ in unit], [r["cpu"] for _, r in unit]
        growth = power_law(u_ns, u_c, FOLD_DOCS) / power_law(u_ns, u_c, ns[-1])
        return cpus[-1] * growth, f"{ns[-1]:,} docs x the unit's growth {growth:.0f}x"
    return cpus[-1] * FOLD_DOCS / ns[-1], "linear from one size"


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


# --- RankLib 2.x's jar on the same data -------------------------------------------------------
# (-ranker, options as the study sets them, label); every other option at RankLib's default.
# Coordinate Ascent: one restart of 100 steps per direction, the work of one restart job;
# RankNet: RankLib's only architecture, one hidden layer of 10 nodes, all 100 epochs.
RANKLIB = {
    "adarank": ("3", [], "RankLib"),
    "rankboost": ("2", [], "RankLib"),
    "lambdamart": ("6", [], "RankLib"),
    "ranknet": ("1", [], "RankLib 1x10"),
    "coordinate_ascent": ("4", ["-r", "1", "-i", "100"], "RankLib -r 1"),
}
# a log record as epoch milliseconds | source class and method | message
LOG_FORMAT = "-Djava.util.logging.SimpleFormatter.format=%1$tQ|%2$s|%5$s%n"


def ranklib_files(n: int, seed: int, tmp: Path) -> dict:
    """train, vali and test files of size n: train and vali are the documents our rankers get
    (:func:`training_data`), test another n/4 (seed + 4)."""
    d = tmp / str(n)
    if not d.is_dir():
        d.mkdir()
        tr, va = training_data(n, seed)
        te = make_mslr_like(max(n // 4, 200), seed=seed + 4)
        for name, data in (("train", tr), ("vali", va), ("test", te)):
            write_letor(data, d / f"{name}.txt", precision=FLOAT32_EXACT, docids=False)
    return {s: str(d / f"{s}.txt") for s in ("train", "vali", "test")}


def proc_cpu_rss(pid: int) -> tuple[float, float]:
    """CPU seconds (all threads) and resident MB of a running process (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as fh:
        f = fh.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(f[11]) + int(f[12])) / tick, int(f[21]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def ranklib_one(jar: str, ranker: str, opts: list, files: dict, xmx: str, timeout: float) -> dict:
    """One run of the jar: train, vali, test, -metric2t NDCG@10. Training wall time is the
    jar's own clock (time stamps of its log records, from the ranker's ``init`` to the last
    record of its ``learn``); training CPU is the JVM's (every thread) read from /proc as those
    records arrive; the whole run's wall, CPU and peak RSS from its rusage."""
    cmd = ["java", f"-Xmx{xmx}", LOG_FORMAT, "-jar", jar, "-train", files["train"],
           "-validate", files["vali"], "-test", files["test"], "-ranker", ranker,
           "-metric2t", "NDCG@10", *opts]
    w0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")
    killed = []
    timer = threading.Timer(timeout, lambda: (killed.append(True), proc.kill()))
    timer.start()
    t_init = t_end = c_init = c_end = rss_init = rss_start = None
    val, sweeps, rounds, tail = None, 0, set(), []
    for line in proc.stdout:
        parts = line.rstrip("\n").split("|", 2)
        tail = (tail + [line.strip()])[-5:]
        if len(parts) < 3 or not parts[0].isdigit():
            continue
        stamp, source, msg = int(parts[0]) / 1000, parts[1], parts[2]
        try:
            now = proc_cpu_rss(proc.pid)
        except (OSError, IndexError):
            now = (float("nan"), float("nan"))
        if rss_start is None:
            rss_start = now[1]  # the JVM up, nothing read yet
        if source.endswith(" init") and t_init is None:
            t_init, (c_init, rss_init) = stamp, now
        elif source.endswith(" learn") and t_init is not None:
            t_end, c_end = stamp, now[0]
            if "on validation data:" in msg:
                val = float(msg.rsplit(":", 1)[1])
            sweeps += msg.startswith("Shuffling features")
        elif source.endswith(("flushLog", "printLog")) and t_init is not None:
            first = msg.split("|", 1)[0].strip()  # a row of its progress table: round, tree, epoch
            if first.isdigit() and ranker != "4":  # Coordinate Ascent's rows are features
                rounds.add(int(first))
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    timer.cancel()
    wall = time.perf_counter() - w0
    out = {"jar_wall": wall, "jar_cpu": ru.ru_utime + ru.ru_stime, "peak_mb": ru.ru_maxrss / 1024,
           "start_mb": rss_start or 0.0, "data_mb": rss_init or float("nan")}
    if killed:
        return {**out, "timeout": timeout}
    if proc.returncode != 0 or val is None:
        return {**out, "error": next((t for t in reversed(tail) if t), "no output")[-120:]}
    info = {"read+JVM s": round(wall - (t_end - t_init), 1), "jar CPU s": round(out["jar_cpu"], 1),
            "val NDCG@10": val}
    if sweeps:
        info["sweeps"] = sweeps
    if rounds:
        info["rounds"] = max(rounds)
    return {**out, "wall": t_end - t_init, "cpu": c_end - c_init, "info": info}


def ranklib_cache(path: str | None) -> dict:
    """Rows measured before, by key (``--ranklib-results``), one JSON object a line."""
    if not path or not Path(path).is_file():
        return {}
    rows = [json.loads(line) for line in open(path) if line.strip()]
    return {row["key"]: row["r"] for row in rows}


def run_ranklib(args, name: str, sizes, pairs, tmp: Path) -> list:
    """RankLib's rows for one of our rankers, in the training table's format; a size whose
    CPU time, extrapolated from the smaller ones, exceeds --max-fit is not run; a row found
    in --ranklib-results (same jar size, options, size, seed and -Xmx) is reused."""
    ranker, opts, label = RANKLIB[name]
    cache = ranklib_cache(args.ranklib_results)
    done: list[tuple[int, dict]] = []
    for n in sizes:
        key = json.dumps([Path(args.ranklib).stat().st_size, ranker, opts, n, args.seed,
                          args.ranklib_xmx])
        hit = cache.get(key)  # a run stopped at t seconds answers for any timeout up to t
        if hit and hit.get("timeout", math.inf) < args.ranklib_timeout:
            hit = None
        row = f"{name:18s} {label:14s} {n:9,d} {pairs[n]:11,d}"
        t_hat = None
        if done:
            t_hat = power_law([m for m, _ in done], [r["cpu"] for _, r in done], n)
            s = slope([m for m, _ in done], [r["cpu"] for _, r in done])
            fit = f"slope {s:.2f} vs docs" if len(done) > 1 else "linear from one size"
            if hit is None and t_hat > args.max_fit:  # memory: -Xmx bounds the heap
                print(f"{row} {'~' + format(t_hat, ',.0f'):>9s} {'':9s} {'':8s} {'':8s}  "
                      f"not run: predicted {t_hat:,.0f} s CPU ({fit}) > {args.max_fit:.0f} s",
                      flush=True)
                continue
        if hit:
            r = {**hit, "info": {**hit.get("info", {}), "reused": args.ranklib_results}}
        else:
            r = ranklib_one(args.ranklib, ranker, opts, ranklib_files(n, args.seed, tmp),
                            args.ranklib_xmx, args.ranklib_timeout)
            if args.ranklib_results and ("wall" in r or "timeout" in r):
                with open(args.ranklib_results, "a") as fh:
                    fh.write(json.dumps({"key": key, "r": r}) + "\n")
        if r.get("timeout"):
            guess = "" if t_hat is None else f"; extrapolated ~{t_hat:,.0f} s CPU ({fit})"
            print(f"{row} {'> ' + format(r['timeout'], '.0f'):>9s} {'':9s} "
                  f"{r['peak_mb']:8.0f} {'':8s}  > timeout: stopped after "
                  f"{r['jar_wall']:,.0f} s wall, {r['jar_cpu']:,.0f} s CPU{guess}"
                  f"{' (reused)' if hit else ''}", flush=True)
            done.append((n, r))  # kept for the verdict, left out of every fit
            break
        if "error" in r:
            print(f"{row}  failed after {r['jar_wall']:,.0f} s: {r['error']}", flush=True)
            break
        done.append((n, r))
        print(f"{row} {r['wall']:9.1f} {r['cpu']:9.1f} {r['peak_mb']:8.0f} {r['data_mb']:8.0f}  "
              f"{json.dumps(r['info'])}", flush=True)
    return done


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


# --- evaluation at MSLR-WEB30K size -----------------------------------------------------------
def eval_child(kind: str, path: str, repeats: int) -> dict:
    z = np.load(path)
    y, scores, offsets = z["y"], z["scores"], z["offsets"]
    n = len(y)
    if kind == "ours":
        from ltrconv.evaluation.conventions import BUILTIN
        from ltrconv.evaluation.metrics import evaluate

        convs = sorted(BUILTIN)
        rank = np.arange(n, dtype=np.int64)  # docids "D0000000".. sort like their row numbers
        tiny = slice(0, int(offsets[3]))
        evaluate(y[tiny], scores[tiny], offsets=offsets[:4], conventions=convs, docid_rank=rank[tiny],
                 engine="numba")  # numba load
        base = rss_mb()
        out = {"base_mb": base, "conventions": convs}
        every = ("NDCG", "DCG", "P", "ERR", "MAP", "RR")
        for key, cs, metrics in (("all", convs, every), ("all_ndcg", convs, ("NDCG",)),
                                 ("trec", ["trec"], every), ("trec_ndcg", ["trec"], ("NDCG",))):
            wall, cpu = [], []
            for _ in range(repeats):
                w0, c0 = time.perf_counter(), time.process_time()
                res = evaluate(y, scores, offsets=offsets, conventions=cs, cutoffs="1-10",
                               docid_rank=rank, metrics=metrics, engine="numba")
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
            out[key] = {"wall": statistics.median(wall), "cpu": statistics.median(cpu)}
            if key == "all":
                for name in ("ranklib-tiepess", "ranklib-tieopt"):
                    np.save(f"{path}.{name}.npy", res[name]["NDCG@10"])
        np.save(path + ".ours.npy", res["trec"]["NDCG@10"])
        out["peak_mb"] = peak_mb()
        return out
    if kind == "ranx":
        return ranx_child(path, y, scores, offsets, repeats)
    import pytrec_eval

    base = rss_mb()
    w0 = time.perf_counter()
    qrel, run = {}, {}
    gain = (2 ** y - 1).tolist()
    sc = scores.tolist()
    for q in range(len(offsets) - 1):
        a, b = int(offsets[q]), int(offsets[q + 1])
        ids = [f"D{i:07d}" for i in range(a, b)]
        qrel[str(q)] = dict(zip(ids, gain[a:b]))
        run[str(q)] = dict(zip(ids, sc[a:b]))
    build = time.perf_counter() - w0
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, {f"ndcg_cut_{k}" for k in range(1, 11)})
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        res = evaluator.evaluate(run)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    np.save(path + ".theirs.npy", np.array([res[str(q)]["ndcg_cut_10"] for q in range(len(offsets) - 1)]))
    return {"base_mb": base, "build_s": build, "wall": statistics.median(wall),
            "cpu": statistics.median(cpu), "peak_mb": peak_mb()}


def ranx_child(path: str, y, scores, offsets, repeats: int) -> dict:
    """ranx's ``ndcg_burges@1..10``: an untimed run on 20 queries loads its numba functions,
    then its Qrels and Run are built (dicts, typed dicts, sorted) once and evaluated
    ``repeats`` times on one thread."""
    from ranx import Qrels, Run, evaluate

    metrics = [f"ndcg_burges@{k}" for k in range(1, 11)]

    def build(n_queries):
        qd, rd = {}, {}
        labels, sc = y.tolist(), scores.tolist()
        for q in range(n_queries):
            a, b = int(offsets[q]), int(offsets[q + 1])
            ids = [f"D{i:07d}" for i in range(a, b)]
            qd[f"q{q:06d}"] = dict(zip(ids, labels[a:b]))  # query ids sort in row order
            rd[f"q{q:06d}"] = dict(zip(ids, sc[a:b]))
        qrels, run = Qrels.from_dict(qd), Run.from_dict(rd)
        qrels.sort()
        run.sort()
        return qrels, run

    evaluate(*build(20), metrics, threads=1, save_results_in_run=False)
    base = rss_mb()
    w0 = time.perf_counter()
    qrels, run = build(len(offsets) - 1)
    build_s = time.perf_counter() - w0
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        res = evaluate(qrels, run, metrics, return_mean=False, threads=1,
                       save_results_in_run=False)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    np.save(path + ".ranx.npy", np.asarray(res["ndcg_burges@10"], dtype=np.float64))
    return {"base_mb": base, "build_s": build_s, "wall": statistics.median(wall),
            "cpu": statistics.median(cpu), "peak_mb": peak_mb()}


def run_eval(args) -> None:
    d = make_mslr_like(args.eval_docs, n_features=1, seed=args.seed)
    # a noisy relevance signal rounded to 0.01: about the ties of a real model's scores
    scores = np.round(d.X[:, 0].astype(np.float64), 2)
    with tempfile.TemporaryDirectory(prefix="bench_scale_") as tmp:
        path = str(Path(tmp) / "eval.npz")
        np.savez(path, y=d.y, scores=scores, offsets=d.offsets)
        print(f"evaluation data: make_mslr_like({args.eval_docs:,}, seed={args.seed}): "
              f"{d.n_queries:,} queries, {d.n_docs:,} documents, labels 0-4, "
              f"{len(np.unique(scores)):,} distinct scores; {args.eval_repeats} repeats, medians; "
              "one process per side")
        got = {}
        for kind in ("ours", "theirs", "ranx"):
            out = subprocess.run([sys.executable, str(HERE), "--eval-child", kind, path,
                                  "--eval-repeats", str(args.eval_repeats)],
                                 capture_output=True, text=True, check=True)
            got[kind] = json.loads(out.stdout.strip().splitlines()[-1])
        err = np.abs(np.load(path + ".ours.npy") - np.load(path + ".theirs.npy")).max()
        rx = np.load(path + ".ranx.npy")
        lo, hi = (np.load(f"{path}.ranklib-tie{b}.npy") for b in ("pess", "opt"))
        outside = float(max((lo - rx).max(), (rx - hi).max(), 0.0))
        ranx_trec = int(np.count_nonzero(np.abs(rx - np.load(path + ".ours.npy")) > 1e-12))
    o, t, r = got["ours"], got["theirs"], got["ranx"]
    nconv = len(o["conventions"])
    print(f"check: max |ltrconv trec - pytrec_eval| NDCG@10 over {d.n_queries:,} queries = {err:.1e}")
    print(f"check: ranx ndcg_burges@10 outside [ranklib-tiepess, ranklib-tieopt] by at most "
          f"{outside:.1e}; differs from trec's tie order on {ranx_trec:,} queries")
    print(f"{'':62s} {'wall s':>8s} {'CPU s':>8s} {'peak-data MB':>13s}")
    peak = f"{o['peak_mb'] - o['base_mb']:13.0f}"  # over all four calls, reported once
    for key, label in (("all", f"{nconv} built-in conventions, @1..10, all metrics"),
                       ("all_ndcg", f"{nconv} built-in conventions, NDCG@1..10"),
                       ("trec", "trec only, @1..10 (NDCG/DCG/P/ERR, MAP, RR)"),
                       ("trec_ndcg", "trec only, NDCG@1..10")):
        print(f"{'ltrconv evaluate, ' + label:62s} {o[key]['wall']:8.2f} {o[key]['cpu']:8.2f} "
              f"{peak if key == 'all' else '':13s}")
    print(f"{'pytrec_eval evaluate, ndcg_cut_1..10 (trec)':62s} {t['wall']:8.2f} {t['cpu']:8.2f} "
          f"{t['peak_mb'] - t['base_mb']:13.0f}")
    print(f"{'pytrec_eval: building its qrel/run dicts (once)':62s} {t['build_s']:8.2f}")
    print(f"{'ranx evaluate, ndcg_burges@1..10 (1 thread)':62s} {r['wall']:8.2f} {r['cpu']:8.2f} "
          f"{r['peak_mb'] - r['base_mb']:13.0f}")
    print(f"{'ranx: building its Qrels/Run, sorted (once)':62s} {r['build_s']:8.2f}")
    r_one = t["cpu"] / o["trec_ndcg"]["cpu"]
    r_all = t["cpu"] * nconv / o["all_ndcg"]["cpu"]
    r_more = t["cpu"] / o["trec"]["cpu"]
    print(f"speed-up, CPU, NDCG@1..10 as pytrec_eval computes it: one convention {r_one:.1f}x "
          f"(wall {t['wall'] / o['trec_ndcg']['wall']:.1f}x); {nconv} conventions {r_all:.1f}x "
          f"(pytrec_eval x {nconv} calls, which could only do trec's); target >= 10x: "
          f"{'met' if r_one >= 10 else 'NOT met'}. With MAP, RR, P, ERR and DCG as well "
          f"(the whole ranking): {r_more:.1f}x")
    print(f"speed-up against ranx, CPU, NDCG@1..10 (one convention): "
          f"{r['cpu'] / o['trec_ndcg']['cpu']:.1f}x (wall {r['wall'] / o['trec_ndcg']['wall']:.1f}x), "
          f"its Qrels/Run build aside")


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
