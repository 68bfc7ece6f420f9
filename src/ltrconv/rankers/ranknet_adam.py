"""RankNet trained with Adam (the variant ``ranknet_adam``): a feed-forward net on pairwise
cross-entropy (Burges et al. 2005), not RankLib's training (that is :mod:`.ranknet`).

For the pairs ``l_i > l_j`` of one query, ``P_ij = sigmoid(s_i - s_j)`` and the loss is
``C = sum_{l_i > l_j} log(1 + exp(-(s_i - s_j)))``. Its gradient factorises through the scores:
``dC/dw = sum_i lambda_i ds_i/dw`` with
``lambda_i = sum_{j: l_j < l_i} -sigmoid(s_j - s_i) + sum_{j: l_j > l_i} sigmoid(s_i - s_j)``,
so each document needs one forward and one backward pass per query update ("speed-up").
Updates are Adam steps, one per query, queries in a seeded random order each epoch.

Model selection as in the paper: every architecture of ``architectures`` (1-3 hidden layers)
is trained with early stopping on the validation NDCG@k under the training convention
(evaluated each epoch; best weights kept; stop after ``patience`` epochs without gain);
the architecture with the best validation score wins. Features are standardised with the
training mean and standard deviation, stored in the model. ``max_epochs=100`` is RankLib 2.x's
epoch count; the optimiser is Adam (learning rate 1e-3) where RankLib uses plain stochastic
gradient steps of 5e-5 on raw features (:mod:`.ranknet`).

The forward and backward passes (``_forward``, ``_backward``) compute their sums in RankNet's
register tiles (:func:`.tiles.gemm`), each sum's terms in the order of the plain loops they
replaced (``_forward_plain``, ``_backward_plain``, kept: the tiles equal them bit for bit,
tests/test_ranker_cores.py, and run where that needs it), so the models are those the plain
loops trained.
"""

from __future__ import annotations

import numpy as np

from ..jit import njit
from .base import TrainingData
from .params import Check, Integer, Metric, Number, Options, RandomState
from .ranknet import (_SCORING, ARCHITECTURES, PAPER_GRID, EpochPick, _architectures_ok,
                      fit_architectures, select_architecture)
from .fdlibm import _bits
from .tiles import LANES, PAD, all_finite, gemm, transpose
from .units import UnitRanker

ACTIVATIONS = {"sigmoid": 0, "tanh": 1}


# --- network layout: one flat parameter vector ---------------------------------------------
def layout(sizes) -> tuple[np.ndarray, np.ndarray, int]:
    """Offsets of each layer's weight block (fan_in x fan_out, row-major) and bias block."""
    w_off, b_off, pos = [], [], 0
    for a, b in zip(sizes[:-1], sizes[1:]):
        w_off.append(pos)
        pos += a * b
        b_off.append(pos)
        pos += b
    return np.array(w_off, dtype=np.int64), np.array(b_off, dtype=np.int64), pos


def init_params(sizes, rng: np.random.Generator) -> np.ndarray:
    """Glorot-uniform weights ``U(+-sqrt(6 / (fan_in + fan_out)))``, zero biases."""
    w_off, b_off, total = layout(sizes)
    params = np.zeros(total)
    for layer, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        lim = np.sqrt(6.0 / (a + b))
        params[w_off[layer]:w_off[layer] + a * b] = rng.uniform(-lim, lim, a * b)
    return params


@njit(cache=True, error_model="numpy", inline="always")
def _squash(z, act):
    """A hidden unit's output: the sigmoid (``act`` 0) or tanh of its sum ``z``."""
    return 1.0 / (1.0 + np.exp(-z)) if act == 0 else np.tanh(z)


@njit(cache=True, error_model="numpy", inline="always")
def _slope(h, act):
    """The derivative of :func:`_squash` at the output ``h``: ``h (1 - h)`` or ``1 - h^2``."""
    return h * (1.0 - h) if act == 0 else 1.0 - h * h


