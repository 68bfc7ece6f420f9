"""LinearObjective's line search equals ranking every candidate from scratch, bit for bit.

The reference below is the plain definition: document i's rank is the number of documents
placed before it (the policy's order, then the document index), DCG@k sums ``gain * disc``
over the relevant documents in index order, and the line sums ``inv_idcg * DCG`` over the
queries in order. The line search carries rankings between deltas and skips deltas it can
prove change nothing; none of that may change a single bit.
"""

import numpy as np
import pytest

from ltrconv.evaluation.ties import DOCID_DESC, INPUT_ORDER, KEYED, OPTIMISTIC, PESSIMISTIC
from ltrconv.evaluation.scorer import NDCGScorer
from ltrconv.rankers.linear_objective import LinearObjective

POLICIES = ["ranklib", "trec", "ranklib-tieavg", "ranklib-tiepess", "ranklib-tieopt"]


def before(j, i, s, y, key, ties):
    """Whether document j is ranked above document i."""
    sj, si = s[j], s[i]
    if ties == "docid-desc":
        sj, si = np.float32(sj), np.float32(si)
    if sj != si:
        return sj > si
    if ties == "docid-desc" and key[j] != key[i]:
        return key[j] > key[i]
    if ties == "pessimistic" and y[j] != y[i]:
        return y[j] < y[i]
    if ties == "optimistic" and y[j] != y[i]:
        return y[j] > y[i]
    return j < i


def reference_dcg(s, gains, y, key, disc, k, ties):
    n = len(s)
    m = min(k, n)
    total = 0.0
    for i in np.flatnonzero(gains > 0):
        if ties == "average":
            above = int(np.sum(s > s[i]))
            same = int(np.sum(s == s[i]))
            if above < m:
                acc = 0.0
                for p in range(above, min(above + same, m)):
                    acc += disc[p]
                total += gains[i] * acc / same
            continue
        pos = sum(before(j, i, s, y, key, ties) for j in range(n) if j != i)
        if pos < m:
            total += gains[i] * disc[pos]
    return total


def reference_line(obj, ties, base, x, deltas):
    out = np.zeros(len(deltas))
    for q in obj.active:
        a, b = obj.offsets[q], obj.offsets[q + 1]
        for c, d in enumerate(deltas):
            s = base[a:b] + d * x[a:b]
            out[c] += obj.inv_idcg[q] * reference_dcg(
                s, obj.gains[a:b], obj.labels[a:b], obj.tiekey[a:b], obj.disc, obj.k, ties)
    return out


def line_search_deltas(sign, n_steps=100, unit=0.001):
    """Coordinate Ascent's candidates: 0, then ``sign * unit * (2^i - 1)``, i = 1..n_steps."""
    return np.concatenate(([0.0], sign * unit * (np.exp2(np.arange(1, n_steps + 1)) - 1.0)))


