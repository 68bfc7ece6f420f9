"""Coordinate Ascent's line search (``coordinate_ascent._line``) against the same search in
document order.

Replays one sweep of RankLib's line searches on an MQ2008 fold: uniform start weights, every
feature, directions + and - with RankLib 2.x's 100 doubling steps (``direction_steps``), each
search from the same cached scores and ranking. Two kernels run each search:

* ``rank order``: ``coordinate_ascent._line``, which steps each query's scores in rank order,
  checks the ranking in one pass over consecutive memory and re-sorts in place;
* ``doc order``: the peer in the same run, written here: each step adds the increment to the
  scores in document order and runs the insertion sort ``linear_objective._sort`` over the
  ranking, the NDCG recomputed where a document moved (the kernel before the rank-ordered one).

Both must return the same summed NDCG, the same cached scores and the same ranking, bit for
bit; the script stops if they do not. It prints the CPU time of each (median of ``--repeats``
sweeps, the two alternating) and their ratio, per training convention.

    python benchmarks/bench_ca_line.py [--fold 1] [--repeats 5] [--data DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from ltrconv.data.letor import read_letor
from ltrconv.evaluation.scorer import NDCGScorer
from ltrconv.evaluation.ties import AVERAGE, INPUT_ORDER
from ltrconv.jit import njit
from ltrconv.rankers.coordinate_ascent import (_line, _ndcg, _Queries, _rank_dcg, _unranked,
                                               direction_steps)
from ltrconv.rankers.linear_objective import _sort, linear_scores, relevant_of
from ltrconv.rankers.ranklib_values import as_float32_values

HERE = Path(__file__).resolve()
DEFAULT_DATA = HERE.parents[2] / "shared" / "data" / "MQ2008"
CONVENTIONS = ("ranklib", "yahoo", "letor", "trec", "ranklib-tieavg")


@njit(cache=True)
def line_in_document_order(arrays, state, c, x, moves, incs):
    """The search of ``coordinate_ascent._line`` with the scores in document order."""
    gains, labels, tiekey, offsets, disc, k, tie_code, inv_idcg, fb = arrays
    ideal, rel, order, cur = state
    nt = len(incs)
    totals = np.zeros(nt)
    sort_code = INPUT_ORDER if tie_code == AVERAGE else tie_code
    pos = np.empty(len(c), dtype=np.int64)
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        if np.isnan(fb[q]) or not moves[q] or inv_idcg[q] == 0.0:
            _unranked(c, x, incs, totals, a, b, moves[q], fb[q] if np.isnan(fb[q]) else cur[q])
            continue
        o, s, xq = order[a:b], c[a:b], x[a:b]
        rq = relevant_of(rel, q, a)
        v = 0.0
        for t in range(nt):
            for i in range(b - a):
                s[i] = s[i] + incs[t] * xq[i]
            moved = _sort(o, s, labels[a:b], tiekey[a:b], sort_code)
            if t == 0 or moved or tie_code == AVERAGE:
                v = _ndcg(_rank_dcg(o, s, gains[a:b], rq, disc, min(k, b - a), tie_code, pos),
                          inv_idcg[q], ideal[q], tie_code)
            totals[t] += v
    return totals


def searches(tq: _Queries, X: np.ndarray) -> list:
    """The sweep's searches: (feature values, queries it moves, increments)."""
    Xt = np.ascontiguousarray(X.T)
    out = []
    for f in range(X.shape[1]):
        moves = np.maximum.reduceat(Xt[f] != 0, tq.offsets[:-1])
        for sign in (1, -1):
            incs, _, _ = direction_steps(1.0 / X.shape[1], sign, 0.05, 100)
            out.append((Xt[f], moves, np.array(incs)))
    return out


def run(kernel, tq: _Queries, c0: np.ndarray, order0: np.ndarray, todo: list):
    """CPU seconds of every search of ``todo``, each from ``c0`` and ``order0``, and the
    results (sums, scores after, ranking after)."""
    results, seconds = [], 0.0
    for x, moves, incs in todo:
        c, state = c0.copy(), tq.state._replace(order=order0.copy())
        t = time.process_time()
        sums = kernel(tq.arrays, state, c, x, moves, incs)
        seconds += time.process_time() - t
        results.append((sums, c, state.order))
    return seconds, results


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
    X = as_float32_values(train.X)
    print(f"MQ2008 Fold{args.fold} train: {train.n_queries} queries, {train.n_docs} documents; "
          f"one sweep = {2 * X.shape[1]} line searches of 100 steps")
    print(f"{'convention':16} {'rank order (s)':>15} {'doc order (s)':>14} {'ratio':>6}")
    for conv in CONVENTIONS:
        tq = _Queries(NDCGScorer(train.y, train.offsets, conv, 10, docid=train.docid),
                      len(train.y))
        c0 = linear_scores(X, np.full(X.shape[1], 1.0 / X.shape[1]))
        tq.refresh(c0)
        order0 = tq.state.order.copy()
        todo = searches(tq, X)
        times = {_line: [], line_in_document_order: []}
        for rep in range(args.repeats + 1):  # the first compiles or loads, and is checked
            out = {}
            for kernel in times:
                seconds, out[kernel] = run(kernel, tq, c0, order0, todo)
                if rep:
                    times[kernel].append(seconds)
            if rep == 0:
                for a, b in zip(out[_line], out[line_in_document_order]):
                    if any(u.tobytes() != v.tobytes() for u, v in zip(a, b)):
                        print(f"{conv}: the two searches differ", file=sys.stderr)
                        return 1
        new, old = (statistics.median(times[k]) for k in (_line, line_in_document_order))
        print(f"{conv:16} {new:15.3f} {old:14.3f} {old / new:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
