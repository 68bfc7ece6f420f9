"""What the workflow tests share: running Snakemake on a configuration, a synthetic dataset in
LETOR's layout, a test configuration that adds it through config only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from ltrconv.data.synthetic import make_folds, make_letor, write_letor

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
TIES = ["ranklib-tieavg", "ranklib-tiepess", "ranklib-tieopt"]
FOLDS = [1, 2]
# Two seeds: the random algorithms are trained twice, the others once (under seed 0).
SEEDS = [0, 1]
RANDOM = {"coordinate_ascent", "ranknet", "ranknet_adam"}  # ranknet_adam: a variant of config.yaml
N_MODELS = len(ALGORITHMS) + len(VARIANTS) + len(RANDOM) * (len(SEEDS) - 1)  # per fold, convention

# Snakemake is a dependency: run the one installed with this interpreter, whatever PATH holds.
SNAKEMAKE = [sys.executable, "-m", "snakemake"]


def snakemake(workdir: Path, configfile: Path, *args: str, timeout: int = 600, env=None):
    cmd = [*SNAKEMAKE, "-s", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(configfile), "--cores", "2", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def write_rotation(data, root: Path, folds=range(1, 6)) -> dict:
    """``data`` in five parts S1..S5 and the ``folds`` of LETOR's rotation (fold k trains on
    S_k, S_k+1, S_k+2, validates on S_k+3, tests on S_k+4, mod 5); each fold's test part."""
    parts = make_folds(data, 5, seed=1)
    for i, part in enumerate(parts, start=1):
        write_letor(part, root / f"S{i}.txt")
    texts = [(root / f"S{i}.txt").read_text() for i in range(1, 6)]
    tests = {}
    for k in folds:
        fold = root / f"Fold{k}"
        fold.mkdir(parents=True)
        idx = [(k - 1 + j) % 5 for j in range(5)]
        (fold / "train.txt").write_text("".join(texts[i] for i in idx[:3]))
        (fold / "vali.txt").write_text(texts[idx[3]])
        (fold / "test.txt").write_text(texts[idx[4]])
        tests[k] = parts[idx[4]]
    return tests


def write_dataset(root: Path) -> dict:
    """S1..S5 and Fold1..Fold5 of a small synthetic dataset; each fold's test part."""
    return write_rotation(make_letor(n_queries=50, n_features=6, empty_share=0.3, seed=7), root)


def base_config(dataset_dir: Path) -> dict:
    return {
        "results_dir": "out",
        "datasets": {
            "MQ2008": {"enabled": False},
            "SYN": {"local": str(dataset_dir), "urls": [], "labels": [0, 1, 2], "n_features": 6,
                    "expect": {"queries": 50}},
        },
        "folds": FOLDS,
        "seeds": SEEDS,
        "extensions": {"ties": True, "winning": True, "audit": True},
        "train_conventions": TRAIN,
        "eval_conventions": EVAL + TIES,
        "algorithms": ALGORITHMS,
        "figures": {"figure1_eval_conventions": ["ranklib", "yahoo", "letor"],
                    "figure2_eval_conventions": EVAL},
        # RankNet's train jobs on one thread: its test networks train in a blink, and a 2-thread
        # job waits for both cores (tests/test_workflow_scatter.py runs them on two)
        "resources": {"train_threads": {"ranknet": 1}},
    }


# A convention that the registry does not hold: the Yahoo! script's empty-query rule at 0.25.
QUARTER = "conventions:\n  yahoo-quarter: {base: yahoo, empty: 0.25}\n"


def conventions_config(dataset_dir: Path, conventions_file: Path) -> dict:
    """One seed, 0 (the paper's run: paths without a seed), no extensions."""
    cfg = base_config(dataset_dir)
    cfg.update(conventions_file=str(conventions_file), folds=[1], seeds=[0], extensions={},
               train_conventions=["yahoo-quarter"], eval_conventions=["ranklib", "yahoo-quarter"],
               algorithms={**ALGORITHMS, "adarank": {"n_rounds": 5}})
    cfg["figures"] = {"figure1_eval_conventions": ["ranklib", "yahoo-quarter"],
                      "figure2_eval_conventions": ["ranklib", "yahoo-quarter"],
                      "official_convention": "yahoo-quarter"}
    return cfg


def local_copies(tmp_path: Path, **copies: Path) -> Path:
    """A configuration merged on top that reads each dataset from the given directory."""
    overlay = tmp_path / "local.yaml"
    overlay.write_text(yaml.safe_dump({"datasets": {d: {"local": str(p)} for d, p in copies.items()}}))
    return overlay
