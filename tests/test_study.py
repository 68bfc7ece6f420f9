import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sst

from ltrconv import study
from ltrconv.audit import audit, audit_frame
from ltrconv.errors import LtrconvError
from ltrconv.stats import holm
from ltrconv.synthetic import make_letor


def rows(values, fold, algorithm="ranknet", train="ranklib", ev="ranklib", metric="NDCG", k=10,
         dataset="toy", qids=None):
    qids = qids or [f"q{i}" for i in range(len(values))]
    return pd.DataFrame({"dataset": dataset, "fold": fold, "algorithm": algorithm,
                         "train_convention": train, "eval_convention": ev, "metric": metric,
                         "k": k, "qid": qids, "value": values})


@pytest.fixture(scope="module")
def synth():
    pq = study.synthetic_per_query(n_queries=90, n_folds=3)
    summary = study.summarise(pq)
    tests = study.ttests(pq)
    order = study.algorithm_order(summary)
    return pq, summary, tests, order


def test_summarise_closed_form():
    # fold 1: 1, 2, 3 (mean 2, se 1/sqrt 3); fold 2: 4, 6 (mean 5, se 1)
    pq = pd.concat([rows([1.0, 2.0, 3.0], 1), rows([4.0, 6.0], 2)])
    s = study.summarise(pq)
    assert len(s) == 1
    r = s.iloc[0]
    assert r["mean"] == pytest.approx(3.5)  # mean of fold means, not of the 5 queries (3.2)
    assert r["stderr"] == pytest.approx(math.sqrt(1 / 3 + 1) / 2)
    assert (r["n_folds"], r["n_queries"]) == (2, 5)
    assert list(s.columns) == ["dataset", "algorithm", "train_convention", "eval_convention",
                               "metric", "k", "mean", "stderr", "n_folds", "n_queries"]
    fm = study.fold_means(pq)
    assert fm["mean"].tolist() == [2.0, 5.0] and fm["fold"].tolist() == [1, 2]


def test_summarise_single_query_fold_gives_nan_stderr():
    s = study.summarise(pd.concat([rows([1.0, 2.0], 1), rows([4.0], 2)]))
    assert s["mean"].iloc[0] == pytest.approx(2.75) and math.isnan(s["stderr"].iloc[0])


def test_summary_order_is_canonical(synth):
    _, summary, _, _ = synth
    assert list(dict.fromkeys(summary["algorithm"])) == list(study.ALGORITHM_ORDER)
    assert list(dict.fromkeys(summary["train_convention"])) == ["yahoo", "ranklib", "letor"]
    assert list(dict.fromkeys(summary["metric"])) == ["NDCG", "P", "MAP"]
    assert summary.loc[summary["metric"] == "MAP", "k"].eq(0).all()


def test_bad_tables_are_rejected():
    with pytest.raises(LtrconvError, match="lacks column"):
        study.summarise(rows([1.0], 1).drop(columns="qid"))
    with pytest.raises(LtrconvError, match="duplicate"):
        study.summarise(pd.concat([rows([1.0], 1), rows([2.0], 1)]))
    with pytest.raises(LtrconvError, match="NaN"):
        study.ttests(rows([np.nan], 1))


def test_ttests_pair_by_fold_and_qid():
    rng = np.random.default_rng(0)
    a1, a2 = rng.random(8), rng.random(7)
    b1, b2 = a1 - 0.1 + 0.05 * rng.random(8), a2 + 0.02 * rng.random(7)
    # the same qids appear in both folds; rows are shuffled
    pq = pd.concat([rows(a1, 1, train="ranklib"), rows(a2, 2, train="ranklib"),
                    rows(b1, 1, train="letor"), rows(b2, 2, train="letor")]).sample(frac=1, random_state=1)
    t = study.ttests(pq)
    assert len(t) == 1
    r = t.iloc[0]
    assert (r["conv_a"], r["conv_b"], r["n"]) == ("ranklib", "letor", 15)
    a, b = np.concatenate([a1, a2]), np.concatenate([b1, b2])
    ref = sst.ttest_rel(a, b)
    assert r["t"] == pytest.approx(ref.statistic) and r["p"] == pytest.approx(ref.pvalue)
    assert r["diff"] == pytest.approx(a.mean() - b.mean())
    assert (r["mean_a"], r["mean_b"]) == (pytest.approx(a.mean()), pytest.approx(b.mean()))
    assert r["p_holm"] == pytest.approx(r["p"])  # a family of one


