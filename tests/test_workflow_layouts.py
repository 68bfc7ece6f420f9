"""Each dataset layout config can describe, run end to end (acquire, prepare, train, evaluate,
the per-query table) on small synthetic copies of one dataset: Fold{k} directories, one split
at the top of the copy (fold_dir "."), no validation file (vali null: drawn from the training
file), compressed files (gzip, bzip2, xz), and files without qids whose query sizes sit beside
them (LightGBM's FILE.query, XGBoost's FILE.group: prepared, and one model trained and
evaluated). One Snakemake run makes them all."""

from __future__ import annotations

import bz2
import gzip
import lzma
import shutil
import warnings
from pathlib import Path

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
# NOVALI's Fold1 as LightGBM's examples/lambdarank lays it out: rank.train, rank.test and the
# query sizes beside each, no validation file; TOP's files as XGBoost's ranking demo names them
# (FILE.group). Each job costs about 3 s of CPU: LGB trains and evaluates AdaRank alone, XGB
# is prepared only.
LGB = {"n_folds": 1, "fold_dir": ".", "train": "rank.train", "vali": None, "test": "rank.test"}
XGB = {"n_folds": 1, "fold_dir": ".", "train": "train.txt", "vali": "vali.txt",
       "test": "test.txt"}


def write_sized(data, path, suffix) -> None:
    """``data`` as LightGBM and XGBoost write ranking data: ``LABEL INDEX:VALUE ...`` lines
    (no qid, no comment), and its query sizes, one a line, in ``path`` + ``suffix``."""
    path.write_text("".join(f"{label} " + " ".join(f"{j + 1}:{x!r}" for j, x in enumerate(row))
                            + "\n" for label, row in zip(data.y.tolist(), data.X.tolist())))
    Path(f"{path}{suffix}").write_text("".join(f"{n}\n" for n in data.sizes.tolist()))


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
    (root / "LGB").mkdir()
    (root / "XGB").mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the files without docids
        for split in ("train", "test"):
            write_sized(read_letor(fold1[split]), root / "LGB" / LGB[split], ".query")
        for split in fold1:
            write_sized(read_letor(fold1[split]), root / "XGB" / XGB[split], ".group")
    return fold1


def config(root, fold1) -> dict:
    datasets = {"MQ2008": {"enabled": False}}
    for name, extra in LAYOUTS.items():
        datasets[name] = {"local": str(root / name), "urls": [], "labels": [0, 1, 2],
                          "n_features": 6, "expect": {"queries": 50}, **extra}
    datasets["PACKED"]["content_sha256"] = {"data/train.txt.gz": content_sha256(fold1["train"])}
    datasets["LGB"] = {"local": str(root / "LGB"), "urls": [], "labels": [0, 1, 2],
                       "n_features": 6, "layout": LGB, "expect": {"queries": 40},
                       "vali_fraction": FRACTION, "vali_seed": SEED}
    datasets["XGB"] = {"local": str(root / "XGB"), "urls": [], "labels": [0, 1, 2],
                       "n_features": 6, "layout": XGB, "expect": {"queries": 50}}
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
    targets += ["out/LGB/eval/adarank/ranklib/fold1.parquet", "resources/XGB/cache/all.npz"]
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


def numbers(qid, data, shift=0) -> list[int]:
    """Each of ``qid`` (qids of the LETOR file ``data``) as the number of its query in that
    file, from 1, plus ``shift``."""
    where = {q: i + 1 + shift for i, q in enumerate(data.query_ids.tolist())}
    return [where[q] for q in qid.tolist()]


