"""Provenance records (ltrconv.study.provenance, ltrconv.pipeline.provenance): what the machine's
part holds, what two records disagree on, and the records committed beside reference/."""

import hashlib
import importlib.metadata
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from ltrconv.pipeline import build_plan, config as pconfig
from ltrconv.pipeline.provenance import config_digest, run_params
from ltrconv.study import provenance

ROOT = Path(__file__).resolve().parents[1]
REFERENCES = {  # reference directory -> dataset, configuration files over config/config.yaml
    "reference/MQ2008": ("MQ2008", []),
    "reference/ci": ("MQ2008", ["ci.yaml"]),
    "reference/extended/MQ2008": ("MQ2008", ["extended.yaml"]),
    "reference/extended/OHSUMED": ("OHSUMED", ["extended.yaml"]),
}


def plan_of(*overlays, extra=None):
    files = [yaml.safe_load((ROOT / "config" / name).read_text())
             for name in ("config.yaml", *overlays)]
    return build_plan(pconfig.fill_defaults(pconfig.merge(*files, *([extra] if extra else [])),
                                            pconfig.load_schema(ROOT)))


@pytest.fixture(scope="module")
def here():
    return provenance.environment()


def test_the_machines_part_names_what_moves_bytes(here):
    assert here["format"] == provenance.FORMAT
    # the installed versions, as the packages' own metadata and modules give them
    for module, dist in (("numpy", "numpy"), ("scipy", "scipy"), ("sklearn", "scikit-learn"),
                         ("matplotlib", "matplotlib"), ("pandas", "pandas"), ("numba", "numba")):
        assert here["packages"][dist] == __import__(module).__version__
    assert here["packages"]["llvmlite"] == importlib.metadata.version("llvmlite")
    assert "pytest" not in here["packages"]  # the runtime closure: no test extra
    assert here["python"]["version"] == ".".join(map(str, sys.version_info[:3]))
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    simd = here["numpy_simd"]
    assert simd["dispatch"] == list(__cpu_dispatch__)
    assert simd["dispatched"] == [t for t in __cpu_dispatch__ if __cpu_features__[t]]
    assert set(simd["dispatched"]) <= set(simd["cpu_features"])
    assert here["cpu"]["model"] and here["cpu"]["model"] != "unknown"
    font = here["matplotlib"]["fonts"]["sans-serif"]
    from matplotlib import font_manager

    path = font_manager.findfont(font_manager.FontProperties(family=["sans-serif"]))
    assert font["sha256"] == hashlib.sha256(Path(path).read_bytes()).hexdigest()
    assert any(p["internal_api"] in ("openblas", "mkl", "blis", "accelerate")
               for p in here["blas"])


def test_closure_follows_requirements_markers_and_extras():
    """scikit-learn's and pandas' declared requirements, from their own metadata: the closure
    follows a package's requirements and the extras asked for, and leaves out requirements
    whose markers exclude this machine (pandas' tzdata is for Windows and emscripten)."""
    from packaging.requirements import Requirement

    sk, missing = provenance.closure(["scikit-learn"])
    assert missing == [] and {"scikit-learn", "numpy", "scipy", "joblib", "threadpoolctl"} <= set(sk)
    plain, _ = provenance.closure(["pandas"])
    with_parquet, _ = provenance.closure(["pandas[parquet]"])
    assert "pyarrow" not in plain and with_parquet["pyarrow"] == importlib.metadata.version("pyarrow")
    declared = [Requirement(r) for r in importlib.metadata.requires("pandas")]
    unconditional = {provenance.canonical(r.name) for r in declared if r.marker is None}
    assert unconditional <= set(plain)
    assert "tzdata" not in plain or sys.platform == "win32"
    _, missing = provenance.closure(["surely-not-installed-ltrconv-probe>=1"])
    assert missing == ["surely-not-installed-ltrconv-probe"]


