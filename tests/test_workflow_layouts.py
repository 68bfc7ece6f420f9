"""Each dataset layout config can describe, run end to end (acquire, prepare, train, evaluate,
the per-query table) on small synthetic copies of one dataset: Fold{k} directories, one split
at the top of the copy (fold_dir "."), no validation file (vali null: drawn from the training
file), and compressed files (gzip, bzip2, xz). One Snakemake run makes all four."""

from __future__ import annotations

import bz2
import gzip
import lzma
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml

from ltrconv import rankers
from ltrconv.data import Dataset, read_letor
from ltrconv.data.split import draw_validation, n_drawn
from ltrconv.data.verify import content_sha256
from workflow_helpers import ALGORITHMS, VARIANTS, snakemake, write_dataset

pytestmark = pytest.mark.slow

FRACTION, SEED = 0.25, 3
TOP = {"n_folds": 1, "fold_dir": ".", "train": "set1.train.txt", "vali": "set1.valid.txt",
       "test": "set1.test.txt"}
LAYOUTS = {
    "FOLDS": {},
    "TOP": {"layout": TOP},
    "NOVALI": {"layout": {"n_folds": 5, "vali": None}, "expect": {"queries": 40},
               "vali_fraction": FRACTION,
               "vali_seed": SEED},
    "PACKED": {"layout": {"n_folds": 1, "fold_dir": "data", "train": "train.txt.gz",
                          "vali": "vali.txt.bz2", "test": "test.txt.xz"},
               # a wrong byte digest: the file passes by its content's digest, read decompressed
               "sha256": {"data/train.txt.gz": "0" * 64}},
}
DATASETS = list(LAYOUTS)


def copies(root):
    """The dataset in each layout, from one Fold{k} copy; the Fold1 files' paths."""
    write_dataset(root / "FOLDS")
    fold1 = {s: root / "FOLDS" / "Fold1" / f"{s}.txt" for s in ("train", "vali", "test")}
    (root / "TOP").mkdir()
    for split in fold1:
        shutil.copy(fold1[split], root / "TOP" / TOP[split])
    for k in range(1, 6):
        (root / "NOVALI" / f"Fold{k}").mkdir(parents=True)
        for split in ("train", "test"):
            shutil.copy(root / "FOLDS" / f"Fold{k}" / f"{split}.txt",
                        root / "NOVALI" / f"Fold{k}" / f"{split}.txt")
    (root / "PACKED" / "data").mkdir(parents=True)
    for split, pack in (("train", gzip), ("vali", bz2), ("test", lzma)):
        name = LAYOUTS["PACKED"]["layout"][split]
        (root / "PACKED" / "data" / name).write_bytes(pack.compress(fold1[split].read_bytes()))
    return fold1


def config(root, fold1) -> dict:
    datasets = {"MQ2008": {"enabled": False}}
    for name, extra in LAYOUTS.items():
        datasets[name] = {"local": str(root / name), "urls": [], "labels": [0, 1, 2],
                          "n_features": 6, "expect": {"queries": 50}, **extra}
    datasets["PACKED"]["content_sha256"] = {"data/train.txt.gz": content_sha256(fold1["train"])}
    return {
        "results_dir": "out", "datasets": datasets, "folds": [1], "seeds": [0], "extensions": {},
        "train_conventions": ["ranklib"], "eval_conventions": ["ranklib", "yahoo"],
        "algorithms": {**{a: None for a in ALGORITHMS},
                       "adarank": {"n_rounds": 5}, "lambdamart": ALGORITHMS["lambdamart"]},
        "variants": {v: None for v in VARIANTS},
        "figures": {"figure1_algorithms": ["adarank", "lambdamart"],
                    "figure1_eval_conventions": ["ranklib", "yahoo"],
                    "figure2_eval_conventions": ["ranklib", "yahoo"],
                    "official_convention": "ranklib"},
    }


