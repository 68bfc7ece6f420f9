"""fdlibm's ``exp`` and ``log`` (``e_exp.c``, ``e_log.c`` of Sun's freely distributable libm
5.3): ``exp`` as numba code, ``log`` in plain Python.

Java's ``StrictMath.exp`` and ``StrictMath.log`` are defined as these algorithms, and so are
``Math.exp`` and ``Math.log`` on a JVM run with ``-XX:+UnlockDiagnosticVMOptions
-XX:-UseLibmIntrinsic``. Their results differ from glibc's in the last bit for a small share of
arguments (both are within one ulp; ``log`` already at 3), which is enough to move a long
training run; code that must reproduce such a Java computation calls :func:`fdlibm_exp` and
:func:`fdlibm_log` instead of ``np.exp`` and ``math.log``.

``exp``, from fdlibm's published description:

1. reduce ``x = k ln2 + r`` with ``|r| <= ln2 / 2``, where ``ln2`` is split into ``ln2_hi``
   (trailing zero bits, so ``k ln2_hi`` is exact) and ``ln2_lo``, and ``r = hi - lo``;
2. approximate ``R(r^2) = r (exp(r) + 1) / (exp(r) - 1) - 2`` by a degree-5 polynomial
   ``c = r - r^2 (P1 + r^2 (P2 + ... + r^2 P5))``, so that
   ``exp(r) = 1 + r + r c / (2 - c)``, evaluated as ``1 - ((lo - r c / (2 - c)) - hi)``;
3. scale by ``2^k`` by adding ``k`` to the exponent field.

``log`` (see :func:`fdlibm_log`):

1. write ``x = 2^k (1 + f)`` with ``1 + f`` in about ``[sqrt(2)/2, sqrt(2))``;
2. with ``s = f / (2 + f)``, ``log(1 + f) = 2s + s R(s^2)``, ``R`` a degree-7 polynomial
   without constant term (coefficients ``Lg1..Lg7``), evaluated as ``f - s (f - R)`` since
   ``2s = f - s f``; for some ``f`` a half-square ``f^2 / 2`` is split off for accuracy, and
   ``|f| < 2^-20`` takes a short series instead;
3. add ``k ln2`` in two parts, ``k ln2_hi`` (exact) and ``k ln2_lo``.
"""

from __future__ import annotations

import math
import struct

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ..jit import njit


def _high_word(hi: int) -> float:
    """The non-negative double whose high 32 bits are ``hi`` and low 32 bits zero."""
    return struct.unpack("<d", struct.pack("<Q", hi << 32))[0]


_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00
_P1 = 1.66666666666666019037e-01
_P2 = -2.77777777770155933842e-03
_P3 = 6.61375632143793436117e-05
_P4 = -1.65339022054652515390e-06
_P5 = 4.13813679705723846039e-08
_O_THRESHOLD = 7.09782712893383973096e+02
_U_THRESHOLD = -7.45133219101941108420e+02
_TWOM1000 = 9.33263618503218878990e-302
_HUGE = 1.0e300
# fdlibm compares the high word of |x| with constants; each test below is the same comparison
# of |x| with the double that has that high word and a zero low word
_HX_BIG = _high_word(0x40862E42)  # hx >= 0x40862E42: |x| >= 709.78...
_HX_HALF_LN2 = _high_word(0x3FD62E43)  # hx > 0x3FD62E42: |x| > ln2 / 2
_HX_3HALF_LN2 = _high_word(0x3FF0A2B2)  # hx < 0x3FF0A2B2: |x| < 1.5 ln2
_HX_TINY = _high_word(0x3E300000)  # hx < 0x3E300000: |x| < 2^-28


