"""Scattered training (config key scatter): which jobs a configuration makes, and the models
the scattered jobs gather, byte for byte those of the grouped jobs."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from workflow_helpers import FOLDS, REPO, SEEDS, VARIANTS, base_config, snakemake, write_dataset


# --- scattered training (config key scatter) --------------------------------------------------
SCATTER_ALGORITHMS = {
    "adarank": {"n_rounds": 5},
    "coordinate_ascent": {"n_restarts": 3, "n_steps": 10, "max_sweeps": 3},
    "ranknet": {"architectures": [[4], [3, 3]], "max_epochs": 3, "patience": 1},
    "lambdamart": None, "rankboost": None, "ranksvm": None,
}
# per fold and seed: 3 restarts + 2 architectures; AdaRank once (it is deterministic)
SCATTERED_JOBS = {"fit_unit": (3 + 2) * len(FOLDS) * len(SEEDS), "fit_fold": len(FOLDS),
                  "gather": 1 + 2 * len(SEEDS)}


def scatter_config(dataset_dir: Path, rows: int | None = None, **scatter) -> dict:
    cfg = base_config(dataset_dir)
    cfg.update(algorithms=SCATTER_ALGORITHMS, train_conventions=["ranklib"],
               variants={v: None for v in VARIANTS}, scatter=scatter,
               resources={"train_threads": {"ranknet": 2}})  # config.yaml's
    cfg["figures"].update(official_convention="ranklib",
                          figure1_algorithms=["adarank", "coordinate_ascent"])
    if rows is not None:
        cfg["datasets"]["SYN"]["resources"] = {"rows": rows}
    return cfg


def job_counts(out: str) -> dict[str, int]:
    """Rule -> jobs, from the job stats Snakemake prints."""
    table = out[out.index("Job stats:"):]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M)
            if m.group(1) != "total"}


def test_the_slurm_profile_scatters_every_dataset(tmp_path):
    """profiles/slurm's config entry, in a profile of its own, scatters a dataset that config
    alone would train in grouped jobs."""
    entry = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())["config"]
    profile = tmp_path / "profile"
    profile.mkdir()
    (profile / "config.yaml").write_text(yaml.safe_dump({"config": entry}))
    write_dataset(tmp_path / "SYN")
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(scatter_config(tmp_path / "SYN", mode="never")))
    proc = snakemake(tmp_path / "w", path, "-n", "--workflow-profile", str(profile), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    counts = job_counts(proc.stdout)
    assert {r: counts.get(r) for r in SCATTERED_JOBS} == SCATTERED_JOBS


@pytest.fixture(scope="module")
def scatter_runs(tmp_path_factory):
    """The models and test scores of the same configuration trained in grouped jobs and in
    scattered ones (snakemake --until train gather)."""
    root = tmp_path_factory.mktemp("scatter")
    write_dataset(root / "SYN")
    runs = {}
    for mode in ("never", "always"):
        path = root / f"{mode}.yaml"
        path.write_text(yaml.safe_dump(scatter_config(root / "SYN", mode=mode)))
        proc = snakemake(root / mode, path, "--until", "train", "gather", timeout=1800)
        assert proc.returncode == 0, proc.stderr[-4000:]
        runs[mode] = {"work": root / mode, "log": proc.stdout + proc.stderr}
    return runs


def test_scattered_jobs_write_the_grouped_jobs_models(scatter_runs):
    """Every model file and test-score array of the scattered run equals the grouped run's byte
    for byte: Coordinate Ascent's 3 restarts and RankNet's 2 architectures fitted in jobs of
    their own and gathered, AdaRank fitted fold by fold."""
    grouped, scattered = (scatter_runs[m]["work"] / "out" / "SYN" for m in ("never", "always"))
    files = sorted(p.relative_to(grouped) for p in (grouped / "models").rglob("*")
                   if p.suffix in (".pkl", ".npy"))
    assert len(files) == 2 * len(FOLDS) * SCATTERED_JOBS["gather"]
    for rel in files:
        assert (scattered / rel).read_bytes() == (grouped / rel).read_bytes(), rel
    # the jobs follow the plan's choice (which (rows, mode) scatters: tests/test_plan.py)
    counts = job_counts(scatter_runs["always"]["log"])
    assert {r: counts.get(r) for r in SCATTERED_JOBS} == SCATTERED_JOBS
    assert "train" not in counts
    counts = job_counts(scatter_runs["never"]["log"])
    assert counts["train"] == SCATTERED_JOBS["gather"]
    assert not {"fit_unit", "fit_fold", "gather"} & set(counts)
    assert not [p for p in (scattered / "parts").rglob("*") if p.is_file()]  # temporary
    # the grouped RankNet jobs trained their two networks on two threads
    logs = list((scatter_runs["never"]["work"] / "logs" / "SYN" / "train" / "ranknet")
                .rglob("train.log"))
    assert logs and all("threads: numba 2" in log.read_text() for log in logs), logs


def test_scattered_fit_records_and_gather_logs(scatter_runs):
    work = scatter_runs["always"]["work"]
    fits = pd.read_csv(work / "out" / "SYN" / "models" / "coordinate_ascent" / "ranklib" /
                       "seed1" / "fits.tsv", sep="\t")
    assert list(fits["fold"]) == FOLDS and (fits["s"] > 0).all() and (fits["max_rss"] > 0).all()
    log = (work / "logs" / "SYN" / "gather" / "coordinate_ascent" / "ranklib" / "seed1" /
           "gather.log").read_text()
    assert all(f"fold {f}: 3 restarts gathered, restart " in log for f in FOLDS), log
