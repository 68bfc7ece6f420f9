"""RankNet (Burges et al. 2005) as RankLib 2.x trains it (``learning/neuralnet/RankNet.java``).

The network: the raw features (rounded to float32, as RankLib stores them) feed 1-3 hidden
layers and one output unit, every unit a sigmoid ``o = 1 / (1 + exp(-sum_s w_s x_s))`` over
the units of the layer below and a bias input of 1. The initial weights are drawn from a
``java.util.Random(random_state)`` in RankLib's wiring order (input->first hidden, hidden->next,
then every bias), each ``+-nextFloat() / 10`` in float32 (:func:`.java_random.synapse_weights`).

Training: ``max_epochs`` passes over the training queries in file order. Per query, one forward
pass with the current weights; then for each document ``i`` in file order with pairs
``j`` (``l_j < l_i``, in file order), with ``o`` the output unit's values and
``f'(v) = s(v) (1 - s(v))``, ``s`` the sigmoid:

* output unit: ``lambda_ij = 1 / (1 + exp(o_i - o_j))``, ``delta_i = f'(o_i) sum_j lambda_ij``,
  ``delta_ij = lambda_ij f'(o_j)``;
* hidden unit ``h``: ``delta_i = f'(h_i) sum_t w_ht delta_i(t)``,
  ``delta_ij = f'(h_j) sum_t w_ht delta_ij(t)`` over the units ``t`` above;
* every weight ``w_st`` into unit ``t``: ``w += lr (delta_i(t) x_s(i) - sum_j delta_ij(t) x_s(j))``.

``f'`` is applied to the unit's output value ``o`` (not to its input), as RankLib does, so it
is not the sigmoid's derivative; the updates follow RankLib, not the cross-entropy gradient.
After every epoch the validation score (mean NDCG@k of the ``metric``) is computed and the
weights of the first epoch with the best score above 0 are kept. Every ``exp`` is fdlibm's
(:mod:`.fdlibm`), Java's ``StrictMath.exp``; every sum runs in RankLib's order. With the same
seed, this gives RankLib's model run under ``-XX:-UseLibmIntrinsic`` (where ``Math.exp`` is
fdlibm's).

The kernels (``_train_epoch``, ``_predict``) compute these sums as register tiles
(:mod:`.tiles`): several independent sums at once, each one's terms in the order above, from
+0, products and sums rounded separately (no fused multiply-add, no fastmath), in vectors of
the CPU's width (``lanes``: 8 with AVX-512, else 4); the sigmoids and ``lambda`` take fdlibm's
exp in vector lanes (:func:`.fdlibm.exp_lane`, :func:`.fdlibm.emit_exp`). The
``*_plain`` kernels, one sum at a time, are kept: the tiles' results equal theirs bit for bit
(tests/test_ranknet.py), and the forward pass falls back to them when a weight is not finite.

``patience`` (not a RankLib option; default None: every epoch runs, as in RankLib) stops a
run after that many epochs without a better validation score.

Model selection over ``architectures`` (the paper's grid, Busa-Fekete et al. 2012, Sec. 4): each
architecture is trained as above from its own ``java.util.Random(random_state)``; the one with
the best validation score wins, the first on ties.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

import numpy as np
from llvmlite import ir

from ..errors import InputError
from ..jit import njit
from .base import TrainingData
from .fdlibm import emit_exp, emit_exp_unit, exp_lane, fdlibm_exp, vector_map
from .java_random import JavaRandom, synapse_weights
from .params import Check, Integer, Metric, Number, RandomState
from .ranklib_values import as_float32_values
from .tiles import LANES, PAD, all_finite, gemm, gemm_rows, transpose
from .units import UnitRanker

# The paper validates 1-3 hidden layers of 10-500 units (Busa-Fekete et al. 2012, Sec. 4): widths
# 10, 50, 100, 200, 500 for one layer, two layers up to 200 and three up to 100 units.
PAPER_GRID = ((10,), (50,), (100,), (200,), (500,), (10, 10), (50, 50), (100, 100), (200, 200),
              (10, 10, 10), (50, 50, 50), (100, 100, 100))
LEARNING_RATE = 5e-5  # RankLib 2.x's RankNet.learningRate


def layout(sizes) -> tuple[np.ndarray, np.ndarray, int]:
    """Offsets of each layer's weights (a ``(fan_out, fan_in + 1)`` block, row-major, the
    bias weight last in each row) and of each layer's units; the weight count."""
    w_off, pos = [], 0
    for a, b in zip(sizes[:-1], sizes[1:]):
        w_off.append(pos)
        pos += b * (a + 1)
    u_off = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    return np.array(w_off, dtype=np.int64), u_off, pos


def init_weights(sizes, seed: int) -> np.ndarray:
    """RankLib's initial weights of a net of layer sizes ``sizes`` drawn from
    ``java.util.Random(seed)`` in its wiring order, laid out as :func:`layout` says."""
    w_off, _, total = layout(sizes)
    rnd = JavaRandom(seed)
    params = np.empty(total)
    # input -> first hidden: for each input s, for each unit t
    a, b = sizes[0], sizes[1]
    w = synapse_weights(rnd, a * b).reshape(a, b)
    params[w_off[0]:w_off[0] + b * (a + 1)].reshape(b, a + 1)[:, :a] = w.T
    # hidden -> next: for each layer, each unit s, each unit t of the next layer
    for layer in range(1, len(sizes) - 1):
        a, b = sizes[layer], sizes[layer + 1]
        w = synapse_weights(rnd, a * b).reshape(a, b)
        params[w_off[layer]:w_off[layer] + b * (a + 1)].reshape(b, a + 1)[:, :a] = w.T
    # the bias input -> every unit, layer by layer
    for layer in range(len(sizes) - 1):
        a, b = sizes[layer], sizes[layer + 1]
        params[w_off[layer]:w_off[layer] + b * (a + 1)].reshape(b, a + 1)[:, a] = \
            synapse_weights(rnd, b)
    return params


@njit(cache=True)
def _sigmoid(x):
    return 1.0 / (1.0 + fdlibm_exp(-x))


@njit(cache=True)
def _transpose(params, sizes, kept, wt, into):
    """Each layer's weights as an ``(fan_in + 1, fan_out)`` block of ``wt`` (bias row last),
    in 4 x 4 blocks transposed in registers (:func:`.tiles.transpose`), from ``params``; each
    laid out as its ``(block offsets, row strides)`` say (:func:`_unpadded`'s or
    :func:`_padded_layout`'s, ``into`` transposed). Returns whether every weight is finite (no
    infinity, no NaN)."""
    offsets, strides = kept
    t_off, t_strides = into
    for layer in range(len(sizes) - 1):
        a, b = sizes[layer], sizes[layer + 1]
        transpose(params, wt, (b, a + 1), offsets[layer], t_off[layer],
                  (strides[layer], t_strides[layer]))
    return all_finite(params, 0, params.size)


