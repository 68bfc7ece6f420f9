"""The core of each ranker on cases small enough to work out by hand.

Each test fails when the step that makes the algorithm what it is goes wrong: AdaRank's query
weights, RankBoost's pair distribution, Coordinate Ascent's line search, LambdaMART's
λ-gradients, RankNet's pairwise gradient, RankSVM's pairs. Expected values are derived in the
comments from the papers' formulas, not from the code.
"""

import itertools
import math

import numpy as np
import pytest

from ltrconv import NDCGScorer, rankers
from ltrconv.rankers.adarank import _weighted_sums
from ltrconv.rankers.coordinate_ascent import _Queries, _restart, direction_steps
from ltrconv.rankers.lambdamart_lightgbm import lambda_gradients
from ltrconv.rankers.linear_objective import LinearObjective
from ltrconv.rankers import ranknet_adam as ra
from ltrconv.rankers.ranknet_adam import init_params, pair_lambdas, query_loss_grad
from ltrconv.rankers.ranksvm import pairwise_differences


def fit(name, X, y, qid, X_val=None, y_val=None, qid_val=None, **params):
    model = rankers.make(name, **params)
    if X_val is None:
        X_val, y_val, qid_val = X, y, qid
    return model.fit(np.asarray(X, float), np.asarray(y), np.asarray(qid),
                     X_val=np.asarray(X_val, float), y_val=np.asarray(y_val),
                     qid_val=np.asarray(qid_val))


# ---- AdaRank: the query weights decide the second round ---------------------------------
def test_adarank_weighted_sums_weigh_each_query():
    m = np.array([[0.9, 0.0, 0.1],    # feature 0: good on query 0 only
                  [0.2, 0.5, 0.6]])   # feature 1: fair everywhere
    P = np.array([0.8, 0.1, 0.1])
    got = _weighted_sums(m, P, np.array([True, True]))
    np.testing.assert_allclose(got, [0.72 + 0.01, 0.16 + 0.05 + 0.06], rtol=1e-15)
    assert np.argmax(got) == 0 and np.argmax(m.sum(axis=1)) == 1  # the weights change the pick
    masked = _weighted_sums(m, P, np.array([False, True]))
    assert masked[0] == -np.inf and masked[1] == got[1]


# Three queries of two documents (label 1 first). Feature 0 ranks queries 0 and 1 right and
# query 2 wrong; feature 1 the reverse. NDCG@1 of a weak ranker is 1 or 0 per query.
ADA_X = [[1, 0], [0, 1], [1, 0], [0, 1], [0, 1], [1, 0]]
ADA_Y = [1, 0, 1, 0, 1, 0]
ADA_Q = [1, 1, 2, 2, 3, 3]
# One validation query that only the two-feature ensemble ranks right.
ADA_VAL = ([[0.5, 1], [1, 0]], [1, 0], [9, 9])


@pytest.mark.parametrize("weighting,second_ratio", [
    # Round 1: uniform weights, sums 2/3 (feature 0) and 1/3: feature 0,
    # alpha_1 = 0.5 ln(sum_q (1 + m_q) / sum_q (1 - m_q)) = 0.5 ln((2 + 2 + 1) / (0 + 0 + 1)).
    # Round 2, cumulative: P ~ exp(-alpha_1 m(f_1)) = (5^-1/2, 5^-1/2, 1); sums 2/sqrt5 < 1, so
    # feature 1 (unweighted, feature 0 would win 2 to 1), alpha_2 = 0.5 ln((2/sqrt5 + 2) /
    # (2/sqrt5)) = 0.5 ln(1 + sqrt5). Ensemble weighting: P ~ (e^-1, e^-1, 1), alpha_2 =
    # 0.5 ln(1 + e).
    ("cumulative", 1 + math.sqrt(5)),
    ("ensemble", 1 + math.e),
], ids=["cumulative", "ensemble"])
def test_adarank_query_weights_pick_the_second_feature(weighting, second_ratio):
    model = fit("adarank", ADA_X, ADA_Y, ADA_Q, *ADA_VAL, metric="ndcg@1:ranklib", n_rounds=3,
                weighting=weighting)
    assert model.log_[0][:3] == (1, 0, pytest.approx(2 / 3))
    assert model.log_[1][:2] == (2, 1) and model.log_[1][4] == "OK"
    # validation NDCG: 0 after round 1 (0.5 alpha_1 < alpha_1), 1 after round 2
    assert [f for f, _ in model.rounds_] == [0, 1]
    np.testing.assert_allclose([a for _, a in model.rounds_],
                               [0.5 * math.log(5), 0.5 * math.log(second_ratio)], rtol=1e-6)


