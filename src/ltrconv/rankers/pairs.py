"""Crucial pairs of a query-grouped labelling, shared by the pairwise rankers."""

from __future__ import annotations

import numpy as np
from ..jit import njit


@njit(nogil=True, cache=True)
def count_pairs(y, offsets):
    """|P|: sum over queries of the document pairs with different labels."""
    total = 0
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        labels = np.sort(y[a:b])
        m = b - a
        same = 0
        run = 1
        for t in range(1, m + 1):
            if t < m and labels[t] == labels[t - 1]:
                run += 1
            else:
                same += run * (run - 1) // 2
                run = 1
        total += m * (m - 1) // 2 - same
    return total


@njit(cache=True)
def crucial_pairs(y, offsets):
    """(better, worse) row indices of every pair with a higher label, query by query."""
    count = count_pairs(y, offsets)
    hi = np.empty(count, dtype=np.int64)
    lo = np.empty(count, dtype=np.int64)
    p = 0
    for q in range(len(offsets) - 1):
        for i in range(offsets[q], offsets[q + 1]):
            for j in range(offsets[q], offsets[q + 1]):
                if y[i] > y[j]:
                    hi[p] = i
                    lo[p] = j
                    p += 1
    return hi, lo
