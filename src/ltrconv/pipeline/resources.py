"""Cluster requests of a job (memory, wall time, disk) from its measured peak RSS and wall time.

One measured run (Snakemake benchmark files of every job, on one dataset) gives, per rule and
per algorithm, the largest peak RSS ``max_rss`` (MB) and the longest wall time ``s`` (seconds)
over folds and training conventions. A Slurm job also runs Snakemake itself around the rule's
script, which adds its own resident memory ``job_rss`` and start-up time ``job_s``. On a dataset
``scale`` times as large (rows × features over the measured dataset's) a job requests

    mem_mb  = ceil_100(MEM_FACTOR × (max_rss + job_rss + (scale − 1) × data_mb))
    runtime = max(MIN_RUNTIME, ceil(RUNTIME_FACTOR × (s × scale + job_s) / 60))   minutes
    disk_mb = ceil_100(DISK_FACTOR × dataset_mb × scale)

where ``data_mb`` is the measured dataset's feature matrix in float64 (rows × features × 8 B),
the part of the peak that grows with the data, and ``dataset_mb`` is the measured dataset's size
under ``resources_dir`` (acquire holds an archive, its extracted tree and the verified copy at
once; every other job writes less). MIN_RUNTIME covers jobs of a few seconds on a node shared
with other work, where wall times stretch several-fold. A retry (``attempt`` 2) doubles memory
and wall time. The training rules of a scattered dataset (``fit_fold``, ``fit_unit``) without
figures of their own take those of ``train``, whose job does more: every fold, every unit.
"""

from __future__ import annotations

import math

MEM_FACTOR = 2.0
RUNTIME_FACTOR = 3.0
MIN_RUNTIME = 10
DISK_FACTOR = 3.0
RULES_BY_ALGORITHM = ("train", "train_shared", "evaluate", "fit_fold", "fit_fold_shared",
                      "fit_unit", "fit_unit_shared", "gather")
TRAINING = ("train", "train_shared", "fit_fold", "fit_fold_shared", "fit_unit",
            "fit_unit_shared")
# a rule without figures: whose to take (a shared training job trains as much as one train job
# and selects under each convention, milliseconds more)
STANDS_IN = {"fit_fold": "train", "fit_unit": "train", "train_shared": "train",
             "fit_fold_shared": "fit_fold", "fit_unit_shared": "fit_unit"}
# The study's jobs hold one chunk of the per-query table at a time (at most
# ltrconv.study.per_query_store.BUDGET rows, or one algorithm's scores under one evaluation
# convention and metric type when that is more), and the writer streams it: their peak grows
# with the dataset's queries, not with its feature matrix. MB of peak per step of the measured
# dataset's rows: (peak at 13x MQ2008's queries - peak at 1x) / (78.9 - 1), 78.9 being
# MSLR-WEB10K's rows over MQ2008's (1,200,192 / 15,211) for its 12.8x queries; measured with
# benchmarks/bench_study_memory.py on the extended configuration's table (19.4M rows at 1x,
# 252M at 13x), rounded up, from the lowest peak measured at 1x: e.g. aggregate 782 -> 1,501 MB,
# seed_tables 775 -> 1,559 MB, ties_table 252 -> 819 MB.
STUDY_GROWTH_MB = {"per_query": 9.0, "aggregate": 10.0, "seed_tables": 11.0, "ties_table": 8.0,
                   "implementation": 1.0, "claims": 6.0, "library_tables": 9.0,
                   # tables and figures drawn from the aggregates (the benchmark's
                   # library_order, winning and figure2: 177 -> 316 MB)
                   "library_order": 2.0, "winning": 2.0, "figure1": 2.0, "figure2": 2.0,
                   "implementation_figure": 2.0, "library_figure": 2.0}


def _ceil_100(x: float) -> int:
    return int(math.ceil(x / 100.0) * 100)


def data_mb(rows: int, features: int) -> float:
    """Size in MB of a float64 feature matrix of ``rows`` × ``features``."""
    return rows * features * 8 / 2**20


def request(max_rss: float, s: float, *, scale: float, data: float, dataset: float,
            job_rss: float = 0.0, job_s: float = 0.0) -> dict:
    """mem_mb, runtime (minutes) and disk_mb of a job measured at ``max_rss`` MB and ``s``
    seconds, on a dataset ``scale`` times the measured one (``data``, ``dataset``: the measured
    feature matrix and stored dataset in MB; ``job_rss``, ``job_s``: Snakemake's own memory and
    start-up inside the job)."""
    scale = max(float(scale), 1.0)
    return {
        "mem_mb": _ceil_100(MEM_FACTOR * (max_rss + job_rss + (scale - 1.0) * data)),
        "runtime": max(MIN_RUNTIME, int(math.ceil(RUNTIME_FACTOR * (s * scale + job_s) / 60.0))),
        "disk_mb": _ceil_100(DISK_FACTOR * dataset * scale),
    }


