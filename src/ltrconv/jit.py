"""numba's ``njit`` and ``prange``, with scipy loaded only when a compiled function needs it.

The first time numba compiles or loads a function, its CPU target imports
``numba.np.arraymath``, which probes for BLAS by importing ``scipy.linalg.cython_blas`` (numba
0.68). That loads all of ``scipy.linalg``, and with scipy 1.17 also ``numpy.f2py``: about
0.25 s of CPU (up to a second of wall time on a busy machine) in every process that runs a
kernel.
The probe's answer is read only when ``np.correlate`` or ``np.convolve`` is compiled; ``np.dot``
and ``np.linalg`` import scipy themselves when compiled, and a cached kernel needs scipy only
if it calls BLAS. Importing this module imports ``numba.np.arraymath`` with scipy's BLAS module
hidden and then sets the answer to the one the probe gives when scipy is installed, so that
compiled code is unchanged and scipy loads only where a kernel uses it.
"""

from __future__ import annotations

import importlib.util
import sys

from numba import njit, prange

__all__ = ["njit", "prange"]

_BLAS = "scipy.linalg.cython_blas"


def _defer_blas_probe() -> None:
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return  # probed already, or scipy is loaded anyway
    from numba.core.compiler_lock import global_compiler_lock

    with global_compiler_lock:  # where numba itself imports the module
        sys.modules[_BLAS] = None  # ``import`` raises ImportError, before any parent loads
        try:
            from numba.np import arraymath
        finally:
            if sys.modules.get(_BLAS, 0) is None:
                del sys.modules[_BLAS]
        arraymath._HAVE_BLAS = importlib.util.find_spec("scipy") is not None


_defer_blas_probe()
