"""numba's own sort, for the ``numba-quicksort`` tie order (kept apart so that the numpy
engine does not load numba unless a convention asks for it)."""

from __future__ import annotations

import numpy as np
from ..jit import njit


@njit(cache=True)
def numba_quicksort_places(scores, offsets, place):
    """place[i] = rank - 1 of document i under numba's ``np.argsort(-scores)`` of its query
    (numba's quicksort: insertion sort up to 15 elements, median-of-three partitions beyond;
    the same on every platform)."""
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        order = np.argsort(-scores[a:b])
        for p in range(b - a):
            place[a + order[p]] = p
