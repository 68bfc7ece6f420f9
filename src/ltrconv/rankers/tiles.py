"""Register-tiled sums of products for RankNet's kernels, each sum in a fixed order.

Every RankNet step (:mod:`.ranknet`) computes many independent sums of the form
``C[m, n] = sum_k A[k, m] B[k, n]``, ``k`` in increasing order from ``+0``: a forward pass
(``m`` a document, ``n`` a unit above, ``k`` a unit below), the hidden deltas (``m`` a pair,
``n`` a unit below, ``k`` a unit above) and the weight updates (``m``, ``n`` the two ends of a
weight, ``k`` a pair). Floating-point addition is not associative, so the order of the terms
of each sum is fixed; which sums are computed together is free. :func:`gemm` keeps a tile of
``6 x 8`` sums (6 values of ``m``, 8 consecutive ``n``) in vector registers while ``k`` runs,
loading and storing each sum once, instead of once per term.

Each tile is one LLVM loop written here with explicit ``<4 x double>`` operations, because
numba leaves LLVM's SLP vectorizer off (``NUMBA_SLP_VECTORIZE=0``) and its loop vectorizer
cannot keep a tile of sums in registers. Products and sums are separate ``fmul`` and ``fadd``
instructions without fast-math flags, which LLVM never fuses into a fused multiply-add.

Zero terms: with ``skip`` set, a ``k`` whose ``A[k, m]`` are zero for every ``m`` of a tile is
left out of that tile's sums. A sum that starts at ``+0`` is never ``-0`` (in round-to-nearest,
``u + v`` is ``-0`` only when both are ``-0``), so adding ``+-0`` leaves it unchanged: the sums
equal those that skip each zero ``A[k, m]`` one by one, as RankLib's loops do not but
ltrconv's earlier kernels did, and those that skip none, as long as every ``B[k, n]`` is finite
(then ``0 B[k, n]`` is ``+-0``). :func:`all_finite` checks that.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ..jit import njit

_DBL = ir.DoubleType()
_I64 = ir.IntType(64)
_I32 = ir.IntType(32)
ROWS = 6
"""Values of ``m`` per tile (with two vectors of 4 sums each: 12 accumulators, 2 loaded rows
of ``B`` and one broadcast value, 15 of the 16 AVX2 registers)."""


def _tile(rows: int, vectors: int, width: int):
    """An intrinsic ``tile(A, B, C, d)`` for 1-D contiguous float64 arrays and
    ``d = (K, a_off, a_sk, a_sm, b_off, b_sk, c_off, c_sm, c_sn, skip)``:
    ``C[c_off + r c_sm + n c_sn] = sum_{k < K} A[a_off + k a_sk + r a_sm] B[b_off + k b_sk + n]``
    for ``r < rows``, ``n < vectors * width``, ``k`` in order, each sum from ``+0`` in a
    register (``<width x double>`` vectors). With ``skip != 0``, a ``k`` whose ``rows`` values
    of ``A`` all have a zero magnitude adds nothing (module docstring)."""
    vty = ir.VectorType(_DBL, width)
    zero_vec = ir.Constant(vty, [0.0] * width)

    @intrinsic
    def tile(typingctx, A, B, C, d):
        sig = types.void(A, B, C, d)

        def codegen(context, builder, signature, args):
            pa, pb, pc = (context.make_array(t)(context, builder, v).data
                          for t, v in zip(signature.args[:3], args[:3]))
            K, a_off, a_sk, a_sm, b_off, b_sk, c_off, c_sm, c_sn, skip = cgutils.unpack_tuple(
                builder, args[3])
            acc = [[cgutils.alloca_once_value(builder, zero_vec) for _ in range(vectors)]
                   for _ in range(rows)]
            skipping = builder.icmp_signed("!=", skip, ir.Constant(_I64, 0))
            with cgutils.for_range(builder, K) as loop:
                k = loop.index
                a_row = builder.add(a_off, builder.mul(k, a_sk))
                a = [builder.load(builder.gep(pa, [builder.add(
                    a_row, builder.mul(ir.Constant(_I64, r), a_sm))])) for r in range(rows)]
                bits = ir.Constant(_I64, 0)
                for v in a:  # the magnitudes' bits or-ed: zero when every value is +-0
                    bits = builder.or_(bits, builder.bitcast(v, _I64))
                zero = builder.icmp_unsigned("==", builder.shl(bits, ir.Constant(_I64, 1)),
                                             ir.Constant(_I64, 0))
                with builder.if_then(builder.not_(builder.and_(zero, skipping)), likely=True):
                    b_row = builder.add(b_off, builder.mul(k, b_sk))
                    b = []
                    for j in range(vectors):
                        p = builder.gep(pb, [builder.add(b_row, ir.Constant(_I64, j * width))])
                        b.append(builder.load(builder.bitcast(p, vty.as_pointer()), align=8))
                    for r in range(rows):
                        one = builder.insert_element(ir.Constant(vty, ir.Undefined), a[r],
                                                     ir.Constant(_I32, 0))
                        wide = builder.shuffle_vector(one, ir.Constant(vty, ir.Undefined),
                                                      ir.Constant(ir.VectorType(_I32, width),
                                                                  [0] * width))
                        for j in range(vectors):
                            total = builder.load(acc[r][j])
                            # fmul then fadd, no fast-math flags: two roundings, never fused
                            builder.store(builder.fadd(total, builder.fmul(wide, b[j])),
                                          acc[r][j])
            unit = builder.icmp_signed("==", c_sn, ir.Constant(_I64, 1))
            with builder.if_else(unit) as (contiguous, strided):
                with contiguous:  # whole vectors
                    for r in range(rows):
                        c_row = builder.add(c_off, builder.mul(ir.Constant(_I64, r), c_sm))
                        for j in range(vectors):
                            p = builder.gep(pc, [builder.add(c_row,
                                                             ir.Constant(_I64, j * width))])
                            builder.store(builder.load(acc[r][j]),
                                          builder.bitcast(p, vty.as_pointer()), align=8)
                with strided:  # lane by lane: lane l of vector j is n = j width + l
                    for r in range(rows):
                        c_row = builder.add(c_off, builder.mul(ir.Constant(_I64, r), c_sm))
                        for j in range(vectors):
                            total = builder.load(acc[r][j])
                            for lane in range(width):
                                at = builder.add(c_row, builder.mul(
                                    ir.Constant(_I64, j * width + lane), c_sn))
                                builder.store(builder.extract_element(
                                    total, ir.Constant(_I32, lane)), builder.gep(pc, [at]))
            return context.get_dummy_value()

        return sig, codegen

    return tile


_tile_6x8 = _tile(ROWS, 2, 4)
_tile_6x4 = _tile(ROWS, 1, 4)
_tile_6x1 = _tile(ROWS, 1, 1)
_tile_3x8 = _tile(3, 2, 4)
_tile_3x4 = _tile(3, 1, 4)
_tile_3x1 = _tile(3, 1, 1)
_tile_1x16 = _tile(1, 4, 4)  # one row: 4 independent sums of vectors, not 2, to fill the adder
_tile_1x4 = _tile(1, 1, 4)
_tile_1x1 = _tile(1, 1, 1)
_tile_1x32 = _tile(1, 8, 4)


@njit(cache=True)
def gemm(A, B, C, shape, a_at, b_at, c_at, skip):
    """``C[m, n] = sum_k A[k, m] B[k, n]`` over ``k`` in order from ``+0``, for ``(K, M, N) =
    shape``, the arrays 1-D and contiguous, the elements at ``A[a0 + k ak + m am]``,
    ``B[b0 + k bk + n]``, ``C[c0 + m cm + n cn]`` for ``(a0, ak, am) = a_at``,
    ``(b0, bk) = b_at``, ``(c0, cm, cn) = c_at``. ``skip``: leave out the ``k`` whose ``A``
    values in a tile are all zero (exact when ``B`` is finite: module docstring). Tiles of 6
    rows, then 3, then 1, each as wide as fits."""
    K, M, N = shape
    a0, ak, am = a_at
    b0, bk = b_at
    c0, cm, cn = c_at
    m = 0
    while m + ROWS <= M:
        a_m, c_m = a0 + m * am, c0 + m * cm
        n = 0
        while n + 8 <= N:
            _tile_6x8(A, B, C, (K, a_m, ak, am, b0 + n, bk, c_m + n * cn, cm, cn, skip))
            n += 8
        if n + 4 <= N:
            _tile_6x4(A, B, C, (K, a_m, ak, am, b0 + n, bk, c_m + n * cn, cm, cn, skip))
            n += 4
        while n < N:
            _tile_6x1(A, B, C, (K, a_m, ak, am, b0 + n, bk, c_m + n * cn, cm, cn, skip))
            n += 1
        m += ROWS
    if m + 3 <= M:
        a_m, c_m = a0 + m * am, c0 + m * cm
        n = 0
        while n + 8 <= N:
            _tile_3x8(A, B, C, (K, a_m, ak, am, b0 + n, bk, c_m + n * cn, cm, cn, skip))
            n += 8
        if n + 4 <= N:
            _tile_3x4(A, B, C, (K, a_m, ak, am, b0 + n, bk, c_m + n * cn, cm, cn, skip))
            n += 4
        while n < N:
            _tile_3x1(A, B, C, (K, a_m, ak, am, b0 + n, bk, c_m + n * cn, cm, cn, skip))
            n += 1
        m += 3
    while m < M:
        a_m, c_m = a0 + m * am, c0 + m * cm
        n = 0
        while n + 16 <= N:
            _tile_1x16(A, B, C, (K, a_m, ak, am, b0 + n, bk, c_m + n * cn, cm, cn, skip))
            n += 16
        while n + 4 <= N:
            _tile_1x4(A, B, C, (K, a_m, ak, am, b0 + n, bk, c_m + n * cn, cm, cn, skip))
            n += 4
        while n < N:
            _tile_1x1(A, B, C, (K, a_m, ak, am, b0 + n, bk, c_m + n * cn, cm, cn, skip))
            n += 1
        m += 1


@njit(cache=True)
def gemm_rows(A, B, C, shape, a_at, b_at, c_at):
    """:func:`gemm` in tiles of one row ``m`` by 32 columns, skipping each zero ``A[k, m]``
    (the skip then needs no finite ``B``: each zero term is left out, one by one). The columns
    run outermost, so that a strip of 32 columns of ``B`` stays in L1 while every row uses
    it: each term costs a load of ``B``, unlike :func:`gemm`'s tiles, which load a row of
    ``B`` once for 6 rows but can skip a ``k`` only when all 6 of its ``A`` are zero."""
    K, M, N = shape
    a0, ak, am = a_at
    b0, bk = b_at
    c0, cm, cn = c_at
    n = 0
    while n + 32 <= N:
        for m in range(M):
            _tile_1x32(A, B, C, (K, a0 + m * am, ak, am, b0 + n, bk, c0 + m * cm + n * cn, cm,
                                 cn, 1))
        n += 32
    while n + 16 <= N:
        for m in range(M):
            _tile_1x16(A, B, C, (K, a0 + m * am, ak, am, b0 + n, bk, c0 + m * cm + n * cn, cm,
                                 cn, 1))
        n += 16
    while n + 4 <= N:
        for m in range(M):
            _tile_1x4(A, B, C, (K, a0 + m * am, ak, am, b0 + n, bk, c0 + m * cm + n * cn, cm,
                                cn, 1))
        n += 4
    while n < N:
        for m in range(M):
            _tile_1x1(A, B, C, (K, a0 + m * am, ak, am, b0 + n, bk, c0 + m * cm + n * cn, cm,
                                cn, 1))
        n += 1


@njit(cache=True)
def all_finite(x, start, stop):
    """Whether ``x[start:stop]`` holds no infinity and no NaN."""
    ok = True
    for v in x[start:stop]:
        ok &= (v - v) == 0.0  # inf - inf and NaN - NaN are NaN
    return ok
