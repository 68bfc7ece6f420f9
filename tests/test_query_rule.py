"""The one rule for a query's NDCG@k where several apply (ltrconv.evaluation.compiled), on
LETOR lists and on runs with qrels alike: closed-form values, one case each."""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import ltrconv
from ltrconv.evaluation.compiled import Rule, ndcg
from ltrconv.evaluation.conventions import parse
from ltrconv.evaluation.metrics import evaluate


def frame(rows, value):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", value])


def both_paths(conv, labels, scores, k):
    """NDCG@k of one query, every document judged and retrieved once: by evaluate (both
    engines) and by evaluate_run with the ideal from the list and from the qrels."""
    qid = np.zeros(len(labels), dtype=int)
    docs = [f"d{i}" for i in range(len(labels))]
    out = {}
    for engine in ("numpy", "numba"):
        ev = evaluate(np.array(labels), np.array(scores, float), qid, docid=docs,
                      conventions=[conv], cutoffs=[k], engine=engine)
        out[engine] = float(next(iter(ev.values()))[f"NDCG@{k}"][0])
    qrels = frame([("q", d, g) for d, g in zip(docs, labels)], "relevance")
    run = frame([("q", d, s) for d, s in zip(docs, scores)], "score")
    for ideal in ("list", "qrels"):
        res = ltrconv.evaluate_run(qrels, run, conventions=[conv.with_(ideal=ideal)], cutoffs=[k])
        ev = next(iter(res.values()))
        out[ideal] = float(ev[f"NDCG@{k}"][0]) if len(ev.qids) else "absent"
    return out


def test_precedence_closed_forms():
    r = Rule(empty=0.5, short_zero=True, divide_negative=False)
    idcg = np.array([[0.0, -1.0, 2.0, 2.0]])
    got = ndcg(np.array([[1.0, 1.0, 1.0, 1.0]]), idcg, np.array([[1]]), np.array([3, 3, 3, 1]), r)
    # IDCG = 0 and IDCG < 0: empty, before short; n = 1 < 3: 0; n = 1 = k: 1 / 2
    np.testing.assert_array_equal(got, [[0.5, 0.5, 0.0, 0.5]])
    keep_divide = Rule(empty=0.5, short_zero=False, divide_negative=True)
    np.testing.assert_array_equal(ndcg(np.array([-2.0]), np.array([-1.0]), 5, 3, keep_divide), [2.0])


def test_skip_wins_over_short_zero_on_every_path():
    """A one-document query without relevant document at k = 3 under empty=skip, short=zero:
    skipped (NaN), not 0, on every path."""
    conv = parse("ndcg(empty=skip,short=zero)")
    values = both_paths(conv, [0], [0.3], 3)
    assert all(np.isnan(v) for v in values.values()), values


def test_keep_divide_divides_a_negative_ideal_on_every_path():
    """Negative grades only (exp gain: 2^-1 - 1 = -0.5, 2^-2 - 1 = -0.75): IDCG@1 = -0.5; the
    ranking puts the -2 first, DCG@1 = -0.75, NDCG@1 = 1.5 under keep-divide; keep takes empty."""
    divide = parse("ndcg(empty=skip,negative=keep-divide,ties=optimistic)")
    values = both_paths(divide, [-1, -2], [0.1, 0.9], 1)
    assert values == {"numpy": 1.5, "numba": 1.5, "list": 1.5, "qrels": 1.5}
    keep = parse("ndcg(empty=1,negative=keep)")
    assert set(both_paths(keep, [-1, -2], [0.1, 0.9], 1).values()) == {1.0}


J = "ndcg(gain=linear,ties=docid-desc,pk=k,negative=zero,ideal=qrels,unjudged=drop)"
"""trec_eval -J: trec_eval's convention with unjudged documents dropped (no -c: missing=skip)."""


