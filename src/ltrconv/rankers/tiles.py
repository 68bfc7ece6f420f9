"""Register-tiled sums of products for RankNet's kernels, each sum in a fixed order.

Every RankNet step (:mod:`.ranknet`) computes many independent sums of the form
``C[m, n] = sum_k A[k, m] B[k, n]``, ``k`` in increasing order from ``+0``: a forward pass
(``m`` a document, ``n`` a unit above, ``k`` a unit below), the hidden deltas (``m`` a pair,
``n`` a unit below, ``k`` a unit above) and the weight updates (``m``, ``n`` the two ends of a
weight, ``k`` a pair). Floating-point addition is not associative, so the order of the terms
of each sum is fixed; which sums are computed together is free. :func:`gemm` keeps a tile of
sums (a few values of ``m`` by a few vectors of consecutive ``n``) in vector registers while
``k`` runs, loading and storing each sum once, instead of once per term.

Each tile is one LLVM loop written here with explicit vector operations, because numba leaves
LLVM's SLP vectorizer off (``NUMBA_SLP_VECTORIZE=0``) and its loop vectorizer cannot keep a
tile of sums in registers. Products and sums are separate ``fmul`` and ``fadd`` instructions
without fast-math flags, which LLVM never fuses into a fused multiply-add.

Vector width: with AVX-512 (32 registers of 8 doubles) the tiles are 8 rows by 3 vectors of
8 (24 sums in registers), else (AVX2: 16 registers of 4) 6 rows by 2 vectors of 4 (12 sums):
:data:`LANES` is the compiling CPU's. Either width gives the same bits, every lane being a sum
of its own; the kernels take the width as an argument, so that both can be checked anywhere
(with 8 lanes on an AVX2 CPU LLVM splits each vector in two: slower, the same values).

Column tails: the last vectors of a row of tiles may hold fewer than the full count of columns;
they are computed whole and only their valid lanes stored, so ``B`` is read up to a vector's
width past a row's last column: every ``B`` handed to :func:`gemm` has :data:`PAD` readable
elements past the last one used (its lanes' values never reach a stored sum).

Zero terms: with ``skip`` set, a ``k`` whose ``A[k, m]`` are zero for every ``m`` of a tile is
left out of that tile's sums. A sum that starts at ``+0`` is never ``-0`` (in round-to-nearest,
``u + v`` is ``-0`` only when both are ``-0``), so adding ``+-0`` leaves it unchanged: the sums
equal those that skip each zero ``A[k, m]`` one by one, as RankLib's loops do not but
ltrconv's earlier kernels did, and those that skip none, as long as every ``B[k, n]`` is finite
(then ``0 B[k, n]`` is ``+-0``). :func:`all_finite` checks that.
"""

from __future__ import annotations

import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils, config
from numba.extending import intrinsic

from ..jit import njit
from .fdlibm import _bits

_DBL = ir.DoubleType()
_I64 = ir.IntType(64)
_I32 = ir.IntType(32)


def _vector_lanes() -> int:
    """8 where numba compiles for a CPU with AVX-512 (``NUMBA_CPU_FEATURES`` or the host's),
    else 4."""
    features = config.CPU_FEATURES
    if features is None:
        features = llvm.get_host_cpu_features().flatten()
    return 8 if "+avx512f" in features.split(",") else 4


LANES = _vector_lanes()
"""Doubles per vector register of the compiling CPU, as the kernels' ``lanes`` default."""
PAD = 8
"""Elements readable past the last one used of every ``B`` (a vector's width, at most 8)."""


def _i64(v: int):
    return ir.Constant(_I64, v)


