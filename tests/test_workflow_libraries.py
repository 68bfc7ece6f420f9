"""The library study (extensions.libraries, train_conventions_by_algorithm) through the Snakemake
workflow on the synthetic dataset of test_workflow."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from workflow_helpers import ALGORITHMS, FOLDS, VARIANTS, base_config, snakemake, write_dataset

ALGS = ["adarank", "lambdamart", "rankboost"]
LIBS = ["sklearn", "lightgbm", "xgboost-minus", "catboost", "trec-raw"]
OWN = {"adarank": ["ranklib", "sklearn", "catboost"], "lambdamart": ["ranklib", "sklearn"]}


def library_config(dataset_dir: Path) -> dict:
    cfg = base_config(dataset_dir)
    cfg.update({
        "seeds": [0],
        "extensions": {"libraries": True},
        "train_conventions": ["ranklib"],
        "train_conventions_by_algorithm": OWN,
        "eval_conventions": ["ranklib", *LIBS],
        "algorithms": {a: (ALGORITHMS[a] if a in ALGS else None) for a in ALGORITHMS},
        "variants": {v: None for v in VARIANTS},
        "figures": {"figure1_algorithms": ["adarank", "lambdamart"],
                    "figure1_eval_conventions": ["ranklib"],
                    "figure2_eval_conventions": ["ranklib"]},
    })
    return cfg


@pytest.fixture(scope="module")
def library_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("wflib")
    tests = write_dataset(root / "SYN")
    cfg = root / "config.yaml"
    cfg.write_text(yaml.safe_dump(library_config(root / "SYN")))
    work = root / "work"
    proc = snakemake(work, cfg, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = work / "out" / "SYN"
    return {"root": root, "work": work, "config": cfg, "results": res,
            "study": work / "out" / "study", "tests": tests}


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])


def test_models_are_trained_with_each_algorithms_own_conventions(library_run):
    models = library_run["results"] / "models"
    trained = {(p.parent.parent.name, p.parent.name) for p in models.rglob("fold1.pkl")}
    want = {(a, c) for a in ALGS for c in OWN.get(a, ["ranklib"])}
    assert trained == want
    runtime = read(library_run["results"] / "tables" / "runtime.tsv")
    assert set(zip(runtime["algorithm"], runtime["train_convention"])) == want
    pq = pd.read_parquet(library_run["results"] / "per_query.parquet")
    assert set(zip(pq["algorithm"], pq["train_convention"])) == want
    assert set(pq["eval_convention"]) == {"ranklib", *LIBS}


def test_library_table_reports_the_summary_and_the_empty_query_gap(library_run):
    res = library_run["results"]
    table = read(res / "tables" / "libraries.tsv")
    summary = read(res / "tables" / "summary.tsv")
    assert set(table["algorithm"]) == set(ALGS) and set(table["train_convention"]) == {"ranklib"}
    assert list(table["eval_convention"].drop_duplicates()) == ["ranklib"] + LIBS
    s = summary.set_index(["algorithm", "train_convention", "eval_convention", "metric", "k"])["mean"]
    for r in table.itertuples():
        assert r.mean == pytest.approx(s[(r.algorithm, "ranklib", r.eval_convention, "NDCG", r.k)],
                                       abs=1e-9)
    # lightgbm and xgboost-minus differ in the value of a query without relevant document only
    tests = library_run["tests"]
    share = np.mean([np.mean([tests[f].y[a:b].max() == 0 for a, b in
                              zip(tests[f].offsets[:-1], tests[f].offsets[1:])]) for f in FOLDS])
    assert share > 0
    w = table.pivot_table(index=["algorithm", "k"], columns="eval_convention", values="mean")
    np.testing.assert_allclose(w["lightgbm"] - w["xgboost-minus"], share, atol=1e-9)
    spread = read(res / "tables" / "library_spread.tsv")
    every = spread[spread["group"] == "all"].set_index(["algorithm", "k"])
    libs = w[LIBS]
    np.testing.assert_allclose(every["spread"].sort_index(),
                               (libs.max(axis=1) - libs.min(axis=1)).sort_index(), atol=1e-9)
    assert set(spread["group"]) == {"all", "empty=0", "empty=1"}


def test_library_ttests_pair_each_trained_library_with_ranklib(library_run):
    res = library_run["results"]
    tests = read(res / "tables" / "library_ttests.tsv")
    assert set(zip(tests["algorithm"], tests["conv_a"])) == {
        ("adarank", "sklearn"), ("adarank", "catboost"), ("lambdamart", "sklearn")}
    assert set(tests["conv_b"]) == {"ranklib"} and set(tests["metric"]) == {"NDCG"}
    pq = pd.read_parquet(res / "per_query.parquet")
    pq = pq[(pq["algorithm"] == "adarank") & (pq["eval_convention"] == "catboost")
            & (pq["metric"] == "NDCG") & (pq["k"] == 10)]
    wide = pq.pivot(index=["fold", "qid"], columns="train_convention", values="value")
    row = tests[(tests["algorithm"] == "adarank") & (tests["conv_a"] == "catboost")
                & (tests["eval_convention"] == "catboost") & (tests["k"] == 10)].iloc[0]
    assert row["diff"] == pytest.approx((wide["catboost"] - wide["ranklib"]).mean(), rel=1e-9)
    assert row["n"] == len(wide)


def test_library_winning_numbers_and_flips(library_run):
    from ltrconv.study.libraries import order_flips

    assert sorted(p.name for p in library_run["study"].rglob("*.tsv")) == [
        "library_flips.tsv", "library_winning.tsv"]  # extensions.winning is off
    w = read(library_run["study"] / "tables" / "library_winning.tsv")
    assert set(w["eval_convention"]) == {"ranklib", *LIBS} and set(w["metric"]) == {"NDCG"}
    assert set(w["algorithm"]) == set(ALGS) and (w["n_units"] == len(FOLDS)).all()
    assert (w["IWN"] == (len(ALGS) - 1) * len(FOLDS)).all()
    flips = read(library_run["study"] / "tables" / "library_flips.tsv")
    again = order_flips(w, LIBS)
    assert len(flips) == len(again)
    assert set(zip(flips["k"], flips["algorithm_a"], flips["algorithm_b"])) == set(
        zip(again["k"], again["algorithm_a"], again["algorithm_b"]))


def test_claims_section_and_figure(library_run):
    import matplotlib.image as mpimg

    res = library_run["results"]
    claims = (res / "claims.md").read_text()
    section = claims[claims.index("## Today's libraries"):]
    table = read(res / "tables" / "libraries.tsv")
    t10 = table[table["k"] == 10].set_index(["eval_convention", "algorithm"])["mean"]
    row = next(line for line in section.splitlines() if line.startswith("| lightgbm |"))
    assert f"{t10[('lightgbm', 'adarank')]:.4f}" in row
    assert "Libraries scoring a query without relevant document 1 (2 conventions)" in section
    assert "over 2 (dataset, fold) units" in section
    assert "| AdaRank | catboost | catboost |" in section
    assert "| LambdaMART | sklearn | ranklib |" in section
    assert "Holm over the 6 tests of this section" in section  # 3 pairs x 2 evaluations
    png = res / "figures" / "libraries.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and mpimg.imread(png).shape[0] > 500
    assert png.with_suffix(".pdf").read_bytes()[:4] == b"%PDF"


def test_report_has_the_library_pages_with_captions(library_run):
    path = library_run["root"] / "report.html"
    proc = snakemake(library_run["work"], library_run["config"], "--report", str(path))
    assert proc.returncode == 0, proc.stderr[-4000:]
    text = path.read_text(encoding="utf-8")
    marker = "var results = {"
    results, _ = json.JSONDecoder().raw_decode(text, text.index(marker) + len(marker) - 1)
    pages = {Path(p).stem: r for p, r in results.items()}
    want = {"figure_libraries", "table_libraries", "table_library_spread", "table_library_ttests",
            "table_library_winning", "table_library_flips"}
    assert want <= set(pages)
    caption = {k: html.unescape(" ".join(re.sub(r"<[^>]+>", "", r["caption"]).split()))
               for k, r in pages.items()}
    assert "(sklearn, lightgbm, xgboost-minus, catboost, trec-raw) and ranklib in black" in \
        caption["figure_libraries"]
    assert "Models of AdaRank, LambdaMART trained with a library's NDCG@10 (sklearn, catboost;" in \
        caption["table_library_ttests"]


def test_rerun_has_nothing_to_do(library_run):
    proc = snakemake(library_run["work"], library_run["config"], "-n")
    assert proc.returncode == 0 and "Nothing to be done" in proc.stdout + proc.stderr
