"""Wall time of the full MSLR-WEB10K study on a cluster of N nodes of 2 cores, from per-job figures.

The study: 5 folds x 3 training conventions x 6 algorithms with the paper's grids (Coordinate
Ascent's 30 restarts, RankNet's 12 architectures), as the pipeline runs a scattered dataset:
one training job per fold and training convention for AdaRank, RankBoost, LambdaMART and
RankSVM, one per restart or architecture as well for Coordinate Ascent and RankNet, a gather job
per algorithm and training convention, then the evaluation and the tables. Every job takes one
core; each pays Snakemake's own start-up in a Slurm job (``--job-overhead``, config key
``resources.measured.slurm_job.s``). With P = 2 N cores and the jobs' seconds t_j:

    work W = sum_j t_j,  critical path C = the longest chain of dependent jobs,
    lower bound max(C, W / P)  <=  wall time  <=  C + W / P  (any greedy schedule; Graham 1969)

``FIGURES`` holds each job's seconds at the fold (720,000 training documents) on one idle core
and where the figure comes from; ``--set NAME=SECONDS`` replaces one. Downloading and verifying
the archive is left out (it depends on the network).

    python benchmarks/study_walltime.py [--nodes 1,10,50] [--cores-per-node 2]
        [--job-overhead 41] [--set lambdamart=900]
    python benchmarks/study_walltime.py --measure 50000   # the prepare and gather figures
"""

from __future__ import annotations

import argparse
import math
import sys

FOLDS, CONVENTIONS = 5, 3
ALGORITHMS = ("adarank", "coordinate_ascent", "lambdamart", "rankboost", "ranknet", "ranksvm")

# Seconds per job at the fold on one core, and where each figure comes from. bench_scale runs:
# 2 cores shared with other work (load 7-12), CPU seconds, MSLR-shaped synthetic data.
MQ2008_QUERIES, MSLR_QUERIES = 784, 10_000
FIGURES: dict[str, tuple[float, str]] = {
    "prepare": (488.0, "measured: --measure 50000, 81.4 CPU s per million rows x 6,000,960 rows"),
    "audit": (79.0, "scaled: MQ2008's measured 1 s x rows 1,200,192 / 15,211"),
    "adarank": (37.0, "~ bench_scale, between runs at 100k and 1.2M (docs/scale.md table)"),
    "rankboost": (330.0, "~ bench_scale, between runs at 100k and 1.2M (docs/scale.md table)"),
    "lambdamart": (760.0, "~ bench_scale: 1000 trees (the most it grows) at the 100-tree run's "
                          "76 s, extrapolated from 10k and 100k (slope 0.95)"),
    "ranksvm": (92.4, "measured at 720k: Newton solver, 11 values of C (docs/scale.md table)"),
    "gather": (26.0, "measured: --measure, 5.2 s a fold for RankNet (500,), x 5 folds"),
    "evaluate": (26.0, f"scaled: MQ2008's measured 2 s x queries {MSLR_QUERIES:,} / {MQ2008_QUERIES}"),
    "tail_job": (77.0, f"scaled: MQ2008's longest (aggregate, 6 s) x queries {MSLR_QUERIES:,} / "
                       f"{MQ2008_QUERIES}"),
}
N_RESTARTS = 30  # Coordinate Ascent's default
TAIL_JOBS = 8  # per_query, aggregate, runtime_table, claims, 3 figures, report_pages
TAIL_CHAIN = 4  # per_query -> aggregate -> claims -> report_pages

# Coordinate Ascent's restarts measured (a restart's time follows its sweeps: 3-6 here), and
# RankNet's architectures, the paper's grid in order: one job each.
CA_RESTARTS: list[tuple[float, str]] = [
    (320.8, "measured at 720k: restart 0, 5 sweeps, 2.5 GB"),
    (550.0, "~ bench_scale --part units, restart 1 (10k, 100k: 4 and 6 sweeps)"),
    (605.0, "~ bench_scale --part units, restart 2 (10k, 100k: 3 and 6 sweeps)"),
]
_UNITS = "~ bench_scale --part units (10k, 100k)"
RANKNET_UNITS: dict[str, tuple[float, str]] = {
    "10": (50.0, _UNITS), "50": (86.0, _UNITS), "100": (160.0, _UNITS), "200": (297.0, _UNITS),
    "500": (217.2, "measured at 720k: 11 epochs (best 1), 3.2 GB; 19.7 s an epoch"),
    "10x10": (148.0, _UNITS), "50x50": (239.0, _UNITS), "100x100": (182.0, _UNITS),
    "200x200": (655.0, _UNITS), "10x10x10": (152.0, _UNITS), "50x50x50": (141.0, _UNITS),
    "100x100x100": (276.0, _UNITS),
}


def jobs(fig: dict, ca: list[float], rn: list[float], overhead: float):
    """(name, seconds, count) of every job kind, and the critical path's chain."""
    o = overhead
    per_fold = FOLDS * CONVENTIONS
    ca_mean = sum(ca) / len(ca)
    table = [
        ("prepare (5 folds' text to caches)", fig["prepare"] + o, 1),
        ("audit", fig["audit"] + o, 1),
        *[(f"{a} fold", fig[a] + o, per_fold) for a in ("adarank", "lambdamart", "rankboost",
                                                        "ranksvm")],
        ("coordinate_ascent restart (mean of those measured)", ca_mean + o,
         per_fold * N_RESTARTS),
        ("ranknet architecture (the grid's mean)", sum(rn) / len(rn) + o, per_fold * len(rn)),
        ("gather (per algorithm and convention)", fig["gather"] + o, len(ALGORITHMS) * CONVENTIONS),
        ("evaluate (per algorithm)", fig["evaluate"] + o, len(ALGORITHMS)),
        ("tables, figures, claims, report pages", fig["tail_job"] + o, TAIL_JOBS),
    ]
    longest_train = max([fig[a] for a in ("adarank", "lambdamart", "rankboost", "ranksvm")]
                        + [max(ca), max(rn)])
    chain = [("prepare", fig["prepare"] + o), ("longest training job", longest_train + o),
             ("gather", fig["gather"] + o), ("evaluate", fig["evaluate"] + o),
             ("per_query, aggregate, claims, report page",
              TAIL_CHAIN * (fig["tail_job"] + o))]
    return table, chain


