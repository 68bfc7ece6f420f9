"""Sort artefacts as tie orders: each document's place in the order a library's sort gives it.

Two libraries rank with an unstable sort whose order among equal scores follows no rule, only
the algorithm: scikit-learn's ``ndcg_score(ignore_ties=True)`` takes ``np.argsort(scores)``
reversed, ranx takes numba's ``np.argsort(-scores)``. Both orders list the scores from the
highest, so ranking by score and then by a document's place in the library's order gives that
order exactly; the kernels break ties by this place (tie codes from
:data:`ltrconv.evaluation.ties.KEYED` on). The places are computed here by the same calls on the
same values, one query at a time.
"""

from __future__ import annotations

import numpy as np

from .ties import NUMBA_QUICKSORT, NUMPY_ARGSORT_REVERSED


def sort_places(scores: np.ndarray, offsets: np.ndarray, code: int) -> np.ndarray:
    """``place[i]``: rank - 1 of document i in its query under the artefact ``code``."""
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    place = np.empty(len(scores), dtype=np.int64)
    if code == NUMPY_ARGSORT_REVERSED:
        for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
            # a one-row matrix, as ndcg_score sorts each row of y_score
            order = np.argsort(scores[None, a:b])[0, ::-1]
            place[a + order] = np.arange(b - a)
        return place
    if code == NUMBA_QUICKSORT:
        from ._artefact_kernels import numba_quicksort_places

        numba_quicksort_places(scores, offsets, place)
        return place
    raise ValueError(f"tie code {code} is not a sort artefact")
