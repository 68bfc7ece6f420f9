"""Winning numbers (Tax et al. 2015, Sec. 3): hand-computed cases and the committed MQ2008 table."""

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ltrconv.errors import LtrconvError
from ltrconv.study.winning import nwn_flips, winning_numbers

FOLD_MEANS = Path(__file__).resolve().parents[1] / "reference" / "MQ2008" / "tables" / "fold_means.tsv"


def tidy(values: dict, convention="c") -> pd.DataFrame:
    """{fold: {algorithm: value}} as a fold_means-like table of one dataset and convention."""
    rows = [("D", fold, alg, convention, v) for fold, algs in values.items() for alg, v in algs.items()]
    return pd.DataFrame(rows, columns=["dataset", "fold", "algorithm", "eval_convention", "mean"])


def by_algorithm(w: pd.DataFrame) -> dict:
    return {r.algorithm: (r.WN, r.IWN, r.NWN, r.n_units) for r in w.itertuples()}


def assert_numbers(w, expected):
    got = by_algorithm(w)
    assert set(got) == set(expected)
    for alg, (wn, iwn, nwn, n) in expected.items():
        assert got[alg][:2] == (wn, iwn), alg
        assert got[alg][3] == n, alg
        if math.isnan(nwn):
            assert math.isnan(got[alg][2]), alg
        else:
            assert got[alg][2] == pytest.approx(nwn, abs=1e-15), alg


@pytest.fixture
def ties():
    # fold 1: A = B > C; fold 2: B = C > A. A strict win only; a tie counts in IWN but wins nothing.
    return tidy({1: {"A": 0.5, "B": 0.5, "C": 0.3}, 2: {"A": 0.4, "B": 0.6, "C": 0.6}})


@pytest.fixture
def missing_row():
    # B has no result on fold 2, A none on fold 3 (the rows are absent).
    return tidy({1: {"A": 0.9, "B": 0.5, "C": 0.1}, 2: {"A": 0.2, "C": 0.3}, 3: {"B": 0.7, "C": 0.6}})


@pytest.fixture
def missing_nan():
    # the same results, the missing ones present as NaN rows
    return tidy({1: {"A": 0.9, "B": 0.5, "C": 0.1}, 2: {"A": 0.2, "B": np.nan, "C": 0.3},
                 3: {"A": np.nan, "B": 0.7, "C": 0.6}})


@pytest.fixture
def single_unit():
    return tidy({1: {"A": 0.3, "B": 0.2, "C": 0.1}})


@pytest.fixture
def all_equal():
    return tidy({f: {a: 0.5 for a in "ABCD"} for f in (1, 2, 3)})


def test_ties_win_nothing_but_count_as_comparisons(ties):
    # fold 1: A>C, B>C (2 comparisons each); fold 2: B>A, C>A. WN A=1, B=2, C=1; IWN 2 * 2.
    assert_numbers(winning_numbers(ties), {"A": (1, 4, 0.25, 2), "B": (2, 4, 0.5, 2),
                                           "C": (1, 4, 0.25, 2)})


@pytest.mark.parametrize("fixture", ["missing_row", "missing_nan"])
def test_missing_result_is_skipped_by_every_method(fixture, request):
    # fold 1: A 2/2, B 1/2, C 0/2; fold 2: A 0/1, C 1/1; fold 3: B 1/1, C 0/1.
    w = winning_numbers(request.getfixturevalue(fixture))
    assert_numbers(w, {"A": (2, 3, 2 / 3, 2), "B": (2, 3, 2 / 3, 2), "C": (1, 4, 0.25, 3)})


def test_single_unit(single_unit):
    w = winning_numbers(single_unit)
    assert_numbers(w, {"A": (2, 2, 1.0, 1), "B": (1, 2, 0.5, 1), "C": (0, 2, 0.0, 1)})
    assert list(w["algorithm"]) == ["A", "B", "C"]  # NWN descending


def test_all_equal(all_equal):
    # every pair tied on every fold: no wins, 3 folds * 3 other methods compared
    assert_numbers(winning_numbers(all_equal), {a: (0, 9, 0.0, 3) for a in "ABCD"})