def lookup(jobs: dict, rule: str, algorithm: str | None, base: str | None) -> dict:
    """The measured figures of ``rule`` (and ``algorithm``) in ``jobs``, config's
    ``resources.measured.jobs``. An algorithm without figures takes its base algorithm's, else
    the largest of the rule's; a training rule without figures takes those of the rule in
    ``STANDS_IN``, any other rule the largest over the measured rules other than the training
    ones: every unmeasured rule reads tables those rules wrote."""
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
    if rule in STANDS_IN:
        return lookup(jobs, STANDS_IN[rule], algorithm, base)
    light = []
    for name, entry in jobs.items():
        if name in TRAINING:
            continue
        light += list(entry.values()) if name in RULES_BY_ALGORITHM else [entry]
    return largest(light)


def for_rule(measured: dict, rule: str, algorithm: str | None = None, base: str | None = None,
             scale: float = 1.0, rows_scale: float | None = None) -> dict:
    """The requests of a job of ``rule`` (``algorithm``, a variant of ``base``) from config's
    ``resources.measured``, on a dataset ``scale`` times the measured one (rows x features;
    ``rows_scale``: rows alone, which scale the study's jobs: ``data`` is then the rule's
    :data:`STUDY_GROWTH_MB`)."""
    ref, job = measured["reference"], measured.get("slurm_job", {})
    figures = lookup(measured["jobs"], rule, algorithm, base)
    if rule in STUDY_GROWTH_MB:
        return request(figures["max_rss"], figures["s"],
                       scale=scale if rows_scale is None else rows_scale,
                       data=STUDY_GROWTH_MB[rule], dataset=ref["dataset_mb"],
                       job_rss=job.get("max_rss", 0.0), job_s=job.get("s", 0.0))
    return request(figures["max_rss"], figures["s"], scale=scale,
                   data=data_mb(ref["rows"], ref["features"]), dataset=ref["dataset_mb"],
                   job_rss=job.get("max_rss", 0.0), job_s=job.get("s", 0.0))


def job_request(plan, rule: str, dataset: str | None, algorithm: str | None) -> dict:
    """mem_mb, runtime and disk_mb of one job of ``rule`` (on ``dataset``, for ``algorithm``)
    under ``plan`` (:class:`~ltrconv.pipeline.plan.Plan` with config key resources.measured),
    with the dataset's hand-set requests (datasets.NAME.resources) on top. A study-wide job
    (winning numbers, the study's pages) reads every dataset's tables: it is scaled as the
    largest, and no dataset's hand-set requests apply to it."""
    measured = plan.config["resources"]["measured"]
    chosen = [plan.datasets[dataset]] if dataset else list(plan.datasets.values())
    scale = max(d.scale for d in chosen)
    rows_scale = max(d.rows_scale for d in chosen)
    base = plan.algorithms[algorithm].base if algorithm else None
    req = for_rule(measured, rule, algorithm, base, scale=scale, rows_scale=rows_scale)
    if not dataset:
        return req
    by_hand = plan.datasets[dataset].spec["resources"].get(rule, {})
    if rule in RULES_BY_ALGORITHM:
        by_hand = ({k: v for k, v in by_hand.items() if not isinstance(v, dict)}
                   | by_hand.get(algorithm, {}))
    return {**req, **by_hand}


def job_priority(plan, rule: str):
    """The Snakemake ``priority`` of a job of ``rule``: its measured seconds (config
    resources.measured, the CPU time of the MQ2008 run's job, as :func:`lookup` finds it),
    scaled with its dataset as its wall-time request is; 0 without measured figures.
    Snakemake starts first the ready jobs whose priorities sum highest within the cores, so
    the longest training jobs start first and the short ones fill the cores around them
    (longest-first list scheduling): a job that needs both cores does not wait for a long
    single-threaded one that started just before it, one core idle."""
    measured = plan.config["resources"].get("measured")
    if not measured:
        return 0

    def priority(wc) -> int:
        dataset, algorithm = wc.get("dataset"), wc.get("algorithm")
        chosen = [plan.datasets[dataset]] if dataset else list(plan.datasets.values())
        base = plan.algorithms[algorithm].base if algorithm else None
        figures = lookup(measured["jobs"], rule, algorithm, base)
        return int(math.ceil(figures["s"] * max(max(d.scale for d in chosen), 1.0)))

    return priority


def job_resources(plan, rule: str) -> dict:
    """The ``resources`` of ``rule``: cluster requests per job, derived from measured figures
    (config resources.measured) when config has them, else resources.train/light. A retry
    (``attempt`` 2) asks for twice the memory and wall time."""
    res = plan.config["resources"]
    if "measured" not in res:
        fixed = res["train" if rule == "train" else "light"]
        return dict(mem_mb=fixed["mem_mb"], runtime=fixed["runtime"])

    def request(wc):
        return job_request(plan, rule, wc.get("dataset"), wc.get("algorithm"))

    return dict(mem_mb=lambda wildcards, attempt: request(wildcards)["mem_mb"] * attempt,
                runtime=lambda wildcards, attempt: request(wildcards)["runtime"] * attempt,
                disk_mb=lambda wildcards: request(wildcards)["disk_mb"])