# ---- RankBoost: the pair distribution moves to the pairs still misordered ----------------
# One query, labels 1, 0, 1, 0: crucial pairs (0,1), (0,3), (2,1), (2,3), D = 1/4 each.
# Feature 0 fires on document 0, feature 1 on documents 2 and 3, feature 2 on document 2.
RB_X = [[1, 0, 0], [0, 0, 0], [0, 1, 1], [0, 1, 0]]
RB_Y = [1, 0, 1, 0]


def test_rankboost_distribution_update():
    """Round 1: edges r = 1/2 (feature 0), 0 (feature 1), 1/2 (feature 2): feature 0 (first of
    equals), alpha_1 = 0.5 ln 3. D(i,j) <- D(i,j) exp(alpha (h_j - h_i)): the two pairs of
    document 0 take 1/(4 sqrt3), the others keep 1/4; Z_1 = (1 + 1/sqrt3) / 2. Round 2 on the
    normalised D: r = 1/(2 sqrt3 Z_1) for feature 0, (1 - 1/sqrt3) / (4 Z_1) for feature 1,
    1/(2 Z_1) for feature 2: feature 2, R = Z_1 r = 1/2, alpha_2 = 0.5 ln((Z_1 + R) / (Z_1 - R)).
    Without the update feature 0 would win again."""
    model = fit("rankboost", RB_X, RB_Y, [1] * 4, metric="ndcg@10:ranklib", n_rounds=2)
    z1 = (1 + 1 / math.sqrt(3)) / 2
    assert [row[0] for row in model.log_] == [0, 2]
    np.testing.assert_allclose([row[2] for row in model.log_], [0.5, 0.5], rtol=1e-12)
    np.testing.assert_allclose(model.alphas_, [0.5 * math.log(3),
                                               0.5 * math.log((z1 + 0.5) / (z1 - 0.5))],
                               rtol=1e-12)
    assert model.features_.tolist() == [0, 2]
    # the ensemble ranks both relevant documents first
    s = model.predict(np.asarray(RB_X, float))
    assert min(s[0], s[2]) > max(s[1], s[3])


# ---- Coordinate Ascent: the line search stops at the first doubling step past the optimum -
def test_direction_steps_double():
    """T_i = step (2^(i+1) - 1), step = +-0.001, or step_base |w| (unsigned) when 0.001 > |w|/2;
    the increments are the steps; direction 0 is one trial at -w with increment 0."""
    incs, totals, end = direction_steps(0.5, 1, 0.05, 5)
    np.testing.assert_allclose(totals, [0.001, 0.003, 0.007, 0.015, 0.031], rtol=1e-15)
    np.testing.assert_allclose(incs, [0.001, 0.002, 0.004, 0.008, 0.016], rtol=1e-15)
    assert end == totals[-1]
    np.testing.assert_allclose(direction_steps(0.5, -1, 0.05, 3)[1], [-0.001, -0.003, -0.007],
                               rtol=1e-15)
    np.testing.assert_allclose(direction_steps(0.0015, -1, 0.05, 3)[1],
                               [7.5e-5, 2.25e-4, 5.25e-4], rtol=1e-12)
    assert direction_steps(0.25, 0, 0.05, 25) == ([0.0], [-0.25], -0.25)


# One query, document a (label 1) at x = (0, 1), b (label 0) at (1, 0.5): a ranks first iff
# w_1 > 2 w_0. From w = (1/2, 1/2), NDCG@1 is 0. Moving w_1 up: the first step past 1/2 is
# 0.511 (i = 8), w = (0.5, 1.011) / 1.511. Moving w_0 down: the first step past 1/4 is 0.255
# (i = 7), w = (0.245, 0.5) / 0.745. Either reaches NDCG@1 = 1, after which nothing improves.
CA_X = np.array([[0.0, 1.0], [1.0, 0.5]])
CA_Y = np.array([1, 0])
CA_OPTIMA = {(1, 0): np.array([0.5, 1.011]) / 1.511, (0, 1): np.array([0.245, 0.5]) / 0.745}


