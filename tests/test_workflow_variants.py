"""An implementation variant that runs another registered ranker (config key variants.NAME.ranker):
its train job, hyperparameters and model file, whole and scattered; the jobs' OpenMP wait policy.
Its config errors are checked on the plan (tests/test_plan.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import yaml

from ltrconv import rankers
from workflow_helpers import ALGORITHMS, VARIANTS, base_config, snakemake, write_dataset

# LambdaMART's test settings plus one parameter lambdamart_lightgbm does not have.
BASE = {**ALGORITHMS["lambdamart"], "n_thresholds": 64}
LGB = {"of": "lambdamart", "ranker": "lambdamart_lightgbm", "params": {"max_bin": 16},
       "label": "LightGBM's trees"}


def small_config(dataset_dir, variants) -> dict:
    """One fold, one training convention, LambdaMART and ``variants`` (config.yaml's left out)."""
    cfg = base_config(dataset_dir)
    cfg.update(folds=[1], seeds=[0], train_conventions=["ranklib"], extensions={},
               algorithms={**{a: None for a in ALGORITHMS}, "lambdamart": BASE},
               variants={**{v: None for v in VARIANTS}, **variants})
    cfg["figures"]["figure1_algorithms"] = ["lambdamart"]
    return cfg


def run(tmp_path, cfg, *args, env=None, work="w"):
    path = tmp_path / f"{work}.yaml"
    path.write_text(yaml.safe_dump(cfg, allow_unicode=True))
    return snakemake(tmp_path / work, path, *args, timeout=900, env=env)


def test_a_ranker_variant_trains_its_ranker_with_the_base_parameters_it_has(tmp_path):
    write_dataset(tmp_path / "SYN")
    cfg = small_config(tmp_path / "SYN", {"lgb": LGB})
    models = tmp_path / "w" / "out" / "SYN" / "models"
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    proc = run(tmp_path, cfg, "out/SYN/models/lgb/ranklib/fold1.pkl",
               "out/SYN/models/lambdamart/ranklib/fold1.pkl", env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    model = rankers.load(models / "lgb" / "ranklib" / "fold1.pkl")
    assert type(model) is rankers.get_class("lambdamart_lightgbm")
    params = model.get_params()
    # the base's parameters the ranker has, the variant's own, the job's threads, the metric
    assert {k: params[k] for k in ALGORITHMS["lambdamart"]} == ALGORITHMS["lambdamart"]
    assert (params["max_bin"], params["num_threads"]) == (16, 1)
    assert params["metric"] == "ndcg@10:ranklib"
    assert "n_thresholds" not in params
    base = rankers.load(models / "lambdamart" / "ranklib" / "fold1.pkl")
    assert type(base) is rankers.get_class("lambdamart") and base.get_params()["n_thresholds"] == 64
    # jobs wait passively unless the user chose otherwise
    log = (tmp_path / "w" / "logs" / "SYN" / "train" / "lgb" / "ranklib" / "train.log").read_text()
    assert "OMP_WAIT_POLICY PASSIVE" in log, log[:500]
    # `ltrconv predict` scores the test split with the model file as the job did
    test = tmp_path / "SYN" / "Fold1" / "test.txt"
    out = subprocess.run([sys.executable, "-m", "ltrconv.cli", "predict",
                          str(models / "lgb" / "ranklib" / "fold1.pkl"), str(test)],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    scores = np.load(models / "lgb" / "ranklib" / "fold1.test_scores.npy")
    assert np.array_equal(np.array(out.split(), dtype=np.float64), scores)
    # scattered (a fit_fold job, then gather), the same model file; the user's wait policy is
    # kept (the jobs waited passively above, where the user had set none)
    proc = run(tmp_path, {**cfg, "scatter": {"mode": "always"}}, "-p",
               "out/SYN/models/lgb/ranklib/fold1.pkl", work="s",
               env={**os.environ, "OMP_WAIT_POLICY": "ACTIVE"})
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "rule fit_fold:" in proc.stdout + proc.stderr
    gathered = tmp_path / "s" / "out" / "SYN" / "models" / "lgb" / "ranklib" / "fold1.pkl"
    assert gathered.read_bytes() == (models / "lgb" / "ranklib" / "fold1.pkl").read_bytes()
    for log in ("acquire.log", "fit/lgb/ranklib/fold1/whole.log"):
        text = (tmp_path / "s" / "logs" / "SYN" / log).read_text()
        assert "OMP_WAIT_POLICY ACTIVE" in text, (log, text[:500])
