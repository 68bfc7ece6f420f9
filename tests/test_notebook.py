import shutil
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from ltrconv.study import tables as study
from ltrconv.data.audit import audit_frame
from ltrconv.data.synthetic import make_letor
from planted import planted_per_query

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "figures.ipynb"


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory):
    """A results directory built from a planted per-query table through ltrconv.study.tables."""
    root = tmp_path_factory.mktemp("results") / "toy"
    tables = root / "tables"
    tables.mkdir(parents=True)
    pq = planted_per_query(n_queries=30, n_folds=2, algorithms=("coordinate_ascent", "adarank"),
                           eval_conventions=("ranklib", "yahoo", "letor"), dataset="toy")
    pq.to_parquet(root / "per_query.parquet")  # the t-tests are recomputed from it
    summary = study.summarise(pq)
    summary.to_csv(tables / "summary.tsv", sep="\t", index=False)
    study.algorithm_order(summary).to_csv(tables / "algorithm_order.tsv", sep="\t", index=False)
    audit_frame(make_letor(n_queries=30)).to_csv(tables / "audit.tsv", sep="\t", index=False)
    pd.DataFrame({"algorithm": ["adarank"] * 2, "train_convention": ["ranklib", "letor"],
                  "fold": [1, 1], "s": [1.5, 2.0], "max_rss": [120.0, 130.0]}).to_csv(
        tables / "runtime.tsv", sep="\t", index=False)
    return root


def test_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)
    assert "LTRCONV_RESULTS_DIR" in code[0].source and "RESULTS_DIR" in code[0].source


def test_notebook_runs(results_dir, tmp_path, run_notebook):
    out = tmp_path / "out"
    nb = run_notebook(results_dir, out)
    for stem in ("figure1", "figure2", "runtime"):
        assert (out / f"{stem}.png").stat().st_size > 1000 and (out / f"{stem}.pdf").exists()
    texts = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            assert o.output_type != "error"
            texts.append(o.get("text", "") + str(o.get("data", {}).get("text/markdown", "")))
    joined = "\n".join(texts)
    assert "toy: " in joined and "audit: True" in joined
    assert "# Claims of Busa-Fekete et al. (2012) checked on toy" in joined
    assert "Verdict: **" in joined
    assert any("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
    assert not (results_dir / "figures").exists()  # the pipeline's figures are left alone


def printed(nb) -> str:
    return "\n".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))


@pytest.mark.parametrize("run_made", [True, False])
def test_notebook_draws_the_run_when_it_exists_else_the_reference(results_dir, tmp_path,
                                                                   run_notebook, run_made):
    """In a checkout where the pipeline made results/MQ2008 the notebook draws them; elsewhere
    the committed reference/MQ2008. It says which."""
    checkout = tmp_path / "checkout"
    (checkout / "notebooks").mkdir(parents=True)
    shutil.copy(NOTEBOOK, checkout / "notebooks")
    shutil.copytree(results_dir, checkout / "reference" / "MQ2008")
    if run_made:
        shutil.copytree(results_dir, checkout / "results" / "MQ2008")
    nb = run_notebook(None, tmp_path / "out", checkout / "notebooks" / "figures.ipynb")
    first = printed(nb).splitlines()[0]
    if run_made:
        assert first == "drawing ../results/MQ2008 (the pipeline's run in this checkout)"
    else:
        assert first.startswith("drawing ../reference/MQ2008 (the committed reference")
    assert (tmp_path / "out" / "figure1.png").stat().st_size > 1000
