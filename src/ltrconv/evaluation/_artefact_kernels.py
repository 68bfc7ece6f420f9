"""numba's own sort, for the ``numba-quicksort`` tie order (kept apart so that the numpy
engine does not load numba unless a convention asks for it).

ranx ranks a query with numba's ``np.argsort(-scores)``. The order that sort gives equal scores
is an artefact of its algorithm (numba 0.5x's ``numba/misc/quicksort.py``), so the algorithm is
written out here, step for step, rather than called: the places are then the same whether this
code is compiled or not (``NUMBA_DISABLE_JIT=1`` would otherwise run numpy's own, different,
sort), and a change of numba's sort shows in the test that compares the two
(``tests/test_hostile_round4.py``).

The algorithm, on an index array ``R`` (``0..n-1``) ordered by the keys ``A[R[.]]``:

* ranges of fewer than 16 elements are insertion-sorted: each element moves down past the
  elements it is strictly less than, so equal keys keep their order;
* a larger range ``[low, high]`` is partitioned around the median of ``low``, ``mid = (low +
  high) >> 1`` and ``high``: swap (low, mid) if ``A[mid] < A[low]``, then (mid, high) if
  ``A[high] < A[mid]``, then (low, mid) again if ``A[mid] < A[low]``; the pivot ``A[mid]`` is
  parked at ``high``; ``i`` scans up from ``low`` while ``A[i] < pivot`` (and ``i < high``),
  ``j`` down from ``high - 1`` while ``pivot < A[j]`` (and ``j >= low``); unless they have met
  the two are swapped and both step on; finally the pivot goes to ``i``;
* the larger side is pushed on a stack and the smaller one partitioned next.

``a < b`` for floats is numba's: NaN after every number.
"""

from __future__ import annotations

import numpy as np

from ..jit import njit

SMALL = 16  # ranges shorter than this are insertion-sorted
STACK = 128  # the smaller side first: log2(n) levels at most


@njit(cache=True)
def _lt(a, b):
    return a < b or (b != b and a == a)


@njit(cache=True)
def _insertion(A, R, low, high):
    for i in range(low + 1, high + 1):
        k = R[i]
        v = A[k]
        j = i
        while j > low and _lt(v, A[R[j - 1]]):
            R[j] = R[j - 1]
            j -= 1
        R[j] = k


@njit(cache=True)
def _partition(A, R, low, high):
    mid = (low + high) >> 1
    if _lt(A[R[mid]], A[R[low]]):
        R[low], R[mid] = R[mid], R[low]
    if _lt(A[R[high]], A[R[mid]]):
        R[high], R[mid] = R[mid], R[high]
    if _lt(A[R[mid]], A[R[low]]):
        R[low], R[mid] = R[mid], R[low]
    pivot = A[R[mid]]
    R[high], R[mid] = R[mid], R[high]
    i, j = low, high - 1
    while True:
        while i < high and _lt(A[R[i]], pivot):
            i += 1
        while j >= low and _lt(pivot, A[R[j]]):
            j -= 1
        if i >= j:
            break
        R[i], R[j] = R[j], R[i]
        i += 1
        j -= 1
    R[i], R[high] = R[high], R[i]
    return i


@njit(cache=True)
def quicksort_order(A):
    """The index order numba's ``np.argsort(A)`` gives (module docstring)."""
    n = len(A)
    R = np.arange(n)
    if n < 2:
        return R
    lows = np.empty(STACK, dtype=np.int64)
    highs = np.empty(STACK, dtype=np.int64)
    lows[0], highs[0] = 0, n - 1
    top = 1
    while top > 0:
        top -= 1
        low, high = lows[top], highs[top]
        while high - low >= SMALL - 1:
            i = _partition(A, R, low, high)
            if high - i > i - low:  # the right side is larger: kept for later
                if high > i:
                    lows[top], highs[top] = i + 1, high
                    top += 1
                high = i - 1
            else:
                if i > low:
                    lows[top], highs[top] = low, i - 1
                    top += 1
                low = i + 1
        _insertion(A, R, low, high)
    return R


@njit(cache=True)
def numba_quicksort_places(scores, offsets, place):
    """place[i] = rank - 1 of document i under numba's ``np.argsort(-scores)`` of its query."""
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        order = quicksort_order(-scores[a:b])
        for p in range(b - a):
            place[a + order[p]] = p
