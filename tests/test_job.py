"""The plumbing every workflow job runs through (ltrconv.pipeline.job)."""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ltrconv.evaluation import conventions
from ltrconv.evaluation.convention_set import BUILTINS
from ltrconv.errors import LtrconvError
from ltrconv.pipeline import job as _job
from ltrconv.pipeline.untracked import Untracked

SRC = Path(__file__).resolve().parents[1] / "src"


def fresh_interpreter(code: str) -> str:
    """What ``code`` prints in a fresh interpreter on this checkout, no thread count set."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    env["PYTHONPATH"] = str(SRC)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120, check=True).stdout


def test_limit_threads_caps_numba_and_loaded_pools():
    """In a fresh interpreter (numba's pool is process-wide): numba starts with every core."""
    code = ("import sys, os; import numba; "
            "before = numba.get_num_threads(); from ltrconv.pipeline import job as _job; "
            "said = _job.limit_threads(1); "
            "from threadpoolctl import threadpool_info; "
            "print(before, numba.get_num_threads(), os.environ['OMP_NUM_THREADS'], "
            "os.environ['OPENBLAS_NUM_THREADS'], "
            "sorted({p['num_threads'] for p in threadpool_info()}), said)")
    out = fresh_interpreter(code).split(maxsplit=5)
    assert int(out[0]) == (os.cpu_count() or 1)
    assert out[1:5] == ["1", "1", "1", "[1]"]
    assert out[5].startswith("threads: numba 1")
    policy = os.environ.get("OMP_WAIT_POLICY", "unset")
    assert out[5].rstrip().endswith(f"; OMP_WAIT_POLICY {policy}")


def test_limit_threads_leaves_numba_unloaded_yet_capped():
    """A job that does not use numba does not import it; when it does later, numba starts with
    the rule's threads (from NUMBA_NUM_THREADS), not every core."""
    code = ("import sys; from ltrconv.pipeline import job as _job; said = _job.limit_threads(1); "
            "loaded = 'numba' in sys.modules; import numba; "
            "print(loaded, numba.get_num_threads(), said)")
    out = fresh_interpreter(code).split(maxsplit=2)
    assert out[:2] == ["False", "1"]
    assert out[2].startswith("threads: numba 1")


def run_job(log_path: Path, main: str, imports: str = "") -> subprocess.CompletedProcess:
    """Run ``job.run`` in a fresh interpreter on a job whose log is ``log_path`` and whose
    ``main(smk, log)`` has the body ``main`` (indented four spaces)."""
    code = f"""
{imports}
from types import SimpleNamespace
from ltrconv.pipeline import job
def main(smk, log):
{main}
smk = SimpleNamespace(log=[{str(log_path)!r}], rule="demo", threads=1, params={{}},
                      wildcards={{}}, output=[])
job.run(smk, main)
"""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_a_job_logs_its_lines_not_the_libraries_chatter(tmp_path):
    """The rule's log holds the job's INFO lines and every warning; a library's INFO lines (as
    fontTools writes hundreds per PDF) stay out of it and off the terminal."""
    log_path = tmp_path / "job.log"
    proc = run_job(log_path, """    log.info("the job's own line")
    logging.getLogger("fontTools.subset").info("Glyph names: chatter")
    logging.getLogger("somelib").warning("a library's warning")
    warnings.warn("a warning")""", "import logging, warnings")
    text = log_path.read_text()
    for line in ("threads: numba 1", "the job's own line", "a library's warning", "a warning"):
        assert line in text and line in proc.stderr, line
    assert "chatter" not in text and "chatter" not in proc.stderr


def test_a_finished_job_logs_its_cpu_seconds(tmp_path):
    """The last line of a finished job's log holds its process's CPU seconds from its start:
    at least what its main function spent (measured there) and what the interpreter spent
    before it; ``benchmarks/job_cpu.py`` reads it back."""
    log_path = tmp_path / "job.log"
    run_job(log_path, """    start = time.process_time()
    while time.process_time() - start < 0.3:
        pass
    log.info(f"before main {start!r}")""", "import time")
    lines = log_path.read_text().splitlines()
    assert lines[-1].startswith(_job.CPU_LINE), lines
    before = float(lines[-2].split()[-1])
    sys.path.insert(0, str(SRC.parent / "benchmarks"))
    try:
        from job_cpu import job_seconds
    finally:
        sys.path.pop(0)
    assert job_seconds(log_path) >= before + 0.3 - 0.005  # the line rounds to 0.01 s


def test_cap_threads():
    log = logging.getLogger("test")
    assert _job.cap_threads({}, ["num_threads"], 2) == {"num_threads": 2}
    assert _job.cap_threads({"n_jobs": -1, "num_threads": 8, "x": 1}, ["n_jobs", "num_threads"], 2,
                            log) == {"n_jobs": 2, "num_threads": 2, "x": 1}
    assert _job.cap_threads({"n_jobs": 1, "num_threads": None}, ["n_jobs", "num_threads"], 4) == \
        {"n_jobs": 1, "num_threads": None}  # lower values and the ranker's own None stay
    assert _job.cap_threads({"n_jobs": 3}, [], 1) == {"n_jobs": 3}  # not a parameter of the ranker


def fake_job(path: Path | None, digest: str | None):
    """A job as common.smk declares it: the file's digest, and its path untracked."""
    params = {"conventions_sha256": digest, "conventions_file": Untracked(str(path))}
    return SimpleNamespace(params=params if digest else {})


def test_load_conventions_only_where_declared_and_unchanged(tmp_path):
    path = tmp_path / "conv.yaml"
    path.write_text("conventions:\n  job-test-half: {base: ranklib, empty: 0.5}\n")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert _job.load_conventions(fake_job(path, None)) is BUILTINS  # the rule does not depend on it
    assert _job.load_conventions(fake_job(None, None)) is BUILTINS
    loaded = _job.load_conventions(fake_job(path, digest))
    assert [c.name for c in loaded.defined] == ["job-test-half"]
    assert loaded.get("job-test-half").empty == 0.5
    assert "job-test-half" not in conventions.names()  # the built-in conventions are as they were
    path.write_text("conventions:\n  job-test-half: {base: ranklib, empty: 0.25}\n")
    assert _job.load_conventions(fake_job(path, digest)) is loaded  # read once in a job
    _job._LOADED.clear()  # a later job, in a process of its own
    with pytest.raises(LtrconvError, match="changed after the workflow started"):
        _job.load_conventions(fake_job(path, digest))
    with pytest.raises(LtrconvError, match="cannot read"):
        _job.load_conventions(fake_job(tmp_path / "absent.yaml", digest))


def test_job_builds_rankers_without_scikit_learn():
    """A job's rankers have scikit-learn's parameters but not its second-long import
    (ltrconv.rankers.estimator)."""
    code = ("import sys; from types import SimpleNamespace\n"
            "from ltrconv.pipeline import job as _job\nfrom ltrconv import rankers\n"
            "def main(sm, log):\n"
            "    m = rankers.make('lambdamart', n_estimators=5)\n"
            "    print(m.get_params()['n_estimators'], type(m).__mro__[-2].__name__, "
            "'sklearn' in sys.modules)\n"
            "_job.run(SimpleNamespace(log=[], rule='train', wildcards={}, output=[], threads=1, "
            "params={}), main)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, PYTHONPATH=str(SRC)))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["5", "PlainEstimator", "False"]


def test_job_refuses_another_checkouts_ltrconv(tmp_path):
    """A job started from another checkout's workflow/scripts stops on one line naming both."""
    _job.check_checkout(SRC.parent / "workflow" / "scripts")  # this checkout's: nothing to say
    other = tmp_path / "other"
    (other / "src" / "ltrconv").mkdir(parents=True)
    with pytest.raises(LtrconvError, match=f"not from this workflow's checkout {other / 'src'}"):
        _job.check_checkout(other / "workflow" / "scripts")
    _job.check_checkout(tmp_path / "no-checkout" / "workflow" / "scripts")  # not a checkout
