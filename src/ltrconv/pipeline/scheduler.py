"""How often Snakemake's scheduler wakes while jobs wait for a core, and its last wake-up.

Snakemake 9 (``scheduling/job_scheduler.py``) limits job submissions to ``max-jobs-per-timespan``
(default ``100/1s``) and, after every job selection, starts a ``threading.Timer`` that wakes the
scheduler again one timespan later. Each wake-up selects among every job that is ready, and first
stats every input file of each (``update_input_sizes``), whether or not a core is free. In the
extended run (``config/extended.yaml``: 169 jobs, about 100 of them ready from the start, each
with 15 or more inputs; 2-core AMD EPYC) the Snakemake process took 278 s of CPU against
1,000 s for all the jobs together (py-spy on the process: three quarters of its samples in the job
selection, most of those in the input files' ``exists`` and ``size``).

``profiles/default/config.yaml`` sets ``max-jobs-per-timespan: 100/10s``: a tenth of the
wake-ups (the process then took 132 s under py-spy, 92 s without it, and the whole run 1,164 s
of CPU where it took 1,427 s). A job that ends still wakes the scheduler at once, so no job
starts later for it. But the interpreter waits for the last timer before it exits
(``threading.Timer`` is not a daemon thread): one timespan more at the end of every run. The
workflow's ``onsuccess`` and ``onerror`` handlers therefore cancel it (:func:`cancel_wakeups`).
"""

from __future__ import annotations

import threading

SCHEDULER_MODULE = "snakemake.scheduling.job_scheduler"
"""The module whose function a Snakemake 9 scheduler timer calls (a lambda that wakes the
scheduler)."""


def cancel_wakeups(threads=None) -> int:
    """Cancel every pending ``threading.Timer`` of ``threads`` (default: the live threads) that
    calls a function of :data:`SCHEDULER_MODULE`; other timers run as set. Called once the
    scheduler has stopped (``onsuccess``, ``onerror``). Returns how many were cancelled."""
    cancelled = 0
    for thread in threading.enumerate() if threads is None else threads:
        function = getattr(thread, "function", None)
        if (isinstance(thread, threading.Timer) and thread.is_alive()
                and getattr(function, "__module__", None) == SCHEDULER_MODULE):
            thread.cancel()
            cancelled += 1
    return cancelled
