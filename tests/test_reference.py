"""The committed reference result (reference/MQ2008) and a fresh run's results/MQ2008 beside it."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference" / "MQ2008"
RESULTS = ROOT / "results" / "MQ2008"
TIMINGS = ("runtime",)  # machine-dependent outputs, left out of the comparison


def reference_files() -> list[Path]:
    files = [REFERENCE / "claims.md", *sorted((REFERENCE / "tables").glob("*.tsv")),
             *sorted((REFERENCE / "figures").glob("*.png"))]
    return [f for f in files if f.stem not in TIMINGS]


def test_reference_is_complete_and_consistent():
    names = {f.relative_to(REFERENCE).as_posix() for f in reference_files()}
    assert {"claims.md", "tables/summary.tsv", "tables/fold_means.tsv", "tables/ttests.tsv",
            "figures/figure1.png", "figures/figure2.png"} <= names
    summary = pd.read_csv(REFERENCE / "tables" / "summary.tsv", sep="\t")
    folds = pd.read_csv(REFERENCE / "tables" / "fold_means.tsv", sep="\t")
    keys = ["dataset", "algorithm", "train_convention", "eval_convention", "metric", "k"]
    again = folds.groupby(keys)["mean"].agg(["mean", "count"]).reset_index()
    merged = summary.merge(again, on=keys, suffixes=("", "_folds"))
    assert len(merged) == len(summary) > 0
    assert (merged["count"] == merged["n_folds"]).all()
    np.testing.assert_allclose(merged["mean"], merged["mean_folds"], atol=1e-9)


@pytest.mark.skipif(not (RESULTS / "tables").is_dir(),
                    reason="no results/MQ2008/tables here: run 'snakemake --cores 2' first")
@pytest.mark.parametrize("name", [f.relative_to(REFERENCE).as_posix() for f in reference_files()])
def test_fresh_run_equals_reference(name):
    """Every table, claims.md and figure of a run equals the reference byte for byte."""
    assert (RESULTS / name).read_bytes() == (REFERENCE / name).read_bytes(), (
        f"results/MQ2008/{name} differs from reference/MQ2008/{name}")