@njit(cache=True, error_model="numpy")
def _forward_plain(params, sizes, w_off, b_off, u_off, act, X, acts):
    """Forward pass of the rows of X; layer l's units go to ``acts[:, u_off[l]:u_off[l+1]]``.
    Each unit's sum starts from its bias and adds ``v W[k, c]`` for the inputs ``v != 0`` in
    order."""
    n = X.shape[0]
    L = len(sizes) - 1
    for r in range(n):
        for k in range(sizes[0]):
            acts[r, k] = X[r, k]
    for layer in range(L):
        a, b = sizes[layer], sizes[layer + 1]
        W = params[w_off[layer]:w_off[layer] + a * b].reshape((a, b))
        bias = params[b_off[layer]:b_off[layer] + b]
        src, dst = u_off[layer], u_off[layer + 1]
        hidden = layer < L - 1
        row = np.empty(b)
        for r in range(n):
            for c in range(b):
                row[c] = bias[c]
            for k in range(a):
                v = acts[r, src + k]
                if v != 0.0:
                    for c in range(b):
                        row[c] += v * W[k, c]
            for c in range(b):
                acts[r, dst + c] = row[c]
            if hidden:
                for c in range(b):
                    acts[r, dst + c] = _squash(acts[r, dst + c], act)
    return acts[:n, u_off[L]].copy()


@njit(cache=True, error_model="numpy")
def _backward_plain(params, sizes, w_off, b_off, u_off, act, acts, lam, grad):
    """Add ``sum_i lam_i ds_i/dparams`` to ``grad`` given the activations of a forward pass:
    each weight's gradient sums ``v delta`` over the documents in order, skipping ``v = 0``;
    each input's back-propagated sum runs over the units above in order, every term added."""
    n = lam.shape[0]
    L = len(sizes) - 1
    delta = np.empty((n, 1))
    for r in range(n):
        delta[r, 0] = lam[r]
    for layer in range(L - 1, -1, -1):
        a, b = sizes[layer], sizes[layer + 1]
        W = params[w_off[layer]:w_off[layer] + a * b].reshape((a, b))
        gW = grad[w_off[layer]:w_off[layer] + a * b].reshape((a, b))
        gb = grad[b_off[layer]:b_off[layer] + b]
        src = u_off[layer]
        for r in range(n):
            for c in range(b):
                gb[c] += delta[r, c]
            for k in range(a):
                v = acts[r, src + k]
                if v != 0.0:
                    for c in range(b):
                        gW[k, c] += v * delta[r, c]
        if layer > 0:
            # s_k = sum_c W[k, c] delta[r, c], summed over c in ascending order for every k; the
            # loop over k innermost (on W transposed) runs the a sums side by side, not one by one
            WT = W.T.copy()
            prev = np.zeros((n, a))
            for r in range(n):
                for c in range(b):
                    d = delta[r, c]
                    for k in range(a):
                        prev[r, k] += WT[c, k] * d
                for k in range(a):
                    h = acts[r, src + k]
                    prev[r, k] *= _slope(h, act)
            delta = prev


_NEG_ZERO = -0x8000000000000000  # the bits of -0.0 as a signed integer


@njit(cache=True)
def _tiles_exact(params, w0, a, b):
    """Whether :func:`_forward`'s tiles give the plain sums for a layer whose weights are
    ``params[w0:w0 + a b]`` and biases the next ``b``: the weights finite (a zero input then adds
    ``+-0``) and no bias ``-0`` (a sum from ``+0`` plus ``-0`` is ``+0``; from +0 and a bias
    that is not -0, no sum is ever -0, so adding +-0 leaves it as it is)."""
    if not all_finite(params, w0, w0 + (a + 1) * b):
        return False
    for c in range(w0 + a * b, w0 + (a + 1) * b):
        if _bits(params[c]) == _NEG_ZERO:
            return False
    return True


@njit(cache=True, error_model="numpy")
def _forward(params, sizes, w_off, b_off, u_off, act, X, acts, lanes):
    """:func:`_forward_plain`'s values with :func:`.tiles.gemm` tiles of documents x units:
    each unit's sum is ``+0 + 1 bias`` (the bias itself) and then its inputs' terms in order,
    a unit below that is zero in every document of a tile left out, a zero in some adding
    ``+-0`` (exact: :func:`_tiles_exact`, or the plain kernel runs). ``params`` holds
    :data:`.tiles.PAD` elements past its weights; ``acts`` has one more column than the units,
    all 1 (:func:`work_rows`), the input that multiplies the bias."""
    n = X.shape[0]
    L = len(sizes) - 1
    for layer in range(L):
        if not _tiles_exact(params, w_off[layer], sizes[layer], sizes[layer + 1]):
            return _forward_plain(params, sizes, w_off, b_off, u_off, act, X, acts)
    width = acts.shape[1]
    flat = acts.reshape(acts.size)
    for r in range(n):
        for k in range(sizes[0]):
            acts[r, k] = X[r, k]
    for layer in range(L):
        a, b = sizes[layer], sizes[layer + 1]
        src, dst = u_off[layer], u_off[layer + 1]
        # the bias first: row a of the layer's block times the column of ones
        a_rows = np.empty(a + 1, dtype=np.int64)
        b_rows = np.empty(a + 1, dtype=np.int64)
        a_rows[0], b_rows[0] = width - 1 - src, a
        for k in range(a):
            a_rows[k + 1], b_rows[k + 1] = k, k
        gemm(flat, params, flat, (a + 1, n, b), (src, 1, width), (w_off[layer], b),
             (dst, width, 1), 1, lanes, a_rows, b_rows)
        if layer < L - 1:
            for r in range(n):
                for c in range(b):
                    acts[r, dst + c] = _squash(acts[r, dst + c], act)
    return acts[:n, u_off[L]].copy()