@pytest.fixture(scope="module")
def layouts_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("layouts")
    fold1 = copies(root)
    cfg = root / "config.yaml"
    cfg.write_text(yaml.safe_dump(config(root, fold1)))
    work = root / "w"
    targets = [f"out/{d}/models/{a}/ranklib/fold1.pkl" for d in DATASETS
               for a in ("adarank", "lambdamart")]
    targets += [f"out/{d}/per_query.parquet" for d in DATASETS]
    proc = snakemake(work, cfg, *targets, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {"work": work, "fold1": fold1, "root": root}


def test_every_layout_trains_and_evaluates_its_test_queries(layouts_run):
    work = layouts_run["work"]
    want = set(map(str, read_letor(layouts_run["fold1"]["test"]).query_ids))
    for d in DATASETS:
        pq = pd.read_parquet(work / "out" / d / "per_query.parquet")
        assert set(pq["algorithm"]) == {"adarank", "lambdamart"}, d
        assert set(pq["eval_convention"]) == {"ranklib", "yahoo"}, d
        assert (pq["fold"] == 1).all(), d
        for _, qids in pq.groupby(["algorithm", "eval_convention", "metric", "k"])["qid"]:
            assert set(qids) == want, d
        for a in ("adarank", "lambdamart"):
            model = rankers.load(work / "out" / d / "models" / a / "ranklib" / "fold1.pkl")
            assert model.get_params()["metric"] == "ndcg@10:ranklib"


def test_the_same_files_in_another_layout_give_the_same_results(layouts_run):
    """Top-level and compressed copies of Fold1 give Fold1's caches, models' scores and table."""
    work = layouts_run["work"]
    cache = work / "resources" / "{}" / "cache" / "fold1" / "{}.npz"
    for d in ("TOP", "PACKED"):
        for split in ("train", "vali", "test"):
            a = Dataset.load(str(cache).format("FOLDS", split))
            b = Dataset.load(str(cache).format(d, split))
            for field in ("X", "y", "qid", "offsets", "docid"):
                np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        for a in ("adarank", "lambdamart"):
            scores = [np.load(work / "out" / x / "models" / a / "ranklib" / "fold1.test_scores.npy")
                      for x in ("FOLDS", d)]
            np.testing.assert_array_equal(*scores)
        tables = [pd.read_parquet(work / "out" / x / "per_query.parquet").drop(columns="dataset")
                  for x in ("FOLDS", d)]
        pd.testing.assert_frame_equal(*tables)
    manifest = (work / "resources" / "PACKED" / "manifest.tsv").read_text()
    assert "data/train.txt.gz\t" in manifest and "\tcontent\t" in manifest


def test_drawn_validation_queries_are_recorded_and_disjoint(layouts_run):
    work = layouts_run["work"]
    train_file = read_letor(layouts_run["root"] / "NOVALI" / "Fold1" / "train.txt")
    train, vali = (Dataset.load(work / "resources" / "NOVALI" / "cache" / "fold1" / f"{s}.npz")
                   for s in ("train", "vali"))
    drawn = set(map(str, vali.query_ids))
    assert len(drawn) == n_drawn(train_file.n_queries, FRACTION) == round(FRACTION * 30)
    assert not drawn & set(map(str, train.query_ids))
    assert drawn | set(map(str, train.query_ids)) == set(map(str, train_file.query_ids))
    assert vali.n_docs + train.n_docs == train_file.n_docs
    # the seeded draw, in drawn order, beside the caches and in the dataset's tables
    _, _, expected = draw_validation(train_file, FRACTION, SEED)
    rows = [f"1\t{q}" for q in expected]
    beside = (work / "resources" / "NOVALI" / "cache" / "fold1" / "vali_split.tsv").read_text()
    kept = (work / "out" / "NOVALI" / "tables" / "vali_split.tsv").read_text()
    for text in (beside, kept):
        lines = text.splitlines()
        assert f"vali_fraction {FRACTION}, vali_seed {SEED}" in lines[0]
        assert lines[1:] == ["fold\tqid", *rows]
    log = (work / "logs" / "NOVALI" / "prepare.log").read_text()
    assert f"qids {' '.join(str(q) for q in expected)}" in log
