"""The two evaluation engines, numba kernel and numpy, give the same values to the last bit."""

import numpy as np
import pytest

from ltrconv.evaluation import conventions as cv
from ltrconv.evaluation.conventions import Convention
from ltrconv.errors import LtrconvError
from ltrconv.evaluation.metrics import NUMBA_MIN_DOCS, _use_numba, evaluate

TIES = ("input-order", "docid-desc", "average", "pessimistic", "optimistic")
# beside the registered conventions: every tie policy with other gains, discounts, empty and
# short values, rel = 2 and 3, and P@k over k
CUSTOM = [Convention(gain="linear", ties=t, rel=2, pk="k", short="zero", empty=0.5) for t in TIES] + [
    Convention(gain=((0, 1.0), (1, 0.0), (2, 3.0), (3, 0.5), (4, 2.0)), disc="letor", ties=t, rel=3)
    for t in TIES
]


def both(y, s, qid, docid, conventions, cutoffs):
    kw = dict(conventions=conventions, cutoffs=cutoffs, docid=docid)
    return evaluate(y, s, qid, engine="numba", **kw), evaluate(y, s, qid, engine="numpy", **kw)


def assert_identical(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].columns == b[name].columns
        assert a[name].values.tobytes() == b[name].values.tobytes(), name


def random_case(rng, trial):
    sizes = rng.integers(1, rng.choice([5, 20, 80, 200]), rng.integers(1, 25))
    qid = np.repeat(np.arange(len(sizes)) * 7 + 3, sizes)
    n = len(qid)
    y = rng.integers(0, 5, n)
    kind = trial % 4
    if kind == 0:  # no ties
        s = rng.random(n)
    elif kind == 1:  # many ties
        s = rng.integers(0, 4, n) / 4.0
    elif kind == 2:  # ties under float32 only (docid-desc)
        s = rng.integers(0, 3, n) / 4 + rng.choice([0.0, 1e-9], n)
    else:  # signed zeros among the ties
        s = np.where(rng.random(n) < 0.5, 0.0, -0.0) + rng.integers(0, 2, n)
    docid = np.array([f"d{k}" for k in rng.integers(0, 50, n)])  # repeats within queries
    return y, s, qid, docid


@pytest.mark.parametrize("cutoffs", ["1-10", "1,3,5,100", "2", "1-40"])
def test_random_queries_every_convention(cutoffs):
    rng = np.random.default_rng(len(cutoffs))
    for trial in range(30):
        y, s, qid, docid = random_case(rng, trial)
        assert_identical(*both(y, s, qid, docid, cv.names() + CUSTOM, cutoffs))


def test_worked_example(worked_example):
    y, s, qid, docid = worked_example
    assert_identical(*both(y, s, qid, docid, cv.names() + CUSTOM, "1-12"))


def test_mq2008_folds(mq2008_dir):
    from ltrconv.data.letor import read_letor

    rng = np.random.default_rng(0)
    for fold in (1, 3):
        d = read_letor(mq2008_dir / f"Fold{fold}" / "test.txt")
        for s in (rng.random(d.n_docs), np.round(d.X[:, 37], 3), np.zeros(d.n_docs)):
            assert_identical(*both(d.y, s, d.qid, d.docid, cv.names(), "1-10"))


def test_engine_choice():
    assert _use_numba("numba", 10, 5) and not _use_numba("numpy", 10**7, 10**5)
    assert not _use_numba("auto", 15_000, 121)  # MQ2008 in full
    assert _use_numba("auto", NUMBA_MIN_DOCS, 100)
    with pytest.raises(LtrconvError, match="engine 'fast': expected one of auto, numba, numpy"):
        evaluate(np.zeros(2, int), np.zeros(2), np.zeros(2, int), engine="fast")
