"""The claims of Busa-Fekete et al. (2012): rules, verdicts and the setting they are checked in."""

import math

import numpy as np
import pandas as pd
import pytest

from ltrconv.rankers import registry as algorithms
from ltrconv.study import tables as study
from ltrconv.study.paper import busa_fekete_2012 as paper
from planted import planted_per_query, summary_rows


@pytest.fixture(scope="module")
def synth():
    pq = planted_per_query(n_queries=90, n_folds=3)
    summary = study.summarise(pq)
    tests = study.ttests(pq)
    order = study.algorithm_order(summary)
    return pq, summary, tests, order


def verdicts(claims):
    return {c["id"]: c["verdict"] for c in claims}


def test_yahoo_offset_claim_rules():
    def claim(offset, empty):
        s = pd.concat([summary_rows({"x": 0.4, "y": 0.5}, "ranklib"),
                       summary_rows({"x": 0.4 + offset, "y": 0.5 + offset}, "yahoo")])
        audit_ = None if empty is None else {"empty_share": empty}
        return verdicts(paper.claims(s, pd.DataFrame(), pd.DataFrame(), audit_))["yahoo_offset"]

    assert claim(0.28, 0.28) == paper.HOLDS
    assert claim(0.28, None) == paper.HOLDS
    assert claim(0.28, 0.20) == paper.PARTLY
    assert claim(0.10, 0.10) == paper.PARTLY
    assert claim(0.10, 0.40) == paper.FAILS


def test_yahoo_offset_skips_the_audit_when_folds_are_missing():
    s = pd.concat([summary_rows({"x": 0.4}, "ranklib"), summary_rows({"x": 0.68}, "yahoo")])
    c = paper.claims(s, pd.DataFrame(), pd.DataFrame(), {"empty_share": 0.1, "queries": 784})[0]
    assert c["verdict"] == paper.HOLDS  # only the 0.25 check applies: 100 of 784 queries
    assert "100 of the audit's 784 queries" in c["measured"][-1]
    c = paper.claims(s, pd.DataFrame(), pd.DataFrame(), {"empty_share": 0.1, "queries": 100})[0]
    assert c["verdict"] == paper.PARTLY


def test_claims_on_synthetic(synth):
    _, summary, tests, order = synth
    a = {"empty_share": 0.0}
    v = verdicts(paper.claims(summary, tests, order, a))
    assert v["letor_collapse"] == paper.HOLDS
    assert v["letor_training"] == paper.HOLDS
    assert v["yahoo_training"] == paper.HOLDS
    assert v["yahoo_offset"] in (paper.PARTLY, paper.FAILS)  # the audit's share is wrong
    # the offset equals the share of queries without relevant document, fold by fold
    off = (summary.query("metric == 'NDCG' and eval_convention == 'yahoo'")["mean"].to_numpy()
           - summary.query("metric == 'NDCG' and eval_convention == 'ranklib'")["mean"].to_numpy())
    assert np.ptp(off) < 1e-12 and 0.1 < off[0] < 0.4
    v = verdicts(paper.claims(summary, tests, order, {"empty_share": float(off[0])}))
    assert v["yahoo_offset"] in (paper.HOLDS, paper.PARTLY)


def test_ranking_claims_follow_the_order_table_setting(synth):
    _, summary, tests, _ = synth
    order = study.algorithm_order(summary, train_convention="yahoo", k=5)
    claims = {c["id"]: c for c in paper.claims(summary, tests, order, None)}
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
    claims = paper.claims(s, pd.DataFrame(), study.algorithm_order(s), None)
    assert len(claims) == 6
    assert set(verdicts(claims).values()) == {paper.MISSING}
    for c in claims:
        assert c["rule"] and c["claim"] and c["title"]


def test_claims_markdown(synth):
    _, summary, tests, order = synth
    audit = {"queries": 90, "empty_share": 0.2, "shorter_than": {10: 0.5}}
    other = summary.assign(dataset="other", mean=0.0)
    md = paper.claims_markdown(pd.concat([summary, other]), tests, order, audit, "synthetic")
    assert md.startswith("# Claims of Busa-Fekete et al. (2012) checked on synthetic\n")
    assert "90 queries" in md and "50.0% with fewer than 10 documents" in md
    assert md.count("Verdict: **") == 6 and md.count("\n| ") == 7
    assert "Coordinate Ascent rank: 1 under ranklib" in md
    # another dataset's rows (every mean 0) are left out: the same document as without them
    assert md == paper.claims_markdown(summary, tests, order, audit, "synthetic")
    assert "No dataset audit" in paper.claims_markdown(summary, tests, order, None, "synthetic")


def test_defaults_are_the_papers_setting():
    s = paper.PAPER
    assert (s.metric, s.k, s.reference, s.train, s.yahoo, s.letor) == (
        "NDCG", 10, "ranklib", "ranklib", "yahoo", "letor")
    assert (s.offset, s.collapse_cutoffs) == (0.25, (8, 9, 10))
    assert paper.Setting() == s


