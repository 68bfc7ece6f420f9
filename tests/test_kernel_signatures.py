"""A ranker's numba kernels see one array type whatever layout the caller's arrays have.

numba compiles a kernel anew for every new argument type: a Fortran-ordered feature matrix,
a read-only one (a memory map, as joblib hands to workers) or read-only fitted weights (a
model unpickled from one) would each cost a compile of tens of seconds, and a warmed cache
would not serve them. The rankers copy such arrays into the C-ordered, writable ones their
kernels were compiled for.
"""

from __future__ import annotations

import gc
import pickle

import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher

from ltrconv import rankers, warmup
from ltrconv.data.synthetic import make_letor, split
from ltrconv.rankers import registry


def _signatures() -> dict[str, int]:
    """Compiled signatures of every ltrconv kernel loaded so far, by qualified name."""
    return {f"{d.py_func.__module__}.{d.py_func.__qualname__}": len(d.signatures)
            for d in gc.get_objects()
            # by type, not isinstance: some lazily loaded objects refuse to say their __class__
            if issubclass(type(d), Dispatcher) and d.py_func.__module__.startswith("ltrconv")}


def _read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("algorithm", registry.ORDER)
def test_other_layouts_compile_no_new_kernel(algorithm):
    data = make_letor(n_queries=30, n_features=6, min_docs=4, max_docs=15, seed=2)
    tr, va = split(data, range(20)), split(data, range(20, 30))
    params = warmup.SMALL.get(algorithm, {})
    model = rankers.make(algorithm, **params).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y,
                                                  qid_val=va.qid)
    expected = model.predict(va.X)
    before = _signatures()
    # the same fit and prediction from Fortran-ordered and read-only features ...
    for X, Xv in ((np.asfortranarray(tr.X), np.asfortranarray(va.X)),
                  (_read_only(tr.X), _read_only(va.X))):
        again = rankers.make(algorithm, **params).fit(X, tr.y, tr.qid, X_val=Xv, y_val=va.y,
                                                      qid_val=va.qid)
        np.testing.assert_array_equal(again.predict(Xv), expected)
    # ... and a model whose fitted arrays are read-only
    frozen = pickle.loads(pickle.dumps(model))
    for name, value in vars(frozen).items():
        if name.endswith("_") and isinstance(value, np.ndarray):
            setattr(frozen, name, _read_only(value))
    np.testing.assert_array_equal(frozen.predict(np.asfortranarray(va.X)), expected)
    after = _signatures()
    grown = {k: (before.get(k, 0), n) for k, n in after.items() if n > before.get(k, 0)}
    assert not grown, f"{algorithm}: kernels compiled for another array type: {grown}"
