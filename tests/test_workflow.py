"""The Snakemake workflow end to end on a synthetic dataset added through config only."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from ltrconv.study import PER_QUERY_COLUMNS
from ltrconv.synthetic import make_folds, make_letor, write_letor

REPO = Path(__file__).resolve().parents[1]
ALGORITHMS = {
    "adarank": {"n_rounds": 10},
    "coordinate_ascent": {"n_restarts": 1, "n_steps": 10, "max_sweeps": 3},
    "lambdamart": {"n_estimators": 10, "early_stopping_rounds": 5, "min_data_in_leaf": 5},
    "ranknet": {"architectures": [[5]], "max_epochs": 3, "patience": 1},
    "rankboost": {"n_rounds": 10},
    "ranksvm": {"C_grid": [1.0]},
}
# config/config.yaml's implementation variants are merged into every test configuration.
VARIANTS = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["variants"]
TRAIN = ["yahoo", "ranklib"]
EVAL = ["ranklib", "trec", "yahoo", "letor"]
FOLDS = [1, 2]

pytestmark = pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not on PATH")


def snakemake(workdir: Path, configfile: Path, *args: str, timeout: int = 600):
    cmd = ["snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(configfile), "--cores", "2", *args]
    env = dict(os.environ)  # the jobs import this checkout's ltrconv, whatever is installed
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def write_dataset(root: Path) -> dict[int, list[str]]:
    """S1..S5 and Fold1..Fold5 (LETOR rotation); returns each fold's test qids."""
    data = make_letor(n_queries=50, n_features=6, empty_share=0.3, seed=7)
    parts = make_folds(data, 5, seed=1)
    for i, part in enumerate(parts, start=1):
        write_letor(part, root / f"S{i}.txt")
    texts = [(root / f"S{i}.txt").read_text() for i in range(1, 6)]
    tests = {}
    for k in range(1, 6):
        fold = root / f"Fold{k}"
        fold.mkdir(parents=True)
        idx = [(k - 1 + j) % 5 for j in range(5)]
        (fold / "train.txt").write_text("".join(texts[i] for i in idx[:3]))
        (fold / "vali.txt").write_text(texts[idx[3]])
        (fold / "test.txt").write_text(texts[idx[4]])
        tests[k] = parts[idx[4]]
    return tests


def base_config(dataset_dir: Path) -> dict:
    return {
        "results_dir": "out",
        "datasets": {
            "MQ2008": {"enabled": False},
            "SYN": {"local": str(dataset_dir), "urls": [], "labels": [0, 1, 2], "n_features": 6,
                    "expect": {"queries": 50}},
        },
        "folds": FOLDS,
        "train_conventions": TRAIN,
        "eval_conventions": EVAL,
        "algorithms": ALGORITHMS,
        "figures": {"figure1_eval_conventions": ["ranklib", "yahoo", "letor"],
                    "figure2_eval_conventions": EVAL},
    }


@pytest.fixture(scope="module")
def workflow_run(tmp_path_factory):
    """One full run of the DAG; returns its paths and the test splits."""
    root = tmp_path_factory.mktemp("wf")
    tests = write_dataset(root / "SYN")
    cfg = root / "config.yaml"
    cfg.write_text(yaml.safe_dump(base_config(root / "SYN")))
    work = root / "work"
    proc = snakemake(work, cfg)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {"root": root, "work": work, "config": cfg, "results": work / "out" / "SYN",
            "tests": tests}


def test_outputs_exist(workflow_run):
    res = workflow_run["results"]
    for name in ("summary", "fold_means", "ttests", "algorithm_order", "audit", "runtime"):
        table = pd.read_csv(res / "tables" / f"{name}.tsv", sep="\t")
        assert len(table) > 0, name
    assert (res / "claims.md").read_text().startswith("#")
    runtime = pd.read_csv(res / "tables" / "runtime.tsv", sep="\t")
    assert len(runtime) == (len(ALGORITHMS) + len(VARIANTS)) * len(TRAIN) * len(FOLDS)
    assert (runtime["s"] > 0).all()


def test_per_query_table_complete(workflow_run):
    pq = pd.read_parquet(workflow_run["results"] / "per_query.parquet")
    assert list(pq.columns) == PER_QUERY_COLUMNS
    assert pq["value"].dtype == np.float64 and pd.api.types.is_string_dtype(pq["qid"])
    combos = pq.groupby(["fold", "algorithm", "train_convention", "eval_convention"]).size()
    assert len(combos) == len(FOLDS) * (len(ALGORITHMS) + len(VARIANTS)) * len(TRAIN) * len(EVAL)
    metrics = set(zip(pq["metric"], pq["k"]))
    assert metrics == {("NDCG", k) for k in range(1, 11)} | {("P", k) for k in range(1, 11)} | {("MAP", 0)}
    for fold in FOLDS:
        want = set(map(str, workflow_run["tests"][fold].query_ids))
        got = pq[pq["fold"] == fold].groupby(["algorithm", "train_convention", "eval_convention",
                                              "metric", "k"])["qid"].agg(lambda q: set(q))
        assert all(g == want for g in got), f"fold {fold}: not every test query evaluated"
    assert pq.duplicated(["fold", "algorithm", "train_convention", "eval_convention", "metric",
                          "k", "qid"]).sum() == 0