def test_the_papers_ndcg_trained_algorithms_optimise_the_convention_here():
    # Sec. 5 names the algorithms that use NDCG in training; here they are the ones whose
    # training convention is the objective rather than a model-selection criterion
    assert set(paper.NDCG_TRAINED) == set(algorithms.names(algorithms.OBJECTIVE))
    named = set(paper.NDCG_TRAINED) | set(paper.CLOSE_TRIO) | {paper.BEST, paper.NOT_COMPETITIVE}
    assert named <= set(algorithms.REGISTRY)


def test_the_cutoff_reaches_every_test_claim(synth):
    _, summary, tests, _ = synth
    diffs = {}
    for setting in (paper.PAPER, paper.Setting(k=5)):
        k = setting.k
        found = {c["id"]: c for c in paper.claims(summary, tests, pd.DataFrame(), None, setting)}
        row = tests[(tests["algorithm"] == "adarank") & (tests["eval_convention"] == "ranklib")
                    & (tests["metric"] == "NDCG") & (tests["k"] == k)
                    & (tests["conv_a"] == "ranklib") & (tests["conv_b"] == "letor")]
        diffs[k] = float(row["diff"].iloc[0])
        for cid in ("letor_training", "yahoo_training"):
            assert f"scored with ranklib NDCG@{k}," in found[cid]["rule"]
            assert all(f" NDCG@{k}, p = " in m for m in found[cid]["measured"] if "trained" in m)
        want = f"AdaRank: trained ranklib − trained letor = {diffs[k]:+.4f} NDCG@{k}, p = "
        assert any(m.startswith(want) for m in found["letor_training"]["measured"])
    assert f"{diffs[10]:+.4f}" != f"{diffs[5]:+.4f}"


def test_renamed_conventions_give_the_same_verdicts(synth):
    _, summary, tests, order = synth
    names = {"ranklib": "R", "yahoo": "Y", "letor": "L", "trec": "T"}
    rn = lambda df, cols: df.assign(**{c: df[c].map(names) for c in cols})  # noqa: E731
    s2 = rn(summary, ["train_convention", "eval_convention"])
    t2 = rn(tests, ["eval_convention", "conv_a", "conv_b"])
    o2 = study.algorithm_order(s2, train_convention="R", reference="R")
    setting = paper.Setting(reference="R", train="R", yahoo="Y", letor="L",
                            family_train=("Y", "R", "L"),
                            family_eval=tuple(names.get(e, e) for e in study.EVAL_ORDER))
    audit = {"empty_share": 0.2, "queries": 90}
    before = paper.claims(summary, tests, order, audit)
    after = paper.claims(s2, t2, o2, audit, setting)
    assert [c["verdict"] for c in after] == [c["verdict"] for c in before]
    assert after[0]["title"] == "Y ≈ R + 0.25" and after[1]["title"] == "L collapses at k = 8–10"
    for c in after:
        assert "ranklib" not in c["rule"] and "letor" not in c["rule"], c["rule"]
        assert not any("ranklib" in m or "yahoo" in m for m in c["measured"]), c["measured"]


def test_markdown_uses_the_settings_cutoff(synth):
    _, summary, tests, order = synth
    audit = {"queries": 90, "shorter_than": {5: 0.25, 10: 0.5}}
    md = paper.claims_markdown(summary, tests, order, audit, "synthetic", paper.Setting(k=5))
    assert "25.0% with fewer than 5 documents" in md and "NDCG@5," in md


def test_a_setting_without_cutoffs_below_the_collapse_is_refused():
    with pytest.raises(ValueError, match="collapse_cutoffs"):
        paper.Setting(collapse_cutoffs=(1, 2))
    with pytest.raises(ValueError, match="k must be"):
        paper.Setting(k=0)


def test_claims_3_and_4_are_adjusted_over_the_papers_conventions_only(synth):
    pq, _, tests, _ = synth
    # The same run with a library's evaluation and training convention added: the full table's
    # family grows, the paper's family (and so its Holm p) stays what a paper run gives.
    lib = pq[pq["train_convention"].isin(["ranklib", "letor"])].copy()
    lib["train_convention"] = lib["train_convention"].map({"ranklib": "sklearn", "letor": "catboost"})
    extra = pq[pq["eval_convention"] == "ranklib"].assign(eval_convention="lightgbm")
    bigger = study.ttests(pd.concat([pq, lib, extra], ignore_index=True))
    assert len(bigger) > len(tests)
    family = paper.paper_family(bigger)
    key = ["dataset", "algorithm", "eval_convention", "metric", "k", "conv_a", "conv_b"]
    merged = family.merge(tests, on=key, suffixes=("", "_paper"))
    assert len(merged) == len(family) == len(tests)
    np.testing.assert_array_equal(merged["p_holm"], merged["p_holm_paper"])
    assert (merged["significant"] == merged["significant_paper"]).all()
    # the larger family is more conservative: a test's Holm p there is never below the paper's
    wide = bigger.merge(tests, on=key, suffixes=("", "_paper"))
    assert (wide["p_holm"] >= wide["p_holm_paper"]).all() and (wide["p_holm"] > wide["p_holm_paper"]).any()
    # a paper run's table comes back unchanged
    pd.testing.assert_frame_equal(paper.paper_family(tests), tests.reset_index(drop=True))
    found = {c["id"]: c for c in paper.claims(pd.DataFrame(columns=tests.columns), family,
                                               pd.DataFrame(), None)}
    assert "yahoo, ranklib and letor training" in found["letor_training"]["rule"]
