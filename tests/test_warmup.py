"""python -m ltrconv.warmup fills the numba cache with every kernel a first fit needs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltrconv import warmup
from ltrconv.data.synthetic import make_letor
from ltrconv.data.writer import write_letor


def _cache_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in (".nbi", ".nbc")}


@pytest.mark.parametrize("targets, jobs", [(["adarank", "coordinate_ascent"], 2)])
def test_first_fit_after_warmup_compiles_nothing(tmp_path, targets, jobs):
    """After the warmup (``-j 2``: AdaRank and Coordinate Ascent in two processes), the first fit
    of each ranker on other data compiles no kernel (the two rankers cheapest to compile, 6-8 s
    each; LambdaMART's kernels take some 40 s)."""
    cache = tmp_path / "numba-cache"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-m", "ltrconv.warmup", "-j", str(jobs), *targets],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert all(f"{t} ready" in done.stdout for t in targets)
    assert "evaluation ready" not in done.stdout
    before = _cache_files(cache)
    assert before, "the warmup cached no kernel"
    # other data than the warmup's: more queries, features and documents per query
    data = make_letor(n_queries=70, n_features=13, min_docs=3, max_docs=40, seed=5)
    write_letor(data, tmp_path / "train.txt")
    for algorithm in targets:
        done = subprocess.run([sys.executable, "-m", "ltrconv.cli", "train", "--algorithm",
                               algorithm, "--train", str(tmp_path / "train.txt"), "--vali",
                               str(tmp_path / "train.txt"), "--out", str(tmp_path / algorithm)],
                              env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert _cache_files(cache) == before, f"{algorithm}'s fit compiled kernels the warmup did not"


def test_every_small_setting_is_a_parameter_of_its_ranker():
    from ltrconv import rankers
    from ltrconv.rankers import registry

    assert set(warmup.SMALL) <= set(registry.KNOWN)
    for algorithm, small in warmup.SMALL.items():
        assert set(small) <= set(rankers.param_names(algorithm)), algorithm


def test_a_setting_the_ranker_does_not_take_stops_the_warmup(monkeypatch):
    monkeypatch.setitem(warmup.SMALL, "ranknet", {"max_epochs": 2, "epochs": 2})
    trained = []
    with pytest.raises(ValueError, match=r"ranknet has no parameter\(s\) \['epochs'\]"):
        warmup.run(["adarank", "ranknet"], say=trained.append)
    assert trained == []  # refused before any fit


def test_warmup_names_the_evaluation_engine_apart(capsys):
    """``python -m ltrconv.warmup evaluation`` warms the evaluation engine alone; naming a
    ranker warms that ranker alone; no name warms both."""
    assert warmup.main(["evaluation"]) == 0
    out = capsys.readouterr().out
    assert "evaluation ready" in out and not any(f"{a} ready" in out for a in warmup.SMALL)
    assert warmup.main(["adarank"]) == 0
    out = capsys.readouterr().out
    assert "adarank ready" in out and "evaluation ready" not in out


def test_warmup_refuses_no_jobs(capsys):
    with pytest.raises(SystemExit) as exc:
        warmup.main(["-j", "0"])
    assert exc.value.code == 2
    assert "--jobs must be at least 1, got 0" in capsys.readouterr().err


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_warmup_refuses_an_unknown_ranker_before_compiling(jobs, capsys):
    with pytest.raises(SystemExit) as exc:
        warmup.main(["-j", jobs, "adarank", "listnet"])
    assert exc.value.code == 2
    assert "unknown algorithm 'listnet'; known: adarank," in capsys.readouterr().err


def test_targets_with_parallel_twins_are_warmed_again_with_the_twins_forced():
    """The second pass of a target with plain and parallel kernels sees every kernel call take
    its parallel twin; other targets run once; the threshold comes back, also after an error."""
    from ltrconv import jit

    seen = []
    warmup._twice("lambdamart", lambda: seen.append(jit.use_parallel(1)))
    assert seen == [False, True]
    seen.clear()
    warmup._twice(warmup.EVALUATION, lambda: seen.append(jit.use_parallel(1)))
    assert seen == [False, True]
    seen.clear()
    warmup._twice("adarank", lambda: seen.append(jit.use_parallel(1)))
    assert seen == [False]

    def fails():
        if jit.use_parallel(1):
            raise RuntimeError("compile failed")

    with pytest.raises(RuntimeError, match="compile failed"):
        warmup._twice("lambdamart", fails)
    assert jit.PARALLEL_MIN_DOCS == 500_000 and not jit.use_parallel(499_999)
