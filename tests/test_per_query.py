"""The result format of 'ltrconv eval' as text: written by format_per_query, read back by
parse_per_query, and each way the text can be refused."""

import json
import math

import numpy as np
import pytest

from ltrconv.data.synthetic import make_letor
from ltrconv.errors import InputError
from ltrconv.evaluation.metrics import evaluate_dataset
from ltrconv.evaluation.per_query import format_per_query, parse_per_query


@pytest.fixture(scope="module")
def results():
    data = make_letor(n_queries=6, empty_share=0.5, seed=3)
    scores = np.random.default_rng(3).random(data.n_docs).round(3)
    return evaluate_dataset(data, scores, conventions=["ranklib", "ndcg(empty=skip)"],
                            cutoffs="1-3", metrics=["NDCG", "MAP"])


@pytest.mark.parametrize("fmt", ["json", "tsv"])
def test_round_trip(results, fmt):
    text = format_per_query(results, fmt, queries=True, data="d.txt", scores="s.txt")
    back = parse_per_query(text, "f")
    assert list(back) == list(results)
    digits = 12 if fmt == "json" else 6
    for name, ev in results.items():
        assert list(back[name]) == [str(q) for q in ev.qids]
        for i, q in enumerate(ev.qids):
            for metric, value in back[name][str(q)].items():
                want = ev.values[i, ev.columns.index(metric)]
                assert (math.isnan(value) and math.isnan(want)) or value == round(want, digits)
    assert not any(c.startswith("DCG@") for c in back["ranklib"][str(results["ranklib"].qids[0])])


def test_json_layout(results):
    doc = json.loads(format_per_query(results, "json", data="d.txt", scores="s.txt"))
    assert (doc["data"], doc["scores"]) == ("d.txt", "s.txt")
    skip = next(name for name in results if name != "ranklib")
    entry = doc["conventions"][skip]
    assert "per_query" not in entry and "skipped" in entry  # means only, skipped queries named
    assert entry["skipped"] == [str(q) for q in results[skip].qids[results[skip].skipped]]
    assert entry["mean"]["NDCG@3"] == round(results[skip].mean()["NDCG@3"], 12)


def test_tsv_means_only(results):
    lines = format_per_query(results, "tsv").splitlines()
    assert lines[0] == "convention\tqid\tNDCG@1\tNDCG@2\tNDCG@3\tMAP"
    assert [line.split("\t")[:2] for line in lines[1:]] == [[name, "all"] for name in results]
    assert parse_per_query("\n".join(lines) + "\n", "f") == {}  # rows of means are skipped


def test_unknown_format(results):
    with pytest.raises(ValueError, match="fmt"):
        format_per_query(results, "csv")


JSON_ERRORS = [
    ('{"conventions": {"a": {"per_query": {"1": {"M": 1}, "1": {"M": 2}}}}}',
     "f: a JSON object gives the key '1' twice"),
    ('{"conventions": \n{', "f:2: not valid JSON"),
    ('{"data": 1}', "f: no 'conventions' mapping"),
    ('{"conventions": {}}', "f: no 'conventions' mapping"),
    ('{"conventions": {"a": {"mean": {}}}}', "f: conventions.a has no 'per_query' mapping"),
    ('{"conventions": {"a": []}}', "f: conventions.a has no 'per_query' mapping"),
    ('{"conventions": {"a": {"per_query": {"1": {}}}}}',
     "f: conventions.a.per_query.1: expected a mapping of metric to value"),
    ('{"conventions": {"a": {"per_query": {"1": {"M": "0.5"}}}}}',
     "f: conventions.a.per_query.1.M: value '0.5' is not a finite number or null"),
    ('{"conventions": {"a": {"per_query": {"1": {"M": true}}}}}', "value True is not a finite"),
    ('{"conventions": {"a": {"per_query": {"1": {"M": Infinity}}}}}', "value inf is not a finite"),
    ('{"conventions": {"a": {"per_query": {}}}}', "f: no per-query values under a"),
    ('{"conventions": {"a": {"per_query": {"1": {"M": 1}, "2": {"N": 1}}}}}',
     "f: under a, query 2 has metrics ['N'] but query 1 has ['M']"),
]