def test_files_without_qids_give_the_caches_of_the_same_data_with_qids(layouts_run):
    """LGB (rank.train, rank.test, drawn validation queries) holds NOVALI's Fold1 and XGB
    (files with .group, a validation file) TOP's: each cache has the LETOR copy's rows, labels,
    features and queries; a query's qid is its number in its file (1, 2, ...), in the whole
    dataset's cache shifted past the files before it; no docids."""
    work, fold1 = layouts_run["work"], layouts_run["fold1"]
    cache = work / "resources" / "{}" / "cache" / "{}.npz"
    files = {s: read_letor(fold1[s]) for s in fold1}
    n = {s: files[s].n_queries for s in files}
    for sized, letor, file_of in (("LGB", "NOVALI", {"train": "train", "vali": "train",
                                                      "test": "test"}),
                                  ("XGB", "TOP", {s: s for s in files})):
        shift = {"train": 0, "vali": n["train"] if sized == "XGB" else 0,
                 "test": n["train"] + (n["vali"] if sized == "XGB" else 0)}
        ours = {s: Dataset.load(str(cache).format(sized, f"fold1/{s}")) for s in files}
        twin = {s: Dataset.load(str(cache).format(letor, f"fold1/{s}")) for s in files}
        for split in files:
            a, b = twin[split], ours[split]
            for field in ("X", "y", "offsets"):
                np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
            assert b.qid.tolist() == numbers(a.qid, files[file_of[split]]), (sized, split)
            assert (b.docid == "").all()
        a, b = (Dataset.load(str(cache).format(d, "all")) for d in (letor, sized))
        for field in ("X", "y", "offsets"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        starts = np.cumsum([0] + [twin[s].n_docs for s in files])
        want = sum((numbers(a.qid[lo:hi], files[file_of[s]], shift[s])
                    for s, lo, hi in zip(files, starts[:-1], starts[1:])), [])
        assert b.qid.tolist() == want, sized
        manifest = (work / "resources" / sized / "manifest.tsv").read_text()
        suffix = ".query" if sized == "LGB" else ".group"
        layout = LGB if sized == "LGB" else XGB
        listed = [line.split("\t")[0] for line in manifest.splitlines()[2:]]
        assert listed == [f for s in files if layout[s] for f in (layout[s], layout[s] + suffix)]
        log = (work / "logs" / sized / "prepare.log").read_text()
        assert (f"fold 1: test and train not checked for shared queries: their queries are "
                f"numbered by resources/{sized}/data/{layout['train']}{suffix} and "
                f"resources/{sized}/data/{layout['test']}{suffix}, not named by qids"
                ) in log, log[-2000:]


def test_lightgbm_reads_the_queries_the_caches_hold(layouts_run):
    """LightGBM's own reading of rank.train and rank.test with their .query files (lightgbm
    4.x reads FILE.query beside FILE) gives the query sizes and labels of LGB's caches."""
    lgb = pytest.importorskip("lightgbm")
    work, root = layouts_run["work"], layouts_run["root"]
    cache = work / "resources" / "LGB" / "cache" / "fold1"
    train, vali, test = (Dataset.load(cache / f"{s}.npz") for s in ("train", "vali", "test"))
    rows = {}  # the training file's queries, by number, from the two caches drawn from it
    for part in (train, vali):
        for q, lo, hi in zip(part.query_ids.tolist(), part.offsets[:-1], part.offsets[1:]):
            rows[q] = part.y[lo:hi]
    for name, queries in (("rank.train", [rows[q] for q in sorted(rows)]),
                          ("rank.test", [test.y[lo:hi] for lo, hi in
                                         zip(test.offsets[:-1], test.offsets[1:])])):
        theirs = lgb.Dataset(str(root / "LGB" / name), params={"verbose": -1}).construct()
        assert theirs.get_group().tolist() == [len(y) for y in queries], name
        np.testing.assert_array_equal(theirs.get_label(), np.concatenate(queries))
    assert sorted(rows) == list(range(1, len(rows) + 1))


def test_files_without_qids_train_and_score_as_the_same_data_with_qids(layouts_run):
    """LGB's AdaRank scores NOVALI's test documents as NOVALI's does, and its per-query results
    are NOVALI's with each test query named by its number in rank.test, as eval names it."""
    work = layouts_run["work"]
    model = "models/adarank/ranklib/fold1.test_scores.npy"
    np.testing.assert_array_equal(*(np.load(work / "out" / d / model) for d in ("NOVALI", "LGB")))
    test = read_letor(layouts_run["fold1"]["test"])
    ours, twin = (pd.read_parquet(work / "out" / d / "eval" / "adarank" / "ranklib" / "fold1.parquet")
                  .drop(columns="dataset") for d in ("LGB", "NOVALI"))
    assert set(ours["qid"]) == {str(i) for i in range(1, test.n_queries + 1)}
    twin["qid"] = [str(q) for q in numbers(twin["qid"].astype(np.int64).to_numpy(), test)]
    pd.testing.assert_frame_equal(ours, twin)