@njit(cache=True, error_model="numpy")
def _backward(params, sizes, w_off, b_off, u_off, act, acts, lam, grad, lanes):
    """:func:`_backward_plain`'s sums in :func:`.tiles.gemm` tiles: the weights' gradients as
    inputs x units summed over the documents (a document whose inputs of a tile are all zero
    left out, a zero in some adding ``+-0``, exact when the deltas are finite, which is checked:
    else the plain loop), the back-propagated sums as documents x inputs over the units above.
    ``grad`` is zero on entry (every sum from +0); ``params`` as :func:`_forward` takes it."""
    n = lam.shape[0]
    L = len(sizes) - 1
    width = acts.shape[1]
    flat = acts.reshape(acts.size)
    delta = np.zeros(n + PAD)
    for r in range(n):
        delta[r] = lam[r]
    for layer in range(L - 1, -1, -1):
        a, b = sizes[layer], sizes[layer + 1]
        w0, b0 = w_off[layer], b_off[layer]
        src = u_off[layer]
        gb = grad[b0:b0 + b]
        for r in range(n):
            for c in range(b):
                gb[c] += delta[r * b + c]
        if all_finite(delta, 0, n * b):
            gemm(flat, delta, grad, (n, a, b), (src, width, 1), (0, b), (w0, b, 1), 1, lanes)
        else:
            gW = grad[w0:w0 + a * b].reshape((a, b))
            for r in range(n):
                for k in range(a):
                    v = acts[r, src + k]
                    if v != 0.0:
                        for c in range(b):
                            gW[k, c] += v * delta[r * b + c]
        if layer > 0:
            # s_k = sum_c W[k, c] delta[r, c], over c in order
            WT = np.zeros(b * a + PAD)
            transpose(params, WT, (a, b), w0, 0, (b, a))
            prev = np.zeros(n * a + PAD)
            gemm(delta, WT, prev, (b, n, a), (0, 1, b), (0, a), (0, a, 1), 0, lanes)
            for r in range(n):
                for k in range(a):
                    h = acts[r, src + k]
                    prev[r * a + k] *= _slope(h, act)
            delta = prev


@njit(cache=True, error_model="numpy")
def pair_lambdas(scores, labels):
    """Pairwise cross-entropy loss of one query and ``lambda_i = dC/ds_i``."""
    n = len(scores)
    lam = np.zeros(n)
    loss = 0.0
    for i in range(n):
        for j in range(n):
            if labels[i] > labels[j]:
                d = scores[i] - scores[j]
                # log(1 + exp(-d)) and sigmoid(-d), computed stably
                if d > 0:
                    e = np.exp(-d)
                    loss += np.log1p(e)
                    g = e / (1.0 + e)
                else:
                    e = np.exp(d)
                    loss += -d + np.log1p(e)
                    g = 1.0 / (1.0 + e)
                lam[i] -= g
                lam[j] += g
    return loss, lam


def _layout_arrays(sizes):
    """(sizes, weight offsets, bias offsets, unit offsets, parameter count) as kernel inputs."""
    sizes_a = np.asarray(sizes, dtype=np.int64)
    w_off, b_off, total = layout(sizes_a.tolist())
    u_off = np.concatenate(([0], np.cumsum(sizes_a))).astype(np.int64)
    return sizes_a, w_off, b_off, u_off, total


def work_rows(rows: int, u_off) -> np.ndarray:
    """The kernels' activations of ``rows`` documents: a column per unit and a last column of
    ones (:func:`_forward`)."""
    acts = np.zeros((rows, int(u_off[-1]) + 1))
    acts[:, -1] = 1.0
    return acts


@njit(cache=True)
def _padded(params):
    """A copy of ``params`` with :data:`.tiles.PAD` zeros more, as :func:`.tiles.gemm` reads."""
    out = np.zeros(params.size + PAD)
    out[:params.size] = params
    return out


