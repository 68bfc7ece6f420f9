"""Coordinate Ascent's line search (``coordinate_ascent._line``: each query's scores stepped in
rank order, one pass to check that its ranking stands, a re-sort where it does not, the NDCG
computed anew only when a document moved into the top k) against the search written plainly
here in document order: every step adds the increment to every score of the query, sorts its
ranking again from the last one by insertion (RankLib's cached ranking) and computes its NDCG.

Small adversarial queries: feature values from a few integers, so that scores and features tie
(the pairs the check exempts), increments that make the scores tie by rounding, then overflow
to inf, then to NaN (``inf - inf``, which orders a tied pair by index alone), under every tie
policy of the training conventions.

The expected values come from that plain search; it takes from the engine only the definitions
the kernel is not about: the order of two documents (``linear_objective.ranks_before``: score by
the tie policy, then index) and a ranking's DCG and NDCG (``_rank_dcg``, ``_ndcg``)."""

import numpy as np
import pytest

from ltrconv.evaluation.scorer import NDCGScorer
from ltrconv.evaluation.ties import AVERAGE, INPUT_ORDER
from ltrconv.rankers.coordinate_ascent import _ndcg, _Queries, _rank_dcg, direction_steps
from ltrconv.rankers.linear_objective import linear_scores, ranks_before, relevant_of


def plain_line(arrays, state, c, x, moves, incs):
    """The summed NDCG after each increment, every score stepped in document order; ``c`` and
    ``state.order`` move as the kernel's do."""
    gains, labels, tiekey, offsets, disc, k, tie_code, inv_idcg, fb = arrays
    ideal, rel, order, cur = state
    sort_code = INPUT_ORDER if tie_code == AVERAGE else tie_code
    totals = np.zeros(len(incs))
    pos = np.empty(len(c), dtype=np.int64)
    for q in range(len(offsets) - 1):
        a, b = int(offsets[q]), int(offsets[q + 1])
        counted = not np.isnan(fb[q])
        for t, inc in enumerate(incs):
            if moves[q]:  # x is 0 across a query that does not move: its scores stay
                with np.errstate(over="ignore", invalid="ignore"):  # to inf, then inf - inf
                    for i in range(a, b):
                        c[i] = c[i] + inc * x[i]
            if not counted:
                continue
            if not moves[q] or inv_idcg[q] == 0.0:  # its ranking cannot move, or its NDCG
                totals[t] += cur[q]  # is the convention's value without relevant documents
                continue
            o, s = order[a:b], c[a:b]
            for p in range(1, b - a):  # insertion sort from the last ranking
                cur_doc, q_ = o[p], p - 1
                while q_ >= 0 and ranks_before(s[cur_doc], s[o[q_]], cur_doc, o[q_], labels[a:b],
                                               tiekey[a:b], sort_code):
                    o[q_ + 1] = o[q_]
                    q_ -= 1
                o[q_ + 1] = cur_doc
            dcg = _rank_dcg(o, s, gains[a:b], relevant_of(rel, q, a), disc, min(k, b - a),
                            tie_code, pos)
            totals[t] += _ndcg(dcg, inv_idcg[q], ideal[q], tie_code)
    return totals


def adversarial(seed):
    """Queries of 1-30 documents, labels 0-2 (some queries without a relevant one), four
    features of values 0-3 and two of 0 or 10^10 (to overflow), float32 as RankLib reads them."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 31, size=40)
    n = int(sizes.sum())
    y = rng.integers(0, 3, size=n)
    starts = np.r_[0, np.cumsum(sizes)]
    for q in range(0, 40, 7):
        y[starts[q]:starts[q + 1]] = 0
    X = np.c_[rng.integers(0, 4, size=(n, 4)), rng.integers(0, 2, size=(n, 2)) * 1e10]
    X[starts[3]:starts[4], 1] = 0.0  # a query feature 1 does not move
    return y, starts, X.astype(np.float32).astype(np.float64)


def searches():
    """A sequence of searches: RankLib's doubling steps both ways (scores tie by rounding at
    the far end); steps of -1e300 on a large feature (-inf, at the bottom of the ranking), then
    back (NaN below finite scores); the same up and back on the other (NaN at the top); a small
    feature again through the NaNs."""
    up, _, _ = direction_steps(0.25, 1, 0.05, 60)
    down, _, _ = direction_steps(0.25, -1, 0.05, 60)
    return [(0, up), (1, down), (2, up[:20]), (5, [-1e300] * 5), (5, [1e300] * 5),
            (3, down[:30]), (4, [1e300] * 5), (4, [-1e300] * 5), (1, up[:10])]


@pytest.mark.parametrize("conv", ["ranklib", "yahoo", "letor", "trec", "ranklib-tieavg",
                                  "ranklib-tiepess", "ranklib-tieopt"])
@pytest.mark.parametrize("k, seed", [(10, 0), (3, 1)])
def test_line_equals_the_search_in_document_order(conv, k, seed):
    y, offsets, X = adversarial(seed)
    docid = np.array([f"d{i:04d}" for i in range(len(y))][::-1])  # docid-desc: not index order
    tq = _Queries(NDCGScorer(y, offsets, conv, k, docid=docid), len(y))
    c = linear_scores(X, np.array([0.5, 0.25, 0.25, 0.5, 0.0, 0.0]))
    tq.refresh(c)
    c_ref, order_ref = c.copy(), tq.state.order.copy()
    state_ref = tq.state._replace(order=order_ref)
    saw_nan = False
    for f, incs in searches():
        x = np.ascontiguousarray(X[:, f])
        moves = np.maximum.reduceat(x != 0, offsets[:-1])
        want = plain_line(tq.arrays, state_ref, c_ref, x, moves, np.array(incs))
        got = tq.line(c, x, moves, np.array(incs))
        assert got.tobytes() == want.tobytes(), (f, got, want)
        assert c.tobytes() == c_ref.tobytes()
        assert tq.state.order.tobytes() == order_ref.tobytes()
        saw_nan |= bool(np.isnan(c).any())
    assert saw_nan  # the searches reached NaN scores, as meant