TSV_ERRORS = [
    ("", "f:1: expected the output of 'ltrconv eval --per-query'"),
    ("qid\tconvention\tM\n", "f:1: expected the output"),
    ("convention\tqid\tM\na\t1\n", "f:2: expected 3 columns, got 2"),
    ("convention\tqid\tM\na\t1\tx\n", "f:2: M value 'x' is not a number"),
    ("convention\tqid\tM\na\t1\tinf\n", "f:2: M value 'inf' is not finite"),
    ("convention\tqid\tM\na\t1\t0.5\na\t1\t0.5\n", "f:3: query 1 appears twice under a"),
]


@pytest.mark.parametrize("text, message", JSON_ERRORS + TSV_ERRORS)
def test_parse_errors(text, message):
    with pytest.raises(InputError) as info:
        parse_per_query(text, "f")
    assert str(info.value).startswith(message) or message in str(info.value), str(info.value)


def test_null_and_nan_read_as_nan():
    got = parse_per_query('{"conventions": {"a": {"per_query": {"1": {"M": null}}}}}', "f")
    assert math.isnan(got["a"]["1"]["M"])
    got = parse_per_query("convention\tqid\tM\na\t1\tnan\na\tall\tnan\n", "f")
    assert list(got["a"]) == ["1"] and math.isnan(got["a"]["1"]["M"])


@pytest.mark.parametrize("fmt", ["json", "tsv"])
def test_letor_and_trec_output_format_the_same_values_alike(tmp_path, capsys, fmt):
    """'ltrconv eval DATA SCORES' and 'ltrconv eval --qrels --run' on the same judgements and
    scores: the same text, but for the JSON's names of the inputs and a run's query counts."""
    from ltrconv.cli import main
    from ltrconv.data.writer import write_letor

    labels = {11: [2, 0, 1, 0], 12: [0, 0, 0], 13: [1, 0, 2, 1, 0], 14: [0, 1]}  # 12: none relevant
    rows = [(q, y) for q, ys in labels.items() for y in ys]
    n = len(rows)
    data = make_letor(n_queries=1, min_docs=n, max_docs=n, n_features=2, seed=1)
    data = type(data)(X=data.X, y=np.array([y for _, y in rows]),
                      qid=np.array([q for q, _ in rows]),
                      offsets=np.cumsum([0, *map(len, labels.values())]),
                      docid=np.array([f"d{i}" for i in range(n)]))
    scores = np.random.default_rng(5).permutation(n) / 10  # no ties
    write_letor(data, tmp_path / "data.txt")
    (tmp_path / "scores.txt").write_text("".join(f"{s}\n" for s in scores))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 d{i} {y}\n" for i, (q, y) in enumerate(rows)))
    (tmp_path / "run").write_text("".join(f"{q} Q0 d{i} 0 {s} r\n"
                                          for i, ((q, _), s) in enumerate(zip(rows, scores))))
    options = ["-c", "ranklib", "-c", "ndcg(empty=skip)", "--cutoffs", "1,3", "--per-query",
               "--format", fmt]
    outputs = []
    for inputs in ([str(tmp_path / "data.txt"), str(tmp_path / "scores.txt")],
                   ["--qrels", str(tmp_path / "qrels"), "--run", str(tmp_path / "run")]):
        assert main(["eval", *inputs, *options]) == 0
        outputs.append(capsys.readouterr().out)
    letor, trec = outputs
    if fmt == "tsv":
        assert trec == letor
        assert "ndcg(gain=exp,disc=log2,empty=skip,short=truncate,ties=input-order,rel=1,pk=min)"\
               "\t12\tnan" in trec
        return
    counts = [line for line in trec.splitlines(keepends=True) if '"queries": ' in line]
    assert counts == ['   "queries": 4,\n', '   "queries": 3,\n']
    trec = "".join(line for line in trec.splitlines(keepends=True) if line not in counts)
    header = ' "{}": "{}",\n "{}": "{}",\n'
    assert trec.startswith("{\n" + header.format("qrels", tmp_path / "qrels", "run", tmp_path / "run"))
    assert letor.startswith("{\n" + header.format("data", tmp_path / "data.txt", "scores",
                                                  tmp_path / "scores.txt"))
    assert trec.split("\n", 3)[3] == letor.split("\n", 3)[3]
    assert '"skipped": [\n    "12"\n   ]' in trec