def _emit_tile(builder, ptrs, rows, vectors, width, geo, last, update):
    """One tile's K loop and its stores (see :func:`_rows`); ``last``: the valid lanes of the
    last vector (an i64 value), or None when it is whole; ``update``: None, or the values
    ``(lr, k_dt, k_xi)`` of an update (:func:`gemm`)."""
    pa, pb, pc, p_ar, p_br = ptrs
    K, a_off, a_sk, a_sm, b_off, b_sk, c_off, c_sm, c_sn, skipping = geo
    vty = ir.VectorType(_DBL, width)
    zero_vec = ir.Constant(vty, [0.0] * width)
    acc = [[cgutils.alloca_once_value(builder, zero_vec) for _ in range(vectors)]
           for _ in range(rows)]

    def a_row_of(k):
        a_k = k if p_ar is None else builder.load(builder.gep(p_ar, [k]))
        return builder.add(a_off, builder.mul(a_k, a_sk))

    def a_at(a_row, r):
        return builder.gep(pa, [builder.add(a_row, builder.mul(_i64(r), a_sm))])

    def terms(k, a):
        """The products of step k added to the sums; ``a``: the rows' values of A, or None to
        load each one where it is broadcast (eight registers fewer held across the loop)."""
        b_k = k if p_br is None else builder.load(builder.gep(p_br, [k]))
        b_row = builder.add(b_off, builder.mul(b_k, b_sk))
        b = []
        for j in range(vectors):
            p = builder.gep(pb, [builder.add(b_row, _i64(j * width))])
            b.append(builder.load(builder.bitcast(p, vty.as_pointer()), align=8))
        a_row = a_row_of(k) if a is None else None
        for r in range(rows):
            value = builder.load(a_at(a_row, r)) if a is None else a[r]
            wide = _broadcast(builder, value, vty)
            for j in range(vectors):
                total = builder.load(acc[r][j])
                # fmul then fadd, no fast-math flags: two roundings, never fused
                builder.store(builder.fadd(total, builder.fmul(wide, b[j])), acc[r][j])

    with builder.if_else(skipping) as (with_skip, without_skip):
        with with_skip:
            with cgutils.for_range(builder, K) as loop:
                k = loop.index
                a_row = a_row_of(k)
                a = [builder.load(a_at(a_row, r)) for r in range(rows)]
                bits = _i64(0)
                for v in a:  # the magnitudes' bits or-ed: zero when every value is +-0
                    bits = builder.or_(bits, builder.bitcast(v, _I64))
                zero = builder.icmp_unsigned("==", builder.shl(bits, _i64(1)), _i64(0))
                with builder.if_then(builder.not_(zero), likely=True):
                    terms(k, a)
        with without_skip:
            with cgutils.for_range(builder, K) as loop:
                terms(loop.index, None)

    def store_lanes(total, c_row, j, cn):
        for lane in range(width):
            at = builder.add(c_row, builder.mul(_i64(j * width + lane), cn))
            value = builder.extract_element(total, ir.Constant(_I32, lane))
            if last is None or j < vectors - 1:
                builder.store(value, builder.gep(pc, [at]))
            else:
                with builder.if_then(builder.icmp_signed("<", _i64(lane), last)):
                    builder.store(value, builder.gep(pc, [at]))

    if update is not None:  # C += lr (A[k_dt] B[k_xi] - sum), C contiguous
        lr, k_dt, k_xi = update
        lr_wide = _broadcast(builder, lr, vty)
        xi_row = builder.add(b_off, builder.mul(k_xi, b_sk))
        xi = [builder.load(builder.bitcast(builder.gep(pb, [builder.add(xi_row, _i64(j * width))]),
                                           vty.as_pointer()), align=8) for j in range(vectors)]
        if last is not None:  # the lanes of the last vector that are stored
            lanes = ir.Constant(ir.VectorType(_I64, width), list(range(width)))
            keep = builder.icmp_signed("<", lanes, _broadcast(builder, last,
                                                              ir.VectorType(_I64, width)))
        for r in range(rows):
            c_row = builder.add(c_off, builder.mul(_i64(r), c_sm))
            dt = builder.load(builder.gep(pa, [builder.add(builder.add(
                a_off, builder.mul(k_dt, a_sk)), builder.mul(_i64(r), a_sm))]))
            dt_wide = _broadcast(builder, dt, vty)
            for j in range(vectors):
                pw = builder.bitcast(builder.gep(pc, [builder.add(c_row, _i64(j * width))]),
                                     vty.as_pointer())
                old = builder.load(pw, align=8)
                # the plain kernel's w + lr (dt x - sum), each operation rounded
                step = builder.fmul(lr_wide, builder.fsub(builder.fmul(dt_wide, xi[j]),
                                                          builder.load(acc[r][j])))
                total = builder.fadd(old, step)
                if last is not None and j == vectors - 1:  # the other lanes keep their values
                    total = builder.select(keep, total, old)
                builder.store(total, pw, align=8)
        return
    whole = builder.icmp_signed("==", c_sn, _i64(1))
    with builder.if_else(whole) as (contiguous, strided):
        with contiguous:  # whole vectors, the partial last one lane by lane
            for r in range(rows):
                c_row = builder.add(c_off, builder.mul(_i64(r), c_sm))
                for j in range(vectors):
                    total = builder.load(acc[r][j])
                    if last is None or j < vectors - 1:
                        p = builder.gep(pc, [builder.add(c_row, _i64(j * width))])
                        builder.store(total, builder.bitcast(p, vty.as_pointer()), align=8)
                    else:
                        store_lanes(total, c_row, j, _i64(1))
        with strided:  # lane by lane: lane l of vector j is n = j width + l
            for r in range(rows):
                c_row = builder.add(c_off, builder.mul(_i64(r), c_sm))
                for j in range(vectors):
                    store_lanes(builder.load(acc[r][j]), c_row, j, c_sn)