class _Order:
    """Stands for java.util.Random: its draws make the shuffle of two features give ``order``."""

    def __init__(self, order):
        self.draw = 0 if tuple(order) == (1, 0) else 1

    def next_int(self, bound):
        return self.draw


@pytest.mark.parametrize("order", list(CA_OPTIMA))
def test_coordinate_ascent_line_search_finds_the_first_step_past_the_optimum(order):
    tq = _Queries(NDCGScorer(CA_Y, np.array([0, 2]), "ranklib", 1), 2)
    Xt = np.ascontiguousarray(CA_X.T)
    nz = np.ones((2, 1), dtype=np.bool_)
    # at most 3 sweeps: a search that accepted non-improving steps would never stop on its own
    w, score, sweeps, log = _restart(CA_X, Xt, nz, tq, np.full(2, 0.5), _Order(order), 12,
                                     0.001, 0.05, None, 3)
    np.testing.assert_allclose(w, CA_OPTIMA[order], rtol=1e-12)
    assert score == 1.0 and sweeps == 1 and len(log) == 1


# Tie keys of the reference ranking below: the tie policy's key, then the document index.
_TIE_KEYS = {
    "ranklib": lambda s, y, docid: (-s,),
    "ranklib-tieavg": lambda s, y, docid: (-s,),
    "ranklib-tiepess": lambda s, y, docid: (-s, y),
    "trec": lambda s, y, docid: (-s.astype(np.float32), -np.unique(docid, return_inverse=True)[1]),
}


@pytest.mark.parametrize("conv", list(_TIE_KEYS))
def test_coordinate_ascent_line_equals_ranking_every_step_from_scratch(conv):
    """The line search steps each query's scores in rank order, leaves out tied pairs that every
    step keeps tied and re-sorts in place; here every step's scores are ranked from scratch:
    each step's summed NDCG (the scorer's, to 1e-12: RankLib's discount is computed another
    way), the cached scores after the line (bit for bit) and the ranking left where the line
    keeps one (a query with a relevant document: the tie policy's order, then the index). The
    data are made of ties: scores in quarters, feature values 0,
    1/2 and 1 (pairs of equal score and value stay tied), steps back and forth that make and
    break ties and move documents past tied pairs, a query the feature does not move, one without a relevant document."""
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 30, 40)
    qid = np.repeat(np.arange(40), sizes)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = len(qid)
    y = rng.integers(0, 3, n)
    y[qid == 7] = 0
    base = np.round(rng.random(n) * 4) / 4
    x = rng.choice([0.0, 0.5, 1.0], n)
    x[qid == 5] = 0.0
    docid = np.array([f"d{rng.integers(10**6):06d}" for _ in range(n)])
    sc = NDCGScorer(y, offsets, conv, 10, docid=docid)
    tq = _Queries(sc, n)
    moves = np.maximum.reduceat(x != 0, offsets[:-1])
    # back and forth (rankings move and come back, ties form and break), then RankLib's doubling
    incs = np.array([0.25, -0.5, 0.75, -0.25, 0.5, -1.0, 0.25, 0.5, -0.25, 0.125, -0.375, 0.0]
                    + [-0.001 * 2.0 ** j for j in range(30)])
    c = base.copy()
    tq.refresh(c)
    got = tq.line(c, x, moves, incs)
    ref = base.copy()
    want = []
    for inc in incs:
        ref = ref + inc * x
        want.append(sc.per_query(ref)[tq.counted].sum())
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert c.tobytes() == ref.tobytes()
    for q in range(len(sizes)):
        a, b = offsets[q], offsets[q + 1]
        if y[a:b].max() == 0:
            continue
        keys = _TIE_KEYS[conv](ref[a:b], y[a:b], docid[a:b])
        want_order = np.lexsort((np.arange(b - a),) + tuple(reversed(keys)))
        np.testing.assert_array_equal(tq.state.order[a:b], want_order, err_msg=f"query {q}")