@njit(cache=True, error_model="numpy")
def _query_loss_grad(params, sizes, w_off, b_off, u_off, act, Xq, yq, acts, grad, lanes):
    """The loss of one query and its gradient into ``grad``; ``params`` padded
    (:func:`_padded`), ``acts`` from :func:`work_rows`, ``lanes`` the tiles' vector width
    (:data:`.tiles.LANES`), an argument as in :func:`.ranknet._train_epoch`."""
    scores = _forward(params, sizes, w_off, b_off, u_off, act, Xq, acts, lanes)
    loss, lam = pair_lambdas(scores, yq)
    grad[:] = 0.0
    _backward(params, sizes, w_off, b_off, u_off, act, acts, lam, grad, lanes)
    return loss


def query_loss_grad(params, sizes, activation: str, Xq, yq, lanes: int = LANES
                    ) -> tuple[float, np.ndarray]:
    """Loss C of one query and its gradient with respect to the flat parameter vector."""
    sizes_a, w_off, b_off, u_off, total = _layout_arrays(sizes)
    grad = np.zeros(total)
    loss = _query_loss_grad(_padded(np.asarray(params, dtype=np.float64)), sizes_a, w_off, b_off,
                            u_off, ACTIVATIONS[activation],
                            np.ascontiguousarray(Xq, dtype=np.float64),
                            np.asarray(yq, dtype=np.int64), work_rows(len(yq), u_off), grad,
                            int(lanes))
    return float(loss), grad


@njit(cache=True, nogil=True, error_model="numpy")
def _train_epoch(params, m, v, step, sizes, w_off, b_off, u_off, act, X, y, offsets, order,
                 lr, beta1, beta2, eps, acts, lanes):
    """One pass over the queries in ``order``: one Adam step per query (on a padded copy of
    ``params``, copied back at the end)."""
    size = len(params)
    w = _padded(params)
    grad = np.zeros(size)
    total = 0.0
    for q in order:
        a, b = offsets[q], offsets[q + 1]
        total += _query_loss_grad(w, sizes, w_off, b_off, u_off, act, X[a:b], y[a:b],
                                  acts, grad, lanes)
        step += 1
        c1 = 1.0 - beta1 ** step
        c2 = 1.0 - beta2 ** step
        for p in range(size):
            g = grad[p]
            m[p] = beta1 * m[p] + (1.0 - beta1) * g
            v[p] = beta2 * v[p] + (1.0 - beta2) * g * g
            w[p] -= lr * (m[p] / c1) / (np.sqrt(v[p] / c2) + eps)
    params[:] = w[:size]
    return step, total


@njit(cache=True, nogil=True, error_model="numpy")
def _predict(params, sizes, w_off, b_off, u_off, act, X, acts, lanes):
    n = X.shape[0]
    batch = acts.shape[0]
    w = _padded(params)
    out = np.empty(n)
    for start in range(0, n, batch):
        stop = min(n, start + batch)
        out[start:stop] = _forward(w, sizes, w_off, b_off, u_off, act, X[start:stop], acts,
                                   lanes)
    return out


def forward(params, sizes, activation: str, X, batch: int = 256) -> np.ndarray:
    """Scores of the rows of (standardised) ``X``."""
    sizes_a, w_off, b_off, u_off, _ = _layout_arrays(sizes)
    return _predict(np.asarray(params, dtype=np.float64), sizes_a, w_off, b_off, u_off,
                    ACTIVATIONS[activation], np.ascontiguousarray(X, dtype=np.float64),
                    work_rows(batch, u_off), LANES)


