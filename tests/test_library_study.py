"""The library study (ltrconv.study.libraries) on planted per-query tables."""

import io
import itertools

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from scipy import stats as st

from ltrconv.errors import LtrconvError
from ltrconv.study import figures, libraries as lib, library_figures, tables as study
from ltrconv.study.winning import nwn_flips, winning_numbers
from ltrconv.data.synthetic import make_letor
from planted import planted_per_query, summary_rows

LIBS = ("sklearn", "lightgbm", "xgboost-minus", "catboost", "ranx", "trec-raw", "torchmetrics")
ALGS = ("coordinate_ascent", "lambdamart", "adarank", "ranksvm")


@pytest.fixture(scope="module")
def per_query():
    return planted_per_query(n_queries=60, n_folds=3, algorithms=ALGS,
                             train_conventions=("ranklib", "sklearn", "catboost"),
                             eval_conventions=("ranklib",) + LIBS)


@pytest.fixture(scope="module")
def summary(per_query):
    return study.summarise(per_query)


@pytest.fixture(scope="module")
def table(summary):
    return lib.library_table(summary)


def test_table_holds_summary_means_diffs_and_ranks(summary, table):
    assert set(table["eval_convention"]) == {"ranklib", *LIBS}
    assert list(table["eval_convention"].drop_duplicates()) == ["ranklib"] + lib.library_conventions(LIBS)
    assert (table["train_convention"] == "ranklib").all() and len(table) == len(ALGS) * 8 * 10
    s = summary.set_index(["algorithm", "train_convention", "eval_convention", "metric", "k"])
    for r in table.sample(20, random_state=0).itertuples():
        assert r.mean == s.loc[(r.algorithm, "ranklib", r.eval_convention, "NDCG", r.k), "mean"]
        ref = s.loc[(r.algorithm, "ranklib", "ranklib", "NDCG", r.k), "mean"]
        assert r.diff == pytest.approx(r.mean - ref, abs=1e-15)
        same = table[(table["eval_convention"] == r.eval_convention) & (table["k"] == r.k)]
        assert r.rank == 1 + (same["mean"] > r.mean).sum()
    empty = table.drop_duplicates("eval_convention").set_index("eval_convention")["empty"]
    assert empty["lightgbm"] == "1" and empty["catboost"] == "1" and empty["sklearn"] == "0"
    assert table.set_index("eval_convention").loc["lightgbm", "tool"].iloc[0] == 'LightGBM metric="ndcg"'


def test_empty_queries_make_the_gap_between_lightgbm_and_xgboost_minus(table):
    """lightgbm and xgboost-minus differ only in what a query without relevant document
    scores (1 and 0): on every model the gap is the share of such queries, fold-averaged."""
    data = make_letor(n_queries=60, n_features=9, min_docs=5, max_docs=16, empty_share=0.28,
                      noise=0.4, seed=0)  # the data of planted_per_query
    empty = np.array([data.y[a:b].max() == 0 for a, b in zip(data.offsets[:-1], data.offsets[1:])])
    share = np.mean([empty[np.arange(data.n_queries) % 3 == f].mean() for f in range(3)])
    assert 0.15 < share < 0.45
    w = table[table["k"] == 10].pivot(index="algorithm", columns="eval_convention", values="mean")
    assert np.allclose(w["lightgbm"] - w["xgboost-minus"], share, atol=1e-12)


def test_table_refuses_what_the_summary_lacks(summary):
    with pytest.raises(LtrconvError, match="reference 'trec'"):
        lib.library_table(summary, reference="trec")
    with pytest.raises(LtrconvError, match=r"\['ranx-burges'\]"):
        lib.library_table(summary, conventions=["sklearn", "ranx-burges"])


def test_spread_is_max_minus_min_with_the_conventions_at_the_extremes():
    means = {"sklearn": 0.40, "lightgbm": 0.70, "xgboost": 0.70, "xgboost-minus": 0.41,
             "catboost": 0.72, "ranklib": 0.10}
    rows = pd.concat([summary_rows({"adarank": m}, ev) for ev, m in means.items()])
    table = lib.library_table(rows)
    sp = lib.library_spread(table).set_index("group")
    assert sp.loc["all", "spread"] == pytest.approx(0.72 - 0.40)
    assert (sp.loc["all", "lowest"], sp.loc["all", "highest"]) == ("sklearn", "catboost")
    assert sp.loc["all", "n_conventions"] == 5  # the reference is not a library
    assert sp.loc["empty=0", "spread"] == pytest.approx(0.01)
    assert sp.loc["empty=1", "lowest"] == "lightgbm,xgboost"  # equal means: both named
    assert sp.loc["empty=1", "spread"] == pytest.approx(0.02)


