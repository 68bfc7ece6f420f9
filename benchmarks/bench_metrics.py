"""Time the convention engine against pytrec_eval on the same job.

Job: NDCG@1..10 and MAP for every query of MQ2008 (S1..S5, 784 queries, 15,211 documents)
under the four tools' conventions (ranklib, trec, yahoo, letor). pytrec_eval only knows the
trec convention, so its peer job is one ``evaluate`` call per convention (4 calls), with the
qrels parsed once outside the timing, as a user of pytrec_eval would; likewise ltrconv's
dataset caches its docid order. The targets concern the numba kernel; the numpy engine (what
``engine="auto"`` picks at this size, to spare a short process numba's start-up) is timed on
the same job for comparison; a last row times the numba kernel with RankDCG added.

    python benchmarks/bench_metrics.py [--data DIR] [--repeats 30]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from ltrconv import evaluate_dataset
from ltrconv.data.letor import Dataset, read_letor

HERE = Path(__file__).resolve()
DEFAULT_DATA = HERE.parents[2] / "shared" / "data" / "MQ2008"
CONVENTIONS = ["ranklib", "trec", "yahoo", "letor"]


def load_all(root: Path) -> Dataset:
    parts = [read_letor(root / f"S{i}.txt") for i in range(1, 6)]
    return Dataset.concat(parts, source=str(root))


def median_ms(fn, repeats: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds of ``fn()``.

    On a shared machine a call longer than a scheduler slice is often preempted, which
    inflates wall time; the process CPU time is the steadier figure.
    """
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        cpu.append((time.process_time() - c0) * 1e3)
        wall.append((time.perf_counter() - w0) * 1e3)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeats", type=int, default=50)
    args = ap.parse_args()
    import pytrec_eval

    data = load_all(args.data)
    scores = np.round(data.X[:, 37], 3)  # a BM25-like feature, rounded: realistic ties
    print(f"data: {data.n_queries} queries, {data.n_docs} documents; {len(np.unique(scores))} distinct scores")

    def ours(engine="numba"):
        return evaluate_dataset(data, scores, conventions=CONVENTIONS, cutoffs="1-10",
                                engine=engine)

    t0 = time.perf_counter()
    res = ours()
    print(f"first call (includes numba load/compile): {(time.perf_counter() - t0):.2f} s")

    remap = (0, 1, 3)
    qrel, run = {}, {}
    for q, d, lab, s in zip(data.qid.astype(str), data.docid, data.y, scores):
        qrel.setdefault(q, {})[d] = remap[lab]
        run.setdefault(q, {})[d] = float(s)
    measures = {f"ndcg_cut_{k}" for k in range(1, 11)} | {"map"}
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, measures)

    def theirs():
        return [evaluator.evaluate(run) for _ in CONVENTIONS]

    ref = theirs()[0]
    ndcg10 = np.array([ref[str(q)]["ndcg_cut_10"] for q in res["trec"].qids])
    err = np.abs(ndcg10 - res["trec"]["NDCG@10"]).max()
    print(f"check: max |ltrconv trec - pytrec_eval| on NDCG@10 = {err:.2e}")

    ours_wall, ours_cpu = median_ms(ours, args.repeats)
    theirs_wall, theirs_cpu = median_ms(theirs, args.repeats)
    numpy_wall, numpy_cpu = median_ms(lambda: ours("numpy"), args.repeats)
    print(f"{'':56s} {'wall ms':>8s} {'CPU ms':>8s}   (medians of {args.repeats})")
    print(f"{'ltrconv, 4 conventions (NDCG/P/ERR@1..10, MAP, RR)':56s} {ours_wall:8.2f} {ours_cpu:8.2f}")
    print(f"{'pytrec_eval, 4 x evaluate (ndcg_cut_1..10, map)':56s} {theirs_wall:8.2f} {theirs_cpu:8.2f}")
    print(f"{'ltrconv, numpy engine (no numba start-up), same job':56s} {numpy_wall:8.2f} {numpy_cpu:8.2f}")
    print(f"speed-up: wall {theirs_wall / ours_wall:.1f}x, CPU {theirs_cpu / ours_cpu:.1f}x;  "
          f"target >= 10x and < 50 ms: {'met' if theirs_cpu / ours_cpu >= 10 and ours_wall < 50 else 'NOT met'}")
    for name in CONVENTIONS:
        print(f"  mean NDCG@10 {name:8s} {res[name].mean()['NDCG@10']:.4f}")

    def with_rankdcg():
        return evaluate_dataset(data, scores, conventions=CONVENTIONS, cutoffs="1-10", rankdcg=True)

    extra = with_rankdcg()
    plus_wall, plus_cpu = median_ms(with_rankdcg, args.repeats)
    print(f"{'ltrconv, the same plus RankDCG':56s} {plus_wall:8.2f} {plus_cpu:8.2f}   "
          f"(CPU x{plus_cpu / ours_cpu:.2f} of the run without)")
    for name in CONVENTIONS:
        print(f"  mean RankDCG {name:8s} {extra[name].mean()['RankDCG']:.4f}")


if __name__ == "__main__":
    main()
