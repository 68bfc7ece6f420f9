"""Importing ltrconv, and running ``ltrconv eval``, loads no heavy package.

Each check runs a fresh interpreter on this checkout's ``src``, so that nothing this test
session imported (numba, pandas, ...) can hide an import.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ltrconv.evaluation.metrics import evaluate_dataset
from ltrconv.data.synthetic import make_letor, write_letor

SRC = Path(__file__).resolve().parents[1] / "src"
HEAVY = ("sklearn", "lightgbm", "matplotlib", "scipy", "pandas", "snakemake", "numba")
LOADED = f"[m for m in {HEAVY!r} if m in sys.modules]"


def fresh(code: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("module", ["ltrconv", "ltrconv.cli", "ltrconv.evaluation.ties"])
def test_import_loads_no_heavy_package(module):
    proc = fresh(f"import json, sys, {module}; "
                 f"print(json.dumps([{module}.__file__, {LOADED}]))")
    assert proc.returncode == 0, proc.stderr
    where, loaded = json.loads(proc.stdout)
    assert Path(where).resolve().is_relative_to(SRC)  # this checkout, not an installed copy
    assert loaded == []


def test_help_loads_no_heavy_package():
    proc = fresh("import sys\nfrom ltrconv.cli import main\n"
                 "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
                 f"print({LOADED}, file=sys.stderr)")
    assert "usage: ltrconv" in proc.stdout
    assert proc.stderr.strip().splitlines()[-1] == "[]"


def test_eval_end_to_end_without_heavy_packages(tmp_path):
    data = make_letor(n_queries=30, seed=1)
    write_letor(data, tmp_path / "data.txt")
    scores = np.random.default_rng(1).random(data.n_docs).round(3)
    np.savetxt(tmp_path / "scores.txt", scores)
    proc = fresh("import sys\nfrom ltrconv.cli import main\nrc = main(sys.argv[1:])\n"
                 f"print({LOADED}, file=sys.stderr)\nsys.exit(rc)",
                 "eval", str(tmp_path / "data.txt"), str(tmp_path / "scores.txt"),
                 "-c", "ranklib", "-c", "trec", "--per-query")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "[]"
    out = json.loads(proc.stdout)
    ref = evaluate_dataset(data, scores, conventions=["ranklib", "trec"], engine="numba")
    for name in ("ranklib", "trec"):
        got = out["conventions"][name]
        assert got["mean"]["NDCG@10"] == round(ref[name].mean()["NDCG@10"], 12)
        per_query = [got["per_query"][str(q)]["MAP"] for q in ref[name].qids]
        assert per_query == [round(v, 12) for v in ref[name]["MAP"]]


def test_per_query_tables_load_no_scipy():
    """Every evaluate job of the pipeline builds its table with ltrconv.study.tables; scipy (a
    second of start-up) is needed only by the significance tests."""
    proc = fresh(f"import json, sys, ltrconv.study.tables; print(json.dumps({LOADED}))")
    assert proc.returncode == 0, proc.stderr
    assert "scipy" not in json.loads(proc.stdout)