def measure(rows: int) -> None:
    """Time what the pipeline's prepare and gather jobs do at MSLR's shape: parsing a LETOR
    file of ``rows`` MSLR-shaped documents into a cache (per million rows; prepare parses
    5 x 1,200,192), and one fold's gather of RankNet's largest architecture: the test split
    (240,000 documents) loaded from its cache and scored through the network."""
    import tempfile
    import time
    import warnings
    from pathlib import Path

    import numpy as np

    from ltrconv.data.letor import Dataset, read_letor
    from ltrconv.data.synthetic import make_mslr_like, write_letor
    from ltrconv.rankers.ranknet import forward, init_params

    with tempfile.TemporaryDirectory(prefix="study_walltime_") as tmp:
        text, cache = Path(tmp) / "train.txt", Path(tmp) / "train.npz"
        write_letor(make_mslr_like(rows, seed=0), text)
        c0 = time.process_time()
        with warnings.catch_warnings():  # the synthetic file has no docid comments, as MSLR's
            warnings.simplefilter("ignore")
            read_letor(text, n_features=136).save(cache)
        per_million = (time.process_time() - c0) / rows * 1e6
        print(f"prepare: {per_million:.1f} CPU s per million rows ({rows:,} rows parsed and "
              f"cached): {per_million * 5 * 1.200192:,.0f} s for the 5 folds' files")
        test = make_mslr_like(240_000, seed=1)
        test.save(cache)
        sizes = (136, 500, 1)
        params = init_params(sizes, np.random.default_rng(0))
        forward(params, sizes, "sigmoid", test.X[:10])  # numba load
        c0 = time.process_time()
        X = Dataset.load(cache).X
        forward(params, sizes, "sigmoid", (X - X.mean(0)) / (X.std(0) + 1))
        print(f"gather, one fold of RankNet (500,): {time.process_time() - c0:.1f} CPU s "
              "(test split loaded and scored)")


def hms(s: float) -> str:
    h, rest = divmod(int(round(s)), 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", default="1,10,50", type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--cores-per-node", type=int, default=2)
    ap.add_argument("--job-overhead", type=float, default=41.0,
                    help="seconds Snakemake adds to every Slurm job")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=SECONDS")
    ap.add_argument("--measure", type=int, metavar="ROWS",
                    help="time the prepare and gather figures instead (ROWS parsed, e.g. 50000)")
    args = ap.parse_args()
    if args.measure:
        measure(args.measure)
        return
    fig = {k: v for k, (v, _) in FIGURES.items()}
    for item in args.set:
        name, _, value = item.partition("=")
        if name not in fig:
            sys.exit(f"study_walltime: --set {item}: unknown figure; known: {', '.join(fig)}")
        fig[name] = float(value)
    ca = [s for s, _ in CA_RESTARTS]
    rn = [s for s, _ in RANKNET_UNITS.values()]
    table, chain = jobs(fig, ca, rn, args.job_overhead)
    print("per-job figures at the fold (720,000 training documents), seconds on one core:")
    for name, (s, source) in FIGURES.items():
        if name in fig and fig[name] != s:
            source = f"set on the command line (was {s:,.0f}: {source})"
        print(f"  {name:24s} {fig.get(name, s):9,.1f}  {source}")
    for i, (s, source) in enumerate(CA_RESTARTS):
        print(f"  {'ca restart ' + str(i):24s} {s:9,.1f}  {source}")
    for name, (s, source) in RANKNET_UNITS.items():
        print(f"  {'ranknet ' + name:24s} {s:9,.1f}  {source}")
    print(f"every job also pays {args.job_overhead:.0f} s of Snakemake start-up")
    print()
    work = sum(s * n for _, s, n in table)
    n_jobs = sum(n for _, _, n in table)
    print(f"{'job':52s} {'count':>6s} {'s each':>9s} {'work s':>10s}")
    for name, s, n in table:
        print(f"{name:52s} {n:6d} {s:9,.0f} {s * n:10,.0f}")
    print(f"{'all':52s} {n_jobs:6d} {'':9s} {work:10,.0f}")
    path = sum(s for _, s in chain)
    print("critical path: " + " -> ".join(f"{name} {s:,.0f} s" for name, s in chain)
          + f" = {path:,.0f} s ({hms(path)})")
    print()
    print(f"{'nodes':>5s} {'cores':>5s} {'work/cores':>11s} {'lower bound':>12s} "
          f"{'upper bound':>12s}")
    for nodes in args.nodes:
        cores = nodes * args.cores_per_node
        share = work / cores
        print(f"{nodes:5d} {cores:5d} {hms(share):>11s} {hms(max(path, share)):>12s} "
              f"{hms(path + share):>12s}")
    if math.isfinite(work):
        print(f"(one core alone: {hms(work)})")


if __name__ == "__main__":
    main()
