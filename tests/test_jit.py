"""ltrconv.jit: kernels compiled plain and parallel keep apart in numba's cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

KERNEL = """
import numpy as np
from numba import prange
from ltrconv.jit import njit, serial_and_parallel

def _sums(x):
    out = np.empty(len(x))
    for i in prange(len(x)):
        out[i] = x[i] + 1.0
    return out

def _plus(x):
    out = np.empty(len(x))
    for i in prange(len(x)):
        out[i] = x[i] + 1.0
    return out

TWINS = serial_and_parallel(_sums)
DOUBLE = njit(cache=True)(_plus), njit(parallel=True, cache=True)(_plus)
"""

# Calls one kernel, then says whether numba's thread pool started (threading_layer() raises
# until a parallel region has run) and whether the call compiled (cache misses counted).
CALL = """
import sys, numpy as np, numba
import kernels
kernel = getattr(kernels, sys.argv[1])[int(sys.argv[2])]
assert kernel(np.arange(64.0))[5] == 6.0
try:
    numba.threading_layer(); pool = 'pool'
except ValueError:
    pool = 'no-pool'
print(pool, sum(kernel.stats.cache_misses.values()))
"""


def call(where: Path, pair: str, which: int) -> list[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(where), str(SRC)]),
               NUMBA_CACHE_DIR=str(where / "cache"), NUMBA_NUM_THREADS="2")
    proc = subprocess.run([sys.executable, "-c", CALL, pair, str(which)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


@pytest.mark.parametrize("first", [0, 1])
def test_plain_and_parallel_twins_do_not_load_each_others_code(tmp_path, first):
    """Whichever of the two is compiled and cached first, the other compiles its own code:
    the plain kernel never starts the thread pool, the parallel one does."""
    (tmp_path / "kernels.py").write_text(KERNEL)
    pool = ["no-pool", "pool"]
    second = 1 - first
    assert call(tmp_path, "TWINS", first) == [pool[first], "1"]  # compiled into the empty cache
    assert call(tmp_path, "TWINS", second) == [pool[second], "1"]  # its own code
    assert call(tmp_path, "TWINS", second) == [pool[second], "0"]  # and cached


def test_one_function_given_to_njit_twice_loads_the_other_flags_code(tmp_path):
    """The fault the twins exist for: numba keys its cache by name, line, signature and
    bytecode but not by the flags, so the same function given to njit plain and parallel
    hands the second dispatcher the first's code (the parallel one runs the plain loop)."""
    (tmp_path / "kernels.py").write_text(KERNEL)
    assert call(tmp_path, "DOUBLE", 0) == ["no-pool", "1"]
    assert call(tmp_path, "DOUBLE", 1) == ["no-pool", "0"]  # the plain code, loaded


def test_the_kernels_run_plain_and_parallel_are_twins():
    from ltrconv.evaluation import _kernels, scorer
    from ltrconv.rankers import lambdamart

    for plain, parallel in ((scorer.all_query_ndcg, scorer.all_query_ndcg_parallel),
                            (_kernels.all_query_metrics, _kernels.all_query_metrics_parallel),
                            (lambdamart.all_lambdas, lambdamart.all_lambdas_parallel)):
        assert parallel.py_func.__qualname__ == plain.py_func.__qualname__ + "_parallel"
        assert parallel.py_func.__code__ is plain.py_func.__code__
        assert parallel.targetoptions.get("parallel") and not plain.targetoptions.get("parallel")