@njit(cache=True)
def _block(sizes, layer, transposed):
    """``(rows, row length)`` of a layer's weights: a row of ``fan_in + 1`` weights per unit, or
    ``transposed`` a row of ``fan_out`` weights per input (the bias last)."""
    if transposed:
        return sizes[layer] + 1, sizes[layer + 1]
    return sizes[layer + 1], sizes[layer] + 1


@njit(cache=True)
def _unpadded(sizes, w_off, transposed):
    """:func:`layout`'s blocks as ``(offsets, row strides)``: rows of ``fan_in + 1`` weights,
    or ``transposed`` (as :func:`_forward_plain` reads them) of ``fan_out``."""
    strides = np.empty(len(sizes) - 1, dtype=np.int64)
    for layer in range(len(sizes) - 1):
        strides[layer] = _block(sizes, layer, transposed)[1]
    return w_off, strides


@njit(cache=True)
def _copy_rows(src, src_at, dst, dst_at, sizes, transposed):
    """Every layer's rows of weights (:func:`_block`) from ``src`` into ``dst``, each array laid
    out as its ``(block offsets, row strides)`` say; the padding between rows is not written."""
    s_off, s_strides = src_at
    d_off, d_strides = dst_at
    for layer in range(len(sizes) - 1):
        rows, length = _block(sizes, layer, transposed)
        for r in range(rows):
            at = s_off[layer] + r * s_strides[layer]
            to = d_off[layer] + r * d_strides[layer]
            dst[to:to + length] = src[at:at + length]


ROW_ALIGN = 8
"""Doubles per row of the training's weights are a multiple of this, from a 64-byte boundary
(:func:`_padded_layout`)."""


@njit(cache=True)
def _padded_layout(sizes, transposed):
    """Where the tiled kernels keep each layer's weights: ``(offsets, row strides, size)``,
    each row of a unit's ``fan_in + 1`` weights (``transposed``: of an input's ``fan_out``
    weights, :func:`_transpose`) padded to a multiple of :data:`ROW_ALIGN` doubles, so that
    every row starts on a cache line when the array does and a tile's 8 weights of a row are
    one 64-byte line: in :func:`layout`'s rows of ``fan_in + 1`` most of them straddle two, and
    a tile's rows over a whole layer then overflow the 32 KB L1 (on an AMD EPYC with AVX2, the
    hidden deltas of a (200, 200) net ran 1.2-1.45x as fast padded)."""
    n = len(sizes) - 1
    offsets = np.empty(n, dtype=np.int64)
    strides = np.empty(n, dtype=np.int64)
    at = 0
    for layer in range(n):
        rows, length = _block(sizes, layer, transposed)
        strides[layer] = (length + ROW_ALIGN - 1) // ROW_ALIGN * ROW_ALIGN
        offsets[layer] = at
        at += rows * strides[layer]
    return offsets, strides, at


@njit(cache=True)
def _padded_units(sizes):
    """Where the tiled training keeps each layer's units in a row of values (of ``f'``, of
    deltas): :func:`layout`'s unit offsets with each layer's start, and the row's length,
    rounded up to a multiple of :data:`ROW_ALIGN` (a tile's 8 values of a layer one cache
    line)."""
    units = np.zeros(len(sizes) + 1, dtype=np.int64)
    for layer in range(len(sizes)):
        units[layer + 1] = units[layer] + (sizes[layer] + ROW_ALIGN - 1) // ROW_ALIGN * ROW_ALIGN
    return units


@njit(cache=True)
def _aligned_zeros(n):
    """``n`` zeros starting on a 64-byte boundary."""
    buf = np.zeros(n + ROW_ALIGN)
    shift = (-(buf.ctypes.data % 64) % 64) // 8
    return buf[shift:shift + n]


@njit(cache=True)
def _forward_plain(wt, sizes, w_off, u_off, X, out):
    """Every unit's output for the rows of ``X`` into ``out[:, u_off[l]:u_off[l + 1]]``, from
    the transposed weights ``wt`` (:func:`_transpose`). Each unit's weighted sum runs over the
    units below in order, then the bias; the loop over the units above runs innermost. A zero
    input is skipped: adding its +-0 product leaves a sum that starts at +0 unchanged."""
    n = X.shape[0]
    for r in range(n):
        for k in range(sizes[0]):
            out[r, k] = X[r, k]
    for layer in range(len(sizes) - 1):
        a, b = sizes[layer], sizes[layer + 1]
        src, dst = u_off[layer], u_off[layer + 1]
        w = wt[w_off[layer]:w_off[layer] + (a + 1) * b]
        for r in range(n):
            sums = out[r, dst:dst + b]
            for t in range(b):
                sums[t] = 0.0
            for k in range(a):
                x = out[r, src + k]
                if x != 0.0:
                    row = w[k * b:(k + 1) * b]
                    for t in range(b):
                        sums[t] += x * row[t]
            bias = w[a * b:(a + 1) * b]
            for t in range(b):
                sums[t] = _sigmoid(sums[t] + bias[t])


@njit(cache=True)
def _hidden_deltas_plain(params, w_off, a, b, layer, src, dst, npair, pairs, fp, i, d_i, d_j, acc):
    """Deltas of the ``a`` units of ``layer`` from the ``b`` units above: for each unit ``h``,
    ``sum_t w_ht delta(t)`` over ``t`` in order, times ``f'`` (of document ``i``, of each pair
    document). The loop over ``h`` runs innermost: each sum keeps its own order."""
    for k in range(npair + 1):
        for h in range(a):
            acc[k, h] = 0.0
    for t in range(b):
        base = w_off[layer] + t * (a + 1)
        w = params[base:base + a]
        for k in range(npair):
            c = d_j[k, dst + t]
            row = acc[k, :a]
            for h in range(a):
                row[h] += c * w[h]
        c = d_i[dst + t]
        row = acc[npair, :a]
        for h in range(a):
            row[h] += c * w[h]
    for k in range(npair):
        j = pairs[k]
        for h in range(a):
            d_j[k, src + h] = acc[k, h] * fp[j, src + h]
    for h in range(a):
        d_i[src + h] = acc[npair, h] * fp[i, src + h]


