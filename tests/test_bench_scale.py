"""The arithmetic of benchmarks/bench_scale.py: pair counts, power laws, the n log n slope."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from ltrconv.rankers.pairs import crucial_pairs
from ltrconv.data.synthetic import make_mslr_like

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_scale.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_scale", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_pair_count_matches_the_rankers_pairs(bench):
    d = make_mslr_like(3000, seed=4)
    hi, _ = crucial_pairs(d.y, d.offsets)
    assert bench.crucial_pairs(d.y, d.offsets) == len(hi) > 0


def test_power_law_and_slope(bench):
    xs, ys = [1e4, 1e5, 1e6], [2.0, 20.0 * 10 ** 0.2, 200.0 * 100 ** 0.2]  # y ~ x^1.2
    assert bench.slope(xs, ys) == pytest.approx(1.2)
    assert bench.power_law(xs, ys, 1e7) == pytest.approx(2.0 * 1e3 ** 1.2)
    assert bench.power_law([10.0], [3.0], 40.0) == pytest.approx(12.0)  # one point: linear
    assert math.isnan(bench.slope([1.0], [1.0]))


def test_nlogn_slope(bench):
    n0, n1 = 1e4, 1.2e6
    direct = math.log(n1 * math.log(n1) / (n0 * math.log(n0))) / math.log(n1 / n0)
    assert bench.nlogn_slope(n0, n1) == pytest.approx(direct)
    assert 1.0 < bench.nlogn_slope(n0, n1) < 1.1


def test_fold_estimate_uses_the_unit(bench):
    full = [(10_000, {"cpu": 10.0})]
    unit = [(10_000, {"cpu": 1.0}), (100_000, {"cpu": 10.0 * 10 ** 0.1})]  # unit ~ n^1.1
    s, how = bench.fold_estimate(full, unit)
    assert s == pytest.approx(10.0 * 72 ** 1.1)
    assert "unit" in how
    s, how = bench.fold_estimate(full, None)
    assert s == pytest.approx(720.0) and how == "linear from one size"
    assert np.isfinite(bench.fold_estimate(unit, None)[0])


def test_study_walltime_counts_and_bounds():
    """benchmarks/study_walltime.py: one job per fold and convention for each whole fit, one per
    restart or architecture besides, and the critical path through the longest of them."""
    spec = importlib.util.spec_from_file_location("study_walltime", PATH.parent / "study_walltime.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fig = {k: v for k, (v, _) in mod.FIGURES.items()}
    ca, rn = [100.0, 300.0], [50.0] * 12
    table, chain = mod.jobs(fig, ca, rn, overhead=10.0)
    counts = {name.split(" ")[0]: n for name, _, n in table}
    assert counts["coordinate_ascent"] == 15 * 30 and counts["ranknet"] == 15 * 12
    assert counts["adarank"] == counts["ranksvm"] == 15 and counts["gather"] == 6 * 3
    ca_row = next(s for name, s, _ in table if name.startswith("coordinate_ascent"))
    assert ca_row == 200.0 + 10.0  # the mean restart plus the start-up
    longest = dict(chain)["longest training job"]
    assert longest == max(fig["lambdamart"], fig["rankboost"], 300.0) + 10.0


def test_ranklib_files_hold_our_documents(bench, tmp_path):
    """The jar's train and vali files give back the float32 data our rankers fit, bit for bit."""
    from ltrconv.data.letor import read_letor

    files = bench.ranklib_files(900, 3, tmp_path)
    tr, va = bench.training_data(900, 3)
    for name, d in (("train", tr), ("vali", va)):
        with pytest.warns(Warning):  # no docid comments
            got = read_letor(files[name])
        assert np.array_equal(got.X.astype(np.float32), d.X)
        assert np.array_equal(got.y, d.y) and np.array_equal(got.qid, d.qid)
    assert Path(files["test"]).stat().st_size > 0


def test_ranklib_timeout_decides_the_verdict(bench, capsys):
    """A jar run stopped by its timeout at the fold's size says the time is missed, whatever
    the line through the smaller sizes predicts."""
    ok = {"peak_mb": 500.0, "start_mb": 40.0}
    done = [(10_000, {**ok, "cpu": 38.9}), (100_000, {**ok, "cpu": 7.3}),
            (720_000, {**ok, "timeout": 900.0, "jar_wall": 900.0, "jar_cpu": 861.0})]
    pairs = {10_000: 532_140, 100_000: 4_807_184, 720_000: 36_704_293}

    class Args:
        part = "ranklib"

    bench.report([("adarank", {"RankLib": (None, done)})], pairs, [10_000, 100_000, 720_000], Args)
    line = capsys.readouterr().out.splitlines()[-1]
    assert "MISSES time: stopped at 720,000 docs after 900 s" in line
