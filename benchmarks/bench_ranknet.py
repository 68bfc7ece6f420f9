"""CPU seconds and GFLOP/s of RankNet's training epoch, per architecture of the paper's grid.

For each architecture of ``PAPER_GRID`` on one MQ2008 fold: the CPU time (``process_time``) of
one training epoch, the median of ``--epochs`` epochs, for the tiled kernels
(``ranknet._train_epoch``) and, with ``--plain``, for the plain ones they replaced
(``ranknet._train_epoch_plain``), run alternately so that both see the same machine load. The
floating-point operations of an epoch are counted from the pair and unit counts (one multiply
and one add per term of every sum; zero inputs skipped or not, the count is the nominal one):

* forward pass, per document and layer: ``2 (a + 1) b`` (the sums and the bias), plus the
  ``b`` sigmoids, each counted as one operation (an fdlibm ``exp`` is about 20);
* per document ``i`` with ``p`` pairs: the output deltas ``3 p``; per hidden layer below a
  layer of ``b`` units, ``2 (p + 1) a b``; per layer of weights, ``2 p (a + 1) b`` for the sums
  and ``4 (a + 1) b`` for the update.

The machine's peak without fused multiply-add is measured with the tiles' own loop
(:mod:`ltrconv.rankers.tiles`) over 2,000 values in L1, each step broadcasting the next rows'
values and multiplying them by the same vectors (so no product is loop-invariant) into the
tile's independent sums: with AVX-512, 8 rows x 3 vectors of 8, 24 vector multiplies and 24
vector adds, 384 operations per step; else 6 x 2 vectors of 4, 96 operations per step. Beside
it, the multiplies and adds alone (:func:`arithmetic_peak_gflops`: independent chains in
registers, no load): the tile's loop pays for its broadcasts and loads, and on the 2-core AMD
EPYC it ran at 31-35 GFLOP/s where the arithmetic alone ran at 46-48 (16 flops a cycle at
2.95 GHz).
``--lanes 4`` times the tiled kernels with 4-lane vectors (the AVX2 tiles) on any CPU.

    python benchmarks/bench_ranknet.py [--fold 1] [--epochs 3] [--plain] [--lanes 4|8]
        [--data DIR]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ltrconv.data.letor import Dataset
from ltrconv.evaluation.queries import offsets_from_qid
from ltrconv.jit import njit
from ltrconv.rankers import ranknet as rn
from ltrconv.rankers.ranklib_values import as_float32_values
from ltrconv.rankers.tiles import LANES, _rows_6x2, _rows_8x3

HERE = Path(__file__).resolve()
DEFAULT_DATA = HERE.parents[2] / "shared" / "data" / "MQ2008"


@njit
def _peak_loop_8(a, b, c, steps):
    for _ in range(5_000):
        _rows_8x3(a, b, c, None, None, (steps, 24, 0, 1, 1, 0, 0, 0, 24, 1, 0), None)


@njit
def _peak_loop_4(a, b, c, steps):
    for _ in range(5_000):
        _rows_6x2(a, b, c, None, None, (steps, 8, 0, 1, 1, 0, 0, 0, 8, 1, 0), None)


def peak_gflops(repeats: int = 5) -> float:
    """GFLOP/s of the main tile of this CPU's vector width (:mod:`ltrconv.rankers.tiles`): its
    independent multiply-add chains (separate mul and add) over values in L1."""
    rows, cols, loop = (8, 24, _peak_loop_8) if LANES == 8 else (6, 8, _peak_loop_4)
    steps = 2_000
    a, b, c = np.linspace(0.5, 1.5, steps + rows), np.full(cols, 0.999), np.zeros(rows * cols)
    loop(a, b, c, 10)
    times = []
    for _ in range(repeats):
        t = time.process_time()
        loop(a, b, c, steps)
        times.append(time.process_time() - t)
    return 5_000 * steps * rows * cols * 2 / statistics.median(times) / 1e9


def _chains(vectors: int, width: int):
    """An intrinsic ``f(n, x)``: ``vectors`` independent sums of ``width``-lane vectors, each
    step ``acc = acc + u * v`` (``fmul`` then ``fadd``, never fused) with ``u``, ``v`` loaded
    from ``x`` once, ``n`` steps; returns a lane of their total (so that the loop is kept)."""
    vty = ir.VectorType(ir.DoubleType(), width)
    i64 = ir.IntType(64)

    @intrinsic
    def chains(typingctx, n, x):
        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[1])(context, builder, args[1]).data
            vec = builder.bitcast(data, vty.as_pointer())
            u, v = (builder.load(builder.gep(vec, [ir.Constant(i64, k)]), align=8)
                    for k in (0, 1))
            accs = [cgutils.alloca_once_value(builder, ir.Constant(vty, [0.0] * width))
                    for _ in range(vectors)]
            with cgutils.for_range(builder, args[0]):
                for j, acc in enumerate(accs):
                    a, b = (u, v) if j % 2 else (v, u)
                    builder.store(builder.fadd(builder.load(acc), builder.fmul(a, b)), acc)
            total = builder.load(accs[0])
            for acc in accs[1:]:
                total = builder.fadd(total, builder.load(acc))
            return builder.extract_element(total, ir.Constant(ir.IntType(32), 0))

        return types.float64(n, x), codegen

    return chains


_chains_4 = _chains(12, 4)
_chains_8 = _chains(24, 8)


@njit
def _arithmetic_loop_4(n, x):
    return _chains_4(n, x)


@njit
def _arithmetic_loop_8(n, x):
    return _chains_8(n, x)


def arithmetic_peak_gflops(repeats: int = 5) -> float:
    """GFLOP/s of the core's vector multiplies and adds alone: 12 (24 with 8 lanes) independent
    chains of a multiply then an add, their operands in registers, no load, no broadcast: what
    the tiles could reach were loads free (on the 2-core AMD EPYC, Zen 3 with AVX2: 16 flops a
    cycle, two ``vmulpd`` and two ``vaddpd``)."""
    loop, vectors = (_arithmetic_loop_8, 24) if LANES == 8 else (_arithmetic_loop_4, 12)
    x = np.linspace(0.5, 1.5, 16) * 1e-3
    loop(10, x)
    steps = 20_000_000
    times = []
    for _ in range(repeats):
        t = time.process_time()
        loop(steps, x)
        times.append(time.process_time() - t)
    return steps * vectors * LANES * 2 / statistics.median(times) / 1e9


def epoch_flops(sizes, y, off, queries) -> float:
    """Operations of one epoch (module docstring)."""
    layers = list(zip(sizes[:-1], sizes[1:]))
    per_doc = sum(2 * (a + 1) * b + b for a, b in layers)
    # a document with p pairs: const + p per_pair (the hidden deltas of layer l, l >= 1, come
    # from the layer above: a = sizes[l], b = sizes[l + 1])
    const = sum(4 * (a + 1) * b for a, b in layers) + sum(2 * a * b for a, b in layers[1:])
    per_pair = 3 + sum(2 * (a + 1) * b for a, b in layers) + sum(2 * a * b for a, b in layers[1:])
    total = 0.0
    for q in queries:
        lab = y[off[q]:off[q + 1]]
        total += len(lab) * per_doc
        npairs = (lab[:, None] > lab[None, :]).sum(axis=1)
        total += (npairs > 0).sum() * const + npairs.sum() * per_pair
    return total


def state(sizes, X, off):
    """Initial weights and the work arrays, as ``RankNet._train_one`` makes them."""
    params = rn.init_weights(sizes, 0)
    w_off, u_off, _ = rn.layout(list(sizes))
    longest, widest = int(np.diff(off).max()), int(max(sizes)) + 1
    out = np.zeros((longest, u_off[-1]))
    return (params, np.asarray(sizes, dtype=np.int64), w_off, u_off, out, np.zeros_like(out),
            np.zeros(u_off[-1]), np.zeros((longest, u_off[-1])),
            np.zeros((max(longest, widest), max(sizes) + 1)), np.zeros(longest, dtype=np.int64))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fold", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--plain", action="store_true",
                        help="also time the plain kernels the tiled ones replaced")
    parser.add_argument("--lanes", type=int, choices=(4, 8), default=LANES,
                        help="the tiles' vector width (default: this CPU's, %(default)s)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    tr = Dataset.load(args.data / f"Fold{args.fold}" / "train.txt")
    X = as_float32_values(tr.X)
    y = np.asarray(tr.y, dtype=np.int64)
    off = offsets_from_qid(tr.qid)
    queries = np.flatnonzero([y[a:b].min() < y[a:b].max()
                              for a, b in zip(off[:-1], off[1:])]).astype(np.int64)
    pairs = sum(int((y[a:b][:, None] > y[a:b][None, :]).sum())
                for a, b in zip(off[:-1], off[1:]))
    print(f"Fold{args.fold}: {len(queries)} queries with pairs, {pairs} pairs per epoch")
    peak = peak_gflops()
    print(f"measured peak without FMA: {peak:.1f} GFLOP/s (one core, {LANES}-lane vectors: the "
          f"main tile's loop over values in L1); {arithmetic_peak_gflops():.1f} GFLOP/s for the "
          f"multiplies and adds alone (chains in registers); tiles of {args.lanes} lanes")
    kernels = {"tiled": functools.partial(rn._train_epoch, lanes=args.lanes)}
    if args.plain:
        kernels["plain"] = rn._train_epoch_plain
    head = f"{'architecture':<16}{'GFLOP':>7}" + "".join(
        f"{name + ' s':>10}{'GFLOP/s':>9}" for name in kernels)
    print(head)
    totals = dict.fromkeys(kernels, 0.0)
    flops_total = 0.0
    for arch in rn.PAPER_GRID:
        sizes = (X.shape[1], *arch, 1)
        flops = epoch_flops(sizes, y, off, queries)
        flops_total += flops
        states = {name: state(sizes, X, off) for name in kernels}
        times = {name: [] for name in kernels}
        for epoch in range(args.epochs + 1):  # the first epoch compiles or loads: not timed
            for name, fn in kernels.items():
                p, s, w, u, out, fp, d_i, d_j, acc, pr = states[name]
                t = time.process_time()
                fn(p, s, w, u, X, y, off, queries, rn.LEARNING_RATE, out, fp, d_i, d_j, acc, pr)
                if epoch:
                    times[name].append(time.process_time() - t)
        if args.plain:
            assert np.array_equal(states["tiled"][0], states["plain"][0]), arch
        line = f"{arch!s:<16}{flops / 1e9:>7.2f}"
        for name in kernels:
            med = statistics.median(times[name])
            totals[name] += med
            line += f"{med:>10.3f}{flops / med / 1e9:>9.1f}"
        print(line, flush=True)
    line = f"{'grid':<16}{flops_total / 1e9:>7.2f}"
    for name in kernels:
        line += f"{totals[name]:>10.3f}{flops_total / totals[name] / 1e9:>9.1f}"
    print(line)
    if args.plain:
        print(f"speed-up of the grid's epoch: {totals['plain'] / totals['tiled']:.2f}x "
              "(weights after every epoch bit-identical)")


if __name__ == "__main__":
    main()