def test_coordinate_ascent_line_ranks_a_tied_pair_turned_nan_by_index():
    """Two documents of equal score and feature value stay tied along a line, and the search
    leaves such a pair out of its check, unless the scores become NaN (inf - inf): then no tie
    policy applies (``precedes`` compares NaN as unordered) and the index decides. Under the
    pessimistic policy the relevant document 0 goes below document 1 while tied (NDCG@10
    1 / log2(3)), first once both scores are NaN (1)."""
    y = np.array([1, 0])
    tq = _Queries(NDCGScorer(y, np.array([0, 2]), "ranklib-tiepess", 10), 2)
    c = np.zeros(2)
    tq.refresh(c)
    with np.errstate(invalid="ignore"):
        got = tq.line(c, np.full(2, np.inf), np.ones(1, dtype=np.bool_), np.array([1.0, -1.0]))
    np.testing.assert_allclose(got, [1.0 / math.log2(3.0), 1.0], rtol=1e-15)
    assert tq.state.order.tolist() == [0, 1] and np.isnan(c).all()


def test_coordinate_ascent_keeps_ranklibs_cache_after_long_searches():
    """With 100 doubling steps the + search on feature 0 reaches 1.3e27; undoing it in the cached
    scores (RankLib adds -T x back) leaves b's score at 0 (0.75 is lost to rounding), so the very
    first - step already ranks a first: RankLib 2.x keeps w_0 = 0.499, as this does."""
    tq = _Queries(NDCGScorer(CA_Y, np.array([0, 2]), "ranklib", 1), 2)
    Xt = np.ascontiguousarray(CA_X.T)
    w, score, _, log = _restart(CA_X, Xt, np.ones((2, 1), dtype=np.bool_), tq, np.full(2, 0.5),
                                _Order((0, 1)), 100, 0.001, 0.05, None, 3)
    np.testing.assert_allclose(w, np.array([0.499, 0.5]) / 0.999, rtol=1e-12)
    assert score == 1.0 and log[0][0] == 1


def test_coordinate_ascent_fit_lands_on_a_known_optimum():
    model = fit("coordinate_ascent", CA_X, CA_Y, [1, 1], metric="ndcg@1:ranklib", n_restarts=1,
                n_steps=12, n_jobs=1, max_sweeps=3, random_state=0)
    assert any(np.allclose(model.coef_, w, rtol=1e-12) for w in CA_OPTIMA.values()), model.coef_


# ---- LambdaMART: λ-gradients against swapping documents and recomputing NDCG -------------
def ndcg_of(ranked_gains, k, conv):
    """NDCG@k of gains in rank order under a tool's rules (see tests/test_metric_truths.py)."""
    def disc(r):
        return (1.0 if r <= 2 else 1 / math.log2(r)) if conv == "letor" else 1 / math.log2(r + 1)

    def dcg(g):
        return sum(x * disc(r) for r, x in enumerate(g[:k], start=1))

    ideal = dcg(sorted(ranked_gains, reverse=True))
    if ideal == 0:
        return 1.0 if conv == "yahoo" else 0.0
    if conv == "letor" and len(ranked_gains) < k:
        return 0.0
    return dcg(ranked_gains) / ideal


def brute_lambdas(y, s, offsets, k, conv, sigma):
    """For each pair l_i > l_j: |ΔNDCG| by swapping the two in the ranking and recomputing,
    rho = 1 / (1 + exp(sigma (s_i - s_j))); grad_i -= sigma |ΔNDCG| rho, grad_j += the same,
    both Hessians += sigma^2 |ΔNDCG| rho (1 - rho)."""
    grad, hess = np.zeros(len(y)), np.zeros(len(y))
    for a, b in zip(offsets[:-1], offsets[1:]):
        order = list(np.argsort(-s[a:b], kind="stable"))
        gains = [2.0 ** y[a + i] - 1 for i in order]
        base = ndcg_of(gains, k, conv)
        for pi, pj in itertools.permutations(range(b - a), 2):
            i, j = a + order[pi], a + order[pj]
            if y[i] <= y[j]:
                continue
            swapped = list(gains)
            swapped[pi], swapped[pj] = swapped[pj], swapped[pi]
            delta = abs(ndcg_of(swapped, k, conv) - base)
            rho = 1 / (1 + math.exp(sigma * (s[i] - s[j])))
            grad[i] -= sigma * delta * rho
            grad[j] += sigma * delta * rho
            hess[i] += sigma ** 2 * delta * rho * (1 - rho)
            hess[j] += sigma ** 2 * delta * rho * (1 - rho)
    return grad, hess