def test_spread_has_no_group_rows_when_every_library_agrees_on_empty_queries():
    rows = pd.concat([summary_rows({"adarank": m}, ev) for ev, m in
                      {"ranklib": 0.3, "sklearn": 0.31, "ranx": 0.29}.items()])
    sp = lib.library_spread(lib.library_table(rows))
    assert list(sp["group"]) == ["all"] and sp["spread"].iloc[0] == pytest.approx(0.02)


def nwn_table(scores: dict) -> pd.DataFrame:
    return pd.DataFrame([{"train_convention": "ranklib", "eval_convention": c, "metric": "NDCG",
                          "k": 10, "algorithm": a, "WN": 0, "IWN": 0, "NWN": v, "n_units": 5}
                         for c, by_alg in scores.items() for a, v in by_alg.items()])


def test_order_flips_name_the_conventions_on_each_side():
    w = nwn_table({"sklearn": {"coordinate_ascent": 0.8, "lambdamart": 0.5, "adarank": 0.1},
                   "lightgbm": {"coordinate_ascent": 0.4, "lambdamart": 0.6, "adarank": 0.1},
                   "catboost": {"coordinate_ascent": 0.6, "lambdamart": 0.6, "adarank": 0.2}})
    f = lib.order_flips(w, ["sklearn", "lightgbm", "catboost"])
    assert len(f) == 1
    r = f.iloc[0]
    assert (r["algorithm_a"], r["algorithm_b"]) == ("coordinate_ascent", "lambdamart")
    assert (r["a_ahead"], r["b_ahead"], r["level"]) == ("sklearn", "lightgbm", "catboost")
    assert (r["score_min_a"], r["score_max_a"], r["score_min_b"], r["score_max_b"]) == (0.4, 0.8, 0.5, 0.6)
    assert lib.order_flips(w, ["sklearn", "catboost"]).empty  # a tie is no flip


def test_order_flips_agree_with_nwn_flips_on_random_tables():
    rng = np.random.default_rng(3)
    convs = ["sklearn", "lightgbm", "catboost", "ranx"]
    for _ in range(8):
        w = nwn_table({c: {a: round(rng.uniform(), 1) for a in ALGS} for c in convs})
        listed = {(r.algorithm_a, r.algorithm_b) for r in lib.order_flips(w, convs).itertuples()}
        pairwise = set()
        for c1, c2 in itertools.combinations(convs, 2):
            pairwise |= {(r.ahead_a, r.ahead_b) for r in nwn_flips(w, c1, c2).itertuples()}
        order = lambda p: tuple(sorted(p, key=lib.ORDER.index))  # noqa: E731
        assert {order(p) for p in listed} == {order(p) for p in pairwise}


def test_order_flips_on_winning_numbers_of_fold_means(per_query):
    folds = study.fold_means(per_query)
    folds = folds[folds["train_convention"] == "ranklib"]
    w = winning_numbers(folds, by=["train_convention", "eval_convention", "metric", "k"])
    f = lib.order_flips(w, lib.library_conventions(LIBS))
    assert set(f.columns) == {"train_convention", "metric", "k", *lib.FLIP_COLUMNS}
    assert set(f["metric"]) <= {"NDCG", "P", "MAP"}
    with pytest.raises(LtrconvError, match="lacks column"):
        lib.order_flips(w.drop(columns="NWN"), ["sklearn"])


def test_training_ttests_match_scipy_and_read_library_minus_reference(per_query):
    tests = lib.training_ttests(per_query)
    assert set(tests["conv_a"]) == {"sklearn", "catboost"} and set(tests["conv_b"]) == {"ranklib"}
    assert set(tests["metric"]) == {"NDCG"}
    nd = per_query[(per_query["metric"] == "NDCG") & (per_query["k"] == 7)
                   & (per_query["eval_convention"] == "lightgbm") & (per_query["algorithm"] == "adarank")]
    a = nd[nd["train_convention"] == "catboost"].set_index(["fold", "qid"])["value"].sort_index()
    b = nd[nd["train_convention"] == "ranklib"].set_index(["fold", "qid"])["value"].sort_index()
    t, p = st.ttest_rel(a, b)
    r = tests[(tests["algorithm"] == "adarank") & (tests["conv_a"] == "catboost")
              & (tests["eval_convention"] == "lightgbm") & (tests["k"] == 7)].iloc[0]
    assert r["diff"] == pytest.approx((a - b).mean()) and r["t"] == pytest.approx(t)
    assert r["p"] == pytest.approx(p) and r["mean_a"] == pytest.approx(a.mean())
    # Holm's family is this table's tests of one dataset
    assert tests["p_holm"].to_numpy() == pytest.approx(
        lib.holm(tests["p"].to_numpy()), nan_ok=True)


