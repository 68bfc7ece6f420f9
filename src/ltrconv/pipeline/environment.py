"""The environment the workflow's jobs start with: OpenBLAS's kernels and how idle OpenMP
threads wait (:func:`for_jobs`).

Both are read when a library loads, and a job loads OpenBLAS (numpy) with its first import of
ltrconv, before any code of the job runs: so the Snakemake process that starts the jobs sets them
(Snakefile ``onstart``, after the DAG is built and before the first job), and every job inherits
them, on a cluster too (sbatch exports the environment).

OPENBLAS_CORETYPE=Haswell: RankSVM's model depends on the kernels OpenBLAS picks for the CPU
(liblinear's solver and the validation scores go through BLAS): on MQ2008 Fold1 under ranklib
the AVX-512 (SkylakeX) kernels select C = 100 where the Haswell (AVX2) ones select C = 10.
Pinned to the Haswell kernels, which every x86-64 CPU with AVX2 and FMA runs, a full run on an
AVX-512 machine reproduced reference/MQ2008 byte for byte; unpinned, 490 rows of RankSVM in
fold_means.tsv differed.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

CORETYPE = "Haswell"
NEEDS = {"avx2", "fma"}  # the instructions of OpenBLAS's Haswell kernels


def cpu_flags(cpuinfo: str | None = None) -> set[str]:
    """The CPU's feature flags from /proc/cpuinfo (empty where there is none: not Linux)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return set()
    found = re.search(r"^flags\s*:(.*)$", cpuinfo, re.M)
    return set(found.group(1).split()) if found else set()


def pin(environ=os.environ, flags: set[str] | None = None) -> str | None:
    """Set OPENBLAS_CORETYPE to the Haswell kernels unless it is set already or the CPU cannot
    run them (then OpenBLAS chooses); the core type the jobs will use, None for OpenBLAS's own
    choice."""
    if "OPENBLAS_CORETYPE" not in environ:
        if not NEEDS <= (cpu_flags() if flags is None else flags):
            return None
        environ["OPENBLAS_CORETYPE"] = CORETYPE
    return environ["OPENBLAS_CORETYPE"]


def for_jobs(environ=os.environ, src: str | None = None) -> dict:
    """Set in ``environ`` what the jobs need, unless the user set it: the Haswell kernels
    (:func:`pin`), and OMP_WAIT_POLICY=PASSIVE, so that idle OpenMP threads (LightGBM's,
    numba's) sleep instead of spinning: on a shared machine spinning multiplied a LightGBM
    fit's CPU time 12-fold (benchmarks/bench_wait_policy.py). With ``src`` (jobs in an
    environment of their own, ``--sdm conda``, which does not install ltrconv) the checkout's
    ``src`` goes first on PYTHONPATH. The values the jobs get."""
    pin(environ)
    environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if src is not None:
        rest = [p for p in environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != src]
        environ["PYTHONPATH"] = os.pathsep.join([src, *rest])
    names = ("OPENBLAS_CORETYPE", "OMP_WAIT_POLICY") + (("PYTHONPATH",) if src else ())
    return {k: environ[k] for k in names if k in environ}
