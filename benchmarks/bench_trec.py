"""Speed and memory of ``ltrconv eval --qrels --run`` on TREC files against trec_eval and ranx.

    python benchmarks/bench_trec.py --lines 100000 1000000 --trec-eval PATH [--ranx] [--api]
                                    [--every | --both]

For each size: a synthetic run (1000 documents per query, scores rounded to 3 decimals so that
ties occur) and qrels (a fifth of each query's documents judged 0-2, plus judged documents
the run misses), written to a temporary folder; then NDCG@10 under the ``trec_eval``
convention end to end (``python -m ltrconv.cli eval --qrels Q --run R -c trec_eval --cutoffs
10 --metrics NDCG``, reading both files; with ``--api``, ``ltrconv.evaluate_run`` instead) in
a fresh process, the trec_eval binary (``-m ndcg_cut.10``) on the same files, and ranx
``Run.from_file`` + ``Qrels.from_file`` + ``evaluate``. Prints wall and CPU seconds (user +
system, the process's own, from ``os.wait4``) and peak resident memory (MB) of each, the
ratios, and each tool's mean (they must agree). ``--every`` compares every metric instead:
``ltrconv eval`` with its default metrics and cutoffs (NDCG, P, ERR at 1-10, MAP, RR) against
``trec_eval -m all_trec`` (its last line, not a mean to compare); ``--both`` prints both
comparisons. ``--four`` adds four conventions at five cutoffs with every metric
(``-c trec_eval -c trec_eval-c -c ir_measures -c ir_measures-judged --cutoffs 1,3,5,10,20``,
one ranking of the run shared by all) beside one convention at one cutoff (``-c trec_eval
--cutoffs 10``), and the three trec_eval runs the four take there (``-m all_trec``, with
``-c``, with ``-c -J``; ir_measures is trec_eval -c on a run without repeated docids), their
CPU times summed. Each tool runs ``--repeats`` times,
interleaved, after one untimed run (Python's bytecode caches written, the files in the page
cache, as for a tool in use); medians.
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

import numpy as np

API = """
import sys, ltrconv
ev = ltrconv.evaluate_run(sys.argv[1], sys.argv[2], conventions=["trec_eval"], cutoffs=10,
                          metrics=["NDCG"])["trec_eval"]
print(ev.mean()["NDCG@10"])
"""
CLI = ["-m", "ltrconv.cli", "eval", "-c", "trec_eval", "--cutoffs", "10", "--metrics", "NDCG",
       "--format", "tsv"]
# every metric: ltrconv eval's defaults (NDCG, P, ERR, MAP and RR at the cutoffs) against
# trec_eval's every measure (-m all_trec)
CLI_EVERY = ["-m", "ltrconv.cli", "eval", "-c", "trec_eval", "--format", "tsv"]
# four conventions x five cutoffs against one x one, and trec_eval's runs for the four
FOUR = ["-c", "trec_eval", "-c", "trec_eval-c", "-c", "ir_measures", "-c", "ir_measures-judged",
        "--cutoffs", "1,3,5,10,20"]
FOUR_TREC_EVAL = [[], ["-c"], ["-c", "-J"]]
RANX = """
import sys
from ranx import Qrels, Run, evaluate
q = Qrels.from_file(sys.argv[1], kind="trec")
r = Run.from_file(sys.argv[2], kind="trec")
print(evaluate(q, r, "ndcg@10", make_comparable=True))
"""


def write(folder: Path, lines: int, seed: int = 7) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    per = 1000
    nq = max(1, lines // per)
    q = np.repeat(np.arange(nq), per)[:lines]
    d = np.tile(np.arange(per), nq)[:lines]
    s = np.round(rng.random(lines), 3)
    run = folder / "run"
    with open(run, "w") as fh:
        fh.writelines(f"{a} Q0 D{b} {i % per + 1} {c!r} bench\n"
                      for i, (a, b, c) in enumerate(zip(q.tolist(), d.tolist(), s.tolist())))
    judged = rng.random(lines) < 0.2
    grade = rng.integers(0, 3, lines)
    qrels = folder / "qrels"
    with open(qrels, "w") as fh:
        fh.writelines(f"{a} 0 D{b} {g}\n" for a, b, g, j in
                      zip(q.tolist(), d.tolist(), grade.tolist(), judged.tolist()) if j)
        fh.writelines(f"{a} 0 M{a}-{i} 1\n" for a in range(nq) for i in range(3))
    return qrels, run


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The children's environment: bytecode caches written and used, as an installed tool's are."""