def test_training_ttests_find_a_planted_loss(per_query):
    planted = per_query.copy()
    hit = (planted["algorithm"] == "lambdamart") & (planted["train_convention"] == "sklearn") \
        & (planted["metric"] == "NDCG")
    planted.loc[hit, "value"] -= 0.2
    before = lib.training_ttests(per_query).set_index(["algorithm", "conv_a", "eval_convention", "k"])
    after = lib.training_ttests(planted).set_index(["algorithm", "conv_a", "eval_convention", "k"])
    key = ("lambdamart", "sklearn", "ranklib", 10)
    assert after.loc[key, "diff"] == pytest.approx(before.loc[key, "diff"] - 0.2)
    assert after.loc[key, "significant"]
    assert after.loc[("lambdamart", "catboost", "ranklib", 10), "diff"] == \
        before.loc[("lambdamart", "catboost", "ranklib", 10), "diff"]


def test_training_ttests_leave_out_algorithms_without_library_models(per_query):
    pq = per_query[~((per_query["algorithm"] == "ranksvm")
                     & per_query["train_convention"].isin(["sklearn", "catboost"]))]
    tests = lib.training_ttests(pq)
    assert "ranksvm" not in set(tests["algorithm"]) and "adarank" in set(tests["algorithm"])
    assert lib.training_ttests(pq[pq["train_convention"] == "ranklib"]).empty


def test_section_states_the_numbers(per_query, table):
    planted = per_query.copy()
    hit = (planted["algorithm"] == "adarank") & (planted["train_convention"] == "catboost") \
        & (planted["metric"] == "NDCG")
    planted.loc[hit, "value"] -= 0.15
    tests = lib.training_ttests(planted)
    spread = lib.library_spread(table)
    folds = study.fold_means(per_query)
    w = winning_numbers(folds[folds["train_convention"] == "ranklib"],
                        by=["train_convention", "eval_convention", "metric", "k"])
    flips = lib.order_flips(w, lib.library_conventions(LIBS))
    assert (flips["level"] == "").any()  # read back from TSV an empty list is NaN
    flips = pd.read_csv(io.StringIO(flips.to_csv(sep="\t", index=False)), sep="\t")
    text = lib.libraries_section(table, spread, tests, "synthetic", flips=flips, n_units=3)
    assert text.startswith("\n## Today's libraries")
    t10 = table[table["k"] == 10].set_index(["eval_convention", "algorithm"])["mean"]
    row = next(line for line in text.splitlines() if line.startswith("| lightgbm |"))
    assert f"{t10[('lightgbm', 'coordinate_ascent')]:.4f}" in row
    every = spread[(spread["group"] == "all") & (spread["k"] == 10)]
    assert f"spans {every['spread'].min():.4f} to {every['spread'].max():.4f}" in text
    assert "Libraries scoring a query without relevant document 1 (2 conventions)" in text
    assert "over 3 (dataset, fold) units" in text
    assert "By mean NDCG@10 under ranklib:" in text
    worse = text.split("Significantly worse than trained with ranklib: ")[1].split(".")[0]
    assert "AdaRank trained with catboost (ranklib evaluation, " in worse
    assert "Holm over the 16 tests of this section" in text  # 4 algorithms x 2 libraries x 2 evaluations
    nothing = lib.libraries_section(table, spread, tests.iloc[:0], "synthetic")
    assert "No model was trained with a library's NDCG in this run." in nothing
    assert "Winning" not in nothing


@pytest.fixture
def fast_output(monkeypatch):
    monkeypatch.setattr(figures, "DPI", 60)
    monkeypatch.setitem(figures.RC, "pdf.fonttype", 3)


def test_figure_has_a_panel_per_algorithm_and_the_libraries_in_its_legend(summary, tmp_path,
                                                                           fast_output):
    fig = library_figures.libraries_figure(summary, tmp_path / "lib")
    assert (tmp_path / "lib.png").stat().st_size > 1000
    assert (tmp_path / "lib.pdf").read_bytes().startswith(b"%PDF")
    axes = [ax for ax in fig.get_axes() if ax.axison]
    assert [ax.get_title() for ax in axes] == ["Coordinate Ascent", "LambdaMART", "RankSVM", "AdaRank"]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["ranklib (reference)"] + lib.library_conventions(LIBS)
    colours = {to_hex(line.get_color()) for line in axes[0].get_lines()}
    assert {"#000000", "#0072b2", "#009e73", "#d55e00"} <= colours
    assert len({ax.get_ylim() for ax in axes}) == 1
    empty = library_figures.libraries_figure(summary[summary["eval_convention"] == "ranklib"],
                                             tmp_path / "none")
    assert "no NDCG results" in empty.get_axes()[0].texts[0].get_text()
