"""Measured against requested: each rule's (and algorithm's) peak RSS and wall time in a
pipeline run, and the cluster requests derived from them (ltrconv.pipeline.resources).

Reads the Snakemake benchmark files of one dataset (``RESULTS/DATASET/bench/**/*.tsv``: columns
s, max_rss, cpu_time) and the size of ``RESOURCES/DATASET``. Prints, per rule / algorithm, the
number of jobs, the largest peak RSS, the longest wall time and CPU time, the requests those
give, and the requests config/config.yaml gives now (``resources.measured``), marking rows that
differ. ``--yaml`` prints instead the ``measured`` block to put under ``resources:`` in the
config after a new run (its ``slurm_job`` figures, Snakemake's own share of a Slurm job, are
carried over from the config: benchmark files do not hold them; so are the figures of rules the
run did not have, such as a scattered run's ``fit_fold``, ``fit_unit`` and ``gather``).
``--seconds cpu`` takes each job's CPU time as its seconds: the jobs are single-threaded, so on
cores shared with other work the CPU time is the wall time the job would take alone. Snakemake
samples that CPU time (every 0.5 s for 15 s, then every 30 s), so it is short by up to 30 s a
job; the job's log ends with the exact figure (``benchmarks/job_cpu.py``).

    python benchmarks/job_resources.py [--root CHECKOUT] [--dataset MQ2008] [--yaml] [--seconds cpu]
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import yaml

HERE = Path(__file__).resolve()
REPO = HERE.parents[1]
from ltrconv.pipeline import resources as job_requests  # noqa: E402


def measure(bench: Path, seconds: str = "wall") -> dict:
    """rule -> figures, or rule -> algorithm -> figures for the rules run per algorithm;
    ``s`` is the longest wall time, or with ``seconds="cpu"`` the longest CPU time."""
    rows = []
    for path in sorted(bench.rglob("*.tsv")):
        parts = path.relative_to(bench).with_suffix("").parts
        table = pd.read_csv(path, sep="\t")
        rows.append(dict(rule=parts[0], algorithm=parts[1] if len(parts) > 2 else "",
                         s=table["s" if seconds == "wall" else "cpu_time"].max(), max_rss=table["max_rss"].max(),
                         cpu_time=table["cpu_time"].max()))
    if not rows:
        sys.exit(f"job_resources: no benchmark files under {bench}")
    df = pd.DataFrame(rows).groupby(["rule", "algorithm"]).agg(
        n=("s", "size"), max_rss=("max_rss", "max"), s=("s", "max"), cpu_time=("cpu_time", "max"))
    jobs: dict = {}
    for (rule, algorithm), r in df.iterrows():
        fig = {"max_rss": math.ceil(r.max_rss), "s": math.ceil(r.s), "n": int(r.n),
               "cpu_time": round(float(r.cpu_time), 1)}
        if algorithm:
            jobs.setdefault(rule, {})[algorithm] = fig
        else:
            jobs[rule] = fig
    return jobs


def du_mb(path: Path) -> int:
    out = subprocess.run(["du", "-sm", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=REPO, help="checkout whose results/ and resources/ are read")
    ap.add_argument("--dataset", default="MQ2008")
    ap.add_argument("--config", type=Path, default=REPO / "config" / "config.yaml")
    ap.add_argument("--yaml", action="store_true", help="print the config block instead of the table")
    ap.add_argument("--seconds", choices=("wall", "cpu"), default="wall",
                    help="a job's seconds: its wall time, or its CPU time (a run on shared cores)")
    args = ap.parse_args(argv)

    cfg = yaml.safe_load(args.config.read_text())
    spec = cfg["datasets"][args.dataset]
    root = args.root
    bench = root / cfg.get("results_dir", "results") / args.dataset / "bench"
    stored = root / cfg.get("resources_dir", "resources") / args.dataset
    if not bench.is_dir():
        sys.exit(f"job_resources: {bench}: no such directory (run the pipeline first)")
    if not stored.is_dir():
        sys.exit(f"job_resources: {stored}: no such directory (run the pipeline first)")
    jobs = measure(bench, args.seconds)
    rows = spec.get("expect", {}).get("rows") or spec.get("resources", {}).get("rows")
    if not rows:
        sys.exit(f"job_resources: config key 'datasets.{args.dataset}.expect.rows' is needed")
    on = {"dataset": args.dataset, "rows": rows, "features": spec["n_features"],
          "dataset_mb": du_mb(stored)}
    if args.yaml:
        strip = lambda f: {"max_rss": f["max_rss"], "s": f["s"]}  # noqa: E731
        block = {r: ({a: strip(f) for a, f in v.items()} if r in job_requests.RULES_BY_ALGORITHM
                     else strip(v)) for r, v in jobs.items()}
        before = cfg.get("resources", {}).get("measured", {})
        for rule, figures in before.get("jobs", {}).items():
            if rule not in block:
                block[rule] = figures
            elif rule in job_requests.RULES_BY_ALGORITHM:
                block[rule] = {**figures, **block[rule]}
        block = dict(sorted(block.items()))
        measured = {"reference": on, "slurm_job": before.get("slurm_job", {}), "jobs": block}
        print(yaml.safe_dump({"measured": measured}, sort_keys=False,
                             default_flow_style=None, width=100), end="")
        return 0

    current = cfg.get("resources", {}).get("measured")
    fresh = {"reference": on, "jobs": jobs, "slurm_job": (current or {}).get("slurm_job", {})}
    job = fresh["slurm_job"]
    print(f"{args.dataset}: {rows} rows x {on['features']} features, {on['dataset_mb']} MB stored; "
          f"Snakemake in a Slurm job (config): {job.get('max_rss', 0)} MB, {job.get('s', 0)} s")
    print(f"requests: mem {job_requests.MEM_FACTOR:g} x (peak RSS + Snakemake's), wall time "
          f"{job_requests.RUNTIME_FACTOR:g} x (longest + Snakemake's start-up), at least "
          f"{job_requests.MIN_RUNTIME} min; disk {job_requests.DISK_FACTOR:g} x stored dataset")
    head = (f"{'rule':<10} {'algorithm':<22} {'jobs':>4} {'peak MB':>8} {'wall s':>7} {'cpu s':>7}"
            f" | {'mem_mb':>6} {'min':>4} {'disk':>5} | config: {'mem_mb':>6} {'min':>4} {'disk':>5}")
    print(head)
    print("-" * len(head))
    for rule, v in jobs.items():
        items = v.items() if rule in job_requests.RULES_BY_ALGORITHM else [("", v)]
        for algorithm, f in items:
            new = job_requests.for_rule(fresh, rule, algorithm or None)
            line = (f"{rule:<10} {algorithm:<22} {f['n']:>4} {f['max_rss']:>8} {f['s']:>7} "
                    f"{f['cpu_time']:>7} | {new['mem_mb']:>6} {new['runtime']:>4} {new['disk_mb']:>5} | ")
            if current:
                old = job_requests.for_rule(current, rule, algorithm or None)
                mark = "" if old == new else "  <- differs"
                line += f"        {old['mem_mb']:>6} {old['runtime']:>4} {old['disk_mb']:>5}{mark}"
            else:
                line += "        (no resources.measured in the config)"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
