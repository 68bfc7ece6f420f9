"""Peak memory and wall time of the study's jobs on a synthesised per-query table.

Synthesises the evaluation's per-model tables (no training: random scores with ties and zeros)
for the paper's configuration (config/config.yaml: 10 algorithms x 3 training conventions, one
seed, 7 evaluation conventions) or the extended one (config/extended.yaml: 62 models, 5 seeds
for the random algorithms, 19 evaluation conventions), NDCG@1-10, P@1-10 and MAP, over
``scale`` times MQ2008's 784 queries in 5 folds; then runs each study job's function (the code
its workflow script runs) in a child process, which reports its own peak RSS
(``getrusage(RUSAGE_SELF).ru_maxrss``) and wall time.

    python benchmarks/bench_study_memory.py [--config paper|extended] [--scales 1 4 13]
                                            [--jobs per_query aggregate ...] [--workdir DIR]

``--jobs per_query_former aggregate_former`` adds the former jobs (the whole table in memory)
as a peer. Prints one row per (scale, job): rows of the per-query table, peak RSS (MB), wall time (s), and
the growth of each from the first scale (rows_x, rss_x, s_x: growth is at most linear when rss_x
and s_x stay at or below rows_x).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

MQ2008_QUERIES = 784
FOLDS = 5
METRICS = [("NDCG", k) for k in range(1, 11)] + [("P", k) for k in range(1, 11)] + [("MAP", 0)]
PAPER_EVALS = ["ranklib", "trec", "yahoo", "letor", "ranklib-tieavg", "ranklib-tiepess",
               "ranklib-tieopt"]
EXTENDED_EVALS = PAPER_EVALS + ["sklearn", "sklearn-ignore-ties", "lightgbm", "xgboost",
                                "xgboost-minus", "catboost", "catboost-exp", "catboost-position",
                                "ranx", "ranx-burges", "trec-raw", "torchmetrics"]
THREE, FIVE = ["yahoo", "ranklib", "letor"], ["yahoo", "ranklib", "letor", "sklearn", "catboost"]
BASE = ["adarank", "coordinate_ascent", "lambdamart", "ranknet", "rankboost", "ranksvm"]
CONFIGS = {  # algorithm: (training conventions, seeds)
    "paper": {"evals": PAPER_EVALS, "variants": {
        "adarank_stable_ties": "adarank", "rankboost_quantile": "rankboost",
        "lambdamart_minleaf50": "lambdamart", "lambdamart_lightgbm": "lambdamart"},
        "models": {a: (THREE, [0]) for a in BASE + ["adarank_stable_ties", "rankboost_quantile",
                                                     "lambdamart_minleaf50",
                                                     "lambdamart_lightgbm"]}},
    "extended": {"evals": EXTENDED_EVALS, "variants": {
        "adarank_stable_ties": "adarank", "adarank_tieavg_ties": "adarank"},
        "models": {"adarank": (FIVE, [0]), "coordinate_ascent": (FIVE, [0, 1, 2, 3, 4]),
                   "lambdamart": (FIVE, [0]), "ranknet": (THREE, [0, 1, 2, 3, 4]),
                   "rankboost": (THREE, [0]), "ranksvm": (THREE, [0]),
                   "adarank_stable_ties": (THREE, [0]), "adarank_tieavg_ties": (THREE, [0])}},
}
# the former jobs, which held the whole table in memory, as a peer measured in the same run
FORMER = ["per_query_former", "aggregate_former"]
JOBS = ["per_query", "aggregate", "seed_tables", "ties_table", "implementation", "claims",
        "library_tables", "library_order", "winning", "figures"]


def synthesise(config: str, scale: float, out: Path, evals=None, algorithms=None) -> list[Path]:
    """The evaluation's per-model tables (one per model and fold) for ``scale`` x MQ2008, under
    ``evals`` and of ``algorithms`` (default: the configuration's)."""
    spec = dict(CONFIGS[config])
    spec["evals"] = evals or spec["evals"]
    spec["models"] = {a: m for a, m in spec["models"].items() if not algorithms or a in algorithms}
    rng = np.random.default_rng(7)
    n_queries = int(round(MQ2008_QUERIES * scale))
    qids = rng.permutation(np.arange(10000, 10000 + 3 * n_queries))[:n_queries].astype(str)
    fold_of = np.arange(n_queries) % FOLDS + 1
    metric = np.array([m for m, _ in METRICS])
    k = np.array([c for _, c in METRICS], dtype=np.int64)
    paths = []
    for alg, (trains, seeds) in spec["models"].items():
        for train in trains:
            for seed in seeds:
                for fold in range(1, FOLDS + 1):
                    q = qids[fold_of == fold]
                    n = len(q) * len(METRICS)
                    parts = []
                    for ev in spec["evals"]:
                        v = np.round(rng.random(n), 3)
                        v[rng.random(n) < 0.15] = 0.0
                        parts.append(pd.DataFrame({
                            "dataset": "MQ2008", "fold": np.int64(fold), "seed": np.int64(seed),
                            "algorithm": alg, "train_convention": train, "eval_convention": ev,
                            "metric": np.tile(metric, len(q)), "k": np.tile(k, len(q)),
                            "qid": np.repeat(q, len(METRICS)), "value": v}))
                    path = out / f"{alg}.{train}.{seed}.{fold}.parquet"
                    pd.concat(parts, ignore_index=True).to_parquet(path, index=False)
                    paths.append(path)
    return paths


def run_job(job: str, config: str, work: Path) -> dict:
    """Child side: one job's function on ``work``'s tables; returns its own figures."""
    from ltrconv.study import figures, per_query_store as store, tables as study, winning

    spec = CONFIGS[config]
    table = work / "per_query.parquet"
    algorithms = BASE
    start = time.perf_counter()
    if job == "per_query":
        rows = store.write(sorted((work / "pieces").glob("*.parquet")), table)
    elif job == "per_query_former":
        frame = pd.concat([pd.read_parquet(p) for p in sorted((work / "pieces").glob("*.parquet"))],
                          ignore_index=True)
        keys = [c for c in study.PER_QUERY_COLUMNS if c not in ("qid", "value")]
        frame = frame.sort_values(keys, kind="stable", ignore_index=True)
        frame.to_parquet(work / "per_query_former.parquet", index=False)
        rows = len(frame)
    elif job == "aggregate_former":
        per_query = pd.read_parquet(work / "per_query_former.parquet")
        folds = study.fold_stats(per_query)
        study.summarise(folds=folds)
        rows = len(study.ttests(per_query))
    elif job == "aggregate":
        folds, tests = store.aggregate(table)
        summary = study.summarise(folds=folds)
        study.fold_means(folds=folds).to_csv(work / "fold_means.tsv", sep="\t", index=False)
        summary.to_csv(work / "summary.tsv", sep="\t", index=False)
        study.algorithm_order(summary[summary["algorithm"].isin(algorithms)])
        rows = len(tests)
    elif job == "seed_tables":
        rows = len(store.seed_tables(table)[1])
    elif job == "ties_table":
        rows = len(store.tie_table(table, k=10))
    elif job == "implementation":
        rows = len(store.implementation_table(table, spec["variants"]))
    elif job == "claims":
        rows = len(store.zero_shares(table, "ranklib", algorithms))
    elif job == "library_tables":
        rows = len(store.training_ttests(table, algorithms, ("sklearn", "catboost"), "ranklib"))
    elif job in ("library_order", "winning"):
        folds = pd.read_csv(work / "fold_means.tsv", sep="\t")
        folds = folds[folds["algorithm"].isin(algorithms)]
        by = ["train_convention", "eval_convention", "metric", "k"]
        rows = len(study.sort_rows(winning.winning_numbers(folds, by=by), by))
    elif job == "figures":
        figures.figure2(pd.read_csv(work / "summary.tsv", sep="\t"), work / "figure2",
                        algorithms=algorithms)
        rows = 1
    else:
        raise SystemExit(f"bench_study_memory: unknown job {job!r}")
    return {"s": time.perf_counter() - start, "out_rows": rows,
            "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", choices=sorted(CONFIGS), default="paper")
    ap.add_argument("--scales", type=float, nargs="+", default=[1, 4, 13])
    ap.add_argument("--jobs", nargs="+", choices=JOBS + FORMER, default=JOBS)
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--evals", nargs="+", default=None,
                    help="synthesise these evaluation conventions only (and --algorithms): each "
                         "job's peak (one chunk at a time) is the full table's when the largest "
                         "algorithm stays, its time a share of it")
    ap.add_argument("--algorithms", nargs="+", default=None)
    ap.add_argument("--child", nargs=2, metavar=("JOB", "WORK"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run_job(args.child[0], args.config, Path(args.child[1]))))
        return
    top = args.workdir or Path(tempfile.mkdtemp(prefix="bench_study_memory."))
    print(f"config {args.config}; work under {top}", flush=True)
    print("scale\tqueries\trows\tjob\tmax_rss_mb\ts\trows_x\trss_x\ts_x", flush=True)
    first: dict[str, tuple] = {}  # job: (rows, max_rss_mb, s) at the first scale
    jobs = ["per_query"] + [j for j in args.jobs if j != "per_query"]
    if "aggregate_former" in jobs and "per_query_former" not in jobs:
        jobs.insert(jobs.index("aggregate_former"), "per_query_former")
    for scale in args.scales:
        part = "" if not (args.evals or args.algorithms) else "-part"
        work = top / f"{args.config}-x{scale:g}{part}"
        (work / "pieces").mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        if not any((work / "pieces").iterdir()):
            synthesise(args.config, scale, work / "pieces", args.evals, args.algorithms)
        print(f"# synthesised x{scale:g} in {time.perf_counter() - t0:.0f} s", flush=True)
        rows = None
        for job in jobs:
            proc = subprocess.run([sys.executable, __file__, "--config", args.config,
                                   "--child", job, str(work)], capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(f"bench_study_memory: {job} failed at x{scale:g}:\n{proc.stderr[-2000:]}")
            fig = json.loads(proc.stdout.strip().splitlines()[-1])
            if job == "per_query":
                rows = fig["out_rows"]
            base = first.setdefault(job, (rows, fig["max_rss_mb"], fig["s"]))
            print(f"{scale:g}\t{int(round(MQ2008_QUERIES * scale))}\t{rows}\t{job}\t"
                  f"{fig['max_rss_mb']:.0f}\t{fig['s']:.1f}\t{rows / base[0]:.2f}\t"
                  f"{fig['max_rss_mb'] / base[1]:.2f}\t{fig['s'] / max(base[2], 1e-9):.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
