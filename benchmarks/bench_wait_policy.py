"""CPU time of LightGBM's LambdaMART when its idle OpenMP threads spin or sleep.

One fit of ``lambdamart_lightgbm`` (default parameters: 2 threads, ndcg@10:ranklib) on MQ2008
Fold1 per fresh process (libgomp reads ``OMP_WAIT_POLICY`` when it loads), with the policy
unset (libgomp's default: a waiting thread spins before it sleeps) and ``PASSIVE`` (it sleeps at
once; what the workflow's jobs run with), alternately ``--repeats`` times, while ``--busy``
other processes each keep a core busy. Printed: the medians of the fit's CPU seconds (user +
system of every thread) and wall seconds, and their ratio. numba's kernels run on the same
OpenMP runtime (its ``omp`` threading layer) and on 2 threads too.

    python benchmarks/bench_wait_policy.py [--data DIR] [--repeats 5] [--busy 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
POLICIES = ("unset", "PASSIVE")


def child(fold: Path) -> dict:
    """One fit in this process: wall and CPU seconds, trees kept."""
    from ltrconv.data.letor import read_letor
    from ltrconv.data.synthetic import make_letor, split
    from ltrconv.rankers import make

    d = make_letor(n_queries=20, n_features=4, seed=0)  # untimed: loads the numba kernels
    wt, wv = split(d, range(15)), split(d, range(15, 20))
    make("lambdamart_lightgbm", n_estimators=2).fit(wt.X, wt.y, wt.qid, X_val=wv.X, y_val=wv.y,
                                                    qid_val=wv.qid)
    tr, va = (read_letor(fold / f"{s}.txt") for s in ("train", "vali"))
    model = make("lambdamart_lightgbm", num_threads=2)
    w0, c0 = time.perf_counter(), time.process_time()
    model.fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid, docid=tr.docid,
              docid_val=va.docid)
    return {"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0,
            "trees": model.best_iteration_, "policy": os.environ.get("OMP_WAIT_POLICY", "unset")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=HERE.parents[2] / "shared" / "data" / "MQ2008")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--busy", type=int, default=1, help="processes each spinning on a core")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    fold = args.data / "Fold1"
    if not (fold / "train.txt").exists():
        print(f"bench_wait_policy: no MQ2008 Fold1 under {args.data} (set --data)", file=sys.stderr)
        return 2
    base = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    base.update({v: "2" for v in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS")})
    base["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE.parents[1] / "src"),
                                                      os.environ.get("PYTHONPATH")]))
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(args.busy)]
    runs = {p: [] for p in POLICIES}
    try:
        for _ in range(args.repeats):
            for policy in POLICIES:
                env = dict(base, **({} if policy == "unset" else {"OMP_WAIT_POLICY": policy}))
                out = subprocess.run([sys.executable, str(HERE), "--child", str(fold)], env=env,
                                     capture_output=True, text=True, check=True).stdout
                runs[policy].append(json.loads(out.splitlines()[-1]))
    finally:
        for p in busy:
            p.kill()
            p.wait()
    load = os.getloadavg()[0]
    print(f"lambdamart_lightgbm on MQ2008 Fold1, 2 threads, {args.busy} core(s) kept busy, "
          f"{args.repeats} fits each (load {load:.1f} on {os.cpu_count()} cores at the end)")
    med = {}
    for policy, rs in runs.items():
        med[policy] = {k: statistics.median(r[k] for r in rs) for k in ("cpu", "wall")}
        print(f"OMP_WAIT_POLICY {policy:<8} CPU {med[policy]['cpu']:7.2f} s  wall "
              f"{med[policy]['wall']:7.2f} s  (CPU of each fit: "
              f"{', '.join(format(r['cpu'], '.2f') for r in rs)}; trees {rs[0]['trees']})")
    print(f"unset / PASSIVE: CPU {med['unset']['cpu'] / med['PASSIVE']['cpu']:.1f}x, wall "
          f"{med['unset']['wall'] / med['PASSIVE']['wall']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
