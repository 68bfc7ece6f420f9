"""The plumbing every workflow job runs through (workflow/scripts/_job.py)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "workflow" / "scripts"
sys.path.insert(0, str(SCRIPTS))
import _job  # noqa: E402



def test_limit_threads_caps_numba_and_loaded_pools():
    """In a fresh interpreter (numba's pool is process-wide): numba starts with every core."""
    code = ("import sys, os; sys.path.insert(0, sys.argv[1]); import numba; "
            "before = numba.get_num_threads(); import _job; said = _job.limit_threads(1); "
            "from threadpoolctl import threadpool_info; "
            "print(before, numba.get_num_threads(), os.environ['OMP_NUM_THREADS'], "
            "os.environ['OPENBLAS_NUM_THREADS'], sorted({p['num_threads'] for p in threadpool_info()}), said)")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code, str(SCRIPTS)], capture_output=True,
                         text=True, env=env, timeout=120, check=True).stdout.split(maxsplit=5)
    assert int(out[0]) == (os.cpu_count() or 1)
    assert out[1:5] == ["1", "1", "1", "[1]"]
    assert out[5].startswith("threads: numba 1")


def test_cap_threads():
    log = logging.getLogger("test")
    assert _job.cap_threads({}, ["num_threads"], 2) == {"num_threads": 2}
    assert _job.cap_threads({"n_jobs": -1, "num_threads": 8, "x": 1}, ["n_jobs", "num_threads"], 2,
                            log) == {"n_jobs": 2, "num_threads": 2, "x": 1}
    assert _job.cap_threads({"n_jobs": 1, "num_threads": None}, ["n_jobs", "num_threads"], 4) == \
        {"n_jobs": 1, "num_threads": None}  # lower values and the ranker's own None stay
    assert _job.cap_threads({"n_jobs": 3}, [], 1) == {"n_jobs": 3}  # not a parameter of the ranker
