"""ltrconv ttest: paired t-tests between two runs' per-query results."""

from __future__ import annotations

import json

import pytest

from ltrconv.cli import main

from cli_helpers import fails, files  # noqa: F401 (files is a fixture)


def test_ttest_between_two_runs(files, tmp_path, capsys):
    d, _ = files
    for name in ("a", "b"):
        assert main(["eval", str(d / "data.txt"), str(d / f"{name}.txt"), "--per-query",
                     "-o", str(tmp_path / f"{name}.json")]) == 0
    assert main(["ttest", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "-c", "ranklib"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert rows[0][:3] == ["convention", "metric", "n"]
    ndcg10 = next(r for r in rows if r[1] == "NDCG@10")
    assert float(ndcg10[5]) > 0 and float(ndcg10[7]) < 0.05  # the informative run wins


def per_query_json(path, per_query):
    path.write_text(json.dumps({"conventions": {name: {"per_query": pq} for name, pq in per_query.items()}}))
    return path


def test_ttest_one_query_is_nan_with_a_warning(tmp_path, capsys):
    a = per_query_json(tmp_path / "a.json", {"ranklib": {"1": {"NDCG@1": 0.5}}})
    b = per_query_json(tmp_path / "b.json", {"ranklib": {"1": {"NDCG@1": 0.7}}})
    capsys.readouterr()
    assert main(["ttest", str(a), str(b)]) == 0
    io = capsys.readouterr()
    row = io.out.splitlines()[1].split("\t")
    assert row[:3] == ["ranklib", "NDCG@1", "1"] and row[6:] == ["nan", "nan"]
    assert io.err == ("ltrconv: warning: one query only under ranklib; a paired t-test needs two "
                      "or more, so t and p are nan\n")


@pytest.mark.parametrize(
    "a, message",
    [
        ({"yahoo": {"1": {"NDCG@1": 0.2}, "2": {"NDCG@1": 0.1}}}, "have no convention in common"),
        ({"ranklib": {"1": {"NDCG@1": "x"}, "2": {"NDCG@1": 0.1}}},
         "a.json: conventions.ranklib.per_query.1.NDCG@1: value 'x' is not a finite number or null"),
        ({"ranklib": {"1": {"NDCG@1": True}, "2": {"NDCG@1": 0.1}}}, "value True is not a finite number"),
        ({"ranklib": {"1": {"NDCG@1": 1e999}, "2": {"NDCG@1": 0.1}}}, "value inf is not a finite number"),
        ({"ranklib": {}}, "a.json: no per-query values under ranklib"),
        ({"ranklib": [1, 2]}, "a.json: conventions.ranklib has no 'per_query' mapping"),
        ({"ranklib": {"1": 5}}, "a.json: conventions.ranklib.per_query.1: expected a mapping"),
        ({"ranklib": {"1": {"NDCG@1": 0.2}, "2": {"P@1": 0.1}}},
         "a.json: under ranklib, query 2 has metrics ['P@1'] but query 1 has ['NDCG@1']"),
        ({"ranklib": {"1": {"P@1": 0.2}, "2": {"P@1": 0.1}}}, "have no metric in common under ranklib"),
        ({"ranklib": {"1": {"NDCG@1": None}, "2": {"NDCG@1": None}}}, "nothing to test"),
    ],
)
def test_ttest_hand_made_json(tmp_path, capsys, a, message):
    pa = per_query_json(tmp_path / "a.json", a)
    pb = per_query_json(tmp_path / "b.json", {"ranklib": {"1": {"NDCG@1": 0.2}, "2": {"NDCG@1": 0.1}}})
    fails(capsys, ["ttest", pa, pb, "-o", tmp_path / "t.tsv"], message, tmp_path / "t.tsv")


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"conventions": ', "a.json:1: not valid JSON"),
        ('{"runs": {}}', "a.json: no 'conventions' mapping"),
        ("convention\tqid\tNDCG@1\nranklib\t1\tinf\n", "a.json:2: NDCG@1 value 'inf' is not finite"),
        ("convention\tqid\tNDCG@1\nranklib\t1\t0.5\nranklib\t1\t0.4\n", "a.json:3: query 1 appears twice"),
    ],
)
def test_ttest_malformed_files(tmp_path, capsys, text, message):
    (tmp_path / "a.json").write_text(text)
    pb = per_query_json(tmp_path / "b.json", {"ranklib": {"1": {"NDCG@1": 0.2}}})
    fails(capsys, ["ttest", tmp_path / "a.json", pb], message)


def test_ttest_hand_made_json_repeating_a_query(tmp_path, capsys):
    """json.loads keeps the last of two equal keys; a query given twice is refused instead."""
    (tmp_path / "a.json").write_text('{"conventions": {"ranklib": {"per_query": {"1": {"NDCG@1": 0.2}, '
                                     '"2": {"NDCG@1": 0.1}, "1": {"NDCG@1": 0.9}}}}}')
    pb = per_query_json(tmp_path / "b.json", {"ranklib": {"1": {"NDCG@1": 0.2}, "2": {"NDCG@1": 0.1}}})
    fails(capsys, ["ttest", tmp_path / "a.json", pb, "-o", tmp_path / "t.tsv"],
          f"{tmp_path / 'a.json'}: a JSON object gives the key '1' twice", tmp_path / "t.tsv")


def test_ttest_refuses_one_name_with_two_definitions(files, tmp_path, capsys):
    """A conventions file may give a name any definition: the runs are compared by definition."""
    d, _ = files
    for name, empty in (("a", 0.5), ("b", 0)):
        conv = tmp_path / f"{name}.yaml"
        conv.write_text(f"conventions:\n  house: {{empty: {empty}}}\n")
        assert main(["eval", str(d / "data.txt"), str(d / f"{name}.txt"), "--per-query", "-c",
                     "house", "--conventions-file", str(conv),
                     "-o", str(tmp_path / f"{name}.json")]) == 0
    fails(capsys, ["ttest", tmp_path / "a.json", tmp_path / "b.json"],
          "convention 'house' is defined differently in")


def test_ttest_pairs_the_queries_a_skipping_convention_scores(files, tmp_path, capsys):
    """empty=skip writes null for the queries without a relevant document: those pairs are left
    out, with a warning, instead of the whole metric."""
    d, data = files
    for name in ("a", "b"):
        assert main(["eval", str(d / "data.txt"), str(d / f"{name}.txt"), "--per-query", "-c",
                     "ndcg(empty=skip)", "-o", str(tmp_path / f"{name}.json")]) == 0
    capsys.readouterr()
    assert main(["ttest", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    io = capsys.readouterr()
    rows = [line.split("\t") for line in io.out.splitlines()]
    ndcg10 = next(r for r in rows if r[1] == "NDCG@10")
    empty = sum(data.y[a:b].max() == 0 for a, b in zip(data.offsets[:-1], data.offsets[1:]))
    assert empty > 0 and int(ndcg10[2]) == data.n_queries - empty
    assert f"{empty} queries without a value (null) in one run or both left out" in io.err
