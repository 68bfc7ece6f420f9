"""Cluster requests from measured figures (ltrconv.pipeline.resources) and the script that
re-derives the figures from a run's benchmark files (benchmarks/job_resources.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import yaml

from ltrconv.pipeline import resources as job_requests

REPO = Path(__file__).resolve().parents[1]

MEASURED = {
    "reference": {"dataset": "D", "rows": 1000, "features": 10, "dataset_mb": 40},
    "slurm_job": {"max_rss": 300, "s": 30},
    "jobs": {
        "acquire": {"max_rss": 100, "s": 1},
        "aggregate": {"max_rss": 1000, "s": 14},
        "evaluate": {"adarank": {"max_rss": 250, "s": 6}},
        "train": {"adarank": {"max_rss": 290, "s": 5}, "coordinate_ascent": {"max_rss": 300, "s": 960}},
    },
}


def test_request_formula():
    # 2 x (300 + 300) MB; 3 x (960 + 30) s = 49.5 min -> 50; 3 x 40 MB -> 200 MB
    assert job_requests.for_rule(MEASURED, "train", "coordinate_ascent") == \
        {"mem_mb": 1200, "runtime": 50, "disk_mb": 200}
    # a job of seconds gets the floor
    assert job_requests.for_rule(MEASURED, "acquire")["runtime"] == job_requests.MIN_RUNTIME


def test_request_scales_with_the_dataset():
    data = job_requests.data_mb(1000, 10)
    small = job_requests.for_rule(MEASURED, "train", "coordinate_ascent")
    big = job_requests.for_rule(MEASURED, "train", "coordinate_ascent", scale=4.0)
    assert big["runtime"] == -(-3 * (960 * 4 + 30) // 60)
    assert big["disk_mb"] == 500  # 3 x 40 x 4 = 480, rounded up
    assert big["mem_mb"] >= small["mem_mb"] + 2 * 3 * data - 100
    # a dataset smaller than the measured one asks for no less
    assert job_requests.for_rule(MEASURED, "train", "coordinate_ascent", scale=0.1) == small


def test_lookup_fallbacks():
    jobs = MEASURED["jobs"]
    # a variant takes its base algorithm's figures, an unknown algorithm the rule's largest
    assert job_requests.lookup(jobs, "train", "adarank_variant", "adarank") == jobs["train"]["adarank"]
    assert job_requests.lookup(jobs, "train", "new", None) == {"max_rss": 300, "s": 960}
    # a rule without figures takes the largest over the measured rules but train
    assert job_requests.lookup(jobs, "figure1", None, None) == {"max_rss": 1000, "s": 14}
    # a scattered dataset's training rules without figures take train's, per algorithm; with
    # figures, their own, which the light rules' fallback leaves out
    assert job_requests.lookup(jobs, "fit_unit", "coordinate_ascent", None) == \
        jobs["train"]["coordinate_ascent"]
    assert job_requests.lookup(jobs, "fit_fold", "adarank_variant", "adarank") == \
        jobs["train"]["adarank"]
    with_units = {**jobs, "fit_unit": {"ranknet": {"max_rss": 5000, "s": 2}}}
    assert job_requests.lookup(with_units, "fit_unit", "ranknet", None) == {"max_rss": 5000, "s": 2}
    assert job_requests.lookup(with_units, "figure1", None, None) == {"max_rss": 1000, "s": 14}


def test_config_has_figures_for_every_measured_rule():
    measured = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["resources"]["measured"]
    assert {"acquire", "prepare", "train", "evaluate", "aggregate"} <= set(measured["jobs"])
    for rule in measured["jobs"]:
        req = job_requests.for_rule(measured, rule)
        assert req["mem_mb"] >= 2 * measured["slurm_job"]["max_rss"]
        assert req["runtime"] >= job_requests.MIN_RUNTIME and req["disk_mb"] > 0


def _script():
    spec = importlib.util.spec_from_file_location("job_resources", REPO / "benchmarks" / "job_resources.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_script_derives_the_measured_block(tmp_path, capsys):
    bench = tmp_path / "results" / "MQ2008" / "bench"
    head = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    files = {"acquire.tsv": (0.64, 104.12), "train/adarank/yahoo/fold1.tsv": (4.2, 290.5),
             "train/adarank/letor/fold2.tsv": (4.87, 292.59)}
    for name, (s, rss) in files.items():
        (bench / name).parent.mkdir(parents=True, exist_ok=True)
        (bench / name).write_text(head + f"{s}\t0:00:04\t{rss}\t1\t1\t1\t1\t0\t50\t{s / 2}\n")
    (tmp_path / "resources" / "MQ2008").mkdir(parents=True)
    (tmp_path / "resources" / "MQ2008" / "blob").write_bytes(b"x" * 3 * 2**20)
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    before = config["resources"]["measured"]["jobs"]
    # expected by hand: the largest seconds written above, rounded up (wall 0.64 -> 1 and
    # 4.87 -> 5; CPU, half of those, 0.32 -> 1 and 2.435 -> 3)
    for seconds, s_acquire, s_train in (("wall", 1, 5), ("cpu", 1, 3)):
        assert _script().main(["--root", str(tmp_path), "--yaml", "--seconds", seconds]) == 0
        block = yaml.safe_load(capsys.readouterr().out)["measured"]
        assert block["jobs"]["acquire"] == {"max_rss": 105, "s": s_acquire}
        assert block["jobs"]["train"]["adarank"] == {"max_rss": 293, "s": s_train}
        # rules and algorithms the run did not have keep the config's figures
        assert block["jobs"]["train"]["ranknet"] == before["train"]["ranknet"]
        assert block["jobs"]["fit_unit"] == before["fit_unit"]
        assert set(block["jobs"]) == set(before) | {"acquire", "train"}
    assert block["reference"]["rows"] == 15211 and block["reference"]["dataset_mb"] >= 3
    assert _script().main(["--root", str(tmp_path)]) == 0
    table = capsys.readouterr().out
    assert "train      adarank" in table and "acquire" in table


def test_study_jobs_scale_with_rows_alone():
    """A study job's memory grows by its measured MB per step of rows, not with the features."""
    growth = job_requests.STUDY_GROWTH_MB["aggregate"]
    one = job_requests.for_rule(MEASURED, "aggregate", scale=50.0, rows_scale=1.0)
    ten = job_requests.for_rule(MEASURED, "aggregate", scale=50.0, rows_scale=100.0)
    assert one["mem_mb"] == job_requests._ceil_100(2.0 * (1000 + 300))
    assert ten["mem_mb"] == job_requests._ceil_100(2.0 * (1000 + 300 + 99 * growth))
    assert ten["runtime"] == -(-3 * (14 * 100 + 30) // 60)


def _plan(measured, scale=1.0):
    return SimpleNamespace(
        config={"resources": {"measured": measured} if measured else {}},
        datasets={"D": SimpleNamespace(scale=scale)},
        algorithms={"coordinate_ascent": SimpleNamespace(base="coordinate_ascent"),
                    "adarank": SimpleNamespace(base="adarank"),
                    "adarank_variant": SimpleNamespace(base="adarank")})


def test_priority_is_the_measured_seconds_longest_first():
    """A training job's priority is its measured seconds (a variant its base's), scaled with
    the dataset as its runtime is, so Snakemake starts the longest first; none without figures."""
    prio = job_requests.job_priority(_plan(MEASURED), "train")
    assert prio({"dataset": "D", "algorithm": "coordinate_ascent"}) == 960
    assert prio({"dataset": "D", "algorithm": "adarank_variant"}) == 5
    big = job_requests.job_priority(_plan(MEASURED, scale=2.5), "train")
    assert big({"dataset": "D", "algorithm": "adarank"}) == 13  # 5 x 2.5, rounded up
    assert job_requests.job_priority(_plan(None), "train") == 0
    # the paper's figures: RankNet's shared job first, then Coordinate Ascent's
    measured = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["resources"]["measured"]
    plan = _plan(measured)
    plan.algorithms.update({a: SimpleNamespace(base=a) for a in
                            ("ranknet", "lambdamart", "rankboost", "ranksvm")})
    shared = job_requests.job_priority(plan, "train_shared")
    apart = job_requests.job_priority(plan, "train")
    ranknet = shared({"dataset": "D", "algorithm": "ranknet"})
    ca = apart({"dataset": "D", "algorithm": "coordinate_ascent"})
    others = [apart({"dataset": "D", "algorithm": a}) for a in ("adarank", "lambdamart")] + [
        shared({"dataset": "D", "algorithm": a}) for a in ("rankboost", "ranksvm")]
    assert ranknet > ca > max(others)
