"""The workflow through a real Slurm (profiles/slurm): every job an sbatch submission.

Not in the default run (deselected by the ``slurm`` marker): start a Slurm first, e.g.
``scripts/slurm-single-node.sh start``, then ``python -m pytest -m slurm``. Skips where no Slurm
answers or no node is idle. The configuration is a small synthetic one (one fold, one training
convention, three algorithms and config.yaml's variants of them): each Slurm job pays
Snakemake's own start-up, 20-40 s on two shared cores.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from test_workflow import EVAL, REPO, base_config, write_dataset

pytestmark = pytest.mark.slurm

ALGORITHMS = {
    "adarank": {"n_rounds": 5},
    "lambdamart": {"n_estimators": 5, "early_stopping_rounds": 2, "min_data_in_leaf": 5},
    "rankboost": {"n_rounds": 5},
    "coordinate_ascent": None,
    "ranknet": None,
    "ranksvm": None,
}
PROFILE = REPO / "profiles" / "slurm"
PARTITION = yaml.safe_load((PROFILE / "config.yaml").read_text())["default-resources"]["slurm_partition"]
SUBMITTED = re.compile(r"^Job (\d+) has been submitted with SLURM jobid (\d+)", re.M)
FINISHED = re.compile(r"^Finished jobid: (\d+) \(Rule: (\w+)\)", re.M)


def _slurm_or_skip():
    for tool in ("sinfo", "sbatch", "squeue"):
        if shutil.which(tool) is None:
            pytest.skip(f"no Slurm here ({tool} not on PATH); scripts/slurm-single-node.sh start")
    try:
        import snakemake_executor_plugin_slurm  # noqa: F401
    except ImportError:
        pytest.skip('snakemake-executor-plugin-slurm not installed (pip install -e ".[slurm]")')
    proc = subprocess.run(["sinfo", "-h", "-p", PARTITION, "-t", "idle,mixed", "-o", "%n"],
                          capture_output=True, text=True, timeout=30)
    if proc.returncode != 0:
        pytest.skip(f"Slurm does not answer: {proc.stderr.strip()[:200]}")
    if not proc.stdout.strip():
        pytest.skip(f"no idle node in partition {PARTITION!r} of profiles/slurm "
                    "(scripts/slurm-single-node.sh start)")


@pytest.fixture(scope="module")
def slurm_run(tmp_path_factory):
    _slurm_or_skip()
    root = tmp_path_factory.mktemp("slurm")
    write_dataset(root / "SYN")
    cfg = base_config(root / "SYN")
    cfg.update(folds=[1], train_conventions=["ranklib"], algorithms=ALGORITHMS)
    cfg["figures"].update(figure1_algorithms=["adarank", "lambdamart"])
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    work = root / "work"
    cmd = ["snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(work),
           "--workflow-profile", str(PROFILE), "--configfile", str(path),
           "--slurm-keep-successful-logs"]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=env)
    wall = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr[-4000:]
    log = proc.stdout + proc.stderr
    print(f"slurm run: {wall:.0f} s wall")
    return {"work": work, "results": work / "out" / "SYN", "log": log}


def test_every_job_went_through_sbatch(slurm_run):
    log = slurm_run["log"]
    submitted = dict(SUBMITTED.findall(log))
    finished = {job: rule for job, rule in FINISHED.findall(log)}
    local = {job for job, rule in finished.items() if rule == "all"}  # the target rule runs in place
    assert len(finished) > 20, log[-2000:]
    assert set(finished) - local == set(submitted), sorted(set(finished) ^ set(submitted))
    assert len(set(submitted.values())) == len(submitted)  # one Slurm job per Snakemake job
    # and ran there: the log Slurm wrote for each job id holds the job's own Snakemake run
    logs = {p.stem: p for p in (slurm_run["work"] / ".snakemake" / "slurm_logs").rglob("*.log")}
    for job, slurm_id in submitted.items():
        assert slurm_id in logs, (job, slurm_id)
        text = logs[slurm_id].read_text()
        assert f"(Rule: {finished[job]})" in text and "1 of 1 steps (100%) done" in text, text[-1000:]
    print(f"{len(submitted)} jobs submitted through sbatch")


def test_outputs_exist(slurm_run):
    res = slurm_run["results"]
    for name in ("summary", "fold_means", "audit", "runtime"):
        assert (res / "tables" / f"{name}.tsv").stat().st_size > 0, name
    for name in ("figure1", "figure2", "runtime"):
        assert (res / "figures" / f"{name}.pdf").stat().st_size > 0, name
    assert (res / "claims.md").read_text().startswith("#")
    scores = list((res / "models").rglob("*.test_scores.npy"))
    assert len(scores) == 6  # 3 algorithms + 3 variants, one fold, one convention


def test_jobs_asked_for_the_derived_requests(slurm_run):
    """Each job carried its rule's derived requests (Snakemake's log lists them), the disk one
    included (Snakemake's default for a rule without input files is 50 GB)."""
    import sys

    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import job_requests

    measured = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["resources"]["measured"]
    log = slurm_run["log"]
    blocks = re.findall(r"^rule (\w+):\n(?:    .*\n)*?    resources: (.*)$", log, re.M)
    assert {rule for rule, _ in blocks} >= {"acquire", "train", "evaluate", "report_pages"}
    for rule, res in blocks:
        if rule == "all":
            continue
        fields = dict(kv.split("=", 1) for kv in res.split(", ") if "=" in kv)
        want = job_requests.for_rule(measured, rule)
        assert int(fields["disk_mb"]) == want["disk_mb"], (rule, res)
        assert fields["slurm_partition"] == PARTITION, (rule, res)
        if rule not in job_requests.RULES_BY_ALGORITHM:
            assert int(fields["mem_mb"]) == want["mem_mb"], (rule, res)
            assert int(fields["runtime"]) == want["runtime"], (rule, res)