def test_a_query_whose_documents_are_all_unjudged_scores_0_under_drop():
    """trec_eval -J scores such a query 0 (q2 below: its only document is unjudged), it is not
    left out: the mean is 0.5, not 1."""
    qrels = frame([("q1", "d1", 1), ("q1", "d2", 0), ("q2", "d5", 1)], "relevance")
    run = frame([("q1", "d1", 1.0), ("q1", "d2", 0.5), ("q2", "dX", 1.0)], "score")
    res = ltrconv.evaluate_run(qrels, run, conventions=[J], cutoffs=[10])
    ev = next(iter(res.values()))
    assert list(ev.qids) == ["q1", "q2"]
    np.testing.assert_array_equal(ev["NDCG@10"], [1.0, 0.0])
    assert ev.mean()["NDCG@10"] == 0.5 and ev.mean()["MAP"] == 0.5
    every = next(iter(ltrconv.evaluate_run(qrels.iloc[2:], run.iloc[2:], conventions=[J],
                                           cutoffs=[10]).values()))
    assert every.mean() == {c: 0.0 for c in every.columns}  # every query dropped: still a mean


def test_missing_query_is_an_empty_ranking():
    """missing=zero: a qrels query the run lacks has every metric 0, and NDCG@k by the rule
    (empty where its IDCG@k is 0; left out under empty=skip)."""
    qrels = frame([("q1", "d1", 1), ("q2", "d5", 1), ("q3", "d7", 0)], "relevance")
    run = frame([("q1", "d1", 1.0)], "score")
    conv = parse("ndcg(ideal=qrels,missing=zero,empty=skip)")
    ev = next(iter(ltrconv.evaluate_run(qrels, run, conventions=[conv], cutoffs=[5]).values()))
    assert list(ev.qids) == ["q1", "q2", "q3"]
    np.testing.assert_array_equal(ev["NDCG@5"], [1.0, 0.0, np.nan])
    np.testing.assert_array_equal(ev.skipped, [False, False, True])
    assert ev.mean()["NDCG@5"] == 0.5


@pytest.mark.skipif(not os.environ.get("LTRCONV_TREC_EVAL") and not shutil.which("trec_eval"),
                    reason="set LTRCONV_TREC_EVAL to a trec_eval binary (usnistgov/trec_eval "
                           "v9.0.8) to compare with it")
def test_all_unjudged_query_as_trec_eval_J(tmp_path):
    binary = os.environ.get("LTRCONV_TREC_EVAL") or shutil.which("trec_eval")
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d5 1\nq3 0 d8 2\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 0.5 r\nq2 Q0 dX 1 1.0 r\n"
                                "q3 Q0 dY 1 2.0 r\nq3 Q0 d8 2 1.0 r\n")
    out = subprocess.run([binary, "-q", "-J", "-m", "ndcg_cut.1,3", str(tmp_path / "q"),
                          str(tmp_path / "r")], capture_output=True, text=True, check=True).stdout
    theirs = {(f.split()[0], f.split()[1]): float(f.split()[2]) for f in out.splitlines()}
    ev = next(iter(ltrconv.evaluate_run(tmp_path / "q", tmp_path / "r", conventions=[J],
                                        cutoffs=[1, 3]).values()))
    for k in (1, 3):
        for q, v in zip(ev.qids, ev[f"NDCG@{k}"]):
            assert v == pytest.approx(theirs[f"ndcg_cut_{k}", str(q)], abs=5e-5)
        assert ev.mean()[f"NDCG@{k}"] == pytest.approx(theirs[f"ndcg_cut_{k}", "all"], abs=5e-5)


def test_float32_scores_rank_alike_whatever_the_metrics():
    """scores=float32 with input order: 1.0 and 1.0 + 1e-12 tie as float32, so the first-listed
    (irrelevant) document ranks first: NDCG@1 = 0 whether NDCG is asked alone (numpy's DCG-only
    path) or with other metrics (the engine)."""
    qrels = frame([("q", "a", 0), ("q", "b", 1)], "relevance")
    run = frame([("q", "a", 1.0), ("q", "b", 1.0 + 1e-12)], "score")
    for metrics in (["NDCG"], ["NDCG", "P"]):
        res = ltrconv.evaluate_run(qrels, run, conventions=["ndcg(scores=float32,ideal=qrels)"],
                                   cutoffs=[1], metrics=metrics)
        assert next(iter(res.values()))["NDCG@1"][0] == 0.0, metrics
