"""Coordinate Ascent's line search: LinearObjective.line against ranking every candidate.

Replays the line searches of one Coordinate Ascent sweep on an MQ2008 fold (uniform start
weights, every feature, directions + and -, RankLib 2.x's 100 doubling steps) and times

* ``line``: :meth:`LinearObjective.line` (rankings carried between candidates, candidates
  that provably change no top k skipped), and
* ``every``: the peer in the same run, which ranks every candidate of every query from
  scratch by counting the documents placed before each relevant one (the definition).

Both must return the same floats, bit for bit; the script stops if they do not. It prints
the CPU time of each (median of ``--repeats``) and their ratio, per training convention.

    python benchmarks/bench_line_search.py [--fold 1] [--repeats 5] [--data DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from ltrconv.evaluation._kernels import precedes
from ltrconv.data.letor import read_letor
from ltrconv.evaluation.scorer import NDCGScorer
from ltrconv.rankers.linear_objective import LinearObjective, linear_scores
from ltrconv.evaluation.ties import AVERAGE, CODES

HERE = Path(__file__).resolve()
DEFAULT_DATA = HERE.parents[2] / "shared" / "data" / "MQ2008"
CONVENTIONS = ("ranklib", "yahoo", "letor", "trec", "ranklib-tieavg")


@njit(cache=True)
def _dcg_by_counting(s, gains, labels, tiekey, rel, disc, k, tie):
    n = len(s)
    m = min(k, n)
    total = 0.0
    for i in rel:
        if tie == AVERAGE:
            above = 0
            same = 0
            for j in range(n):
                above += s[j] > s[i]
                same += s[j] == s[i]
            if above < m:
                acc = 0.0
                for p in range(above, min(above + same, m)):
                    acc += disc[p]
                total += gains[i] * acc / same
            continue
        pos = 0
        for j in range(n):
            if j != i and (precedes(s[j], s[i], labels[j], labels[i], tiekey[j], tiekey[i], tie)
                           or (j < i and not precedes(s[i], s[j], labels[i], labels[j],
                                                      tiekey[i], tiekey[j], tie))):
                pos += 1
        if pos < m:
            total += gains[i] * disc[pos]
    return total


@njit(cache=True)
def line_every(base, x, deltas, queries, offsets, gains, labels, tiekey, rel_off, rel_idx,
               disc, k, tie, inv_idcg):
    """``sum_q NDCG_q(base + d x)`` for every d, each candidate ranked from scratch."""
    out = np.zeros(len(deltas))
    for q in queries:
        a, b = offsets[q], offsets[q + 1]
        rel = rel_idx[rel_off[q]:rel_off[q + 1]] - a
        for c in range(len(deltas)):
            s = base[a:b] + deltas[c] * x[a:b]
            out[c] += inv_idcg[q] * _dcg_by_counting(s, gains[a:b], labels[a:b], tiekey[a:b],
                                                     rel, disc, k, tie)
    return out


def sweep(obj: LinearObjective, X: np.ndarray, tie: int, every: bool) -> list:
    Xt = np.ascontiguousarray(X.T)
    s = linear_scores(X, np.full(X.shape[1], 1.0 / X.shape[1]))
    steps = 0.001 * (np.exp2(np.arange(1, 101)) - 1.0)
    out = []
    for j in range(X.shape[1]):
        queries = obj.varying(Xt[j])
        for sign in (1.0, -1.0):
            deltas = np.concatenate(([0.0], sign * steps))
            if every:
                out.append(line_every(s, Xt[j], deltas, queries, obj.offsets, obj.gains,
                                      obj.labels, obj.tiekey, obj.rel_off, obj.rel_idx, obj.disc,
                                      obj.k, tie, obj.inv_idcg))
            else:
                out.append(obj.line(s, Xt[j], deltas, queries))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fold", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = ap.parse_args(argv)
    path = args.data / f"Fold{args.fold}" / "train.txt"
    if not path.exists():
        print(f"no MQ2008 at {args.data} (need {path}); pass --data DIR", file=sys.stderr)
        return 2
    train = read_letor(path)
    X = np.ascontiguousarray(train.X, dtype=np.float64)
    print(f"MQ2008 Fold{args.fold} train: {train.n_queries} queries, {train.n_docs} documents; "
          f"one sweep = {2 * X.shape[1]} line searches of 101 candidates")
    print(f"{'convention':16} {'line (s)':>9} {'every (s)':>10} {'ratio':>6}")
    for conv in CONVENTIONS:
        scorer = NDCGScorer(train.y, train.offsets, conv, 10, docid=train.docid)
        obj = LinearObjective(scorer)
        tie = CODES[scorer.convention.ties]
        got, want = sweep(obj, X, tie, False), sweep(obj, X, tie, True)  # compiles, checks
        if any(not np.array_equal(g, w) for g, w in zip(got, want)):
            print(f"{conv}: line and every differ", file=sys.stderr)
            return 1
        times = {}
        for every in (False, True):
            ts = []
            for _ in range(args.repeats):
                t0 = time.process_time()
                sweep(obj, X, tie, every)
                ts.append(time.process_time() - t0)
            times[every] = statistics.median(ts)
        print(f"{conv:16} {times[False]:9.3f} {times[True]:10.3f} "
              f"{times[True] / times[False]:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