class RankNetAdam(UnitRanker):
    """Pairwise cross-entropy neural ranker trained with Adam; architecture and epochs chosen
    on validation.

    ``random_state`` seeds the initial weights and the query order of every architecture. The
    architectures are independent units: ``fit(..., units=[a, ...])`` trains some of them and
    :meth:`~ltrconv.rankers.units.UnitRanker.gather` joins such partial fits into this fit's
    model (:mod:`ltrconv.rankers.units`). ``n_jobs`` architectures train at once, in threads
    (None: one; -1: one per core), the model the same whatever it is
    (:func:`.ranknet.train_architectures`).

    The metric does not steer training (``shared_training``): the loss is the pairwise cross
    entropy, and the validation NDCG only stops each architecture and picks its epoch and the
    architecture, so :meth:`fit_many` trains each architecture once, until every metric has
    stopped it.
    """

    name = "ranknet_adam"
    _parameter_constraints = {
        "metric": [Metric()],
        "architectures": [Check(_architectures_ok, ARCHITECTURES)],
        "activation": [Options(*ACTIVATIONS)],
        "learning_rate": [Number(0, 1, lo_open=True)],
        "max_epochs": [Integer(1)],
        "patience": [Integer(1)],
        "n_jobs": [None, Integer(-1, -1), Integer(1)],
        "random_state": [None, RandomState()],
    }
    _selects = "the architecture and epoch"
    unit = "architecture"

    def _selected(self) -> str:
        return (f"hidden layers {', '.join(map(str, self.architecture_))}" if self.architecture_
                else "no hidden layer") + f", epoch {self.best_epoch_}"

    def __init__(self, *, metric: str = "ndcg@10:ranklib", architectures=PAPER_GRID,
                 activation: str = "sigmoid", learning_rate: float = 1e-3, max_epochs: int = 100,
                 patience: int = 10, n_jobs: int | None = -1,
                 random_state: int | np.random.RandomState | None = 0):
        self.metric = metric
        self.architectures = architectures
        self.activation = activation
        self.learning_rate = learning_rate
        self.max_epochs = max_epochs
        self.patience = patience
        self.n_jobs = n_jobs
        self.random_state = random_state

    def n_units(self) -> int:
        """The architectures of a fit: ``len(architectures)``."""
        self._validate_params()
        return len(self.architectures)

    def _fit_units(self, datas: list[TrainingData],
                   units: tuple[int, ...]) -> tuple[dict, list[list[dict]]]:
        """Train architectures ``units`` (indices into ``architectures``) once, each until every
        validation scorer of ``datas`` has stopped early; under each scorer, each one's best
        weights, epoch, validation score and history. ``shared``: the feature scaling, the same
        for every architecture."""
        data = datas[0]
        X, y, off = data.X, data.y, data.offsets
        mean = X.mean(axis=0)
        std = X.std(axis=0)
        std[std == 0] = 1.0
        Z = np.ascontiguousarray((X - mean) / std)
        Zv = np.ascontiguousarray((data.X_val - mean) / std)
        # queries with a single label have no pairs and no gradient
        with_pairs = np.array([y[a:b].min() < y[a:b].max() for a, b in zip(off[:-1], off[1:])])
        train_q = np.flatnonzero(with_pairs).astype(np.int64)
        act = ACTIVATIONS[self.activation]
        seed = self._seed()
        records = fit_architectures(
            self, datas, units, X.shape[1],
            lambda sizes, i, scorers, t: self._train_one(sizes, seed, i, Z, y, off, train_q, Zv,
                                                         scorers, act, t))
        return {"n_features": X.shape[1], "mean": mean, "std": std}, records

    def _select(self, units: tuple[int, ...], shared: dict, records: list[dict]) -> None:
        select_architecture(self, shared, records)
        self.mean_ = np.asarray(shared["mean"]).astype(np.float64)
        self.std_ = np.asarray(shared["std"]).astype(np.float64)

    def _train_one(self, sizes, seed, index, Z, y, off, train_q, Zv, val_scorers, act, tick):
        """Train one architecture with early stopping; under each validation scorer, (best
        params, epoch, score, history). The weights and the query order do not depend on the
        scorer: one run serves all, until every scorer has stopped."""
        rng = np.random.default_rng([seed, index])
        params = init_params(sizes, rng)
        sizes_a, w_off, b_off, u_off, total = _layout_arrays(sizes)
        m = np.zeros(total)
        v = np.zeros(total)
        acts = work_rows(int(np.diff(off).max()), u_off)
        pred_acts = work_rows(256, u_off)
        step = 0
        start = params.copy()
        picks = [EpochPick(scorer, -np.inf, start) for scorer in val_scorers]
        for epoch in range(1, int(self.max_epochs) + 1):
            order = rng.permutation(train_q)
            step, _ = _train_epoch(params, m, v, step, sizes_a, w_off, b_off, u_off, act, Z, y,
                                   off, order, float(self.learning_rate), 0.9, 0.999, 1e-8, acts,
                                   LANES)
            scores = _predict(params, sizes_a, w_off, b_off, u_off, act, Zv, pred_acts, LANES)
            for pick in picks:
                if pick.running:
                    with _SCORING:
                        score = pick.scorer.mean(scores)
                    pick.see(epoch, score, params, int(self.patience))
            tick(epoch, picks)
            if not any(pick.running for pick in picks):
                break
        return [pick.result(params) for pick in picks]

    def _predict(self, X) -> np.ndarray:
        """Network output on the standardised features."""
        return forward(self.params_, self.sizes_, self.activation, (X - self.mean_) / self.std_)
