"""RankLib 2.x's jar on the documents benchmarks/bench_scale.py fits our rankers on: the LETOR
files, one timed run of the jar (its log's time stamps, /proc CPU and RSS), the rows of the
training table."""

from __future__ import annotations

import json
import math
import os
import subprocess
import threading
import time
from pathlib import Path

from ltrconv.data.synthetic import make_mslr_like
from ltrconv.data.writer import FLOAT32_EXACT, write_letor

from scale_parts import power_law, slope, training_data  # loaded by bench_scale.py

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
