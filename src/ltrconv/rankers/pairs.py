"""Crucial pairs of a query-grouped labelling, shared by the pairwise rankers."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def crucial_pairs(y, offsets):
    """(better, worse) row indices of every pair with a higher label, query by query."""
    count = 0
    for q in range(len(offsets) - 1):
        for i in range(offsets[q], offsets[q + 1]):
            for j in range(offsets[q], offsets[q + 1]):
                if y[i] > y[j]:
                    count += 1
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