def test_method_never_compared_has_nan_nwn():
    # B is only evaluated on fold 2, where nobody else is: IWN = 0, NWN undefined
    w = winning_numbers(tidy({1: {"A": 0.3, "C": 0.4}, 2: {"B": 0.9}}))
    assert_numbers(w, {"A": (0, 1, 0.0, 1), "B": (0, 0, math.nan, 1), "C": (1, 1, 1.0, 1)})
    assert w["algorithm"].iloc[-1] == "B"  # NaN last


def test_dense_results_give_the_letor_winning_number():
    # no ties, no gaps: WN_i = sum over units of the number of methods ranked below i
    rng = np.random.default_rng(3)
    values = rng.random((4, 5))
    table = tidy({f: {f"m{i}": values[f, i] for i in range(5)} for f in range(4)})
    got = by_algorithm(winning_numbers(table))
    below = (values.argsort(axis=1).argsort(axis=1)).sum(axis=0)
    for i in range(5):
        assert got[f"m{i}"][:2] == (below[i], 4 * 4)


def test_groups_are_independent(ties, single_unit):
    both = pd.concat([ties, single_unit.assign(eval_convention="d")])
    w = winning_numbers(both)
    assert list(w.columns) == ["eval_convention", "algorithm", "WN", "IWN", "NWN", "n_units"]
    assert by_algorithm(w[w.eval_convention == "c"]) == by_algorithm(winning_numbers(ties))
    assert by_algorithm(w[w.eval_convention == "d"]) == by_algorithm(winning_numbers(single_unit))


def test_unit_columns_make_the_datasets():
    # two datasets sharing fold numbers are four units, not two
    t = pd.concat([tidy({1: {"A": 1.0, "B": 0.0}, 2: {"A": 1.0, "B": 0.0}}),
                   tidy({1: {"A": 0.0, "B": 1.0}, 2: {"A": 0.0, "B": 1.0}}).assign(dataset="E")])
    assert_numbers(winning_numbers(t), {"A": (2, 4, 0.5, 4), "B": (2, 4, 0.5, 4)})
    assert_numbers(winning_numbers(t, unit=["fold"], by=["dataset", "eval_convention"])
                   .query("dataset == 'E'"), {"A": (0, 2, 0.0, 2), "B": (2, 2, 1.0, 2)})


@pytest.mark.parametrize("change, message", [
    (lambda t: t.drop(columns="fold"), "lacks column(s) ['fold']"),
    (lambda t: pd.concat([t, t.iloc[:1]]), "share their key"),
    (lambda t: t.assign(mean="high"), "'mean' is not numeric"),
    (lambda t: t.assign(mean=np.inf), "infinite"),
])
def test_bad_tables_are_refused(ties, change, message):
    with pytest.raises(LtrconvError, match=re.escape(message)):
        winning_numbers(change(ties))


# --- flips ----------------------------------------------------------------------------------
@pytest.fixture
def three_conventions():
    return winning_numbers(pd.concat([
        tidy({1: {"A": 0.3, "B": 0.2, "C": 0.1}}, "x"),   # NWN A 1, B .5, C 0
        tidy({1: {"A": 0.1, "B": 0.3, "C": 0.2}}, "y"),   # NWN B 1, C .5, A 0
        tidy({1: {"A": 0.2, "B": 0.2, "C": 0.1}}, "z"),   # NWN A = B = .5, C 0
    ]))


def test_flips_list_reversed_pairs(three_conventions):
    f = nwn_flips(three_conventions, "x", "y")
    assert sorted(zip(f.ahead_a, f.ahead_b)) == [("A", "B"), ("A", "C")]
    ab = f[f.ahead_b == "B"].iloc[0]
    assert (ab.nwn_ahead_a, ab.nwn_behind_a, ab.nwn_ahead_b, ab.nwn_behind_b) == (1.0, 0.5, 1.0, 0.0)
    back = nwn_flips(three_conventions, "y", "x")
    assert sorted(zip(back.ahead_b, back.ahead_a)) == [("A", "B"), ("A", "C")]


def test_a_tie_is_not_a_flip(three_conventions):
    assert nwn_flips(three_conventions, "x", "z").empty
    assert nwn_flips(three_conventions, "x", "x").empty


