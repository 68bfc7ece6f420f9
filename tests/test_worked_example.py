"""The three-query example (conftest.worked_example) by hand, to 4 decimals, under each tool's
definition (Busa-Fekete et al. 2012, Sec. 3): RankLib 2.x NDCGScorer, trec_eval ndcg_cut (labels
0,1,2 -> 0,1,3, ties by docid descending), the Yahoo! LTR Challenge script (1 for a query without
a relevant document) and LETOR 4.0 Eval-Score-4.0.pl (discount 1 at ranks 1-2, 0 when n < k)."""

import numpy as np
import pytest

from ltrconv import evaluate

Q1 = {
    "ranklib": [1.0000, 0.6131, 0.6490, 0.6010, 0.6010, 0.6622, 0.6622, 0.6622, 0.6622, 0.8111, 0.6417],
    "trec": [1.0000, 0.7421, 0.6733, 0.6235, 0.6899, 0.6899, 0.6899, 0.6899, 0.8450, 0.8450, 0.7611],
    "letor": [1.0000, 0.5000, 0.5476, 0.5092, 0.5092, 0.5634, 0.5634, 0.5634, 0.5634, 0.6901, 0.6417],
}
Q1["yahoo"] = Q1["ranklib"]
Q2_LOG2 = [0.0000, 0.1738, 0.1738, 0.1738, 0.4934, 0.4934, 0.4934, 0.4934, 0.4934, 0.4934, 0.4500]
Q2 = {
    "ranklib": Q2_LOG2,
    "trec": Q2_LOG2,
    "yahoo": Q2_LOG2,
    "letor": [0.0000, 0.2500, 0.2500, 0.2500, 0.5730, 0.5730, 0, 0, 0, 0, 0.4500],
}
Q3 = {name: [1.0 if name == "yahoo" else 0.0] * 10 + [0.0] for name in Q1}


@pytest.fixture(scope="module")
def results(worked_example):
    y, s, qid, docid = worked_example
    return evaluate(y, s, qid, conventions=list(Q1), cutoffs="1-10", docid=docid)


@pytest.mark.parametrize("name", list(Q1))
@pytest.mark.parametrize("query, table", [(0, Q1), (1, Q2), (2, Q3)], ids=["q1", "q2", "q3"])
def test_worked_example(results, name, query, table):
    ev = results[name]
    got = [ev[f"NDCG@{k}"][query] for k in range(1, 11)] + [ev["MAP"][query]]
    np.testing.assert_allclose(got, table[name], atol=5e-5)


def test_mean_over_all_queries_includes_empty_ones(results):
    for name in Q1:
        expected = np.mean([Q1[name][9], Q2[name][9], Q3[name][9]])
        assert results[name].mean()["NDCG@10"] == pytest.approx(expected, abs=5e-5)


def test_precision_denominators(results):
    # q2 has 6 documents, relevant at positions 2 and 5 -> 2 relevant in the top 10.
    assert results["ranklib"]["P@10"][1] == pytest.approx(2 / 6)
    assert results["letor"]["P@10"][1] == pytest.approx(2 / 10)
    assert results["trec"]["P@10"][1] == pytest.approx(2 / 10)