def timed(cmd: list) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of the command's own
    process (``os.wait4``), and its stdout's last line; for a list of commands, run one after
    the other, the sums of their times, their largest peak and the last one's line."""
    if cmd and isinstance(cmd[0], list):
        parts = [timed(c) for c in cmd]
        return (sum(p[0] for p in parts), sum(p[1] for p in parts), max(p[2] for p in parts),
                parts[-1][3])
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=ENV)
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{cmd[0]} exited with status {proc.returncode}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, out.strip().splitlines()[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--trec-eval", help="trec_eval binary")
    ap.add_argument("--ranx", action="store_true", help="also time ranx")
    ap.add_argument("--repeats", type=int, default=5,
                    help="runs of each tool, interleaved; medians are printed")
    ap.add_argument("--api", action="store_true",
                    help="time ltrconv.evaluate_run rather than the ltrconv command")
    ap.add_argument("--every", action="store_true",
                    help="every metric: ltrconv's defaults against trec_eval -m all_trec")
    ap.add_argument("--both", action="store_true", help="NDCG@10 alone, then every metric")
    ap.add_argument("--four", action="store_true",
                    help="also four conventions x five cutoffs against one x one")
    ap.add_argument("--write-to", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.write_to:  # the files, written by a child: the timed tools' peak memory is their
        write(Path(args.write_to), args.lines[0])  # own (a child counts its parent's pages
        return                                     # until it runs the tool)
    for n in args.lines:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, __file__, "--lines", str(n), "--write-to", tmp],
                           check=True)
            qrels, run = Path(tmp) / "qrels", Path(tmp) / "run"
            modes = ["ndcg", "every"] if args.both else ["every" if args.every else "ndcg"]
            for mode in modes + (["four"] if args.four else []):
                compare(n, mode, qrels, run, args)
        sys.stdout.flush()


def compare(n: int, mode: str, qrels: Path, run: Path, args) -> None:
    """Time the tools on one pair of files: NDCG@10 alone (``mode="ndcg"``), every metric
    (``"every"``), or four conventions at five cutoffs (``"four"``)."""
    every = mode != "ndcg"
    files = ["--qrels", str(qrels), "--run", str(run)]
    cmds, base = {}, "ltrconv"
    if mode == "four":
        base = "ltrconv 4x5"
        cmds[base] = [sys.executable, "-m", "ltrconv.cli", "eval", "--format", "tsv", *FOUR,
                      *files]
        cmds["ltrconv 1x1"] = [sys.executable, *CLI_EVERY, "--cutoffs", "10", *files]
        if args.trec_eval:
            cmds["trec_eval x3"] = [[args.trec_eval, *flags, "-m", "all_trec", str(qrels),
                                     str(run)] for flags in FOUR_TREC_EVAL]
    else:
        if args.trec_eval:
            cmds["trec_eval"] = [args.trec_eval, "-m", "all_trec" if every else "ndcg_cut.10",
                                 str(qrels), str(run)]
        if args.api and not every:
            cmds["ltrconv"] = [sys.executable, "-c", API, str(qrels), str(run)]
        else:
            cmds["ltrconv"] = [sys.executable, *(CLI_EVERY if every else CLI), *files]
        if args.ranx and not every:
            cmds["ranx"] = [sys.executable, "-c", RANX, str(qrels), str(run)]
    for cmd in cmds.values():
        timed(cmd)
    runs = {name: [] for name in cmds}
    for _ in range(args.repeats):  # interleaved: load on the machine hits each alike
        for name, cmd in cmds.items():
            runs[name].append(timed(cmd))
    med = {name: [statistics.median(r[i] for r in rs) for i in range(3)] + [rs[-1][3]]
           for name, rs in runs.items()}
    what = {"ndcg": "NDCG@10", "every": "every metric", "four": "4 conv x 5"}[mode]
    for name, (wall, cpu, mb, out) in med.items():
        print(f"{n:>9} lines  {what:12s} {name:12s} wall {wall:7.2f} s  CPU {cpu:7.2f} s  "
              f"peak {mb:7.0f} MB  -> {out.split()[-1]}")
    for name, (wall, cpu, _, _) in med.items():
        if name != base:
            print(f"{n:>9} lines  {what:12s} {name} / {base}: wall {wall / med[base][0]:.2f}, "
                  f"CPU {cpu / med[base][1]:.2f}  (medians of {args.repeats})")


if __name__ == "__main__":
    main()