@pytest.mark.parametrize("conv", ["ranklib", "letor", "yahoo"])
@pytest.mark.parametrize("k", [1, 3, 10])
def test_lambdamart_gradients_equal_swapped_ndcg(conv, k):
    rng = np.random.default_rng(11)
    sizes = np.array([1, 2, 3, 4, 5, 6, 8, 9, 12])
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    y = rng.choice([0, 0, 1, 2], size=offsets[-1])
    y[offsets[5]:offsets[6]] = 0  # a query without relevant document
    s = rng.standard_normal(offsets[-1])  # distinct scores: ranks are unambiguous
    sigma = 1.3
    grad, hess = lambda_gradients(NDCGScorer(y, offsets, conv, k), s, sigma)
    want_g, want_h = brute_lambdas(y, s, offsets, k, conv, sigma)
    assert np.abs(want_g).max() > 0.05
    np.testing.assert_allclose(grad, want_g, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(hess, want_h, rtol=1e-10, atol=1e-14)


def test_lambdamart_gradient_step_raises_ndcg():
    """A small step against the gradient lifts the relevant documents: NDCG@k does not fall."""
    y = np.array([0, 2, 1, 0, 0, 1])
    s = np.array([0.9, 0.1, 0.3, 0.5, 0.4, 0.0])
    scorer = NDCGScorer(y, np.array([0, 6]), "ranklib", 3)
    grad, _ = lambda_gradients(scorer, s)
    assert np.all(grad[y == 2] < 0) and np.all(grad[[0, 3]] > 0)
    assert scorer.mean(s - 0.5 * grad) > scorer.mean(s)


# ---- RankNet: the pairwise gradient against numerical differentiation ---------------------
def pairwise_ce(s, y):
    """C = sum_{l_i > l_j} log(1 + exp(-(s_i - s_j)))."""
    return sum(math.log1p(math.exp(-(s[i] - s[j])))
               for i in range(len(y)) for j in range(len(y)) if y[i] > y[j])


def numeric_grad(f, x, h=1e-6):
    out = np.empty(len(x))
    for i in range(len(x)):
        e = np.zeros(len(x))
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def test_ranknet_score_gradient_is_the_cross_entropy_derivative():
    rng = np.random.default_rng(5)
    y = np.array([2, 0, 1, 1, 0, 2, 0])
    s = rng.standard_normal(len(y))
    loss, lam = pair_lambdas(s, y)
    assert loss == pytest.approx(pairwise_ce(s, y), rel=1e-12)
    np.testing.assert_allclose(lam, numeric_grad(lambda v: pairwise_ce(v, y), s), atol=1e-8)
    assert lam[0] < 0 and lam[1] > 0  # better documents are pushed up (dC/ds < 0)


def net_scores(params, sizes, act, X):
    """The network of the module's docstring: per layer a fan_in x fan_out weight block (row
    major) then the biases; hidden units squashed, the output linear."""
    pos, h = 0, X
    for layer, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        W = params[pos:pos + a * b].reshape(a, b)
        bias = params[pos + a * b:pos + a * b + b]
        pos += a * b + b
        h = h @ W + bias
        if layer < len(sizes) - 2:
            h = 1 / (1 + np.exp(-h)) if act == "sigmoid" else np.tanh(h)
    return h[:, 0]


@pytest.mark.parametrize("act", ["sigmoid", "tanh"])
def test_ranknet_parameter_gradient_is_the_cross_entropy_derivative(act):
    rng = np.random.default_rng(3)
    sizes = (4, 5, 1)
    params = init_params(sizes, rng) + 0.1 * rng.standard_normal(4 * 5 + 5 + 5 + 1)
    X = rng.standard_normal((6, 4))
    y = np.array([1, 0, 2, 0, 1, 0])
    loss, grad = query_loss_grad(params, sizes, act, X, y)

    def C(p):
        return pairwise_ce(net_scores(p, sizes, act, X), y)

    assert loss == pytest.approx(C(params), rel=1e-12)
    np.testing.assert_allclose(grad, numeric_grad(C, params), atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize("lanes", [4, 8])
@pytest.mark.parametrize("act", [0, 1])
@pytest.mark.parametrize("case", ["dense", "zeros", "negative_zero_bias", "infinite_weight",
                                  "overflowing_deltas"])
def test_ranknet_adam_tiles_equal_the_plain_kernels_bit_for_bit(case, act, lanes):
    """The tiled forward and backward passes (the bias as a first term 1 x bias, zero inputs
    skipped per tile or added as +-0) give the plain loops' scores, loss and gradient bit for
    bit; where that needs finite weights, no -0 bias or finite deltas and they are not, the
    plain loops run."""
    rng = np.random.default_rng(11)
    for sizes in ([7, 9, 1], [5, 13, 6, 1], [20, 30, 17, 9, 1]):
        n = 11
        X = rng.standard_normal((n, sizes[0]))
        y = rng.integers(0, 3, n)
        params = init_params(sizes, rng) + 0.05 * rng.standard_normal(ra.layout(sizes)[2])
        sizes_a, w_off, b_off, u_off, total = ra._layout_arrays(sizes)
        if case != "dense":
            X[rng.random(X.shape) < 0.4] = 0.0
            params[rng.random(params.size) < 0.05] = 0.0
        if case == "negative_zero_bias":
            params[b_off[0] + 1] = -0.0
        elif case == "infinite_weight":
            params[w_off[-1]] = np.inf
        elif case == "overflowing_deltas":
            params[w_off[-1]:b_off[-1]] = 1e308  # scores and deltas overflow
        acts = np.zeros((n, u_off[-1]))
        want_scores = ra._forward_plain(params, sizes_a, w_off, b_off, u_off, act, X, acts)
        want_loss, lam = pair_lambdas(want_scores, y)
        want_grad = np.zeros(total)
        ra._backward_plain(params, sizes_a, w_off, b_off, u_off, act, acts, lam, want_grad)
        scores = ra._forward(ra._padded(params), sizes_a, w_off, b_off, u_off, act, X,
                             ra.work_rows(n, u_off), lanes)
        loss, grad = query_loss_grad(params, sizes, ("sigmoid", "tanh")[act], X, y, lanes)
        assert scores.view(np.int64).tolist() == want_scores.view(np.int64).tolist()
        assert np.float64(loss).view(np.int64) == np.float64(want_loss).view(np.int64)
        assert grad.view(np.int64).tolist() == want_grad.view(np.int64).tolist()
    if case == "overflowing_deltas":
        assert not np.isfinite(want_grad).all()


# ---- RankSVM: pairs within a query, better minus worse labelled +1 ------------------------
def test_ranksvm_pairs_by_hand():
    X = np.array([[1, 0], [0, 1], [2, 2],    # query 1, labels 2, 0, 1
                  [5, 5], [3, 1],            # query 2, labels 0, 1
                  [7, 7], [8, 8]], float)    # query 3, labels 1, 1: no pair
    y = np.array([2, 0, 1, 0, 1, 1, 1])
    D, t = pairwise_differences(X, y, np.array([0, 3, 5, 7]))
    plus = [(1, -1), (-1, -2), (2, 1), (-2, -4)]  # x0 - x1, x0 - x2, x2 - x1, x4 - x3
    want = sorted([(1, a, b) for a, b in plus] + [(-1, -a, -b) for a, b in plus])
    assert sorted((int(ti), *map(float, di)) for di, ti in zip(D, t)) == want
    assert D.shape == (8, 2)


def test_ranksvm_orders_every_pair_of_separable_queries():
    """Labels from the score x0 - x1: every crucial pair is separable by w ~ (1, -1)."""
    rng = np.random.default_rng(4)
    X = rng.uniform(0, 1, (60, 2))
    qid = np.repeat(np.arange(12), 5)
    y = np.zeros(60, dtype=int)
    for q in range(12):
        rows = np.flatnonzero(qid == q)
        y[rows[np.argsort(X[rows, 0] - X[rows, 1])]] = [0, 0, 1, 1, 2]
    model = fit("ranksvm", X, y, qid, C_grid=(10.0,))
    w = model.coef_
    assert w @ np.array([1, -1]) / np.linalg.norm(w) > 0.9 * math.sqrt(2)
    D, _ = pairwise_differences(X, y, np.arange(0, 61, 5))
    assert np.all(D[:len(D) // 2] @ w > 0)
