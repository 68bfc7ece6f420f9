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
import types

from numba import njit, prange

__all__ = ["PARALLEL_MIN_DOCS", "njit", "prange", "serial_and_parallel", "use_parallel"]

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


PARALLEL_MIN_DOCS = 500_000
"""Documents from which a kernel made by :func:`serial_and_parallel` runs its parallel twin: on
small data such as MQ2008 (~1 ms a call) the plain loop is faster, threads pay off on large
collections."""


def use_parallel(n_docs: int) -> bool:
    """Whether a kernel over ``n_docs`` documents runs its parallel twin (the one place every
    caller asks; :data:`PARALLEL_MIN_DOCS` is read at each call)."""
    return n_docs >= PARALLEL_MIN_DOCS


def serial_and_parallel(func):
    """``func`` (a kernel whose loop over queries is a ``prange``) compiled twice, cached: as a
    plain loop, and with ``parallel=True`` over numba's threads.

    numba names a function's cache files by its qualified name and line, and keys each entry
    by signature, CPU and bytecode but not by the compile flags: two dispatchers of one
    function would load each other's cached code (the parallel one running a plain loop, or
    the plain one entering the thread pool, from threads that must not). The parallel twin is
    a copy of the function named ``NAME_parallel``, so that it has cache files of its own."""
    twin = types.FunctionType(func.__code__, func.__globals__, f"{func.__name__}_parallel",
                              func.__defaults__, func.__closure__)
    twin.__qualname__ = f"{func.__qualname__}_parallel"
    twin.__module__ = func.__module__
    twin.__doc__ = func.__doc__
    return njit(cache=True)(func), njit(parallel=True, cache=True)(twin)
