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
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  differs")
             or " of 13 differ" in line]
    assert lines == ["  differs: tables/summary.tsv: line 4 differs",
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


def _record(**over) -> dict:
    """A provenance record: the reference's, with ``over`` (dotted keys) changed."""
    import json

    rec = json.loads((REFERENCE / "provenance.json").read_text())
    for key, value in over.items():
        *path, last = key.split("__")
        node = rec
        for part in path:
            node = node[part]
        node[last] = value
    return rec


def _run_beside(tmp_path: Path, rec: dict) -> Path:
    from ltrconv.study import provenance

    run = tmp_path / "run"
    shutil.copytree(REFERENCE, run)
    provenance.write(run / "provenance.json", rec)
    return run


def test_check_reference_compares_the_provenance_first(tmp_path, capsys):
    """Equal bytes under other versions: the records' differences are listed, the files equal."""
    numpy = _record()["packages"]["numpy"]
    run = _run_beside(tmp_path, _record(packages__numpy="9.9.9", cpu__model="Another CPU"))
    assert main(["check-reference", str(run), str(REFERENCE)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == ["provenance: 2 difference(s) between the records",
                       f"  numpy: 9.9.9 here, {numpy} in the reference",
                       f"  CPU: Another CPU here, {_record()['cpu']['model']} in the reference"]
    assert out[-1] == "every compared file equals the reference"


def test_check_reference_says_which_difference_can_move_each_file(tmp_path, capsys):
    ref = _record()
    run = _run_beside(tmp_path, _record(
        packages__matplotlib="0.1", numpy_simd__dispatched=["X86_V3"]))
    summary = (run / "tables" / "summary.tsv").read_text().split("\n")
    summary[5] = summary[5].replace("\t0.", "\t1.", 1)  # a number of an ordinary row
    (run / "tables" / "summary.tsv").write_text("\n".join(summary))
    (run / "figures" / "figure1.png").write_bytes(b"other pixels")
    assert main(["check-reference", str(run), str(REFERENCE)]) == 1
    out = capsys.readouterr().out
    simd = ", ".join(ref["numpy_simd"]["dispatched"])
    assert (f"  differs: figures/figure1.png: 12 bytes against the reference's "
            f"{(REFERENCE / 'figures' / 'figure1.png').stat().st_size:,}\n"
            f"    may follow (figures (PNG)): matplotlib: 0.1 here, "
            f"{ref['packages']['matplotlib']} in the reference\n") in out
    # the SIMD targets move only the sklearn-ignore-ties rows, absent from the paper's tables
    assert ("  differs: tables/summary.tsv: line 6 differs\n"
            "    no recorded difference explains it; equal in both records: packages.pandas "
            "(tables and claims.md)") in out
    assert "numpy SIMD targets this CPU runs: X86_V3 here, " + simd in out
    assert "known dependences:\n" in out and "\n  figures (PNG): matplotlib lays them out" in out


def test_a_sklearn_ignore_ties_row_is_put_down_to_numpy_and_the_cpu(tmp_path):
    """Every differing line a sklearn-ignore-ties row: that dependence alone, with the records'
    numpy and SIMD differences; a line of another row as well: the general dependences."""
    from ltrconv.study.provenance import changes
    from ltrconv.study.reference import Difference, explain

    ref, run = tmp_path / "ref", tmp_path / "run"
    for d, value in ((ref, "0.5"), (run, "0.6")):
        (d / "tables").mkdir(parents=True)
        (d / "tables" / "summary.tsv").write_text(
            f"k\teval_convention\tmean\n1\tsklearn-ignore-ties\t{value}\n1\tsklearn\t0.4\n")
    moved = changes({"packages": {"numpy": "2.4.6"}, "numpy_simd": {"dispatched": ["X86_V4"]}},
                    {"packages": {"numpy": "2.4.6"}, "numpy_simd": {"dispatched": ["X86_V3"]}})
    lines, deps = explain(Difference("tables/summary.tsv", "line 2 differs"), run, ref, moved)
    assert lines == ["every differing line is a sklearn-ignore-ties row",
                     "may follow (sklearn-ignore-ties rows): numpy SIMD targets this CPU runs: "
                     "X86_V4 here, X86_V3 in the reference"]
    assert [d.outputs for d in deps] == ["sklearn-ignore-ties rows"]
    (run / "tables" / "summary.tsv").write_text(
        "k\teval_convention\tmean\n1\tsklearn-ignore-ties\t0.6\n1\tsklearn\t0.3\n")
    lines, deps = explain(Difference("tables/summary.tsv", "line 2 differs"), run, ref, moved)
    assert lines[0].startswith("no recorded difference explains it")
    lines, _ = explain(Difference("tables/summary.tsv", "line 2 differs"), run, ref, None)
    assert lines[0].startswith("depends on: packages.pandas (tables and claims.md); "
                               "ltrconv.commit")


def test_without_records_check_reference_says_so(tmp_path, capsys):
    ref = _tiny_reference(tmp_path / "ref")
    run = _tiny_reference(tmp_path / "run")
    assert main(["check-reference", str(run), str(ref)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        f"provenance: no provenance record at {run / 'provenance.json'} and "
        f"{ref / 'provenance.json'}; differences are not explained by versions")