@njit(cache=True)
def _update_weights_plain(params, w_off, a, b, layer, src, dst, npair, pairs, out, i, d_i, d_j, lr,
                    acc):
    """``w_st += lr (delta_i(t) x_s(i) - sum_k delta_ik(t) x_s(j_k))`` for the weights into the
    ``b`` units above ``layer`` (its ``a`` units and the bias, ``x = 1``); each sum over ``k``
    in order, the loop over the longer of ``s`` and ``t`` innermost."""
    if b > a + 1:
        for s in range(a + 1):
            for t in range(b):
                acc[s, t] = 0.0
        for k in range(npair):
            j = pairs[k]
            dk = d_j[k, dst:dst + b]
            for s in range(a):
                x = out[j, src + s]
                if x != 0.0:  # adds +-0 to a sum that starts at +0: skipped
                    row = acc[s, :b]
                    for t in range(b):
                        row[t] += dk[t] * x
            row = acc[a, :b]
            for t in range(b):
                row[t] += dk[t]
        for t in range(b):
            base = w_off[layer] + t * (a + 1)
            dt = d_i[dst + t]
            for s in range(a):
                params[base + s] += lr * (dt * out[i, src + s] - acc[s, t])
            params[base + a] += lr * (dt - acc[a, t])
        return
    row = acc[0, :a + 1]
    for t in range(b):
        base = w_off[layer] + t * (a + 1)
        for s in range(a + 1):
            row[s] = 0.0
        for k in range(npair):
            c = d_j[k, dst + t]
            x = out[pairs[k], src:src + a]
            for s in range(a):
                row[s] += c * x[s]
            row[a] += c
        dt = d_i[dst + t]
        w = params[base:base + a + 1]
        xi = out[i, src:src + a]
        for s in range(a):
            w[s] += lr * (dt * xi[s] - row[s])
        w[a] += lr * (dt - row[a])


@njit(cache=True)
def _train_query_plain(params, wt, sizes, w_off, u_off, X, y, lr, out, fp, d_i, d_j, acc, pairs):
    """One query's forward pass, then one update per document (module docstring)."""
    n = X.shape[0]
    _transpose(params, sizes, _unpadded(sizes, w_off, False), wt,
               _unpadded(sizes, w_off, True))
    _forward_plain(wt, sizes, w_off, u_off, X, out)
    n_units = u_off[-1]
    for r in range(n):
        for u in range(sizes[0], n_units):
            sv = _sigmoid(out[r, u])
            fp[r, u] = sv * (1.0 - sv)
    top = len(sizes) - 1
    o = u_off[top]
    for i in range(n):
        npair = 0
        for j in range(n):
            if y[j] < y[i]:
                pairs[npair] = j
                npair += 1
        if npair == 0:
            continue  # every delta is 0: the weights stay
        # output unit
        di = 0.0
        for k in range(npair):
            j = pairs[k]
            lam = 1.0 / (1.0 + fdlibm_exp(out[i, o] - out[j, o]))
            di += lam
            d_j[k, o] = lam * fp[j, o]
        d_i[o] = di * fp[i, o]
        for layer in range(top - 1, 0, -1):  # hidden units, top down
            _hidden_deltas_plain(params, w_off, sizes[layer], sizes[layer + 1], layer, u_off[layer],
                           u_off[layer + 1], npair, pairs, fp, i, d_i, d_j, acc)
        for layer in range(top):
            _update_weights_plain(params, w_off, sizes[layer], sizes[layer + 1], layer,
                                  u_off[layer], u_off[layer + 1], npair, pairs, out, i, d_i, d_j,
                                  lr, acc)


@njit(cache=True)
def _train_epoch_plain(params, sizes, w_off, u_off, X, y, offsets, queries, lr, out, fp, d_i, d_j,
                 acc, pairs):
    wt = np.empty_like(params)
    for q in queries:
        a, b = offsets[q], offsets[q + 1]
        _train_query_plain(params, wt, sizes, w_off, u_off, X[a:b], y[a:b], lr, out, fp, d_i, d_j,
                     acc, pairs)


@njit(cache=True)
def _predict_plain(params, sizes, w_off, u_off, X, out):
    """Output-unit values of the rows of ``X`` in blocks of ``out.shape[0]`` rows."""
    n = X.shape[0]
    batch = out.shape[0]
    res = np.empty(n)
    top = u_off[len(sizes) - 1]
    wt = np.empty_like(params)
    _transpose(params, sizes, _unpadded(sizes, w_off, False), wt,
               _unpadded(sizes, w_off, True))
    for start in range(0, n, batch):
        stop = min(n, start + batch)
        _forward_plain(wt, sizes, w_off, u_off, X[start:stop], out)
        for r in range(stop - start):
            res[start + r] = out[r, top]
    return res


# ---- the tiled kernels ----------------------------------------------------------------------
# The same sums as the plain kernels above, term for term in the same order, computed as
# register tiles (:mod:`.tiles`); fdlibm's exp in vector lanes (:func:`.fdlibm.exp_lane`,
# bit-identical to :func:`.fdlibm.fdlibm_exp`). ``error_model="numpy"`` lets the loops with a
# division vectorize: it changes only a division by zero, and every divisor here is
# ``1 + exp(..) >= 1``.


def _emit_sigmoid(builder, v, exp=emit_exp):
    """``1 / (1 + exp(-v))`` on a vector ``v``, as :func:`_sigmoid_rows` computes it (the
    negation as numba's: ``-0.0 - v``); ``exp`` emits the exp (:func:`.fdlibm.emit_exp`, or
    :func:`.fdlibm.emit_exp_unit` where ``-v`` lies in ``[-1, 0]``)."""
    one = ir.Constant(v.type, [1.0] * v.type.count)
    minus = builder.fsub(ir.Constant(v.type, [-0.0] * v.type.count), v)
    return builder.fdiv(one, builder.fadd(one, exp(builder, minus)))


def _sigmoid_body(builder, x, bias):
    """``1 / (1 + exp(-(x + bias)))`` on vectors."""
    return _emit_sigmoid(builder, builder.fadd(x, bias))


def _fprime_body(builder, o, _):
    """``f'(o) = s (1 - s)``, ``s = 1 / (1 + exp(-o))``, on vectors of sigmoid outputs ``o``
    (in ``[0, 1]``, or NaN: the exp of ``-o`` by :func:`.fdlibm.emit_exp_unit`)."""
    sv = _emit_sigmoid(builder, o, emit_exp_unit)
    one = ir.Constant(o.type, [1.0] * o.type.count)
    return builder.fmul(sv, builder.fsub(one, sv))


_sigmoid_8 = vector_map(8, _sigmoid_body)
_fprime_8 = vector_map(8, _fprime_body)


