"""The per-query sort: insertion sort for short queries and short tied runs, merge sorts for
long ones (n = 600 gives tied runs of ~150 documents)."""

import numpy as np
import pytest

from ltrconv.evaluation import _kernels as K


def reference_order(scores, labels, tiekey, code):
    idx = np.arange(len(scores))
    if code == 1:
        return np.lexsort((idx, -tiekey, -scores.astype(np.float32)))
    if code == 3:
        return np.lexsort((idx, labels, -scores))
    if code == 4:
        return np.lexsort((idx, -labels, -scores))
    return np.lexsort((idx, -scores))


@pytest.mark.parametrize("n", [1, 2, 7, K.INSERTION_MAX, K.INSERTION_MAX + 1, 130, 600])
@pytest.mark.parametrize("code", [0, 1, 2, 3, 4])
def test_rank_order_matches_lexsort(n, code):
    rng = np.random.default_rng(n * 10 + code)
    for _ in range(20):
        scores = rng.integers(0, 4, n) / 4 + rng.choice([0.0, 1e-9], n)  # float32 merges the 1e-9
        labels = rng.integers(0, 3, n)
        tiekey = rng.permutation(n).astype(np.int64)
        got = K.rank_order(scores, labels, tiekey, code)
        np.testing.assert_array_equal(got, reference_order(scores, labels, tiekey, code))
