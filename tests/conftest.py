"""Shared fixtures: a hand-checkable three-query example and the MQ2008 copy beside the checkout."""

import os
from pathlib import Path

import numpy as np
import pytest

# The copy beside the checkout; LTRCONV_MQ2008_DIR points elsewhere (e.g. from a git worktree).
MQ2008 = Path(os.environ.get("LTRCONV_MQ2008_DIR")
              or Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008")
# OHSUMED, kept beside MQ2008; LTRCONV_OHSUMED_DIR points elsewhere.
OHSUMED = Path(os.environ.get("LTRCONV_OHSUMED_DIR")
               or Path(__file__).resolve().parents[2] / "shared" / "data" / "OHSUMED")
# RankLib 2.x's outputs on MQ2008 (models, logs, test scores), kept beside the checkout with the
# data; LTRCONV_RANKLIB_REFERENCE points elsewhere.
RANKLIB_REFERENCE = Path(os.environ.get("LTRCONV_RANKLIB_REFERENCE")
                         or Path(__file__).resolve().parents[2] / "shared" / "reference"
                         / "ranklib-2.x")
NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "figures.ipynb"

# Markers (registered in pyproject.toml) follow from the fixtures a test uses, directly or not.
MARK_BY_FIXTURE = {"mq2008_dir": "mq2008", "mq2008_fold1": "mq2008", "workflow_run": "slow",
                   "ci_run": "slow", "scatter_runs": "slow", "library_run": "slow"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for mark in sorted({m for f, m in MARK_BY_FIXTURE.items() if f in used}):
            item.add_marker(mark)
    _group_by_module_fixtures(items)
    _pipeline_modules_first(items)


def _pipeline_modules_first(items):
    """The modules that run the pipeline (a ``slow`` test) first, each kept whole, the rest in
    their order: under ``pytest -n`` their long fixture-sharing groups then start at once instead
    of after the quick tests, which fill the other worker meanwhile."""
    def module(item):
        return getattr(getattr(item, "module", None), "__name__", None)

    slow = {module(item) for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: module(item) not in slow)  # stable: order kept within


def _group_by_module_fixtures(items):
    """Under ``pytest -n`` (pytest-xdist, ``--dist loadgroup``): the tests that share a
    module-scoped fixture, directly or through another test's fixtures, run in one worker, so
    that the fixture (a pipeline run, a trained model) is built once; the others spread freely.
    """
    parent: dict[str, str] = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    shared = {}
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        names = [f"{item.module.__name__}::{name}" for name, defs in info.name2fixturedefs.items()
                 if defs and defs[-1].scope == "module"]
        if names:
            shared[item] = names[0]
            for other in names[1:]:
                parent[find(other)] = find(names[0])
    for item, name in shared.items():
        item.add_marker(pytest.mark.xdist_group(find(name)))


@pytest.fixture(scope="session")
def mq2008_dir() -> Path:
    if not (MQ2008 / "Fold1" / "train.txt").exists():
        pytest.skip(f"MQ2008 not found at {MQ2008} (the copy CI keeps beside the checkout; "
                    "set LTRCONV_MQ2008_DIR to use another)")
    return MQ2008


@pytest.fixture(scope="session")
def ohsumed_dir() -> Path:
    if not (OHSUMED / "Fold1" / "train.txt").exists():
        pytest.skip(f"OHSUMED not found at {OHSUMED} (the copy kept beside MQ2008; set "
                    "LTRCONV_OHSUMED_DIR to use another)")
    return OHSUMED


@pytest.fixture(scope="session")
def mq2008_fold1(mq2008_dir):
    """(train, vali, test) Datasets of MQ2008 Fold1, read once per session."""
    from ltrconv.data.letor import read_letor

    return tuple(read_letor(mq2008_dir / "Fold1" / f"{s}.txt") for s in ("train", "vali", "test"))


@pytest.fixture(scope="session")
def ranklib_reference() -> Path:
    """RankLib 2.x's outputs: one directory per dataset and fold (MQ2008-Fold1/...)."""
    if not RANKLIB_REFERENCE.is_dir():
        pytest.skip(f"RankLib 2.x reference outputs not found at {RANKLIB_REFERENCE} (kept "
                    "beside the checkout with the data; set LTRCONV_RANKLIB_REFERENCE to use "
                    "another copy)")
    return RANKLIB_REFERENCE


@pytest.fixture(scope="session")
def worked_example():
    """Three queries: q1 (12 documents, tied scores), q2 (6 documents), q3 (no relevant document)."""
    y = np.array([2, 0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0] + [0, 1, 0, 0, 2, 0] + [0] * 8)
    s = np.array(
        [0.9, 0.8, 0.8, 0.7, 0.5, 0.5, 0.4, 0.3, 0.2, 0.2, 0.1, 0.0]
        + [0.5, 0.4, 0.3, 0.3, 0.2, 0.1]
        + [0.5] * 8
    )
    qid = np.array([1] * 12 + [2] * 6 + [3] * 8)
    docid = np.array([f"d{i:02d}" for i in range(12)] + [f"e{i}" for i in range(6)] + [f"f{i}" for i in range(8)])
    return y, s, qid, docid


@pytest.fixture
def run_notebook(monkeypatch):
    """Execute notebooks/figures.ipynb on a results directory; returns the executed notebook."""
    import nbformat
    from nbclient import NotebookClient

    def run(results_dir: Path | None, out_dir: Path, notebook: Path = NOTEBOOK):
        """``results_dir`` None: the notebook's own choice (LTRCONV_RESULTS_DIR unset)."""
        if results_dir is None:
            monkeypatch.delenv("LTRCONV_RESULTS_DIR", raising=False)
        else:
            monkeypatch.setenv("LTRCONV_RESULTS_DIR", str(results_dir))
        monkeypatch.setenv("LTRCONV_NOTEBOOK_OUT", str(out_dir))
        monkeypatch.setenv("LTRCONV_NOTEBOOK_DPI", "50")
        nb = nbformat.read(notebook, as_version=4)
        NotebookClient(nb, timeout=120, kernel_name="python3",
                       resources={"metadata": {"path": str(notebook.parent)}}).execute()
        for cell in nb.cells:
            for o in cell.get("outputs", []):
                assert o.output_type != "error", o.get("evalue")
        return nb

    return run


@pytest.fixture(scope="session")
def ranklib_fold1(ranklib_reference) -> Path:
    """The directory of RankLib 2.x's MQ2008 Fold1 models, logs and test scores."""
    return ranklib_reference / "MQ2008-Fold1"
