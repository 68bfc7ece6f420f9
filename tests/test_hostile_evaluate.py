"""evaluate() on inputs a hostile caller gives: one clear InputError, never a silent number."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ltrconv import evaluate
from ltrconv.errors import InputError

Y = [2, 0, 1, 0, 1]
S = [0.5, 0.4, 0.3, 0.2, 0.1]


def test_qid_and_offsets_must_agree():
    with pytest.raises(InputError, match="qid and offsets disagree"):
        evaluate(Y, S, [1, 1, 3, 3, 3], offsets=[0, 1, 5])
    ok = evaluate(Y, S, [1, 1, 3, 3, 3], offsets=[0, 2, 5])["ranklib"]
    assert ok.qids.tolist() == [1, 3]


@pytest.mark.parametrize("qid,match", [
    ([1.0, 1.0, np.nan, np.nan, np.nan], "qid of document 3 is nan"),
    (np.array([1, 1, "a", "a", "a"], dtype=object), "qid mixes value types"),
    ([1, 1, 2], "qid has 3 entries for 5 documents"),
    ([[1, 1, 2, 2, 2]], "qid must be one-dimensional"),
])
def test_bad_qids(qid, match):
    with pytest.raises(InputError, match=match):
        evaluate(Y, S, qid)


@pytest.mark.parametrize("offsets,match", [
    ([0, 2.5, 5], "query offsets must be integers"),
    ([[0, 2, 5]], "query offsets must be one-dimensional"),
    ([0], "query offsets must rise"),
])
def test_bad_offsets(offsets, match):
    with pytest.raises(InputError, match=match):
        evaluate(Y, S, offsets=offsets)


def test_qid_shorter_than_offsets():
    with pytest.raises(InputError, match="qid has 2 entries for 5 documents"):
        evaluate(Y, S, [1, 2], offsets=[0, 2, 5])


def test_empty_input():
    with pytest.raises(InputError, match="no documents"):
        evaluate([], [], [])


@pytest.mark.parametrize("scores,match", [
    (np.array(S) + 1j, "scores must be real numbers"),
    (np.array(["0.5", "0.4", "junk", "0.2", "0.1"], dtype=object),
     r"score of document 3 is 'junk', not a real number"),
    (["0.5", "0.4", "x", "0.2", "0.1"], r"score of document 3 is 'x'"),
])
def test_bad_scores(scores, match):
    with pytest.raises(InputError, match=match):
        evaluate(Y, scores, [1, 1, 2, 2, 2])


def test_numeric_strings_still_read_as_scores():
    a = evaluate(Y, ["0.5", "0.4", "0.3", "0.2", "0.1"], [1, 1, 2, 2, 2])["ranklib"]
    b = evaluate(Y, S, [1, 1, 2, 2, 2])["ranklib"]
    assert np.array_equal(a.values, b.values)


def test_docid_tie_order_without_docids_warns():
    with pytest.warns(UserWarning, match="trec break.* ties by docid, but no docid was given"):
        evaluate(Y, S, [1, 1, 2, 2, 2], conventions=["trec"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(Y, S, [1, 1, 2, 2, 2], conventions=["trec"], docid=list("abcde"))
        evaluate(Y, S, [1, 1, 2, 2, 2], conventions=["ranklib"])


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_scores_beyond_float32_under_trec_say_what_happens(engine):
    """trec_eval reads scores as C floats: beyond 3.4e38 they become +-inf. One clear warning
    instead of numpy's bare 'overflow encountered in cast'."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = evaluate([1, 0, 0], [1e300, 1e299, -1e300], [1, 1, 1], conventions=["trec"],
                      docid=["a", "b", "c"], engine=engine)["trec"]
    messages = [str(w.message) for w in caught]
    assert messages == ["3 score(s) beyond float32's range (|s| > 3.4e38) compare as +-inf, "
                        "tying with each other, under trec (scores read as float32, as "
                        "trec_eval reads them)"]
    # a and b tie at +inf; docid descending puts b first: NDCG@1 = 0
    assert ev.mean()["NDCG@1"] == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate([1, 0, 0], [1e300, 1e299, -1e300], [1, 1, 1], conventions=["ranklib"],
                 engine=engine)
