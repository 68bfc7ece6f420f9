"""Rankings from packed 64-bit keys against numpy's lexsort of the same keys, one by one."""

from __future__ import annotations

import numpy as np
import pytest

from ltrconv.evaluation.sortkeys import ascending32, descending32, score_order


def _queries(rng, nq: int, most: int):
    sizes = rng.integers(1, most + 1, nq)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    return np.repeat(np.arange(nq), sizes), offsets


def _scores(rng, n: int) -> np.ndarray:
    """Scores with every hard case: repeats, -0.0 beside 0.0, negatives, float64 values that
    share a float32 value, values beyond float32's range."""
    s = np.round(rng.normal(size=n), 1)
    pick = rng.random(n)
    s[pick < 0.1] = -0.0
    s[(pick >= 0.1) & (pick < 0.15)] = 0.0
    near = (pick >= 0.15) & (pick < 0.3)
    s[near] = 1.0 + rng.integers(0, 4, near.sum()) * 2.0 ** -40  # one float32 value: 1.0
    big = (pick >= 0.3) & (pick < 0.35)
    s[big] = rng.choice([1e39, 2e39, -1e39, -3e39], big.sum())
    return s


def test_descending32_orders_as_the_values_descend():
    rng = np.random.default_rng(1)
    v = np.concatenate([_scores(rng, 5000), [np.inf, -np.inf, 3.4e38, -3.4e38, 1e-45, -1e-45]])
    with np.errstate(over="ignore"):
        f = v.astype(np.float32)
    k = descending32(v)
    i, j = rng.integers(0, len(v), (2, 20000))
    assert np.array_equal(k[i] < k[j], f[i] > f[j])
    assert np.array_equal(k[i] == k[j], f[i] == f[j])  # -0.0 and 0.0 included
    assert np.array_equal(ascending32(k), f + np.float32(0.0))


@pytest.mark.parametrize("seed", range(6))
def test_score_order_is_lexsorts_order(seed):
    rng = np.random.default_rng(seed)
    qpos, offsets = _queries(rng, 60, 40)
    s = _scores(rng, len(qpos))
    with np.errstate(over="ignore"):
        s32 = s.astype(np.float32)
    # input order, float64 scores (ties as given), and float32 scores
    got = score_order(qpos, offsets, s, float32=False)
    assert np.array_equal(got, np.lexsort((-s, qpos)))
    got = score_order(qpos, offsets, s, float32=True)
    assert np.array_equal(got, np.lexsort((-s32, qpos)))
    # docid descending: each query's docids distinct (a permutation of codes per query)
    tiekey = np.concatenate([rng.permutation(1000)[:b - a]
                             for a, b in zip(offsets[:-1], offsets[1:])])
    got = score_order(qpos, offsets, s, float32=True, tiekey=tiekey)
    assert np.array_equal(got, np.lexsort((-tiekey, -s32, qpos)))


def test_score_order_declines_what_it_cannot_order():
    qpos, offsets = np.array([0, 0, 1]), np.array([0, 2, 3])
    s = np.array([0.5, 0.5, 0.1])
    # a docid rank twice in a query: the order among them is another key's
    assert score_order(qpos, offsets, s, float32=True, tiekey=np.array([3, 3, 1])) is None
    assert score_order(qpos, offsets, s, float32=True, tiekey=np.array([3, 2, 3])) is not None
    # fields beyond 64 bits: docid ranks of 41 bits beside 32 of score
    assert score_order(qpos, offsets, s, float32=True, tiekey=np.array([0, 1, 1 << 40])) is None
    assert len(score_order(qpos[:0], np.array([0]), s[:0], float32=True)) == 0