@njit(cache=True, error_model="numpy")
def _sigmoid_rows(out, fp, n, dst, b, bias, with_fp):
    """``out[r, dst + t] = 1 / (1 + exp(-(out[r, dst + t] + bias[t])))`` for ``r < n``,
    ``t < b``: a unit's weighted sum plus its bias, through the sigmoid; with ``with_fp``,
    ``fp[r, dst + t] = f'(out[r, dst + t])`` too (module docstring). The whole vectors of 8 of
    each row by :func:`.fdlibm.emit_exp`, on every CPU (with AVX2 LLVM splits each into two
    vectors of 4, two exps in flight: with both exps and divisions, 500 units, AMD EPYC,
    9.5 ns a unit against 14.1 ns before :func:`.fdlibm.emit_exp` converted through int32 and
    17.8 ns for the loop vectorizer's 4 lanes of :func:`.fdlibm.exp_lane` then), ``f'``'s exp
    by :func:`.fdlibm.emit_exp_unit` (its argument ``-o`` in ``[-1, 0]``: 7,903 rows of 400
    units, medians of 7, 8.4-8.8 ns a unit with ``f'`` where :func:`.fdlibm.emit_exp` took
    10.5, 4.5-5.2 without); the rest by :func:`.fdlibm.exp_lane`. Computing both in one pass
    over each row was slower (10.0-10.4 ns)."""
    width = out.shape[1]
    flat_o = out.reshape(out.size)
    flat_f = fp.reshape(fp.size)
    whole = b - b % 8
    for r in range(n):
        at = r * width + dst
        if whole:
            _sigmoid_8(flat_o, at, whole // 8, flat_o, at, bias, 0)
            if with_fp:
                _fprime_8(flat_f, at, whole // 8, flat_o, at, flat_o, at)
        row = out[r, dst + whole:dst + b]
        rest = bias[whole:b]
        for t in range(b - whole):
            row[t] = 1.0 / (1.0 + exp_lane(-(row[t] + rest[t])))
        if with_fp:
            f = fp[r, dst + whole:dst + b]
            for t in range(b - whole):
                sv = 1.0 / (1.0 + exp_lane(-row[t]))
                f[t] = sv * (1.0 - sv)


@njit(cache=True, error_model="numpy")
def _forward(wt, finite, sizes, w_off, u_off, X, out, fp, with_fp, lanes, into):
    """:func:`_forward_plain`'s values: each unit's sum over the units below in order from +0,
    then its bias, as :func:`.tiles.gemm` tiles of documents x units. A unit below that is
    zero for all documents of a tile is skipped in the first layer (the features: 47% of
    MQ2008's values are 0), nowhere above (sigmoid outputs); an input that is zero for some
    documents adds ``+-0`` there, which leaves the sum unchanged when the weights are finite
    (:mod:`.tiles`; ``finite``, as :func:`_transpose` returns it); with a non-finite weight,
    the plain kernel runs. With ``with_fp``, ``f'`` of every unit into ``fp``. ``wt``, laid out
    as ``into`` says (:func:`_padded_layout`, transposed), has :data:`.tiles.PAD` elements more
    than the weights; ``w_off``: :func:`layout`'s offsets."""
    n = X.shape[0]
    width = out.shape[1]
    t_off, t_strides = into
    if not finite:  # the plain kernel, on the transposed rows unpadded
        top = len(sizes) - 2
        plain = np.empty(w_off[top] + (sizes[top] + 1) * sizes[top + 1])
        _copy_rows(wt, into, plain, _unpadded(sizes, w_off, True), sizes, True)
        _forward_plain(plain, sizes, w_off, u_off, X, out)
        if with_fp:
            for r in range(n):
                for u in range(sizes[0], u_off[-1]):
                    sv = _sigmoid(out[r, u])
                    fp[r, u] = sv * (1.0 - sv)
        return
    flat = out.reshape(out.size)
    for r in range(n):
        for k in range(sizes[0]):
            out[r, k] = X[r, k]
    for layer in range(len(sizes) - 1):
        a, b = sizes[layer], sizes[layer + 1]
        src, dst = u_off[layer], u_off[layer + 1]
        t0, ts = t_off[layer], t_strides[layer]
        gemm(flat, wt, flat, (a, n, b), (src, 1, width), (t0, ts), (dst, width, 1),
             1 if layer == 0 else 0, lanes)
        _sigmoid_rows(out, fp, n, dst, b, wt[t0 + a * ts:t0 + a * ts + b], with_fp)


@njit(cache=True)
def _hidden_deltas(params, geo, D, flat_d, acc, fp, pairs, lanes):
    """:func:`_hidden_deltas_plain`'s deltas of the ``a`` units of a layer (``geo = (w0, a, b,
    src, dst, i, npair, stride)``, the weights' rows ``stride`` apart) from the ``b`` units
    above. ``D`` holds each pair document's deltas in
    rows ``0..npair-1`` and document ``i``'s in row ``npair``; each unit's sum runs over the
    units above in order, every term added (as the plain kernel does), in tiles of rows x
    units (:func:`.tiles.gemm`); then times ``f'``."""
    w0, a, b, src, dst, i, npair, stride = geo
    if b == 1:  # below the output unit: each sum is +0 plus one term (LLVM keeps the +0:
        # without fast-math it may not drop it, as -0 + +0 is +0)
        w = params[w0:w0 + a]
        for k in range(npair + 1):
            c = D[k, dst]
            f = fp[pairs[k] if k < npair else i, src:src + a]
            row = D[k, src:src + a]
            for h in range(a):
                row[h] = (0.0 + c * w[h]) * f[h]
        return
    width = D.shape[1]
    gemm(flat_d, params, acc, (b, npair + 1, a), (dst, 1, width), (w0, stride), (0, a, 1), 0,
         lanes)
    for k in range(npair + 1):
        f = fp[pairs[k] if k < npair else i, src:src + a]
        row = D[k, src:src + a]
        sums = acc[k * a:(k + 1) * a]
        for h in range(a):
            row[h] = sums[h] * f[h]


@njit(cache=True)
def _update_weights(params, geo, out, D, flat_d, acc, pairs, lr, lanes):
    """:func:`_update_weights_plain`'s update of the weights into the ``b`` units above a
    layer (``geo = (w0, a, b, src, dst, i, npair, stride)``, their rows ``stride`` apart):
    ``w_st += lr (delta_i(t) x_s(i) - sum_k delta_k(t) x_s(j_k))``, each sum over the pairs
    ``k`` in order from +0, in tiles of units ``t`` x inputs ``s`` reading the pair documents'
    rows of ``out`` (a view of a 1-D array with :data:`.tiles.PAD` elements more) through
    ``pairs``, each weight updated in the tile; the bias sums (``x = 1``:
    ``sum_k delta_k(t)``) apart, first. Where the plain kernel skips zero inputs (``b > a + 1``;
    in the paper's grid, the first layer but for 10 units: its inputs are the features, 47% of
    MQ2008's feature values are 0) adding them instead gives the same sums when every delta is
    finite (:mod:`.tiles`), which the bias sums tell: a sum with an infinite or NaN term is
    infinite or NaN. Otherwise tiles of one input x 32 units skip each zero input as the plain
    kernel does, into ``acc[t (a + 1) + s]``, and the update follows.

    ``acc`` holds at least ``b (a + 2)`` elements: those sums, then the bias sums at
    ``acc[b (a + 1) + t]``; a shorter one raises ValueError (numba checks no index: the bias
    sums would be written past its end)."""
    w0, a, b, src, dst, i, npair, stride = geo
    width = D.shape[1]
    owidth = out.shape[1]
    m1 = a + 1
    if acc.size < b * (m1 + 1):
        raise ValueError("_update_weights: acc holds fewer than b (a + 2) elements")
    flat_o = out.reshape(out.size)
    bias = acc[b * m1:b * m1 + b]  # the bias sums first: one is finite when its deltas are
    for t in range(b):
        bias[t] = 0.0
    for k in range(npair):
        dk = D[k, dst:dst + b]
        for t in range(b):
            bias[t] += dk[t]
    if b <= m1 or all_finite(bias, 0, b):  # the sums and the update in the tiles
        gemm(flat_d, flat_o, params, (npair, b, a), (dst, width, 1), (src, owidth),
             (w0, stride, 1), 0, lanes, None, pairs, (lr, npair, i))
    else:
        gemm_rows(flat_o, flat_d, acc, (npair, a, b), (src, owidth, 1), (dst, width),
                  (0, 1, m1), lanes, pairs)
        xi = out[i, src:src + a]
        for t in range(b):
            dt = D[npair, dst + t]
            w = params[w0 + t * stride:w0 + t * stride + a]
            sums = acc[t * m1:t * m1 + a]
            for s in range(a):
                w[s] += lr * (dt * xi[s] - sums[s])
    for t in range(b):
        params[w0 + t * stride + a] += lr * (D[npair, dst + t] - bias[t])


@njit(cache=True, error_model="numpy")
def _train_query(params, net, X, y, lr, bufs, lanes):
    """:func:`_train_query_plain` with the tiled kernels on ``params`` laid out as ``kept =
    (offsets, row strides)`` says, the transposed weights ``wt`` as ``into`` says:
    ``net = (sizes, w_off, u_off, wt, kept, into)``,
    ``bufs = (out, fp, D, flat_d, acc, lam, pairs)``."""
    sizes, w_off, u_off, wt, kept, into = net
    out, fp, D, flat_d, acc, lam, pairs = bufs
    offsets, strides = kept
    n = X.shape[0]
    finite = _transpose(params, sizes, kept, wt, into)
    _forward(wt, finite, sizes, w_off, u_off, X, out, fp, True, lanes, into)
    top = len(sizes) - 1
    o = u_off[top]
    for i in range(n):
        npair = 0
        for j in range(n):
            if y[j] < y[i]:
                pairs[npair] = j
                npair += 1
        if npair == 0:
            continue  # every delta is 0: the weights stay
        # output unit
        oi = out[i, o]
        for k in range(npair):
            lam[k] = out[pairs[k], o]
        for k in range(npair):
            lam[k] = 1.0 / (1.0 + exp_lane(oi - lam[k]))
        di = 0.0
        for k in range(npair):
            di += lam[k]
            D[k, o] = lam[k] * fp[pairs[k], o]
        D[npair, o] = di * fp[i, o]
        for layer in range(top - 1, 0, -1):  # hidden units, top down
            geo = (offsets[layer], sizes[layer], sizes[layer + 1], u_off[layer],
                   u_off[layer + 1], i, npair, strides[layer])
            _hidden_deltas(params, geo, D, flat_d, acc, fp, pairs, lanes)
        for layer in range(top):
            geo = (offsets[layer], sizes[layer], sizes[layer + 1], u_off[layer],
                   u_off[layer + 1], i, npair, strides[layer])
            _update_weights(params, geo, out, D, flat_d, acc, pairs, lr, lanes)


@njit(cache=True, nogil=True)
def _train_epoch(params, sizes, w_off, u_off, X, y, query_offsets, queries, lr, out, fp, d_i,
                 d_j, acc, pairs, lanes):
    """One pass over ``queries`` (RankLib's epoch). ``out``, ``fp``, ``pairs``: work arrays as
    :func:`_train_epoch_plain` takes them (of ``out`` only its rows are read: the units' values,
    ``f'`` and the deltas live in arrays of rows laid out as :func:`_padded_units` says; ``fp``,
    ``d_i``, ``d_j``, ``acc`` are unused); ``lanes``: the tiles' vector width (:mod:`.tiles`;
    :data:`.tiles.LANES` for the compiling CPU's), an integer argument, never left to a default,
    so that both widths and every caller share one compiled and cached signature (numba types
    an omitted argument apart).
    The weights are updated in a copy laid out as :func:`_padded_layout` says, with
    :data:`.tiles.PAD` elements more, as :func:`.tiles.gemm` reads them."""
    offsets, strides, padded = _padded_layout(sizes, False)
    w = _aligned_zeros(padded + PAD)
    unpadded = _unpadded(sizes, w_off, False)
    _copy_rows(params, unpadded, w, (offsets, strides), sizes, False)
    t_off, t_strides, t_size = _padded_layout(sizes, True)
    wt = _aligned_zeros(t_size + PAD)
    longest = out.shape[0]
    widest = 1
    for s in sizes:
        widest = max(widest, s + 1)
    units = _padded_units(sizes)
    width = units[-1]
    flat_o = _aligned_zeros(longest * width + PAD)
    out_p = flat_o[:longest * width].reshape((longest, width))
    fp_p = np.zeros((longest, width))
    flat_d = _aligned_zeros((longest + 1) * width + PAD)
    D = flat_d[:(longest + 1) * width].reshape((longest + 1, width))
    # the sums: (npair + 1) a of _hidden_deltas, b (a + 2) of _update_weights (a, b < widest)
    flat = np.zeros(max((longest + 1) * widest, widest * (widest + 1)))
    lam = np.zeros(longest)
    net = (sizes, w_off, units, wt, (offsets, strides), (t_off, t_strides))
    bufs = (out_p, fp_p, D, flat_d, flat, lam, pairs)
    for q in queries:
        start, stop = query_offsets[q], query_offsets[q + 1]
        _train_query(w, net, X[start:stop], y[start:stop], lr, bufs, lanes)
    _copy_rows(w, (offsets, strides), params, unpadded, sizes, False)


@njit(cache=True, nogil=True)
def _predict(params, sizes, w_off, u_off, X, out, lanes):
    """Output-unit values of the rows of ``X`` in blocks of ``out.shape[0]`` rows; ``lanes``
    as :func:`_train_epoch` takes it."""
    n = X.shape[0]
    batch = out.shape[0]
    res = np.empty(n)
    top = u_off[len(sizes) - 1]
    t_off, t_strides, t_size = _padded_layout(sizes, True)
    wt = _aligned_zeros(t_size + PAD)
    into = (t_off, t_strides)
    finite = _transpose(params, sizes, _unpadded(sizes, w_off, False), wt, into)
    for start in range(0, n, batch):
        stop = min(n, start + batch)
        _forward(wt, finite, sizes, w_off, u_off, X[start:stop], out, out, False, lanes, into)
        for r in range(stop - start):
            res[start + r] = out[r, top]
    return res


def dead_inputs(X, offsets, queries) -> np.ndarray:
    """The features (column indices, increasing) that are zero in every document of
    ``queries`` (indices into the query ``offsets`` of ``X``'s rows): a training epoch adds
    nothing for them (:class:`LiveInputs`)."""
    rows = np.zeros(len(X), dtype=np.bool_)
    for q in queries:
        rows[offsets[q]:offsets[q + 1]] = True
    return np.flatnonzero(~np.any(X[rows] != 0, axis=0))


class LiveInputs:
    """Training epochs of a net without its dead inputs (:func:`dead_inputs`): the same weights.

    An input that is zero in every training document adds ``+-0`` to each forward sum (which
    starts at +0, so stays unchanged), and each of its weights ``w`` takes
    ``lr (delta_i(t) 0 - sum_k delta_k(t) 0) = +-0``: ``w`` is unchanged unless it is ``-0``
    (``-0 + +0`` is ``+0``) or a delta is infinite or NaN (``inf 0`` is NaN). So an epoch may
    run on the net without those inputs (:attr:`sizes`, the first block's rows narrowed to
    the live inputs and the bias, :meth:`narrow`), and leave their weights as they are
    (:meth:`widen`), when no such weight is ``-0`` and every first-layer delta stays finite.
    The deltas are not kept; the first layer's bias weights tell: each takes
    ``lr (delta_i(t) - sum_k delta_k(t))`` for every document with pairs, and a weight that
    has become infinite or NaN stays so. :meth:`epoch` runs the narrowed epoch, and when a bias
    weight ends it non-finite, the whole one from the weights before.

    On MQ2008 six of the 46 features (6-10 and 43) are zero in every document of every fold:
    the first layer's updates run over 5 strips of 8 inputs in place of 6 (the last one of 6
    inputs, as dear as a whole one), and its forward sums and transposes over 41 rows in place
    of 47 (the paper's grid, 4 epochs on Fold1, alternating in one process on the 2-core AMD
    EPYC: the epochs' CPU time 0.944-0.977 of the whole net's in five runs, single-layer nets
    0.81-0.92, the (200, 200) net unchanged within the machine's noise)."""

    def __init__(self, sizes, live: np.ndarray, X_live: np.ndarray):
        """``sizes``: the whole net's layer sizes; ``live``: the inputs kept (increasing);
        ``X_live``: the training features of those inputs (C-contiguous)."""
        a, self.units = int(sizes[0]), int(sizes[1])
        whole = np.asarray(sizes, dtype=np.int64)
        self.whole = (whole, *layout(whole.tolist())[:2])  # sizes, w_off, u_off
        self.sizes = np.asarray((len(live), *sizes[1:]), dtype=np.int64)
        self.w_off, self.u_off, _ = layout(self.sizes.tolist())
        self.dead = np.setdiff1d(np.arange(a), live)
        self.cols = np.append(live, a)  # each first-layer row: the live inputs, then the bias
        self.first = self.units * (a + 1)  # the first block's length in the whole net
        self.narrowed_first = self.units * len(self.cols)  # and in the narrowed one
        self.X = X_live

    def _rows(self, params: np.ndarray) -> np.ndarray:
        return params[:self.first].reshape(self.units, -1)

    def narrow(self, params: np.ndarray) -> np.ndarray:
        """The narrowed net's weights: the first block's live columns and bias, the rest."""
        return np.concatenate((self._rows(params)[:, self.cols].ravel(), params[self.first:]))

    def widen(self, narrowed: np.ndarray, params: np.ndarray) -> None:
        """``narrowed``'s weights into ``params``; the dead inputs' weights stay."""
        k = self.narrowed_first
        self._rows(params)[:, self.cols] = narrowed[:k].reshape(self.units, -1)
        params[self.first:] = narrowed[k:]

    def applies(self, params: np.ndarray) -> bool:
        """Whether an epoch from ``params`` may run narrowed: every weight finite (else the
        forward pass runs the plain kernel), no dead input's weight ``-0``."""
        d = self._rows(params)[:, self.dead]
        return bool(np.all(np.isfinite(params)) and not np.any(np.signbit(d) & (d == 0)))

    def epoch(self, params, X, y, query_offsets, queries, lr, bufs) -> None:
        """One :func:`_train_epoch` on ``params`` (the whole net's), ``X`` its training
        features; ``bufs = (out, fp, d_i, d_j, acc, pairs)`` as it takes them."""
        if self.applies(params):
            narrowed = self.narrow(params)
            _train_epoch(narrowed, self.sizes, self.w_off, self.u_off, self.X, y,
                         query_offsets, queries, lr, *bufs, LANES)
            bias = narrowed[len(self.cols) - 1:self.narrowed_first:len(self.cols)]
            if np.all(np.isfinite(bias)):
                self.widen(narrowed, params)
                return
        _train_epoch(params, *self.whole, X, y, query_offsets, queries, lr, *bufs, LANES)


def forward(params, sizes, X, batch: int = 256) -> np.ndarray:
    """Scores of the rows of ``X`` (already rounded to float32 values)."""
    sizes_a = np.asarray(sizes, dtype=np.int64)
    w_off, u_off, _ = layout(sizes_a.tolist())
    out = np.zeros((batch, u_off[-1]))
    # writable, C-ordered arrays whatever the caller holds: numba compiles a kernel anew for
    # a read-only or Fortran-ordered one
    return _predict(np.require(params, np.float64, ["C", "W"]), sizes_a, w_off, u_off,
                    np.require(X, np.float64, ["C", "W"]), out, LANES)


def ordered_mean(values: np.ndarray) -> float:
    """``sum(values) / len(values)`` summed in order, as RankLib's ``MetricScorer.score``."""
    total = 0.0
    for v in values.tolist():
        total += v
    return total / len(values)


class EpochPick:
    """One validation scorer's choice of epoch while a net trains: the first epoch with the best
    score above ``start`` (its weights copied; before any, ``params``, epoch 0), the history,
    and whether ``patience`` epochs without a better score have stopped it."""

    def __init__(self, scorer, start: float, params: np.ndarray | None = None):
        self.scorer = scorer
        self.history: list[float] = []
        self.best_params, self.best_epoch, self.best_score = params, 0, start
        self.running = True
        self.last_params = None

    def see(self, epoch: int, score: float, params: np.ndarray, patience: int | None) -> None:
        self.history.append(score)
        if score > self.best_score:
            self.best_params, self.best_epoch, self.best_score = params.copy(), epoch, score
        elif patience is not None and epoch - self.best_epoch >= patience:
            self.running = False
            if self.best_params is None:
                self.last_params = params.copy()  # the weights where this scorer stopped

    def result(self, params: np.ndarray):
        """(best weights, epoch, score, history); with no epoch above the start, the weights
        where it stopped (``params`` when it ran to the end)."""
        best = self.best_params
        if best is None:
            best = self.last_params if self.last_params is not None else params.copy()
        return best, self.best_epoch, float(self.best_score), self.history


class Stopped(Exception):
    """An architecture's training stopped because another one failed or the fit was
    interrupted (:class:`UnitTicks`)."""


class UnitTicks:
    """The progress of a fit over architectures (``units``), ``epochs`` each at most: where
    each is and the best validation score so far under each of ``n`` metrics. Architectures
    trained in threads (:func:`train_architectures`) tick it at once: a lock keeps its counts,
    and once :attr:`stop` is set every tick raises :class:`Stopped`, so a thread ends at its
    next epoch."""

    def __init__(self, progress, archs, units, epochs: int, n: int):
        self.progress, self.archs, self.units, self.epochs = progress, archs, tuple(units), epochs
        self.position = {u: p for p, u in enumerate(self.units)}
        self.done_epochs = dict.fromkeys(self.units, 0)
        self.best = {u: [-np.inf] * n for u in self.units}
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def of(self, index: int):
        """The tick of architecture ``index``: ``tick(epoch, picks)`` after each epoch."""
        def tick(epoch: int, picks) -> None:
            if self.stop.is_set():
                raise Stopped
            with self.lock:
                self.done_epochs[index] = epoch
                self.best[index] = [p.best_score for p in picks]
                self._step(index, epoch)
        return tick

    def _step(self, index: int, epoch: int) -> None:
        pos = self.position[index]
        best = [max(scores) for scores in zip(*self.best.values())]
        self.progress.step(
            sum(self.done_epochs.values()), len(self.units) * self.epochs,
            lambda: (f"architecture {pos + 1} of {len(self.units)} {self.archs[index]}, "
                     f"epoch {epoch} of {self.epochs}"), best)

    def done(self, index: int, scores) -> None:
        """Architecture ``index`` is over (maybe before ``epochs``), with these best scores."""
        with self.lock:
            self.done_epochs[index] = self.epochs
            self.best[index] = list(scores)


def threads_of(n_jobs) -> int:
    """The threads ``n_jobs`` asks for: None one, -1 every core this process may run on."""
    if n_jobs is None:
        return 1
    if n_jobs == -1:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else (os.cpu_count() or 1)
    return int(n_jobs)


_SCORING = threading.Lock()
"""Held while a validation scorer runs: on a large validation set (:func:`ltrconv.jit
.use_parallel`) it runs numba's parallel kernel, whose default thread pool (workqueue)
must not be entered by two threads at once."""


def train_architectures(train_one, units, sizes, n_jobs, tick: UnitTicks) -> list:
    """``train_one(index, tick)`` of each architecture of ``units``, in that order, on up to
    ``threads_of(n_jobs)`` threads: the one with the most weights first (``sizes[index]``, its
    layer sizes), each next one on the first thread free. Every architecture draws from its own
    generator and writes its own buffers, and the kernels run without the GIL, so the results
    are those of the loop in one thread, bit for bit. When one fails, or the wait is
    interrupted (Ctrl-C), the others stop at their next epoch before the error goes on."""
    def run(index):
        results = train_one(index, tick.of(index))
        tick.done(index, [r[2] for r in results])
        return results

    threads = min(threads_of(n_jobs), len(units))
    if threads <= 1:
        return [run(index) for index in units]
    order = sorted(units, key=lambda u: -layout(list(sizes[u]))[2])
    pool = ThreadPoolExecutor(threads, thread_name_prefix="ltrconv-architecture")
    futures = {index: pool.submit(run, index) for index in order}
    try:
        wait(futures.values(), return_when=FIRST_EXCEPTION)
        for index in units:  # the first failure in unit order, before waiting on the others
            if futures[index].done() and futures[index].exception() is not None:
                raise futures[index].exception()
        out = [futures[index].result() for index in units]
    except BaseException:
        tick.stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    return out


MAX_UNITS = 4096
"""Most units in one hidden layer (the paper's grid goes to 500): two such layers hold 16.8M
weights, 134 MB in float64."""


def _architectures_ok(value) -> bool:
    """A non-empty list or tuple of 1-3 hidden layer sizes, each a list or tuple of integers in
    1..MAX_UNITS."""
    def units_ok(arch) -> bool:
        return (isinstance(arch, (list, tuple)) and 1 <= len(arch) <= 3
                and all(Integer(1, MAX_UNITS).accepts(u) for u in arch))

    return isinstance(value, (list, tuple)) and len(value) > 0 and all(map(units_ok, value))


def fit_architectures(model, datas: list[TrainingData], units, n_features: int,
                      train_one) -> list[list[dict]]:
    """Train ``model``'s architectures ``units`` (indices into ``model.architectures``) once:
    ``train_one(sizes, index, val_scorers, tick)`` each, ``sizes`` its layer sizes, on up to
    ``model.n_jobs`` threads (:func:`train_architectures`), progress told to the first data's
    reporter. Returns, under each validation scorer of ``datas``, a search record per
    architecture: architecture, best epoch, validation score, history and weights."""
    archs = tuple(tuple(int(u) for u in arch) for arch in model.architectures)
    sizes = {i: (n_features, *archs[i], 1) for i in units}
    scorers = [d.val_scorer for d in datas]
    tick = UnitTicks(datas[0].progress, archs, units, int(model.max_epochs), len(datas))
    runs = train_architectures(lambda i, t: train_one(sizes[i], i, scorers, t), units, sizes,
                               model.n_jobs, tick)
    records = [[] for _ in datas]
    for index, results in zip(units, runs):
        for out, (params, epoch, score, history) in zip(records, results):
            out.append({"architecture": archs[index], "best_epoch": epoch,
                        "val_score": score, "history": history, "params": params})
    return records


def select_architecture(model, shared: dict, records: list[dict]) -> None:
    """Keep on ``model`` the architecture of ``records`` (one per fitted unit) with the best
    validation score, the first on ties: its search record, sizes, weights and history."""
    model.search_ = [{k: r[k] for k in ("architecture", "best_epoch", "val_score", "history")}
                     for r in records]
    best = 0
    for index, record in enumerate(records):
        if record["val_score"] > records[best]["val_score"]:
            best = index
    chosen = model.search_[best]
    model.architecture_ = chosen["architecture"]
    model.sizes_ = (shared["n_features"], *chosen["architecture"], 1)
    # a copy holding numpy's own float64 dtype object (an unpickled record holds another), so
    # the model pickles to the same bytes from records of any origin
    model.params_ = np.asarray(records[best]["params"]).astype(np.float64)
    model.best_epoch_ = chosen["best_epoch"]
    model.val_score_ = chosen["val_score"]
    model.history_ = chosen["history"]


ARCHITECTURES = (f"a non-empty sequence of 1-3 hidden layer sizes (integers in 1..{MAX_UNITS}), "
                 "e.g. ((10,), (50, 50))")
_ADAM = "RankLib 2.x's RankNet has no such option; the Adam-trained RankNet is ranknet_adam"


class RankNet(UnitRanker):
    """RankLib 2.x's RankNet; architecture and epoch chosen on validation.

    ``random_state`` is the seed of the ``java.util.Random`` each architecture's initial
    weights come from (RankLib's ``Synapse.random``). The architectures are independent units:
    ``fit(..., units=[a, ...])`` trains some of them and
    :meth:`~ltrconv.rankers.units.UnitRanker.gather` joins such partial fits into this fit's
    model (:mod:`ltrconv.rankers.units`). ``n_jobs`` architectures train at once, in threads
    (None: one; -1: one per core), the largest first; the model is the same whatever it is
    (:func:`train_architectures`).

    The metric does not steer training (``shared_training``): the updates follow the labels'
    pairs alone, and the validation NDCG only picks each architecture's epoch and then the
    architecture, so :meth:`fit_many` trains each architecture once for several metrics.
    """

    name = "ranknet"
    _parameter_constraints = {
        "metric": [Metric()],
        "architectures": [Check(_architectures_ok, ARCHITECTURES)],
        "learning_rate": [Number(0, 1, lo_open=True)],
        "max_epochs": [Integer(1)],
        "patience": [None, Integer(1)],
        "n_jobs": [None, Integer(-1, -1), Integer(1)],
        "random_state": [None, RandomState()],
    }
    _removed_params = {"activation": _ADAM + " (RankLib's units are sigmoids)"}
    _selects = "the architecture and epoch"
    unit = "architecture"

    def _selected(self) -> str:
        return (f"hidden layers {', '.join(map(str, self.architecture_))}"
                f", epoch {self.best_epoch_}")

    def __init__(self, *, metric: str = "ndcg@10:ranklib", architectures=PAPER_GRID,
                 learning_rate: float = LEARNING_RATE, max_epochs: int = 100,
                 patience: int | None = None, n_jobs: int | None = -1,
                 random_state: int | np.random.RandomState | None = 0):
        self.metric = metric
        self.architectures = architectures
        self.learning_rate = learning_rate
        self.max_epochs = max_epochs
        self.patience = patience
        self.n_jobs = n_jobs
        self.random_state = random_state

    def __setstate__(self, state: dict) -> None:
        if "mean_" in state:  # the model of ltrconv's earlier ranknet (Adam, standardised)
            raise InputError("this ranknet model was trained with Adam on standardised features "
                             "(ltrconv's ranknet before it followed RankLib 2.x), an algorithm "
                             "now named ranknet_adam; retrain it with ranknet or ranknet_adam")
        if hasattr(super(), "__setstate__"):
            super().__setstate__(state)
        else:
            self.__dict__.update(state)

    def n_units(self) -> int:
        """The architectures of a fit: ``len(architectures)``."""
        self._validate_params()
        return len(self.architectures)

    def _fit_units(self, datas: list[TrainingData],
                   units: tuple[int, ...]) -> tuple[dict, list[list[dict]]]:
        """Train architectures ``units`` (indices into ``architectures``) once; under each of
        ``datas``' validation scorers, each one's best weights, epoch, validation score and
        history. ``shared``: the feature count."""
        data = datas[0]
        X = as_float32_values(data.X)
        Xv = as_float32_values(data.X_val)
        y, off = data.y, data.offsets
        # queries with a single label have no pairs: RankLib's pass over them changes nothing
        with_pairs = np.array([y[a:b].min() < y[a:b].max() for a, b in zip(off[:-1], off[1:])])
        queries = np.flatnonzero(with_pairs).astype(np.int64)
        seed = self._seed()
        dead = dead_inputs(X, off, queries)
        live = np.setdiff1d(np.arange(X.shape[1]), dead)
        # with no dead input, or no live one, every epoch runs on the whole net
        X_live = np.ascontiguousarray(X[:, live]) if 0 < len(dead) < X.shape[1] else None
        records = fit_architectures(
            self, datas, units, X.shape[1],
            lambda sizes, i, scorers, t: self._train_one(
                sizes, seed, (X, X_live, live), y, off, queries, Xv, scorers, t))
        return {"n_features": X.shape[1]}, records

    def _select(self, units: tuple[int, ...], shared: dict, records: list[dict]) -> None:
        select_architecture(self, shared, records)

    def _train_one(self, sizes, seed, features, y, off, queries, Xv, val_scorers, tick):
        """Train one architecture for ``max_epochs``; under each validation scorer, (best
        weights, epoch, score, history). The weights do not depend on the scorer: one run
        serves all, each scorer keeping its own best epoch and its own ``patience``.
        ``features = (X, X_live, live)``: the training features, and the columns ``live`` of
        the inputs that are not zero throughout, on which the epochs train
        (:class:`LiveInputs`); X_live is None when no input is dead, or none is live.

        The best score starts at 0, as RankLib's: when no epoch scores above it (RankLib then
        stops with an error) the last epoch's weights are kept, with epoch 0."""
        X, X_live, live = features
        params = init_weights(sizes, seed)
        sizes_a = np.asarray(sizes, dtype=np.int64)
        w_off, u_off, _ = layout(list(sizes))
        narrowed = None if X_live is None else LiveInputs(sizes, live, X_live)
        longest = int(np.diff(off).max())
        widest = int(max(sizes)) + 1
        out = np.zeros((longest, u_off[-1]))
        fp = np.zeros_like(out)
        d_i = np.zeros(u_off[-1])
        d_j = np.zeros((longest, u_off[-1]))
        acc = np.zeros((max(longest, widest), max(sizes) + 1))
        pairs = np.zeros(longest, dtype=np.int64)
        pred_out = np.zeros((256, u_off[-1]))
        lr = float(self.learning_rate)
        patience = None if self.patience is None else int(self.patience)
        picks = [EpochPick(scorer, 0.0) for scorer in val_scorers]
        for epoch in range(1, int(self.max_epochs) + 1):
            if narrowed is None:
                _train_epoch(params, sizes_a, w_off, u_off, X, y, off, queries, lr, out, fp,
                             d_i, d_j, acc, pairs, LANES)
            else:
                narrowed.epoch(params, X, y, off, queries, lr, (out, fp, d_i, d_j, acc, pairs))
            scores = _predict(params, sizes_a, w_off, u_off, Xv, pred_out, LANES)
            for pick in picks:
                if pick.running:
                    with _SCORING:
                        per_query = pick.scorer.per_query(scores)
                    pick.see(epoch, ordered_mean(per_query[pick.scorer.counted]), params,
                             patience)
            tick(epoch, picks)
            if not any(pick.running for pick in picks):
                break
        return [pick.result(params) for pick in picks]
    def _predict(self, X) -> np.ndarray:
        """The output unit's value for the float32-rounded features."""
        return forward(self.params_, self.sizes_, as_float32_values(X))