def test_flips_compare_within_the_other_keys():
    w = winning_numbers(pd.concat([
        tidy({1: {"A": 0.3, "B": 0.2}}, "x").assign(k=1),
        tidy({1: {"A": 0.2, "B": 0.3}}, "y").assign(k=1),
        tidy({1: {"A": 0.3, "B": 0.2}}, "x").assign(k=2),
        tidy({1: {"A": 0.4, "B": 0.3}}, "y").assign(k=2),
    ]))
    f = nwn_flips(w, "x", "y")
    assert list(f.columns[:1]) == ["k"] and list(f.k) == [1]


def test_flips_unknown_convention(three_conventions):
    with pytest.raises(LtrconvError, match=r"eval_convention has no \['w'\]"):
        nwn_flips(three_conventions, "x", "w")


# --- the committed MQ2008 table -------------------------------------------------------------
@pytest.fixture(scope="module")
def fold_means():
    if not FOLD_MEANS.exists():
        pytest.skip(f"{FOLD_MEANS} is not in this checkout")
    return pd.read_csv(FOLD_MEANS, sep="\t")


def test_fold_means_structure(fold_means):
    w = winning_numbers(fold_means)
    keys = ["train_convention", "eval_convention", "metric", "k"]
    assert list(w.columns) == [*keys, "algorithm", "WN", "IWN", "NWN", "n_units"]
    assert w["NWN"].between(0, 1).all()
    # dense table: each algorithm meets the others on every (dataset, fold) unit
    units = fold_means[[*keys, "dataset", "fold"]].drop_duplicates().groupby(keys).size()
    algs = fold_means.groupby(keys)["algorithm"].nunique()
    merged = w.join(units.rename("units"), on=keys).join(algs.rename("m"), on=keys)
    assert (merged["n_units"] == merged["units"]).all()
    assert (merged["IWN"] == merged["units"] * (merged["m"] - 1)).all()
    # per group, the wins plus the tied pairs account for every pair on every unit: c
    # algorithms with one mean on a unit are c (c - 1) / 2 tied pairs
    same = fold_means.groupby([*keys, "dataset", "fold", "mean"]).size()
    tied = (same * (same - 1) // 2).groupby(keys).sum()
    pairs = (units * algs * (algs - 1) // 2)
    wins = w.groupby(keys)["WN"].sum()
    assert len(wins) == len(pairs) == len(tied) > 1
    assert ((wins + tied.reindex(wins.index)) == pairs.reindex(wins.index)).all()


def test_fold_means_flips_are_reversals(fold_means):
    w = winning_numbers(fold_means)
    f = nwn_flips(w, "ranklib", "letor")
    assert len(f)  # the committed results do reorder some algorithms
    assert (f.nwn_ahead_a > f.nwn_behind_a).all() and (f.nwn_ahead_b > f.nwn_behind_b).all()
    nwn = w.set_index(["train_convention", "eval_convention", "metric", "k", "algorithm"])["NWN"]
    for r in f.itertuples():
        base = (r.train_convention, "ranklib", r.metric, r.k)
        other = (r.train_convention, "letor", r.metric, r.k)
        assert nwn[(*base, r.ahead_a)] == r.nwn_ahead_a and nwn[(*base, r.ahead_b)] == r.nwn_behind_a
        assert nwn[(*other, r.ahead_b)] == r.nwn_ahead_b and nwn[(*other, r.ahead_a)] == r.nwn_behind_b
    back = nwn_flips(w, "letor", "ranklib")
    assert sorted(zip(f.ahead_a, f.ahead_b)) == sorted(zip(back.ahead_b, back.ahead_a))


def test_flips_markdown_names_the_pairs(three_conventions):
    from ltrconv.study.winning import flips_markdown

    w = three_conventions.assign(train_convention="ranklib", metric="NDCG", k=10)
    w["eval_convention"] = w["eval_convention"].map({"x": "ranklib", "y": "letor", "z": "yahoo"})
    text = flips_markdown(w, "ranklib", display=str.lower)
    assert "over 1 (dataset, fold) units" in text
    assert "- yahoo: no pair flips" in text
    letor = next(line for line in text.splitlines() if line.startswith("- letor: "))
    assert "a ahead of b under ranklib (NWN 1.00 vs 0.50), behind under letor (0.00 vs 1.00)" in letor
    assert "a ahead of c under ranklib" in letor
