"""The plumbing every workflow job runs through: the rule's thread budget, the configured
conventions file, logging to the rule's log file, clean failures, the record of the outputs
(:mod:`ltrconv.pipeline.records`), the TSV writer and readers that refuse a damaged input, a
fit's peak memory.

A job script (workflow/scripts/NAME.py) imports what it needs from here and ends with
``run(snakemake, main)``."""

from __future__ import annotations

import csv
import hashlib
import io
import logging
import os
import resource
import sys
import traceback
from pathlib import Path
from typing import Callable

from ltrconv import errors as _errors
from ltrconv.errors import LtrconvError
from ltrconv.outputs import atomic_path
from ltrconv.pipeline import records

# Thread pools sized from the environment when a library first starts them (OpenMP for
# LightGBM, the BLAS builds numpy and scipy ship, numexpr); numba is set at run time.
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "NUMBA_NUM_THREADS")


# The rankers' thread parameters (LightGBM's num_threads, Coordinate Ascent's n_jobs).
THREAD_PARAMS = ("num_threads", "n_jobs")


def thread_params(ranker: str) -> list[str]:
    """The thread parameters (:data:`THREAD_PARAMS`) registered ``ranker`` takes."""
    from ltrconv import rankers

    return [n for n in THREAD_PARAMS if n in rankers.param_names(ranker)]


def limit_threads(n: int) -> str:
    """Cap every thread pool of the job at ``n`` (the rule's ``threads``); says what is set,
    and how idle OpenMP threads wait (the workflow sets OMP_WAIT_POLICY, see
    :mod:`ltrconv.pipeline.environment`).

    Environment variables cover libraries not started yet and child processes; numba's
    ``set_num_threads`` and threadpoolctl cover the pools already loaded (numba's defaults to
    every core whatever OMP_NUM_THREADS says, but reads NUMBA_NUM_THREADS when imported: a job
    that has not imported it does not pay its import, ~0.4 s of CPU, to be told so)."""
    n = max(1, int(n))
    for var in THREAD_ENV:
        os.environ[var] = str(n)
    from threadpoolctl import threadpool_info, threadpool_limits

    numba = sys.modules.get("numba")
    if numba is not None:
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
        numba_threads = numba.get_num_threads()
    else:
        numba_threads = n
    threadpool_limits(limits=n)
    pools = ", ".join(f"{p['internal_api']} {p['num_threads']}"
                      + (f" ({p['architecture']})" if p.get("architecture") else "")
                      for p in threadpool_info())
    wait = os.environ.get("OMP_WAIT_POLICY", "unset")
    return (f"threads: numba {numba_threads}" + (f", {pools}" if pools else "")
            + f"; OMP_WAIT_POLICY {wait}")


def cap_threads(params: dict, names, threads: int, log=None) -> dict:
    """``params`` with the thread parameters ``names`` (LightGBM's num_threads, n_jobs) at most
    ``threads``: set when absent, lowered when configured higher or as -1 (all cores)."""
    out = dict(params)
    for name in names:
        asked = out.get(name)
        if name not in out:
            out[name] = threads
        elif isinstance(asked, int) and not isinstance(asked, bool) and (asked == -1 or asked > threads):
            if log is not None:
                log.info(f"{name}={asked} lowered to the rule's threads ({threads})")
            out[name] = threads
    return out


def reset_peak_rss() -> None:
    """Start a new peak-memory record for this process (Linux: clear_refs 5 resets VmHWM)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass  # elsewhere the peak stays the process's, from its start


CPU_LINE = "cpu:"
"""How the last line of a finished job's log begins (:func:`run`): its process's CPU seconds
from its start, exact where Snakemake's benchmark files sample them (Snakemake 9: every 0.5 s
for the first 15 s, then every 30 s, so a job's last seconds of CPU, up to 30 per thread, are
not in its benchmark file). ``benchmarks/job_cpu.py`` sums them over a run."""


def cpu_seconds() -> tuple[float, float]:
    """User and system CPU seconds of this process (every thread) and of the children it has
    waited for, from its start."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + kids.ru_utime, me.ru_stime + kids.ru_stime