def test_changes_name_each_difference():
    a = {"packages": {"numpy": "2.4.6", "pillow": "13.0.0"}, "cpu": {"model": "X"},
         "numpy_simd": {"dispatched": ["X86_V3", "X86_V4"], "baseline": ["X86_V2"]},
         "data": {"Fold1/test.txt": "aa", "Fold1/train.txt": "bb"}, "seeds": [0]}
    b = {"packages": {"numpy": "2.3.1", "scipy": "1.16.0"}, "cpu": {"model": "X"},
         "numpy_simd": {"dispatched": ["X86_V3"], "baseline": ["X86_V2"]},
         "data": {"Fold1/test.txt": "aa", "Fold1/train.txt": "cc"}}
    got = [(c.key, c.mine, c.theirs) for c in provenance.changes(a, b)]
    assert got == [("packages.numpy", "2.4.6", "2.3.1"),
                   ("packages.pillow", "13.0.0", "not installed"),
                   ("packages.scipy", "not installed", "1.16.0"),
                   ("numpy_simd", "X86_V3, X86_V4", "X86_V3"),
                   ("data", "bb", "cc")]  # seeds: the reference's record lacks them
    assert provenance.changes(a, a) == []


def test_config_digest_ignores_where_and_how_and_follows_what():
    paper = plan_of()
    moved = plan_of(extra={"results_dir": "elsewhere", "offline": True,
                           "datasets": {"MQ2008": {"local": "/somewhere/MQ2008"}}})
    assert config_digest(moved) == config_digest(paper)
    # how the jobs run: threads, requests, one job or many (the same files either way)
    how = plan_of(extra={"resources": {"train": {"threads": 2}, "train_threads": {"ranknet": 1}},
                         "scatter": {"mode": "always"}})
    assert config_digest(how) == config_digest(paper)
    assert config_digest(plan_of(extra={"folds": [1, 2]})) != config_digest(paper)
    assert config_digest(plan_of(extra={"algorithms": {"adarank": {"n_rounds": 7}}})) != \
        config_digest(paper)


@pytest.mark.parametrize("reference", sorted(REFERENCES))
def test_each_reference_has_its_record(reference):
    """The record beside each reference: its configuration's digest, seeds and folds are those
    of the configuration files that make it, its data digests those config/config.yaml
    expects, and an after-the-fact record says so."""
    rec = provenance.read(ROOT / reference / provenance.FILE)
    dataset, configs = REFERENCES[reference]
    plan = plan_of(*configs)
    params = run_params(plan)
    assert rec["dataset"] == dataset
    assert rec["config"] == params["config"]
    assert (rec["seeds"], rec["folds"]) == (params["seeds"], params["folds"])
    expected = plan.datasets[dataset].spec["sha256"]
    assert rec["data"] == {f: expected[f] for f in rec["data"]} and len(rec["data"]) == 15
    assert rec["ltrconv"]["commit"] and rec["ltrconv"]["dirty"] is False
    assert {"numpy", "scipy", "numba", "llvmlite", "scikit-learn", "lightgbm", "pandas",
            "pyarrow", "matplotlib", "snakemake"} <= set(rec["packages"])
    if reference != "reference/ci":  # made by scripts/ci_reference.py's run itself
        assert "after the fact" in rec["note"]


def test_write_is_sorted_json(tmp_path):
    rec = {"packages": {"b": "1", "a": "2"}, "x": np.int64(3).item()}
    provenance.write(tmp_path / "p.json", rec)
    text = (tmp_path / "p.json").read_text()
    assert json.loads(text) == rec and text.index('"a"') < text.index('"b"')
    assert provenance.read(tmp_path / "p.json") == rec


def test_reading_a_bad_record_names_the_file(tmp_path):
    from ltrconv.errors import InputError

    (tmp_path / "p.json").write_text("{not json")
    with pytest.raises(InputError, match="p.json: not a provenance record"):
        provenance.read(tmp_path / "p.json")
    (tmp_path / "p.json").write_text('{"cpu": {}}')
    with pytest.raises(InputError, match="no 'packages' object"):
        provenance.read(tmp_path / "p.json")
