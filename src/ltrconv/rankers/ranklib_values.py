"""How RankLib 2.x holds feature values, shared by the RankLib-faithful rankers."""

from __future__ import annotations

import numpy as np


def as_float32_values(X) -> np.ndarray:
    """``X`` with every value rounded to float32: RankLib 2.x stores feature values as ``float``
    (its ``DataPoint``), so its thresholds, ties and scores are those of the rounded values.
    A new, writable, C-ordered array whatever ``X`` is (Fortran-ordered, read-only, a view):
    the numba kernels then see one array type and use the code compiled for it."""
    return np.asarray(X, dtype=np.float32).astype(np.float64, order="C")
