"""rankDCG (Katerenchuk & Rosenberg): the paper's Table 1, its stated properties, ties, CLI."""

import itertools
import json
from collections import Counter
from math import factorial

import numpy as np
import pytest

from ltrconv import evaluate
from ltrconv.cli import main
from ltrconv.data.synthetic import make_letor, write_letor

# Sec. 5.1, Table 1: reference L, the hypotheses (one score per element of L) and rankDCG
L = [9, 4, 4, 2, 2, 2, 1, 1, 1, 1]
TABLE1 = [
    ([9, 4, 4, 2, 2, 2, 1, 1, 1, 1], 1.0),
    ([9, 4, 4, 2, 2, 1, 2, 1, 1, 1], 0.975),
    ([4, 4, 2, 9, 2, 2, 1, 1, 1, 1], 0.65),
    ([1, 4, 4, 2, 2, 2, 9, 1, 1, 1], 0.325),
    ([1, 4, 4, 2, 2, 2, 1, 1, 1, 9], 0.325),
    ([1, 1, 1, 1, 2, 2, 2, 4, 4, 9], 0.0),
]
TIES = ["ranklib", "trec", "ranklib-tiepess", "ranklib-tieopt", "ranklib-tieavg"]


def rankdcg_of(y, s, convention="ranklib-tiepess", **kw):
    """RankDCG of one query through the engine."""
    y, s = np.asarray(y), np.asarray(s, dtype=float)
    ev = evaluate(y, s, np.zeros(len(y), int), conventions=[convention], cutoffs=1,
                  rankdcg=True, **kw)
    return float(next(iter(ev.values()))["RankDCG"][0])


def reference_rankdcg(labels_in_ranked_order):
    """The definition of Sec. 4, written out directly: DCG' = sum rel'(i) / rev_rel'(i)."""
    ranked = list(labels_in_ranked_order)
    levels = sorted(set(ranked))
    m = len(levels)
    rel = {lab: levels.index(lab) + 1 for lab in levels}           # L -> L'
    ideal = sorted(ranked, reverse=True)
    disc = [m + 1 - rel[lab] for lab in ideal]                      # the list D

    def dcg(order):
        return sum(rel[lab] / d for lab, d in zip(order, disc))

    hi, lo = dcg(ideal), dcg(ideal[::-1])
    return (dcg(ranked) - lo) / (hi - lo)


def test_paper_list_mappings():
    # Sec. 4: L' = [4,3,3,2,2,2,1,1,1,1] and D = [1,2,2,3,3,3,4,4,4,4]; max DCG' = 10
    assert reference_rankdcg(L) == 1.0
    assert rankdcg_of(L, L) == 1.0


@pytest.mark.parametrize("convention", TIES)
@pytest.mark.parametrize("hypothesis, expected", TABLE1, ids=[f"row{i + 1}" for i in range(6)])
def test_table1(hypothesis, expected, convention):
    # every tie group of Table 1's hypotheses falls within one discount step, so the
    # values do not depend on the tie policy
    assert rankdcg_of(L, hypothesis, convention) == pytest.approx(expected, abs=1e-12)


def test_table1_in_one_call():
    # six queries at once, per-query values kept apart
    y = np.tile(L, len(TABLE1))
    s = np.concatenate([h for h, _ in TABLE1]).astype(float)
    qid = np.repeat(np.arange(len(TABLE1)), len(L))
    ev = evaluate(y, s, qid, conventions=["ranklib"], cutoffs="1-10", rankdcg=True)["ranklib"]
    np.testing.assert_allclose(ev["RankDCG"], [v for _, v in TABLE1], atol=1e-12)
    assert ev.columns[-3:] == ("MAP", "RR", "RankDCG")


def test_rows_4_and_5_placement_within_a_group_does_not_matter():
    # Sec. 5.1: the 9 moved anywhere among the four last positions costs the same
    base = rankdcg_of(L, [1, 4, 4, 2, 2, 2, 9, 1, 1, 1])
    for where in range(6, 10):
        s = [1, 4, 4, 2, 2, 2, 1, 1, 1, 1]
        s[where] = 9
        assert rankdcg_of(L, s) == pytest.approx(base, abs=1e-15)