@pytest.fixture(scope="module")
def hostile():
    """Queries built to defeat shortcuts: tied scores and tied feature values, zeros, equal
    slopes with different bases, base values differing in the last bits, huge and tiny
    magnitudes, duplicate docids, and queries of 1 to 40 documents."""
    rng = np.random.default_rng(11)
    sizes = [1, 2, 3, 7, 12, 25, 40] + list(rng.integers(2, 20, 8))
    ys, bases, xs, docids = [], [], [], []
    for q, n in enumerate(sizes):
        y = rng.integers(0, 3, n)
        kind = q % 5
        if kind == 0:
            base, x = np.round(rng.random(n), 1), np.round(rng.random(n), 1)
        elif kind == 1:
            base, x = rng.random(n), np.where(rng.random(n) < 0.5, 0.0, 0.25)
        elif kind == 2:
            base = 0.5 + rng.integers(-3, 4, n) * np.finfo(float).eps
            x = rng.choice([1e-9, 1e-6, 0.5, 1.0], n)
        elif kind == 3:
            base, x = rng.normal(size=n) * 1e6, rng.normal(size=n) * 1e-6
        else:
            base, x = rng.random(n), rng.random(n) - 0.5
        ys.append(y)
        bases.append(base)
        xs.append(x)
        docids += [f"d{int(v)}" for v in rng.integers(0, max(2, n // 2), n)]
    y = np.concatenate(ys)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    return y, offsets, np.concatenate(bases), np.concatenate(xs), np.array(docids)


@pytest.mark.parametrize("conv", POLICIES)
@pytest.mark.parametrize("k", [1, 10])
def test_line_equals_ranking_every_candidate(hostile, conv, k):
    y, offsets, base, x, docid = hostile
    scorer = NDCGScorer(y, offsets, conv, k, docid=docid)
    obj = LinearObjective(scorer)
    ties = scorer.convention.ties
    rng = np.random.default_rng(k)
    candidates = [line_search_deltas(+1), line_search_deltas(-1),
                  line_search_deltas(+1, 40, unit=1e-7), np.array([0.0, -0.3]),
                  rng.normal(size=25) * 10.0 ** rng.integers(-3, 4, 25)]  # not monotone
    for deltas in candidates:
        got = obj.line(base, x, deltas)
        want = reference_line(obj, ties, base, x, deltas)
        assert np.array_equal(got, want), (conv, k, np.flatnonzero(got != want)[:5])


@pytest.mark.parametrize("conv", POLICIES)
def test_per_query_equals_reference(hostile, conv):
    y, offsets, base, x, docid = hostile
    scorer = NDCGScorer(y, offsets, conv, 10, docid=docid)
    obj = LinearObjective(scorer)
    for s in (base, base + 3.0 * x, np.round(base, 1)):
        got = obj.per_query(s)
        for q in obj.active:
            a, b = offsets[q], offsets[q + 1]
            want = obj.inv_idcg[q] * reference_dcg(s[a:b], obj.gains[a:b], y[a:b],
                                                   obj.tiekey[a:b], obj.disc, 10,
                                                   scorer.convention.ties)
            assert got[q] == want, (conv, q)


@pytest.mark.parametrize("tie_code", [INPUT_ORDER, DOCID_DESC, PESSIMISTIC, OPTIMISTIC, KEYED])
def test_sort_ranks_as_the_tie_policy_says_from_any_start(tie_code):
    """The linear rankers' insertion sort against Python's sort by the documented key: score
    (as float32 under docid-desc, where scores equal only in float32 tie), then the policy
    (tie key descending for docid-desc, label ascending/descending for pessimistic/optimistic,
    tie key ascending when keyed), then the index. From an order already ranked it moves
    nothing, whether the scores fall strictly (the one-pass check) or tie."""
    from ltrconv.rankers.linear_objective import _sort

    rng = np.random.default_rng(tie_code)
    for trial in range(200):
        n = int(rng.integers(1, 30))
        s = rng.choice([0.0, 0.5, 1.0, 1.0 + 2.0 ** -40, 2.0], size=n) if trial % 2 else \
            rng.normal(size=n)
        labels = rng.integers(0, 3, size=n).astype(np.float64)
        tiekey = rng.permutation(n).astype(np.int64)

        def key(i):
            si = float(np.float32(s[i])) if tie_code == DOCID_DESC else s[i]
            rule = {DOCID_DESC: -tiekey[i], PESSIMISTIC: labels[i], OPTIMISTIC: -labels[i],
                    KEYED: tiekey[i]}.get(tie_code, 0)
            return (-si, rule, i)

        want = sorted(range(n), key=key)
        order = rng.permutation(n).astype(np.int64)
        _sort(order, s, labels, tiekey, tie_code)
        assert order.tolist() == want, (trial, tie_code)
        assert _sort(order, s, labels, tiekey, tie_code) == 0
        assert order.tolist() == want