@njit(cache=True)
def fdlibm_exp(x):
    """``exp(x)`` exactly as fdlibm computes it (Java's ``StrictMath.exp``)."""
    if x != x:
        return x + x
    negative = x < 0.0
    ax = abs(x)
    if ax >= _HX_BIG:
        if ax == math.inf:
            return 0.0 if negative else x
        if x > _O_THRESHOLD:
            return _HUGE * _HUGE  # overflow
        if x < _U_THRESHOLD:
            return _TWOM1000 * _TWOM1000  # underflow
    k = 0
    hi = 0.0
    lo = 0.0
    if ax >= _HX_HALF_LN2:
        if ax < _HX_3HALF_LN2:
            if negative:
                hi = x + _LN2_HI
                lo = -_LN2_LO
                k = -1
            else:
                hi = x - _LN2_HI
                lo = _LN2_LO
                k = 1
        else:
            k = int(_INV_LN2 * x + (-0.5 if negative else 0.5))  # truncates toward zero
            t = float(k)
            hi = x - t * _LN2_HI  # exact: t * ln2_hi has trailing zero bits
            lo = t * _LN2_LO
        x = hi - lo
    elif ax < _HX_TINY:
        if _HUGE + x > 1.0:
            return 1.0 + x  # raises inexact unless x is 0
    t = x * x
    c = x - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
    if k == 0:
        return 1.0 - ((x * c) / (c - 2.0) - x)
    y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi)
    # y 2^k: exact (adding k to the exponent field, as fdlibm does) while the result is normal
    if k >= -1021:
        return math.ldexp(y, k)
    return math.ldexp(y, k + 1000) * _TWOM1000


@njit(cache=True)
def fdlibm_exp_array(x):
    """:func:`fdlibm_exp` of every element of a float64 array."""
    out = np.empty_like(x)
    flat_in = x.ravel()
    flat_out = out.ravel()
    for i in range(flat_in.size):
        flat_out[i] = fdlibm_exp(flat_in[i])
    return out


_TWO54 = 1.80143985094819840000e+16
_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
       2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
       1.479819860511658591e-01)


def _words(x: float) -> tuple[int, int]:
    """(signed high 32 bits, low 32 bits) of the double ``x``."""
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    hi = bits >> 32
    return (hi - (1 << 32) if hi >= 1 << 31 else hi), bits & 0xFFFFFFFF


def _from_words(hi: int, lo: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", ((hi & 0xFFFFFFFF) << 32) | lo))[0]


def fdlibm_log(x: float) -> float:
    """``log(x)`` exactly as fdlibm computes it (Java's ``StrictMath.log``)."""
    x = float(x)
    hx, lx = _words(x)
    k = 0
    if hx < 0x00100000:  # x < 2^-1022: zero, negative or subnormal
        if ((hx & 0x7FFFFFFF) | lx) == 0:
            return -math.inf  # log(+-0)
        if hx < 0:
            return math.nan  # log(x < 0)
        k = -54  # subnormal: scale up into the normal range
        x *= _TWO54
        hx, lx = _words(x)
    if hx >= 0x7FF00000:
        return x + x  # inf or NaN
    k += (hx >> 20) - 1023
    hx &= 0x000FFFFF  # the high 20 bits of the mantissa
    # i is 2^20 when the mantissa is at least about sqrt(2): then halve it, k + 1
    i = (hx + 0x95F64) & 0x100000
    m = _from_words(hx | (i ^ 0x3FF00000), lx)  # 1 + f in [sqrt(2)/2, sqrt(2))
    k += i >> 20
    f = m - 1.0
    dk = float(k)
    if (0x000FFFFF & (2 + hx)) < 3:  # |f| < 2^-20: a short series
        if f == 0.0:
            return 0.0 if k == 0 else dk * _LN2_HI + dk * _LN2_LO
        r = f * f * (0.5 - 0.33333333333333333 * f)
        return f - r if k == 0 else dk * _LN2_HI - ((r - dk * _LN2_LO) - f)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG[1] + w * (_LG[3] + w * _LG[5]))
    t2 = z * (_LG[0] + w * (_LG[2] + w * (_LG[4] + w * _LG[6])))
    r = t2 + t1
    # the half-square form where the high mantissa bits lie strictly between 0x6147a and 0x6b851
    if ((hx - 0x6147A) | (0x6B851 - hx)) > 0:
        hfsq = 0.5 * f * f
        if k == 0:
            return f - (hfsq - s * (hfsq + r))
        return dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f)
    if k == 0:
        return f - s * (f - r)
    return dk * _LN2_HI - ((s * (f - r) - dk * _LN2_LO) - f)