def test_ttests_drop_unpaired_queries_and_identical_runs():
    pq = pd.concat([rows([0.1, 0.5, 0.9], 1, train="ranklib"),
                    rows([0.1, 0.5], 1, train="yahoo")])
    r = study.ttests(pq).iloc[0]
    assert (r["conv_a"], r["conv_b"], r["n"]) == ("yahoo", "ranklib", 2)
    assert (r["t"], r["p"], r["p_holm"], r["significant"]) == (0.0, 1.0, 1.0, False)


def test_holm_family_is_dataset_and_metric(synth):
    _, _, tests, _ = synth
    assert set(tests.columns) >= {"dataset", "algorithm", "eval_convention", "metric", "k",
                                  "conv_a", "conv_b", "mean_a", "mean_b", "diff", "t", "p",
                                  "p_holm", "significant"}
    ndcg = tests[tests["metric"] == "NDCG"]
    np.testing.assert_allclose(ndcg["p_holm"], holm(ndcg["p"].to_numpy()))
    mapr = tests[tests["metric"] == "MAP"]
    np.testing.assert_allclose(mapr["p_holm"], holm(mapr["p"].to_numpy()))
    assert (tests["significant"] == (tests["p_holm"] < 0.05)).all()
    # 6 algorithms x 4 eval conventions x 10 cutoffs x 3 pairs
    assert len(ndcg) == 6 * 4 * 10 * 3


def summary_rows(means: dict, ev: str, train="ranklib", k=10, stderr=0.01):
    return pd.DataFrame([{"dataset": "toy", "algorithm": a, "train_convention": train,
                          "eval_convention": ev, "metric": "NDCG", "k": k, "mean": m,
                          "stderr": stderr, "n_folds": 5, "n_queries": 100}
                         for a, m in means.items()])


def test_algorithm_order_flags():
    s = pd.concat([summary_rows({"a": 0.5, "b": 0.4, "c": 0.3}, "ranklib"),
                   summary_rows({"a": 0.8, "b": 0.7, "c": 0.6}, "yahoo"),
                   summary_rows({"a": 0.3, "b": 0.35, "c": 0.1}, "letor"),
                   summary_rows({"a": 0.9, "b": 0.1, "c": 0.3}, "letor", train="yahoo")])
    o = study.algorithm_order(s)
    assert set(o["train_convention"]) == {"ranklib"}
    let = o[o["eval_convention"] == "letor"].set_index("algorithm")
    assert let["rank"].to_dict() == {"a": 2, "b": 1, "c": 3}
    assert let["rank_ranklib"].to_dict() == {"a": 1, "b": 2, "c": 3}
    assert let["rank_differs"].to_dict() == {"a": True, "b": True, "c": False}
    assert let["order_differs"].all()
    assert not o[o["eval_convention"] == "yahoo"]["order_differs"].any()


def test_algorithm_order_without_reference_has_na_flags():
    o = study.algorithm_order(summary_rows({"a": 0.5, "b": 0.5}, "letor"))
    assert o["rank"].tolist() == [1, 1]  # ties share the lower rank
    assert o["rank_differs"].isna().all() and o["order_differs"].isna().all()


def verdicts(claims):
    return {c["id"]: c["verdict"] for c in claims}


def test_yahoo_offset_claim_rules():
    def claim(offset, empty):
        s = pd.concat([summary_rows({"x": 0.4, "y": 0.5}, "ranklib"),
                       summary_rows({"x": 0.4 + offset, "y": 0.5 + offset}, "yahoo")])
        audit_ = None if empty is None else {"empty_share": empty}
        return verdicts(study.paper_claims(s, pd.DataFrame(), pd.DataFrame(), audit_))["yahoo_offset"]

    assert claim(0.28, 0.28) == study.HOLDS
    assert claim(0.28, None) == study.HOLDS
    assert claim(0.28, 0.20) == study.PARTLY
    assert claim(0.10, 0.10) == study.PARTLY
    assert claim(0.10, 0.40) == study.FAILS


def test_yahoo_offset_skips_the_audit_when_folds_are_missing():
    s = pd.concat([summary_rows({"x": 0.4}, "ranklib"), summary_rows({"x": 0.68}, "yahoo")])
    c = study.paper_claims(s, pd.DataFrame(), pd.DataFrame(), {"empty_share": 0.1, "queries": 784})[0]
    assert c["verdict"] == study.HOLDS  # only the 0.25 check applies: 100 of 784 queries
    assert "100 of the audit's 784 queries" in c["measured"][-1]
    c = study.paper_claims(s, pd.DataFrame(), pd.DataFrame(), {"empty_share": 0.1, "queries": 100})[0]
    assert c["verdict"] == study.PARTLY


