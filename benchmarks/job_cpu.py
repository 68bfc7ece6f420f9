"""A pipeline run's CPU time, job by job, from the line each finished job ends its log with
(``ltrconv.pipeline.job.CPU_LINE``: the job process's user + system seconds from its start),
beside the sum of the run's benchmark files, whose ``cpu_time`` Snakemake samples (every 0.5 s
for a job's first 15 s, then every 30 s: a job's last seconds, up to 30 per thread, are not in
it).

    python benchmarks/job_cpu.py [--logs logs] [--results results] [--top 12]

Prints the ``--top`` jobs by CPU, then the sum over every job log with the line, how many logs
lack it (a job that failed, or ran before the line existed) and the benchmark files' sum. The
jobs' sum leaves out Snakemake's own process (``/usr/bin/time snakemake`` counts it).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from ltrconv.pipeline.job import CPU_LINE


def job_seconds(log: Path) -> float | None:
    """The CPU seconds on the last :data:`CPU_LINE` line of ``log``; None without one."""
    seconds = None
    with open(log, errors="replace") as fh:
        for line in fh:
            if line.startswith(CPU_LINE):
                seconds = float(line[len(CPU_LINE):].split()[0])
    return seconds


def bench_seconds(results: Path) -> tuple[float, int]:
    """The ``cpu_time`` summed over every benchmark file under ``results`` and their count."""
    total, files = 0.0, 0
    for path in sorted(results.glob("**/bench/**/*.tsv")):
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                if row.get("cpu_time") not in (None, "", "NA"):
                    total += float(row["cpu_time"])
        files += 1
    return total, files


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logs", type=Path, default=Path("logs"))
    ap.add_argument("--results", type=Path, default=Path("results"))
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args(argv)
    if not args.logs.is_dir():
        print(f"job_cpu.py: no log directory {args.logs}", file=sys.stderr)
        return 2
    found, missing = [], []
    for log in sorted(args.logs.glob("**/*.log")):
        seconds = job_seconds(log)
        if seconds is None:
            missing.append(log)
        else:
            found.append((seconds, log))
    found.sort(key=lambda t: -t[0])
    for seconds, log in found[:args.top]:
        print(f"{seconds:10.2f} s  {log.relative_to(args.logs)}")
    print(f"{sum(s for s, _ in found):10.2f} s  CPU of {len(found)} jobs (their logs' '{CPU_LINE}' "
          f"lines); {len(missing)} logs without one")
    if args.results.is_dir():
        total, files = bench_seconds(args.results)
        print(f"{total:10.2f} s  cpu_time of {files} benchmark files (sampled)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