def _broadcast(builder, value, vty):
    """``value`` in every lane of a vector of type ``vty``."""
    one = builder.insert_element(ir.Constant(vty, ir.Undefined), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(one, ir.Constant(vty, ir.Undefined),
                                  ir.Constant(ir.VectorType(_I32, vty.count), [0] * vty.count))


def _rows(rows: int, vectors: int, width: int):
    """An intrinsic ``f(A, B, C, a_rows, b_rows, d)`` for 1-D contiguous float64 arrays and
    ``d = (K, N, a_off, a_sk, a_sm, b_off, b_sk, c_off, c_sm, c_sn, skip)``:
    ``C[c_off + r c_sm + n c_sn] = sum_{k < K} A[a_off + k a_sk + r a_sm] B[b_off + k b_sk + n]``
    for ``r < rows``, ``n < N``, ``k`` in order (``a_rows[k]`` in place of the first ``k``
    unless ``a_rows`` is None, ``b_rows[k]`` the second: int64 arrays), each sum from ``+0`` in
    a register: tiles of
    ``vectors`` vectors of ``width`` doubles, then one tile of as many vectors as the remaining
    columns need, its last vector partial. With ``skip != 0``, a ``k`` whose ``rows`` values of
    ``A`` all have a zero magnitude adds nothing (module docstring)."""
    chunk = vectors * width

    @intrinsic
    def rows_intrinsic(typingctx, A, B, C, a_rows, b_rows, d, u):
        sig = types.void(A, B, C, a_rows, b_rows, d, u)

        def codegen(context, builder, signature, args):
            ptrs = [None if isinstance(t, types.NoneType)
                    else context.make_array(t)(context, builder, v).data
                    for t, v in zip(signature.args[:5], args[:5])]
            (K, N, a_off, a_sk, a_sm, b_off, b_sk, c_off, c_sm, c_sn,
             skip) = cgutils.unpack_tuple(builder, args[5])
            update = (None if isinstance(signature.args[6], types.NoneType)
                      else cgutils.unpack_tuple(builder, args[6]))
            skipping = builder.icmp_signed("!=", skip, _i64(0))
            full = builder.sdiv(N, _i64(chunk))
            with cgutils.for_range(builder, full) as loop:
                n = builder.mul(loop.index, _i64(chunk))
                geo = (K, a_off, a_sk, a_sm, builder.add(b_off, n), b_sk,
                       builder.add(c_off, builder.mul(n, c_sn)), c_sm, c_sn, skipping)
                _emit_tile(builder, ptrs, rows, vectors, width, geo, None, update)
            n = builder.mul(full, _i64(chunk))
            rem = builder.sub(N, n)
            geo = (K, a_off, a_sk, a_sm, builder.add(b_off, n), b_sk,
                   builder.add(c_off, builder.mul(n, c_sn)), c_sm, c_sn, skipping)
            for v in range(1, vectors + 1):  # the tail: v vectors, the last one partial
                fits = builder.and_(builder.icmp_signed(">", rem, _i64((v - 1) * width)),
                                    builder.icmp_signed("<=", rem, _i64(v * width)))
                with builder.if_then(fits):
                    _emit_tile(builder, ptrs, rows, v, width, geo,
                               builder.sub(rem, _i64((v - 1) * width)), update)
            return context.get_dummy_value()

        return sig, codegen

    return rows_intrinsic


_rows_8x3 = _rows(8, 3, 8)
_rows_4x3 = _rows(4, 3, 8)
_rows_2x3 = _rows(2, 3, 8)
_rows_1x3_8 = _rows(1, 3, 8)
_rows_6x2 = _rows(6, 2, 4)
_rows_3x2 = _rows(3, 2, 4)
_rows_1x2 = _rows(1, 2, 4)
_rows_1x8 = _rows(1, 8, 4)
_rows_1x8_8 = _rows(1, 8, 8)


@njit(cache=True)
def gemm(A, B, C, shape, a_at, b_at, c_at, skip, lanes, a_rows=None, b_rows=None,
         update=None):
    """``C[m, n] = sum_k A[k, m] B[k, n]`` over ``k`` in order from ``+0``, for ``(K, M, N) =
    shape``, the arrays 1-D and contiguous, the elements at ``A[a0 + k ak + m am]``,
    ``B[b0 + k bk + n]``, ``C[c0 + m cm + n cn]`` for ``(a0, ak, am) = a_at``,
    ``(b0, bk) = b_at``, ``(c0, cm, cn) = c_at``; ``B`` readable :data:`PAD` elements past
    its last one. ``skip``: leave out the ``k`` whose ``A`` values in a tile are all zero
    (exact when ``B`` is finite: module docstring). ``lanes`` 8: tiles of 8 rows, then 4, 2
    and 1; else 6, 3 and 1 (module docstring). ``a_rows``, ``b_rows``: int64 arrays, row
    ``a_rows[k]`` of ``A`` (``b_rows[k]`` of ``B``) in place of row ``k``.

    ``update = (lr, k_dt, k_xi)``: ``C[c0 + m cm + n] += lr (A[a0 + k_dt ak + m am]
    B[b0 + k_xi bk + n] - sum)`` instead, ``C`` contiguous along ``n`` (``cn = 1``), each row's
    last vector stored whole (its lanes past ``N`` with the values they had), so that ``C``
    holds a vector of ``lanes`` elements from the last vector's start. A ``C`` too short for
    the elements written raises ValueError (numba checks no index)."""
    K, M, N = shape
    a0, ak, am = a_at
    b0, bk = b_at
    c0, cm, cn = c_at
    if M > 0 and N > 0:
        if update is None:
            last = c0 + (M - 1) * cm + (N - 1) * cn
        else:
            width = 8 if lanes == 8 else 4
            last = c0 + (M - 1) * cm + (N + width - 1) // width * width - 1
        if last >= C.size:
            raise ValueError("gemm: C ends before the last element written")
    # A strip of columns at a time, every row of tiles over it, so that the strip of B (K rows
    # of a tile's width) stays in L1 while the rows use it: 5-14% faster than the rows outermost
    # in calls of RankNet's shapes (K = 50-200, M = 20-500, N = 46-200; AMD EPYC, AVX2), 2% on
    # the grid's epoch
    chunk = 24 if lanes == 8 else 8  # every tile's width: 3 vectors of 8, or 2 of 4
    for n in range(0, N, chunk):
        cols = min(chunk, N - n)

        def at(m):  # the geometry of the tiles from row m over this strip
            return (K, cols, a0 + m * am, ak, am, b0 + n, bk, c0 + m * cm + n * cn, cm, cn, skip)

        m = 0
        if lanes == 8:
            while m + 8 <= M:
                _rows_8x3(A, B, C, a_rows, b_rows, at(m), update)
                m += 8
            if m + 4 <= M:
                _rows_4x3(A, B, C, a_rows, b_rows, at(m), update)
                m += 4
            if m + 2 <= M:
                _rows_2x3(A, B, C, a_rows, b_rows, at(m), update)
                m += 2
            if m < M:
                _rows_1x3_8(A, B, C, a_rows, b_rows, at(m), update)
            continue
        while m + 6 <= M:
            _rows_6x2(A, B, C, a_rows, b_rows, at(m), update)
            m += 6
        if m + 3 <= M:
            _rows_3x2(A, B, C, a_rows, b_rows, at(m), update)
            m += 3
        while m < M:
            _rows_1x2(A, B, C, a_rows, b_rows, at(m), update)
            m += 1


@njit(cache=True)
def gemm_rows(A, B, C, shape, a_at, b_at, c_at, lanes, a_rows=None):
    """:func:`gemm` in tiles of one row ``m`` by 32 columns (64 with 8 lanes), skipping each
    zero ``A[k, m]`` (the skip then needs no finite ``B``: each zero term is left out, one by
    one). The columns run outermost, so that a strip of columns of ``B`` stays in L1 while every
    row uses it: each term costs a load of ``B``, unlike :func:`gemm`'s tiles, which load a row
    of ``B`` once for several rows but can skip a ``k`` only when all of its ``A`` are zero."""
    K, M, N = shape
    a0, ak, am = a_at
    b0, bk = b_at
    c0, cm, cn = c_at
    if M > 0 and N > 0 and c0 + (M - 1) * cm + (N - 1) * cn >= C.size:
        raise ValueError("gemm_rows: C ends before the last element written")
    strip = 8 * lanes
    for n in range(0, N, strip):
        cols = min(strip, N - n)
        for m in range(M):
            d = (K, cols, a0 + m * am, ak, am, b0 + n, bk, c0 + m * cm + n * cn, cm, cn, 1)
            if lanes == 8:
                _rows_1x8_8(A, B, C, a_rows, None, d, None)
            else:
                _rows_1x8(A, B, C, a_rows, None, d, None)


def _emit_4x4(builder, src, dst, s_at, s_row, d_at, d_row):
    """``dst[d_at + c d_row + r] = src[s_at + r s_row + c]`` for ``r, c < 4``: four rows
    loaded as vectors, transposed in registers by two rounds of shuffles, stored as vectors."""
    vty = ir.VectorType(_DBL, 4)

    def vec(p, at):
        return builder.bitcast(builder.gep(p, [at]), vty.as_pointer())

    rows = [builder.load(vec(src, builder.add(s_at, builder.mul(_i64(r), s_row))), align=8)
            for r in range(4)]

    def mix(u, v, lanes):
        return builder.shuffle_vector(u, v, ir.Constant(ir.VectorType(_I32, 4), lanes))

    even = [mix(rows[0], rows[1], [0, 4, 2, 6]), mix(rows[2], rows[3], [0, 4, 2, 6])]
    odd = [mix(rows[0], rows[1], [1, 5, 3, 7]), mix(rows[2], rows[3], [1, 5, 3, 7])]
    cols = [mix(even[0], even[1], [0, 1, 4, 5]), mix(odd[0], odd[1], [0, 1, 4, 5]),
            mix(even[0], even[1], [2, 3, 6, 7]), mix(odd[0], odd[1], [2, 3, 6, 7])]
    for c in range(4):
        builder.store(cols[c], vec(dst, builder.add(d_at, builder.mul(_i64(c), d_row))),
                      align=8)


@intrinsic
def _block_4x4(typingctx, src, dst, at):
    """:func:`_emit_4x4` for 1-D contiguous float64 arrays, ``at = (s_at, s_row, d_at,
    d_row)``."""
    sig = types.void(src, dst, at)

    def codegen(context, builder, signature, args):
        ps, pd = (context.make_array(t)(context, builder, v).data
                  for t, v in zip(signature.args[:2], args[:2]))
        _emit_4x4(builder, ps, pd, *cgutils.unpack_tuple(builder, args[2]))
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True)
def transpose(src, dst, shape, s0, d0, strides):
    """``dst[d0 + c d_row + r] = src[s0 + r s_row + c]`` for ``(rows, cols) = shape`` and
    ``(s_row, d_row) = strides``: a row-major block of ``src`` (rows ``s_row >= cols`` apart)
    into ``dst`` column by column (``d_row >= rows`` apart), in 4 x 4 blocks transposed in
    registers (the rows 8 at a time, so that each column's 8 values fill a cache line), the
    remaining rows and columns one value at a time. A block that does not fit in either array,
    or rows closer than their length, raises ValueError (numba checks no index)."""
    rows, cols = shape
    s_row, d_row = strides
    if rows > 0 and cols > 0 and (s0 < 0 or d0 < 0 or s_row < cols or d_row < rows
                                  or s0 + (rows - 1) * s_row + cols > src.size
                                  or d0 + (cols - 1) * d_row + rows > dst.size):
        raise ValueError("transpose: the block does not fit in src or dst")
    whole = cols - cols % 4
    r = 0
    while r + 4 <= rows:
        double = r + 8 <= rows
        for c in range(0, whole, 4):
            _block_4x4(src, dst, (s0 + r * s_row + c, s_row, d0 + c * d_row + r, d_row))
            if double:
                _block_4x4(src, dst, (s0 + (r + 4) * s_row + c, s_row, d0 + c * d_row + r + 4,
                                      d_row))
        for q in range(r, r + (8 if double else 4)):
            for c in range(whole, cols):
                dst[d0 + c * d_row + q] = src[s0 + q * s_row + c]
        r += 8 if double else 4
    for q in range(r, rows):
        for c in range(cols):
            dst[d0 + c * d_row + q] = src[s0 + q * s_row + c]


EXPONENT = 0x7FF0000000000000
"""The exponent field of a float64: all ones in an infinity or a NaN, and only there."""


@njit(cache=True, inline="always")
def exponent_bits(v):
    """The exponent field of ``v`` in place (:data:`EXPONENT` when ``v`` is not finite)."""
    return _bits(v) & EXPONENT


@njit(cache=True)
def all_finite(x, start, stop):
    """Whether ``x[start:stop]`` holds no infinity and no NaN (a maximum over integers, which
    vectorizes)."""
    top = 0
    for v in x[start:stop]:
        top = max(top, exponent_bits(v))
    return top != EXPONENT
