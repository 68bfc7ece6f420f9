import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sst

from ltrconv.rankers import registry as algorithms
from ltrconv.study import tables as study
from ltrconv.data.audit import audit, audit_frame, audit_from_table
from ltrconv.errors import LtrconvError
from ltrconv.evaluation.metrics import evaluate_dataset
from ltrconv.study.stats import holm
from ltrconv.data.synthetic import make_letor
from planted import planted_per_query, summary_rows


def rows(values, fold, algorithm="ranknet", train="ranklib", ev="ranklib", metric="NDCG", k=10,
         dataset="toy", qids=None):
    qids = qids or [f"q{i}" for i in range(len(values))]
    return pd.DataFrame({"dataset": dataset, "fold": fold, "algorithm": algorithm,
                         "train_convention": train, "eval_convention": ev, "metric": metric,
                         "k": k, "qid": qids, "value": values})


@pytest.fixture(scope="module")
def synth():
    pq = planted_per_query(n_queries=90, n_folds=3)
    summary = study.summarise(pq)
    tests = study.ttests(pq)
    order = study.algorithm_order(summary)
    return pq, summary, tests, order


def test_per_query_frame_layout():
    data = make_letor(n_queries=4, n_features=3, seed=5)
    scores = np.random.default_rng(0).random(data.n_docs)
    evals = evaluate_dataset(data, scores, conventions=["ranklib", "letor"], cutoffs=[1, 3])
    pq = study.per_query_frame(evals, dataset="D", fold=2, algorithm="ranksvm",
                               train_convention="yahoo")
    assert list(pq.columns) == study.PER_QUERY_COLUMNS
    assert len(pq) == 2 * 4 * 5  # conventions x queries x (NDCG@1, @3, P@1, @3, MAP)
    assert pq["fold"].dtype == np.int64 and pq["k"].dtype == np.int64
    assert pq["seed"].dtype == np.int64 and set(pq["seed"]) == {0}
    assert set(pq["fold"]) == {2} and set(pq["algorithm"]) == {"ranksvm"}
    assert set(zip(pq["metric"], pq["k"])) == {("NDCG", 1), ("NDCG", 3), ("P", 1), ("P", 3), ("MAP", 0)}
    q = str(data.query_ids[2])
    row = pq[(pq["eval_convention"] == "letor") & (pq["qid"] == q) & (pq["metric"] == "NDCG")
             & (pq["k"] == 3)]
    assert row["value"].tolist() == [evals["letor"]["NDCG@3"][2]]
    assert study.check_per_query(pq).equals(pq)


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
    assert list(dict.fromkeys(summary["algorithm"])) == list(algorithms.ORDER)
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


def test_synthetic_table_follows_the_conventions(synth):
    pq = synth[0]
    key = ["algorithm", "train_convention", "metric", "k", "fold", "qid"]
    nd = pq[pq["metric"] == "NDCG"].pivot_table(index=key, columns="eval_convention", values="value")
    assert set(np.round(nd["yahoo"] - nd["ranklib"], 12)) <= {0.0, 1.0}
    np.testing.assert_array_equal(nd["trec"], nd["ranklib"])  # continuous scores: no ties


def test_audit_from_table_round_trip():
    data = make_letor(n_queries=30, seed=2)
    a = audit(data)
    b = audit_from_table(audit_frame(data))
    assert b["queries"] == a["queries"] == 30
    assert b["empty_share"] == a["empty_share"]
    assert b["letor_zeroed"] == a["letor_zeroed"] and b["shorter_than"] == a["shorter_than"]
    assert b["docs_per_query"]["histogram"] == {k: float(v) for k, v in a["docs_per_query"]["histogram"].items()}


def test_seed_averaged_means_each_query_over_its_seeds():
    one = rows([0.2, 0.4], 1)
    pq = pd.concat([one.assign(seed=0), rows([0.6, 0.0], 1).assign(seed=1),
                    rows([0.5, 0.5], 1, algorithm="ranksvm").assign(seed=0)])
    avg = study.seed_averaged(pq)
    assert "seed" not in avg.columns and len(avg) == 4
    got = avg.set_index(["algorithm", "qid"])["value"]
    assert got[("ranknet", "q0")] == pytest.approx(0.4) and got[("ranknet", "q1")] == pytest.approx(0.2)
    assert got[("ranksvm", "q0")] == 0.5  # one seed (deterministic): its own value
    s = study.summarise(pq).set_index("algorithm")
    assert s.loc["ranknet", "mean"] == pytest.approx(0.3) and s.loc["ranknet", "n_queries"] == 2
    with pytest.raises(LtrconvError, match="duplicate rows"):
        study.check_per_query(pd.concat([one.assign(seed=0), one.assign(seed=0)]))


def test_single_seed_aggregates_as_before(synth):
    """A table without a seed column (one seed, 0) and the same table with seed 0 give
    identical tables, row for row and bit for bit."""
    pq, summary, tests, _ = synth
    legacy = pq.drop(columns="seed")
    assert study.check_per_query(legacy)["seed"].eq(0).all()
    pd.testing.assert_frame_equal(study.summarise(legacy), summary)
    pd.testing.assert_frame_equal(study.ttests(legacy), tests)
    assert study.seed_averaged(pq).equals(study.check_per_query(pq).drop(columns="seed"))


@pytest.mark.parametrize("with_nan", [False, True])
def test_factorize_rows_is_pandas_factorize(with_nan):
    # the t-tests group rows by their levels' codes; pandas' MultiIndex.factorize (a tuple per
    # row) is the reference: the same codes (first appearance order) and the same distinct rows
    rng = np.random.default_rng(3)
    n = 5000
    algos = rng.choice(["ranknet", "adarank", "lambdamart"], n).astype(object)
    if with_nan:
        algos[rng.integers(0, n, 7)] = np.nan  # code -1: pandas' own path
    index = pd.MultiIndex.from_arrays(
        [algos, rng.choice(["trec", "yahoo"], n), rng.integers(1, 11, n)],
        names=["algorithm", "eval_convention", "k"])
    index = index[rng.permutation(n)]
    codes, keys = study.factorize_rows(index)
    want_codes, want_keys = index.factorize()
    np.testing.assert_array_equal(codes, want_codes)
    assert keys.equals(want_keys) and list(keys.names) == list(want_keys.names)
    assert len(keys) == len(set(zip(*[index.get_level_values(i) for i in range(3)])))
