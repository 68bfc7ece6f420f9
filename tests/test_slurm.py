"""The workflow through a real Slurm (profiles/slurm): every job an sbatch submission.

Not in the default run (deselected by the ``slurm`` marker): start a Slurm first, e.g.
``scripts/slurm-single-node.sh start``, then ``python -m pytest -m slurm``. Skips where no Slurm
answers or no node is idle. Two configurations: a small synthetic one (one fold, one training
convention, three algorithms and config.yaml's variants of them), and a reduced study of
MSLR-WEB10K's shape (100,000 documents of 136 features, labels 0-4, two folds, the six
algorithms with small grids). The profile scatters the training (config key scatter): a job per
fold, and per restart of Coordinate Ascent and architecture of RankNet. Each Slurm job pays
Snakemake's own start-up, 20-40 s on two shared cores.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from ltrconv.data.synthetic import make_mslr_like

from ltrconv.pipeline import environment
from workflow_helpers import EVAL, REPO, VARIANTS, base_config, write_dataset, write_rotation

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


def run_through_slurm(root: Path, cfg: dict) -> dict:
    """``cfg`` run by Snakemake through profiles/slurm in ROOT/work."""
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    work = root / "work"
    cmd = ["snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(work),
           "--workflow-profile", str(PROFILE), "--configfile", str(path),
           "--slurm-keep-successful-logs"]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3 * 3600, env=env)
    wall = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr[-4000:]
    print(f"slurm run: {wall:.0f} s wall")
    return {"work": work, "results": work / "out" / "SYN", "log": proc.stdout + proc.stderr,
            "config": cfg}


@pytest.fixture(scope="module")
def slurm_run(tmp_path_factory):
    _slurm_or_skip()
    root = tmp_path_factory.mktemp("slurm")
    write_dataset(root / "SYN")
    cfg = base_config(root / "SYN")
    cfg.update(folds=[1], train_conventions=["ranklib"], algorithms=ALGORITHMS)
    cfg["figures"].update(figure1_algorithms=["adarank", "lambdamart"])
    return run_through_slurm(root, cfg)


def went_through_sbatch(run: dict) -> dict[str, str]:
    """Check that every job but the target rule was an sbatch submission that ran its own
    Snakemake job; Snakemake job id -> rule."""
    log = run["log"]
    submitted = dict(SUBMITTED.findall(log))
    finished = {job: rule for job, rule in FINISHED.findall(log)}
    local = {job for job, rule in finished.items() if rule == "all"}  # the target rule runs in place
    assert len(finished) > 20, log[-2000:]
    assert set(finished) - local == set(submitted), sorted(set(finished) ^ set(submitted))
    assert len(set(submitted.values())) == len(submitted)  # one Slurm job per Snakemake job
    # and ran there: the log Slurm wrote for each job id holds the job's own Snakemake run
    logs = {p.stem: p for p in (run["work"] / ".snakemake" / "slurm_logs").rglob("*.log")}
    for job, slurm_id in submitted.items():
        assert slurm_id in logs, (job, slurm_id)
        text = logs[slurm_id].read_text()
        assert f"(Rule: {finished[job]})" in text and "1 of 1 steps (100%) done" in text, text[-1000:]
    print(f"{len(submitted)} jobs submitted through sbatch")
    return {job: finished[job] for job in submitted}


def test_every_job_went_through_sbatch(slurm_run):
    went_through_sbatch(slurm_run)


def test_outputs_exist(slurm_run):
    res = slurm_run["results"]
    for name in ("summary", "fold_means", "audit", "runtime"):
        assert (res / "tables" / f"{name}.tsv").stat().st_size > 0, name
    for name in ("figure1", "figure2", "runtime"):
        assert (res / "figures" / f"{name}.pdf").stat().st_size > 0, name
    assert (res / "claims.md").read_text().startswith("#")
    scores = list((res / "models").rglob("*.test_scores.npy"))
    enabled = [a for a, params in ALGORITHMS.items() if params is not None]
    variants = [v for v, spec in VARIANTS.items() if spec["of"] in enabled]
    assert len(scores) == len(enabled) + len(variants) == 7  # one fold, one convention


def test_jobs_asked_for_the_derived_requests(slurm_run):
    """Each job carried its rule's derived requests (Snakemake's log lists them), the disk one
    included (Snakemake's default for a rule without input files is 50 GB)."""
    from ltrconv.pipeline import resources as job_requests

    measured = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["resources"]["measured"]
    log = slurm_run["log"]
    blocks = re.findall(r"^rule (\w+):\n(?:    .*\n)*?    resources: (.*)$", log, re.M)
    # the profile scatters the training: fit_fold and gather jobs in place of train jobs
    assert {rule for rule, _ in blocks} >= {"acquire", "fit_fold", "gather", "evaluate",
                                            "report_pages"}
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


# --- a reduced study of MSLR-WEB10K's shape, scattered ------------------------------------------
MSLR_DOCS = 100_000
MSLR_FOLDS = [1, 2]
MSLR_ALGORITHMS = {
    "adarank": {"n_rounds": 10},
    "coordinate_ascent": {"n_restarts": 3, "max_sweeps": 2},
    "lambdamart": {"n_estimators": 10, "early_stopping_rounds": 5, "min_data_in_leaf": 5},
    "rankboost": {"n_rounds": 10},
    "ranknet": {"architectures": [[10], [20, 10]], "max_epochs": 3, "patience": 1},
    "ranksvm": {"C_grid": [1.0]},
}
UNIT_JOBS = {"coordinate_ascent": 3, "ranknet": 2}  # per fold
SINGLE_FIT = """
import json
import sys
import numpy as np
from ltrconv import rankers
from ltrconv.data.letor import Dataset
cache, algorithm, params, model_out, scores_out = sys.argv[1:6]
train, vali, test = (Dataset.load(f"{cache}/{split}.npz") for split in ("train", "vali", "test"))
model = rankers.make(algorithm, metric="ndcg@10:ranklib", **json.loads(params))
model.fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid,
          docid=train.docid, docid_val=vali.docid)
model.save(model_out)
np.save(scores_out, model.predict(test.X))
"""


def write_mslr_like(root: Path) -> int:
    """Fold1 and Fold2 (LETOR rotation of five parts) of MSLR_DOCS MSLR-shaped documents with
    docids; the number of queries."""
    data = make_mslr_like(MSLR_DOCS, seed=3)
    data = dataclasses.replace(data, docid=np.array([f"D{i:06d}" for i in range(data.n_docs)]))
    write_rotation(data, root, MSLR_FOLDS)
    return data.n_queries


@pytest.fixture(scope="module")
def mslr_run(tmp_path_factory):
    _slurm_or_skip()
    root = tmp_path_factory.mktemp("slurm_mslr")
    n_queries = write_mslr_like(root / "SYN")
    cfg = base_config(root / "SYN")
    cfg["datasets"]["SYN"].update(
        labels=[0, 1, 2, 3, 4], n_features=136, expect={"queries": n_queries, "rows": MSLR_DOCS},
        layout={"n_folds": len(MSLR_FOLDS), "fold_dir": "Fold{k}", "train": "train.txt",
                "vali": "vali.txt", "test": "test.txt"})
    cfg.update(folds=MSLR_FOLDS, seeds=[0], train_conventions=["ranklib"],
               algorithms=MSLR_ALGORITHMS, eval_conventions=EVAL,
               variants={v: None for v in yaml.safe_load(
                   (REPO / "config" / "config.yaml").read_text())["variants"]},
               extensions={"ties": False, "winning": False, "audit": False})
    cfg["figures"].update(official_convention="ranklib",
                          figure1_algorithms=["adarank", "coordinate_ascent"])
    return run_through_slurm(root, cfg)


def test_mslr_training_was_scattered_through_sbatch(mslr_run):
    """One Slurm job per fold for the whole fits, per fold and restart or architecture for
    Coordinate Ascent and RankNet, one gather job per algorithm; no train job."""
    jobs = list(went_through_sbatch(mslr_run).values())
    n = len(MSLR_FOLDS)
    assert jobs.count("fit_unit") == n * sum(UNIT_JOBS.values())
    assert jobs.count("fit_fold") == n * (len(MSLR_ALGORITHMS) - len(UNIT_JOBS))
    assert jobs.count("gather") == len(MSLR_ALGORITHMS) and "train" not in jobs
    res = mslr_run["results"]
    assert (res / "tables" / "summary.tsv").stat().st_size > 0
    assert (res / "claims.md").read_text().startswith("#")


@pytest.mark.parametrize("algorithm", sorted(UNIT_JOBS))
def test_mslr_gathered_models_equal_single_fits(mslr_run, algorithm, tmp_path):
    """The model file and test scores gathered from the unit jobs of each fold are those of one
    fit of every unit in a process of its own (the jobs' OpenBLAS kernels), byte for byte."""
    from ltrconv import rankers

    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    environment.pin(env)
    params = dict(MSLR_ALGORITHMS[algorithm])
    params.update({n: 1 for n in ("n_jobs",) if n in rankers.param_names(algorithm)})
    for fold in MSLR_FOLDS:
        cache = mslr_run["work"] / "resources" / "SYN" / "cache" / f"fold{fold}"
        out = [tmp_path / f"{algorithm}{fold}.pkl", tmp_path / f"{algorithm}{fold}.npy"]
        proc = subprocess.run([sys.executable, "-c", SINGLE_FIT, str(cache), algorithm,
                               json.dumps(params), *map(str, out)], env=env, capture_output=True,
                              text=True, timeout=1800)
        assert proc.returncode == 0, proc.stderr[-2000:]
        stem = mslr_run["results"] / "models" / algorithm / "ranklib" / f"fold{fold}"
        assert Path(f"{stem}.pkl").read_bytes() == out[0].read_bytes(), (algorithm, fold)
        assert np.array_equal(np.load(f"{stem}.test_scores.npy"), np.load(out[1]))


def test_mslr_unit_jobs_asked_for_their_requests(mslr_run):
    """Each fit_unit job carried the request ltrconv.pipeline.resources derives for its algorithm on a
    dataset of this one's rows x features."""
    from ltrconv.pipeline import resources as job_requests

    measured = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["resources"]["measured"]
    ref = measured["reference"]
    scale = MSLR_DOCS * 136 / (ref["rows"] * ref["features"])
    blocks = re.findall(r"^rule fit_unit:\n((?:    .*\n)*?    resources: .*)$", mslr_run["log"], re.M)
    assert len(blocks) == len(MSLR_FOLDS) * sum(UNIT_JOBS.values())
    for block in blocks:
        algorithm = re.search(r"wildcards: .*algorithm=(\w+)", block).group(1)
        fields = dict(kv.split("=", 1) for kv in block.splitlines()[-1].split(": ", 1)[1].split(", ")
                      if "=" in kv)
        want = job_requests.for_rule(measured, "fit_unit", algorithm, scale=scale)
        assert int(fields["mem_mb"]) == want["mem_mb"] and int(fields["runtime"]) == want["runtime"]
