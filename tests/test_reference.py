"""The committed reference result (reference/MQ2008) and a fresh run's results/MQ2008 beside it;
``ltrconv check-reference``, which compares them by the rules of ltrconv.study.reference."""

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ltrconv.cli import main
from ltrconv.study.reference import compare, reference_files

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference" / "MQ2008"
RESULTS = ROOT / "results" / "MQ2008"


def test_reference_is_complete_and_consistent():
    names = {f.relative_to(REFERENCE).as_posix() for f in reference_files(REFERENCE)}
    assert {"claims.md", "tables/summary.tsv", "tables/fold_means.tsv", "tables/ttests.tsv",
            "figures/figure1.png", "figures/figure2.png", "figures/figure1.pdf"} <= names
    assert not any("runtime" in n for n in names)
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
def test_fresh_run_equals_reference():
    """Every table, claims.md and figure of a run equals the reference byte for byte."""
    names, differences = compare(RESULTS, REFERENCE)
    assert len(names) == len(reference_files(REFERENCE)) and differences == []


def test_check_reference_names_what_differs(tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(REFERENCE, run)
    assert main(["check-reference", str(run), str(REFERENCE)]) == 0
    out = capsys.readouterr().out
    assert out.endswith("every compared file equals the reference\n")
    assert "not compared (wall times): figures/runtime.pdf, figures/runtime.png, tables/runtime.tsv" in out
    (run / "tables" / "runtime.tsv").write_text("other wall times\n")  # not compared
    table = (run / "tables" / "summary.tsv").read_text().split("\n")
    table[3] += "0"
    (run / "tables" / "summary.tsv").write_text("\n".join(table))
    (run / "figures" / "figure2.pdf").write_bytes((run / "figures" / "figure2.pdf").read_bytes() + b"\n")
    (run / "figures" / "figure1.png").unlink()
    (run / "extra.txt").write_text("ignored")
    assert main(["check-reference", str(run), str(REFERENCE)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == ["  differs: tables/summary.tsv: line 4 differs",
                         "  differs: figures/figure1.png: missing from the results",
                         f"  differs: figures/figure2.pdf: {(REFERENCE / 'figures' / 'figure2.pdf').stat().st_size + 1:,} "
                         f"bytes against the reference's {(REFERENCE / 'figures' / 'figure2.pdf').stat().st_size:,}",
                         "3 of 13 differ"]


def test_check_reference_of_a_missing_run_is_one_line(tmp_path, capsys):
    assert main(["check-reference", str(tmp_path / "none"), str(REFERENCE)]) == 2
    assert capsys.readouterr().err == (f"ltrconv: error: {tmp_path / 'none'}: no such directory (the "
                                       "results to compare)\n")


def _tiny_reference(root: Path) -> Path:
    (root / "tables").mkdir(parents=True)
    (root / "figures").mkdir()
    (root / "claims.md").write_text("claims\n")
    (root / "tables" / "summary.tsv").write_text("a\tb\n")
    return root


def test_check_reference_never_reads_a_fifo_or_a_device(tmp_path, capsys):
    """A FIFO named like a figure, or a link to /dev/zero, would block or never end if read."""
    import os

    ref = _tiny_reference(tmp_path / "ref")
    run = _tiny_reference(tmp_path / "run")
    os.mkfifo(run / "figures" / "figure1.png")
    (ref / "figures" / "figure1.png").write_bytes(b"png")
    (run / "figures" / "figure2.png").symlink_to("/dev/zero")
    (ref / "figures" / "figure2.png").write_bytes(b"png")
    names, diffs = compare(run, ref)
    assert {d.name: d.detail for d in diffs} == {
        "figures/figure1.png": "is a FIFO in the results; not read",
        "figures/figure2.png": "is a device in the results; not read"}
    os.mkfifo(ref / "figures" / "figure3.png")
    capsys.readouterr()
    assert main(["check-reference", str(run), str(ref)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ltrconv: error: ") and "figure3.png: is a FIFO, not a reference file" in err
