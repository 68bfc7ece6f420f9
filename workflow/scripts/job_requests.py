"""Cluster requests of a job (memory, wall time, disk) from its measured peak RSS and wall time.

One measured run (Snakemake benchmark files of every job, on one dataset) gives, per rule and
per algorithm, the largest peak RSS ``max_rss`` (MB) and the longest wall time ``s`` (seconds)
over folds and training conventions. A job on a dataset ``scale`` times as large
(rows × features over the measured dataset's) requests

    mem_mb  = ceil_100(MEM_FACTOR × (max_rss + (scale − 1) × data_mb))
    runtime = max(MIN_RUNTIME, ceil(RUNTIME_FACTOR × s × scale / 60))       minutes
    disk_mb = ceil_100(DISK_FACTOR × dataset_mb × scale)

where ``data_mb`` is the measured dataset's feature matrix in float64 (rows × features × 8 B),
the part of the peak that grows with the data, and ``dataset_mb`` is the measured dataset's size
under ``resources_dir`` (acquire holds an archive, its extracted tree and the verified copy at
once; every other job writes less). A retry (``attempt`` 2) doubles memory and wall time.
"""

from __future__ import annotations

import math

MEM_FACTOR = 2.0
RUNTIME_FACTOR = 3.0
MIN_RUNTIME = 2
DISK_FACTOR = 3.0
RULES_BY_ALGORITHM = ("train", "evaluate")


def _ceil_100(x: float) -> int:
    return int(math.ceil(x / 100.0) * 100)


def data_mb(rows: int, features: int) -> float:
    """Size in MB of a float64 feature matrix of ``rows`` × ``features``."""
    return rows * features * 8 / 2**20


def request(max_rss: float, s: float, *, scale: float, data: float, dataset: float) -> dict:
    """mem_mb, runtime (minutes) and disk_mb of a job measured at ``max_rss`` MB and ``s``
    seconds, on a dataset ``scale`` times the measured one (``data``, ``dataset``: the measured
    feature matrix and stored dataset in MB)."""
    scale = max(float(scale), 1.0)
    return {
        "mem_mb": _ceil_100(MEM_FACTOR * (max_rss + (scale - 1.0) * data)),
        "runtime": max(MIN_RUNTIME, int(math.ceil(RUNTIME_FACTOR * s * scale / 60.0))),
        "disk_mb": _ceil_100(DISK_FACTOR * dataset * scale),
    }


def lookup(jobs: dict, rule: str, algorithm: str | None, base: str | None) -> dict:
    """The measured figures of ``rule`` (and ``algorithm``) in ``jobs``, config's
    ``resources.measured.jobs``. An algorithm without figures takes its base algorithm's, else
    the largest of the rule's; a rule without figures takes the largest over the measured rules
    other than ``train``: every unmeasured rule reads tables those rules wrote."""
    def largest(entries):
        entries = list(entries)
        return {"max_rss": max(e["max_rss"] for e in entries), "s": max(e["s"] for e in entries)}

    if rule in jobs:
        entry = jobs[rule]
        if rule not in RULES_BY_ALGORITHM:
            return entry
        for name in (algorithm, base):
            if name in entry:
                return entry[name]
        return largest(entry.values())
    light = []
    for name, entry in jobs.items():
        if name == "train":
            continue
        light += list(entry.values()) if name in RULES_BY_ALGORITHM else [entry]
    return largest(light)