@intrinsic
def _bits(typingctx, x):
    """The IEEE bits of a float64, as an int64 (an LLVM bitcast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def _from_bits(typingctx, i):
    """The float64 of IEEE bits ``i`` (an LLVM bitcast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@njit(cache=True, error_model="numpy")
def _pow2(j):
    """``2^j`` for ``-1022 <= j <= 1023`` (a normal double: exponent field ``j + 1023``)."""
    return _from_bits((j + 1023) << 52)


@njit(cache=True, error_model="numpy")
def exp_lane(x):
    """:func:`fdlibm_exp` without branches, every case computed and the right one selected, so
    that a loop over an array of arguments compiles to vector instructions (4 lanes with AVX2).
    Bit-identical to :func:`fdlibm_exp`; each departure from its text is exact:

    * arguments outside ``[U_THRESHOLD, O_THRESHOLD]`` (and NaN) take fdlibm's special results
      (``x + x``, ``+0``, ``+inf``); the computation runs on 0 in their place;
    * one reduction ``hi = x - k ln2_hi``, ``lo = k ln2_lo`` for every ``|x| > ln2 / 2``: with
      ``k = +-1`` (fdlibm's branch for ``|x| < 1.5 ln2``) it is fdlibm's ``x -+ ln2_hi``,
      ``+-ln2_lo`` (multiplying by ``+-1`` is exact); with ``k = 0`` (``|x| <= ln2 / 2``) it is
      ``hi = x``, ``lo = 0``, ``r = x``;
    * fdlibm's ``k = 0`` result ``1 - (r c / (c - 2) - r)`` is the general
      ``1 - ((lo - r c / (2 - c)) - hi)`` at ``lo = 0``, ``hi = r``: a quotient by ``c - 2``
      is minus the quotient by ``2 - c`` (rounding is symmetric), ``0 - q = -q`` for
      ``q != +0``, and for ``q = +0`` both sides then subtract ``r != 0`` (``|r| >= 2^-28``
      here) from a zero, giving ``-r``;
    * ``y 2^k`` as two exact products ``(y 2^(k >> 1)) 2^(k - (k >> 1))`` while the result is
      normal (``k >= -1021``, where fdlibm adds ``k`` to the exponent field: the same value), and
      fdlibm's own ``(y 2^(k + 1000)) 2^-1000`` below."""
    in_range = (x <= _O_THRESHOLD) and (x >= _U_THRESHOLD)  # False for NaN
    # NaN: x + x; +inf and overflow: +inf; -inf and underflow: +0
    special = x + x if x != x else (math.inf if x > 0.0 else 0.0)
    xr = x if in_range else 0.0
    ax = abs(xr)
    negative = xr < 0.0
    # truncates toward zero; through int32 (|k| <= 1076 here), which AVX2 converts 4 at a time
    k_round = np.int32(_INV_LN2 * xr + (-0.5 if negative else 0.5))
    k_mid = -1 if negative else 1
    k = 0 if ax < _HX_HALF_LN2 else (k_mid if ax < _HX_3HALF_LN2 else k_round)
    t = float(np.int32(k))
    hi = xr - t * _LN2_HI
    lo = t * _LN2_LO
    r = hi - lo
    rr = r * r
    c = r - rr * (_P1 + rr * (_P2 + rr * (_P3 + rr * (_P4 + rr * _P5))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    normal = k >= -1021
    half = k >> 1
    scaled = (y * _pow2(half if normal else k + 1000)) * (_pow2(k - half) if normal else _TWOM1000)
    result = 1.0 + xr if ax < _HX_TINY else scaled
    return result if in_range else special


@njit(cache=True, error_model="numpy")
def exp_lanes(x, out, n):
    """``out[i] = fdlibm_exp(x[i])`` for ``i < n``, :func:`exp_lane` in vector lanes; ``x`` or
    ``out`` shorter than ``n`` raises ValueError (numba checks no index)."""
    if n > x.size or n > out.size:
        raise ValueError("exp_lanes: x or out holds fewer than n elements")
    for i in range(n):
        out[i] = exp_lane(x[i])


# ---- exp on explicit vectors ----------------------------------------------------------------
# LLVM's loop vectorizer gives :func:`exp_lane` 4 lanes even where the CPU has 8 (it prefers
# 256-bit vectors on AVX-512 CPUs); the same operations written on ``<width x double>`` vectors
# take the CPU's whole width.

_DBL = ir.DoubleType()
_I64 = ir.IntType(64)


def _splat(vty, value):
    return ir.Constant(vty, [value] * vty.count)


def _emit_unscaled(builder, x, t):
    """fdlibm's ``exp(x) 2^-k`` on vectors, ``t`` the vector of ``k`` as doubles: the reduction
    ``hi = x - t ln2_hi``, ``lo = t ln2_lo``, ``r = hi - lo``, the polynomial ``c`` in ``r^2``
    and ``y = 1 - ((lo - r c / (2 - c)) - hi)``, each operation rounded alone."""
    def c(v):
        return _splat(x.type, v)

    hi = builder.fsub(x, builder.fmul(t, c(_LN2_HI)))
    lo = builder.fmul(t, c(_LN2_LO))
    r = builder.fsub(hi, lo)
    rr = builder.fmul(r, r)
    poly = builder.fadd(c(_P4), builder.fmul(rr, c(_P5)))
    for p in (_P3, _P2, _P1):
        poly = builder.fadd(c(p), builder.fmul(rr, poly))
    cc = builder.fsub(r, builder.fmul(rr, poly))
    return builder.fsub(c(1.0), builder.fsub(builder.fsub(
        lo, builder.fdiv(builder.fmul(r, cc), builder.fsub(c(2.0), cc))), hi))


def emit_exp(builder, x):
    """LLVM IR of :func:`exp_lane` on a ``<width x double>`` value ``x``: the same operations,
    in the same order, on every lane (each rounded alone: no fast-math flag), the same
    selections."""
    vty = x.type
    ity = ir.VectorType(_I64, vty.count)

    def c(v):
        return _splat(vty, v)

    def ci(v):
        return _splat(ity, v)

    in_range = builder.and_(builder.fcmp_ordered("<=", x, c(_O_THRESHOLD)),
                            builder.fcmp_ordered(">=", x, c(_U_THRESHOLD)))  # False for NaN
    special = builder.select(builder.fcmp_unordered("!=", x, x), builder.fadd(x, x),
                             builder.select(builder.fcmp_ordered(">", x, c(0.0)),
                                            c(math.inf), c(0.0)))
    xr = builder.select(in_range, x, c(0.0))
    ax = builder.bitcast(builder.and_(builder.bitcast(xr, ity), ci(0x7FFFFFFFFFFFFFFF)), vty)
    negative = builder.fcmp_ordered("<", xr, c(0.0))
    # to 32-bit integers and back (|k| <= 1076 here): AVX2 converts 4 doubles to int32 in one
    # instruction and has none for int64, which LLVM would convert lane by lane
    k32 = builder.fptosi(builder.fadd(builder.fmul(c(_INV_LN2), xr),
                                      builder.select(negative, c(-0.5), c(0.5))),
                         ir.VectorType(ir.IntType(32), vty.count))
    k_round = builder.sext(k32, ity)
    k_mid = builder.select(negative, ci(-1), ci(1))
    k = builder.select(builder.fcmp_ordered("<", ax, c(_HX_HALF_LN2)), ci(0),
                       builder.select(builder.fcmp_ordered("<", ax, c(_HX_3HALF_LN2)), k_mid,
                                      k_round))
    t = builder.sitofp(builder.trunc(k, ir.VectorType(ir.IntType(32), vty.count)), vty)
    y = _emit_unscaled(builder, xr, t)
    normal = builder.icmp_signed(">=", k, ci(-1021))
    half = builder.ashr(k, ci(1))

    def pow2(j):
        return builder.bitcast(builder.shl(builder.add(j, ci(1023)), ci(52)), vty)

    first = pow2(builder.select(normal, half, builder.add(k, ci(1000))))
    second = builder.select(normal, pow2(builder.sub(k, half)), c(_TWOM1000))
    scaled = builder.fmul(builder.fmul(y, first), second)
    result = builder.select(builder.fcmp_ordered("<", ax, c(_HX_TINY)),
                            builder.fadd(c(1.0), xr), scaled)
    return builder.select(in_range, result, special)


UNIT_LOW = -1.0
"""The lowest argument :func:`emit_exp_unit` is for (fdlibm's ``k`` stays 0 or -1 down to
``-1.5 ln2``, about -1.04; a sigmoid output's negation stops at -1)."""


def emit_exp_unit(builder, x):
    """:func:`emit_exp` for ``x`` in ``[-1, 0]`` (or NaN), such as ``-o`` for a sigmoid's output
    ``o``: the operations :func:`exp_lane` performs there, without those that cannot change a
    result in that range, so the same bits. There ``|x| < 1.5 ln2``, so fdlibm's ``k`` is 0
    (``|x| <= ln2 / 2``) or -1: ``t = k`` is selected, not rounded from ``x / ln2``; the
    scaling ``(y 2^(k >> 1)) 2^(k - (k >> 1))`` is ``(y 1) 1`` or ``(y 0.5) 1``, and a
    product by 1 is exact, so ``y`` times 1 or 0.5; no argument is out of range but NaN, whose
    result ``x + x`` is selected as :func:`exp_lane` selects it. An ``x`` outside the range
    gets a wrong value: the callers' arguments cannot be there."""
    vty = x.type
    ity = ir.VectorType(_I64, vty.count)

    def c(v):
        return _splat(vty, v)

    ax = builder.bitcast(builder.and_(builder.bitcast(x, ity), _splat(ity, 0x7FFFFFFFFFFFFFFF)),
                         vty)
    reduced = builder.fcmp_ordered(">=", ax, c(_HX_HALF_LN2))  # k = -1, else k = 0
    t = builder.select(reduced, c(-1.0), c(0.0))
    y = _emit_unscaled(builder, x, t)
    scaled = builder.fmul(y, builder.select(reduced, c(0.5), c(1.0)))
    result = builder.select(builder.fcmp_ordered("<", ax, c(_HX_TINY)),
                            builder.fadd(c(1.0), x), scaled)
    return builder.select(builder.fcmp_unordered("!=", x, x), builder.fadd(x, x), result)


UNROLL = 4


def vector_map(width: int, body):
    """An intrinsic ``f(Y, j, count, X, i, Z, k)`` for 1-D contiguous float64 arrays:
    ``Y[j + v:j + v + width] = body(builder, X[i + v:...], Z[k + v:...])`` for
    ``v = 0, width, ..., (count - 1) width``, ``body`` emitting IR on ``<width x double>``
    values (one loop, so that LLVM keeps its constants in registers)."""
    vty = ir.VectorType(_DBL, width)

    @intrinsic
    def kernel(typingctx, Y, j, count, X, i, Z, k):
        def codegen(context, builder, signature, args):
            py, px, pz = (context.make_array(signature.args[n])(context, builder, args[n]).data
                          for n in (0, 3, 5))
            def step(start, n):  # n vectors from vector ``start``, their chains interleaved
                vs = [builder.mul(builder.add(start, ir.Constant(_I64, u)),
                                  ir.Constant(_I64, width)) for u in range(n)]

                def at(p, off, v):
                    return builder.bitcast(builder.gep(p, [builder.add(off, v)]),
                                           vty.as_pointer())

                xs = [builder.load(at(px, args[4], v), align=8) for v in vs]
                zs = [builder.load(at(pz, args[6], v), align=8) for v in vs]
                ys = [body(builder, x, z) for x, z in zip(xs, zs)]
                for v, y in zip(vs, ys):
                    builder.store(y, at(py, args[1], v), align=8)

            count = args[2]
            groups = builder.sdiv(count, ir.Constant(_I64, UNROLL))
            with cgutils.for_range(builder, groups) as loop:
                step(builder.mul(loop.index, ir.Constant(_I64, UNROLL)), UNROLL)
            done = builder.mul(groups, ir.Constant(_I64, UNROLL))
            with cgutils.for_range(builder, builder.sub(count, done)) as loop:
                step(builder.add(done, loop.index), 1)
            return context.get_dummy_value()

        return types.void(Y, j, count, X, i, Z, k), codegen

    return kernel


def _exp_body(builder, x, _):
    return emit_exp(builder, x)


_exp_8 = vector_map(8, _exp_body)
_exp_4 = vector_map(4, _exp_body)


@njit(cache=True)
def exp_vectors(x, out, n, lanes):
    """``out[i] = fdlibm_exp(x[i])`` for ``i < n``: :func:`emit_exp` on vectors of ``lanes``
    (8 or 4), the last ``n % lanes`` by :func:`exp_lane`; ``x`` or ``out`` shorter than ``n``
    raises ValueError (numba checks no index, and the vectors write ``lanes`` at a time)."""
    if n > x.size or n > out.size:
        raise ValueError("exp_vectors: x or out holds fewer than n elements")
    i = n - n % lanes
    if lanes == 8:
        _exp_8(out, 0, i // 8, x, 0, x, 0)
    else:
        _exp_4(out, 0, i // 4, x, 0, x, 0)
    while i < n:
        out[i] = exp_lane(x[i])
        i += 1