def random_query(rng, n, n_levels):
    y = rng.integers(0, n_levels, n)
    s = rng.integers(0, max(2, n // 2), n) / 4.0  # many ties
    return y, s


def ranked_labels(y, s, policy):
    """Labels in ranked order: score descending, ties by input order / worst / best first."""
    key = {"ranklib": lambda i: (-s[i], i), "ranklib-tiepess": lambda i: (-s[i], y[i], i),
           "ranklib-tieopt": lambda i: (-s[i], -y[i], i)}[policy]
    return [y[i] for i in sorted(range(len(y)), key=key)]


@pytest.mark.parametrize("policy", ["ranklib", "ranklib-tiepess", "ranklib-tieopt"])
def test_engine_matches_the_definition(policy):
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(200):
        y, s = random_query(rng, int(rng.integers(2, 30)), int(rng.integers(2, 6)))
        if len(set(y)) < 2:
            continue
        assert rankdcg_of(y, s, policy) == pytest.approx(
            reference_rankdcg(ranked_labels(y, s, policy)), abs=1e-12)
        checked += 1
    assert checked > 150


def test_range_ideal_and_reversed():
    # Sec. 4-5 criterion 4: 1 for the ideal order, 0 for the reversed one, [0, 1] in between
    rng = np.random.default_rng(11)
    for _ in range(100):
        y, s = random_query(rng, int(rng.integers(2, 40)), int(rng.integers(2, 7)))
        if len(set(y)) < 2:
            continue
        for conv in TIES:
            assert 0.0 <= rankdcg_of(y, s, conv) <= 1.0
        assert rankdcg_of(y, y, "ranklib-tiepess") == 1.0
        assert rankdcg_of(y, -y, "ranklib-tieopt") == 0.0


def test_only_the_order_of_labels_matters():
    # rel' and D use the ranks of the distinct labels, not their values: [9,4,2,1] ~ [3,2,1,0]
    dense = {9: 3, 4: 2, 2: 1, 1: 0}
    for h, expected in TABLE1:
        assert rankdcg_of([dense[v] for v in L], h) == pytest.approx(expected, abs=1e-12)


def test_same_discount_positions_are_interchangeable():
    # swapping the documents at two positions of one discount group keeps the value
    rng = np.random.default_rng(5)
    for _ in range(50):
        y = rng.integers(0, 4, 15)
        if len(set(y)) < 2:
            continue
        order = rng.permutation(15)
        s = np.empty(15)
        s[order] = np.arange(15, 0, -1)  # document order[p] at rank p, no ties
        ideal = np.sort(y)[::-1]
        for p, q in itertools.combinations(range(15), 2):
            if ideal[p] == ideal[q]:
                t = s.copy()
                t[order[p]], t[order[q]] = s[order[q]], s[order[p]]
                assert rankdcg_of(y, t) == pytest.approx(rankdcg_of(y, s), abs=1e-12)


def multiset_permutations(items):
    counts = Counter(items)
    out = []

    def walk(prefix, left):
        if left == 0:
            out.append(list(prefix))
            return
        for lab in sorted(counts):
            if counts[lab]:
                counts[lab] -= 1
                prefix.append(lab)
                walk(prefix, left - 1)
                prefix.pop()
                counts[lab] += 1

    walk([], len(items))
    return out


def test_constant_prediction_under_each_tie_policy():
    # Sec. 5.2, Table 2 row 1: a prediction that gives every element the majority rank scores
    # 0.0. That is the worst-first tie order (ranklib-tiepess); best-first gives 1, and the
    # tie-aware average the mean over the 10!/(2!3!4!) distinct orders.
    s = np.zeros(len(L))
    assert rankdcg_of(L, s, "ranklib-tiepess") == 0.0
    assert rankdcg_of(L, s, "ranklib-tieopt") == 1.0
    perms = multiset_permutations(L)
    assert len(perms) == factorial(10) // (factorial(2) * factorial(3) * factorial(4))
    mean = np.mean([reference_rankdcg(p) for p in perms])
    assert rankdcg_of(L, s, "ranklib-tieavg") == pytest.approx(mean, abs=1e-12)
    # input order keeps L as given, the ideal order
    assert rankdcg_of(L, s, "ranklib") == 1.0


def test_average_ties_are_the_expectation_over_tied_orders():
    rng = np.random.default_rng(2)
    for _ in range(30):
        y, s = random_query(rng, 7, 3)
        if len(set(y)) < 2:
            continue
        perms = itertools.permutations(range(7))
        values = []
        for perm in perms:  # every order of the documents that respects the scores
            if all(s[perm[i]] >= s[perm[i + 1]] for i in range(6)):
                values.append(reference_rankdcg([y[i] for i in perm]))
        assert rankdcg_of(y, s, "ranklib-tieavg") == pytest.approx(np.mean(values), abs=1e-12)


def test_docid_ties_for_trec():
    # trec orders tied scores by docid descending (d2 before d1), ranklib by input order
    y, s = [0, 2, 1], [0.5, 0.5, 0.1]
    trec = rankdcg_of(y, s, "trec", docid=np.array(["d1", "d2", "d3"]))
    assert trec == pytest.approx(reference_rankdcg([2, 0, 1]), abs=1e-12)
    assert rankdcg_of(y, s, "ranklib") == pytest.approx(reference_rankdcg([0, 2, 1]), abs=1e-12)
    assert trec > rankdcg_of(y, s, "ranklib")


@pytest.mark.parametrize("convention, value", [("ranklib", 0.0), ("yahoo", 1.0), ("yahoo-half", 0.5)])
def test_one_label_level_takes_the_empty_value(convention, value):
    # max DCG' = min DCG': no order to judge, the convention's value for an empty query
    for y in ([0, 0, 0], [2, 2], [1]):
        assert rankdcg_of(y, np.arange(len(y)), convention) == value


def test_other_columns_unchanged():
    rng = np.random.default_rng(4)
    qid = np.repeat(np.arange(30), rng.integers(1, 20, 30))
    y = rng.integers(0, 3, len(qid))
    s = rng.integers(0, 5, len(qid)) / 2.0
    convs = ["ranklib", "trec", "yahoo", "letor", "ranklib-tieavg", "ranklib-tiepess"]
    docid = np.array([f"d{i}" for i in range(len(qid))])
    plain = evaluate(y, s, qid, conventions=convs, docid=docid)
    more = evaluate(y, s, qid, conventions=convs, docid=docid, rankdcg=True)
    for c in convs:
        assert more[c].columns == (*plain[c].columns, "RankDCG")
        np.testing.assert_array_equal(more[c].values[:, :-1], plain[c].values)


def test_parallel_kernel_agrees():
    from ltrconv.evaluation import _kernels as K
    from ltrconv.evaluation.compiled import Compiled, Lists

    rng = np.random.default_rng(9)
    offsets = np.concatenate([[0], np.cumsum(rng.integers(1, 30, 200))]).astype(np.int64)
    n = int(offsets[-1])
    y = rng.integers(0, 4, n).astype(np.int64)
    s = rng.integers(0, 6, n) / 3.0
    tie = np.zeros(n, dtype=np.int64)
    codes = np.array([0, 2, 3, 4], dtype=np.int64)
    gains = np.tile(np.exp2(np.arange(4)) - 1.0, (4, 1))
    cutoffs = np.arange(1, 11, dtype=np.int64)
    comp = Compiled(gains=gains, ideal=np.argsort(-gains, axis=1, kind="stable"),
                    discs=np.tile(1.0 / np.log2(np.arange(2.0, 32.0)), (4, 1)), ties=codes,
                    rels=np.ones(4, dtype=np.int64), pk_k=np.zeros(4, dtype=bool),
                    empties=np.array([0.0, 0.5, 1.0, 0.0]),
                    err_stop=(np.exp2(np.arange(4)) - 1.0) / 8.0)
    args = (Lists(y, s, tie, offsets), comp, cutoffs, True, False)
    a = K.all_query_metrics(*args, 1)
    b = K.all_query_metrics_parallel(*args, 7)
    assert a.shape == (4, 200, 4 * 10 + 3)
    np.testing.assert_array_equal(a, b)
    assert np.all((a[:, :, -1] >= 0) & (a[:, :, -1] <= 1)) and np.any(a[:, :, -1] != a[0, :, -1])


# --- command line ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("rankdcg")
    data = make_letor(n_queries=25, seed=8)
    write_letor(data, d / "data.txt")
    np.savetxt(d / "s.txt", data.X[:, :2].sum(axis=1))
    return d, data


def test_cli_json(files, capsys):
    d, data = files
    args = ["eval", str(d / "data.txt"), str(d / "s.txt"), "-c", "ranklib-tiepess", "--per-query"]
    assert main([*args, "--rankdcg"]) == 0
    r = json.loads(capsys.readouterr().out)["conventions"]["ranklib-tiepess"]
    per_q = [v["RankDCG"] for v in r["per_query"].values()]
    assert len(per_q) == data.n_queries and all(0.0 <= v <= 1.0 for v in per_q)
    assert r["mean"]["RankDCG"] == pytest.approx(np.mean(per_q))
    ev = evaluate(data.y, np.loadtxt(d / "s.txt"), data.qid, conventions=["ranklib-tiepess"],
                  rankdcg=True)["ranklib-tiepess"]
    np.testing.assert_allclose(per_q, ev["RankDCG"], atol=1e-12)
    assert main(args) == 0
    assert "RankDCG" not in json.loads(capsys.readouterr().out)["conventions"]["ranklib-tiepess"]["mean"]


def test_cli_tsv(files, capsys):
    d, _ = files
    assert main(["eval", str(d / "data.txt"), str(d / "s.txt"), "--format", "tsv", "--rankdcg"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split("\t")
    assert header[-1] == "RankDCG"
    assert [line.split("\t")[0] for line in lines[1:]] == ["ranklib", "trec", "yahoo", "letor"]
    assert all(0.0 <= float(line.split("\t")[-1]) <= 1.0 for line in lines[1:])