def peak_rss_mb() -> float:
    """This process's peak resident memory, MiB, since the last reset where it can be reset."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux, bytes on macOS
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def load_conventions(smk):
    """The conventions (a ConventionSet) of config key ``conventions_file``: the built-in ones
    alone for a rule that does not depend on the file.

    Rules whose results depend on the definitions declare ``params.conventions_sha256`` (the
    file's digest when the job was scheduled) and ``params.conventions_file`` (its path,
    untracked); the file must still have that digest, so that no output is recorded under
    definitions other than those it was made with. The file is read once per job: when
    :func:`run` starts it (an error then ends the job before its work), and the script's own
    call gets the same set."""
    from ltrconv.data import conventions_file
    from ltrconv.evaluation.convention_set import BUILTINS

    expected = smk.params.get("conventions_sha256")
    if not expected:
        return BUILTINS
    path = smk.params.get("conventions_file").value
    if (path, expected) in _LOADED:  # read when the job started (run), handed to the script
        return _LOADED[path, expected]
    try:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as exc:
        raise LtrconvError(f"config key 'conventions_file': cannot read {path}: "
                           f"{exc.strerror or exc}") from None
    if digest != expected:
        raise LtrconvError(f"config key 'conventions_file': {path} changed after the workflow "
                           "started; run it again")
    _LOADED[path, expected] = conventions_file.load_conventions(path)
    return _LOADED[path, expected]


_LOADED: dict = {}
"""The conventions file a job read, by (path, digest): read once per job."""


def write_tsv(frame, path, float_format: str = "%.10g") -> None:
    """``frame`` as a tab-separated table at ``path``, written whole or not at all."""
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, sep="\t", index=False, float_format=float_format)


class DamagedInput(LtrconvError):
    """An input file that is not what its job wrote: cut short, or not of its format."""

    def __init__(self, path, why: str):
        super().__init__(f"{path}: {why}; remove it and run the workflow again to have it "
                         "made anew")


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def read_tsv(path):
    """A tab-separated table of the workflow's, as a DataFrame; :class:`DamagedInput` when it
    was cut short: every record ends with a newline and has as many fields as the header."""
    import pandas as pd

    try:
        text = Path(path).read_text(encoding="utf-8")
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter="\t", strict=True))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise DamagedInput(path, f"not a readable table ({_first_line(exc)})") from None
    if not rows:
        raise DamagedInput(path, "empty")
    if not text.endswith("\n"):
        raise DamagedInput(path, "cut short: its last line has no end")
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(rows[0]):
            raise DamagedInput(path, f"row {number} has {len(row)} fields, the header "
                                     f"{len(rows[0])}")
    return pd.read_csv(path, sep="\t")


def read_parquet(path, filters=None):
    """A Parquet table as a DataFrame (only the rows ``filters`` keeps, in pyarrow's form
    ``[(column, op, value), ...]``); :class:`DamagedInput` when it cannot be read."""
    import pandas as pd

    try:
        return pd.read_parquet(path, filters=filters)
    except Exception as exc:  # pyarrow's errors have no common base with OSError
        raise DamagedInput(path, f"not a readable Parquet file ({_first_line(exc)})") from None


def load_scores(path, n_docs: int):
    """One model's test scores (a .npy array of ``n_docs`` floats)."""
    import numpy as np

    try:
        scores = np.load(path)
    except (OSError, ValueError, EOFError) as exc:
        raise DamagedInput(path, f"not a readable .npy array ({_first_line(exc)})") from None
    if scores.shape != (n_docs,):
        raise DamagedInput(path, f"holds scores of shape {scores.shape}, the test split "
                                 f"{n_docs} documents")
    return scores


def check_checkout(scriptdir) -> None:
    """The ltrconv this job imports is the one of the checkout whose workflow runs it (its job
    scripts live in ``CHECKOUT/workflow/scripts``): :class:`LtrconvError` naming both when not."""
    src = Path(scriptdir).resolve().parents[1] / "src" / "ltrconv"
    here = Path(_errors.__file__).resolve().parent  # the ltrconv package imported
    if src.is_dir() and here != src:
        raise LtrconvError(f"job imported ltrconv from {here}, not from this workflow's "
                           f"checkout {src.parent}; install the checkout (pip install -e "
                           f"{src.parents[1]}) or put {src.parent} first on PYTHONPATH")


def run(snakemake, main: Callable[[object, logging.Logger], None]) -> None:
    """Call ``main(snakemake, log)`` with threads capped and the conventions file checked, then
    log the process's CPU seconds (:data:`CPU_LINE`) and record the outputs beside the log; a
    user error (a damaged input among them) becomes one line on stderr and exit 1."""
    log_path = snakemake.log[0] if len(snakemake.log) else None
    handlers = [logging.StreamHandler(sys.stderr)]
    if log_path:
        handlers.append(logging.FileHandler(log_path, mode="w"))
    # The job's own lines at INFO, the libraries' at WARNING: matplotlib's fontTools logs
    # hundreds of INFO lines per PDF it writes (its font subsetting), into log and terminal.
    logging.basicConfig(level=logging.WARNING, format="%(message)s", handlers=handlers,
                        force=True)
    logging.captureWarnings(True)  # e.g. DocidWarning from the reader, into the rule log
    log = logging.getLogger(f"ltrconv.job.{snakemake.rule}")
    log.setLevel(logging.INFO)
    if log_path:
        records.forget(log_path)
    try:
        if getattr(snakemake, "scriptdir", None):
            check_checkout(snakemake.scriptdir)
        log.info(limit_threads(snakemake.threads))
        load_conventions(snakemake)
        main(snakemake, log)
        user, system = cpu_seconds()
        log.info(f"{CPU_LINE} {user + system:.2f} s ({user:.2f} user + {system:.2f} system, the "
                 "job's process from its start)")
        if log_path:
            records.write(log_path, snakemake.rule, dict(snakemake.wildcards),
                                 snakemake.output)
    except LtrconvError as exc:
        _to_log_only(handlers, log_path)
        log.error(f"error in rule {snakemake.rule} {dict(snakemake.wildcards)}: {exc}")
        sys.exit(1)
    except Exception:
        _to_log_only(handlers, log_path)
        log.error(traceback.format_exc())
        sys.exit(1)


def _to_log_only(handlers: list, log_path) -> None:
    """Send what follows to the rule's log only: Snakemake prints a failed job's log
    (``show-failed-logs`` in both profiles), so the error is shown once, not twice."""
    if log_path:
        logging.getLogger().removeHandler(handlers[0])
