"""The provenance record of one dataset's results (RESULTS/DATASET/provenance.json, rule
provenance): the machine's part (:func:`ltrconv.study.provenance.environment`) and the run's:
the dataset, the digests of its data files as the acquire job verified them, the
configuration's digest and the seeds."""

from __future__ import annotations

import hashlib
import json

from ltrconv.pipeline import datasets
from ltrconv.pipeline.plan import Plan

WHERE = ("results_dir", "resources_dir", "logs_dir", "offline", "download")
"""Configuration keys that say where files go and how data is fetched, not what is computed:
left out of the configuration's digest (so are the datasets' locations and URLs, and the
datasets not enabled: each enabled dataset enters as :func:`ltrconv.pipeline.datasets
.identity`)."""


HOW = ("resources", "scatter")
"""Configuration keys that say how the jobs run (threads, memory and time requests, one job
or many), never what they compute: a scattered fit gathers the grouped job's model files byte
for byte (tests/test_workflow_scatter.py), and a model file holds no thread count
(:mod:`ltrconv.rankers.modelfile`). Left out of the configuration's digest too."""


def study_config(plan: Plan) -> dict:
    """The configuration that decides the results: the merged configuration less :data:`WHERE`
    and :data:`HOW`, with each enabled dataset as what it is rather than where it is found,
    and the folds as the numbers run."""
    cfg = {k: v for k, v in plan.config.items()
           if k not in WHERE + HOW and k != "datasets"}
    cfg["datasets"] = {d: datasets.identity(plan, d) for d in plan.datasets}
    cfg["folds"] = list(plan.folds)  # the folds run, however named (a list, or "all")
    return cfg


def config_digest(plan: Plan) -> str:
    """SHA-256 of :func:`study_config` as canonical JSON (sorted keys)."""
    text = json.dumps(study_config(plan), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def run_params(plan: Plan) -> dict:
    """What the run adds to the machine's record, as the rule's params (the same for every
    dataset): the configuration's digest, the seeds, the random algorithms and the folds."""
    return {
        "config": {"sha256": config_digest(plan), "left_out": list(WHERE + HOW)},
        "seeds": list(plan.seeds),
        "random_algorithms": [a for a, p in plan.algorithms.items() if p.random],
        "folds": list(plan.folds),
    }


def record(environment: dict, run: dict, dataset: str, manifest: list[dict]) -> dict:
    """The record of ``dataset``'s results: the machine's part, the run's (:func:`run_params`)
    and the data files' SHA-256 from the acquire job's ``manifest`` (rows of
    ltrconv.data.verify.read_manifest)."""
    return {**environment, **run, "dataset": dataset,
            "data": {m["file"]: m["sha256"] for m in manifest}}