def test_summary_values_and_yahoo_gap(workflow_run):
    summary = pd.read_csv(workflow_run["results"] / "tables" / "summary.tsv", sep="\t")
    assert summary["mean"].between(0, 1).all()
    shares = [np.mean([workflow_run["tests"][f].y[a:b].max() == 0
                       for a, b in zip(workflow_run["tests"][f].offsets[:-1],
                                       workflow_run["tests"][f].offsets[1:])]) for f in FOLDS]
    expected = float(np.mean(shares))
    assert expected > 0
    ndcg = summary[summary["metric"] == "NDCG"].set_index(
        ["algorithm", "train_convention", "k", "eval_convention"])["mean"].unstack()
    gap = ndcg["yahoo"] - ndcg["ranklib"]
    assert len(gap) == (len(ALGORITHMS) + len(VARIANTS)) * len(TRAIN) * 10
    np.testing.assert_allclose(gap.to_numpy(), expected, atol=1e-9)


def test_figures_are_png(workflow_run):
    import matplotlib.image as mpimg

    for name in ("figure1", "figure2", "runtime"):
        png = workflow_run["results"] / "figures" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert mpimg.imread(png).shape[0] > 100
        assert (png.with_suffix(".pdf")).read_bytes()[:4] == b"%PDF"


def test_rerun_has_nothing_to_do(workflow_run):
    proc = snakemake(workflow_run["work"], workflow_run["config"], "-n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_going_offline_or_moving_the_copy_invalidates_nothing(workflow_run, tmp_path):
    moved = tmp_path / "elsewhere" / "SYN"
    shutil.copytree(workflow_run["root"] / "SYN", moved)
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(yaml.safe_dump({"offline": True, "datasets": {"SYN": {"local": str(moved)}}}))
    proc = snakemake(workflow_run["work"], workflow_run["config"], "-n", "--configfile",
                     str(workflow_run["config"]), str(overlay))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_implementation_variants(workflow_run):
    res = workflow_run["results"]
    table = pd.read_csv(res / "tables" / "implementation.tsv", sep="\t")
    assert set(table["variant"]) == set(VARIANTS)
    assert dict(zip(table["variant"], table["algorithm"])) == {v: s["of"] for v, s in VARIANTS.items()}
    per_query = pd.read_parquet(res / "per_query.parquet")
    v, base = next(iter(VARIANTS)), VARIANTS[next(iter(VARIANTS))]["of"]
    sel = dict(train_convention="ranklib", eval_convention="ranklib", metric="NDCG", k=10)
    q = per_query
    for col, val in sel.items():
        q = q[q[col] == val]
    wide = q.pivot(index=["fold", "qid"], columns="algorithm", values="value")
    row = table[(table["variant"] == v) & (table["train_convention"] == "ranklib")
                & (table["eval_convention"] == "ranklib") & (table["metric"] == "NDCG") & (table["k"] == 10)]
    assert row["diff"].iloc[0] == pytest.approx((wide[v] - wide[base]).mean(), abs=1e-9)
    assert (res / "figures" / "implementation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    claims = (res / "claims.md").read_text()
    assert "## Implementation sensitivity" in claims
    order = pd.read_csv(res / "tables" / "algorithm_order.tsv", sep="\t")
    assert not set(order["algorithm"]) & set(VARIANTS)


def test_variant_with_unknown_parameter_names_key(tmp_path):
    cfg = base_config(tmp_path / "SYN")
    write_dataset(tmp_path / "SYN")
    cfg["variants"] = {"adarank_odd": {"of": "adarank", "params": {"weak_tie": "convention"}}}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    assert proc.returncode != 0
    assert "config key 'variants.adarank_odd.params'" in proc.stdout + proc.stderr


def test_unknown_algorithm_names_key(tmp_path):
    cfg = base_config(tmp_path / "SYN")
    write_dataset(tmp_path / "SYN")
    cfg["algorithms"] = {**ALGORITHMS, "listnet": {}}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "config key 'algorithms.listnet': unknown algorithm; known: coordinate_ascent," in out
    cfg["algorithms"] = ALGORITHMS
    cfg["variants"] = {"listnet_fast": {"of": "listnet", "params": {"n_rounds": 1}}}
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    assert proc.returncode != 0
    assert "config key 'variants.listnet_fast.of': unknown algorithm 'listnet'" in proc.stdout + proc.stderr


def test_wrong_type_names_key(tmp_path):
    cfg = base_config(tmp_path / "absent")
    cfg["folds"] = "one and two"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "config key 'folds'" in out and "is not of type 'array'" in out


def test_missing_dataset_offline_names_key(tmp_path):
    cfg = base_config(tmp_path / "absent")
    cfg["datasets"]["SYN"] = {"urls": ["http://127.0.0.1:9/SYN.zip"],
                              "search": [str(tmp_path / "nowhere")]}
    cfg["offline"] = True
    path = tmp_path / "missing.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path / "w", path, "-n", timeout=120)
    assert proc.returncode != 0
    assert "Set config key datasets.SYN.local" in proc.stdout + proc.stderr


MQ2008 = Path(__file__).resolve().parents[2] / "shared/data/MQ2008"


@pytest.mark.mq2008
@pytest.mark.skipif(not MQ2008.is_dir(), reason=f"no MQ2008 copy at {MQ2008}")
def test_full_config_dry_run(tmp_path):
    proc = subprocess.run(["snakemake", "-s", str(REPO / "Snakefile"), "--directory",
                           str(tmp_path), "-n", "--quiet", "rules"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout + proc.stderr
    n = (6 + len(VARIANTS)) * 3 * 5
    assert re.search(rf"^train\s+{n}$", out, re.M) and re.search(rf"^evaluate\s+{n}$", out, re.M), out[-2000:]


def test_notebook_redraws_the_pipeline_figures(workflow_run, tmp_path, run_notebook):
    out = tmp_path / "nb"
    nb = run_notebook(workflow_run["results"], out)
    for stem in ("figure1", "figure2", "runtime"):
        assert (out / f"{stem}.png").stat().st_size > 1000
    shown = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(shown) >= 3