def test_claims_on_synthetic(synth):
    _, summary, tests, order = synth
    a = {"empty_share": 0.0}
    v = verdicts(study.paper_claims(summary, tests, order, a))
    assert v["letor_collapse"] == study.HOLDS
    assert v["letor_training"] == study.HOLDS
    assert v["yahoo_training"] == study.HOLDS
    assert v["yahoo_offset"] in (study.PARTLY, study.FAILS)  # the audit's share is wrong
    # the offset equals the share of queries without relevant document, fold by fold
    off = (summary.query("metric == 'NDCG' and eval_convention == 'yahoo'")["mean"].to_numpy()
           - summary.query("metric == 'NDCG' and eval_convention == 'ranklib'")["mean"].to_numpy())
    assert np.ptp(off) < 1e-12 and 0.1 < off[0] < 0.4
    v = verdicts(study.paper_claims(summary, tests, order, {"empty_share": float(off[0])}))
    assert v["yahoo_offset"] in (study.HOLDS, study.PARTLY)


def test_ranking_claims_follow_the_order_table_setting(synth):
    _, summary, tests, _ = synth
    order = study.algorithm_order(summary, train_convention="yahoo", k=5)
    claims = {c["id"]: c for c in study.paper_claims(summary, tests, order, None)}
    assert "NDCG@5 of models trained with yahoo" in claims["ca_best"]["rule"]
    assert "NDCG@5 of models trained with yahoo" in claims["adarank"]["rule"]
    se = summary[(summary["train_convention"] == "yahoo") & (summary["eval_convention"] == "ranklib")
                 & (summary["metric"] == "NDCG") & (summary["k"] == 5)].set_index("algorithm")["stderr"]
    m = order[order["eval_convention"] == "ranklib"].set_index("algorithm")["mean"]
    best = m.drop("adarank").idxmax()
    two_se = 2 * math.sqrt(se["adarank"] ** 2 + se[best] ** 2)
    assert f"2 × combined standard error {two_se:.4f}" in claims["adarank"]["measured"][0]


def test_claims_degrade_without_data():
    s = summary_rows({"ranknet": 0.5}, "ranklib")
    claims = study.paper_claims(s, pd.DataFrame(), study.algorithm_order(s), None)
    assert len(claims) == 6
    assert set(verdicts(claims).values()) == {study.MISSING}
    for c in claims:
        assert c["rule"] and c["claim"] and c["title"]


def test_claims_markdown(synth):
    _, summary, tests, order = synth
    other = summary.assign(dataset="other", mean=0.0)
    md = study.claims_markdown(pd.concat([summary, other]), tests, order,
                               {"queries": 90, "empty_share": 0.2, "shorter_than": {10: 0.5}},
                               "synthetic")
    assert md.startswith("# Claims of Busa-Fekete et al. (2012) checked on synthetic\n")
    assert "90 queries" in md and "50.0% with fewer than 10 documents" in md
    assert md.count("Verdict: **") == 6 and md.count("\n| ") == 7
    assert "Coordinate Ascent rank: 1 under ranklib" in md
    assert md == study.claims_markdown(pd.concat([summary, other]), tests, order,
                                       {"queries": 90, "empty_share": 0.2,
                                        "shorter_than": {10: 0.5}}, "synthetic")
    assert "No dataset audit" in study.claims_markdown(summary, tests, order, None, "synthetic")


def test_synthetic_table_follows_the_conventions(synth):
    pq = synth[0]
    key = ["algorithm", "train_convention", "metric", "k", "fold", "qid"]
    nd = pq[pq["metric"] == "NDCG"].pivot_table(index=key, columns="eval_convention", values="value")
    assert set(np.round(nd["yahoo"] - nd["ranklib"], 12)) <= {0.0, 1.0}
    np.testing.assert_array_equal(nd["trec"], nd["ranklib"])  # continuous scores: no ties


def test_audit_from_table_round_trip():
    data = make_letor(n_queries=30, seed=2)
    a = audit(data)
    b = study.audit_from_table(audit_frame(data))
    assert b["queries"] == a["queries"] == 30
    assert b["empty_share"] == a["empty_share"]
    assert b["letor_zeroed"] == a["letor_zeroed"] and b["shorter_than"] == a["shorter_than"]
    assert b["docs_per_query"]["histogram"] == {k: float(v) for k, v in a["docs_per_query"]["histogram"].items()}
