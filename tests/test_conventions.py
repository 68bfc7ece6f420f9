"""Conventions are validated value objects whose canonical string round-trips."""

import pytest

from ltrconv import conventions as C
from ltrconv.metrics import MetricSpec


@pytest.mark.parametrize("name", C.names())
def test_canonical_string_round_trips(name):
    conv = C.get(name)
    again = C.parse(conv.canonical)
    assert again == conv and hash(again) == hash(conv)
    assert again.name == name  # parsing finds the registered name back


def test_tool_definitions():
    assert C.get("ranklib") == C.Convention()
    assert C.get("trec").ties == "docid-desc" and C.get("trec").pk == "k"
    assert C.get("yahoo").empty == 1.0
    letor = C.get("letor")
    assert (letor.disc, letor.short, letor.pk) == ("letor", "zero", "k")
    assert C.get("ranklib") != C.get("yahoo")


def test_discounts_and_gains():
    assert C.get("letor").discounts(4).tolist() == pytest.approx([1, 1, 1 / 1.5849625007, 0.5])
    assert C.get("ranklib").discounts(3).tolist() == pytest.approx([1, 1 / 1.5849625007, 0.5])
    assert C.get("ranklib").gain_table(2).tolist() == [0, 1, 3]
    assert C.Convention(gain="linear").gain_table(2).tolist() == [0, 1, 2]
    mapped = C.Convention(gain={0: 0, 1: 2, 2: 5})
    assert mapped.gain_table(2).tolist() == [0, 2, 5]
    assert C.parse(mapped.canonical) == mapped
    with pytest.raises(C.ConventionError, match="no value for label"):
        mapped.gain_table(3)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(disc="ln"), "disc must be one of"),
        (dict(ties="random"), "ties must be one of"),
        (dict(short="drop"), "short must be one of"),
        (dict(empty=2), r"empty must be a number in \[0, 1\]"),
        (dict(empty="x"), "empty must be a number"),
        (dict(rel=0), "rel must be"),
        (dict(pk="n"), "pk must be one of"),
        (dict(gain="cubic"), "gain must be one of"),
    ],
)
def test_invalid_parameters(kwargs, message):
    with pytest.raises(C.ConventionError, match=message):
        C.Convention(**kwargs)


def test_parse_errors_and_unknown_names():
    with pytest.raises(C.ConventionError, match="unknown convention"):
        C.get("nope")
    with pytest.raises(C.ConventionError, match="bad parameter"):
        C.parse("ndcg(colour=red)")
    assert C.parse("ndcg(empty=0.5)") == C.get("yahoo-half")


def test_yaml_definitions(tmp_path):
    f = tmp_path / "conv.yaml"
    f.write_text("conventions:\n  msn:\n    base: letor\n    gain: linear\n  half:\n    empty: 0.5\n")
    defined = C.load_yaml(f)
    assert [c.name for c in defined] == ["msn", "half"]
    assert C.get("msn").disc == "letor" and C.get("msn").gain == "linear"
    bad = tmp_path / "bad.yaml"
    bad.write_text("conventions:\n  broken:\n    ties: sometimes\n")
    with pytest.raises(C.ConventionError, match=r"bad.yaml: conventions.broken: ties must be"):
        C.load_yaml(bad)


def test_metric_spec():
    spec = MetricSpec.parse("ndcg@10:letor")
    assert spec.k == 10 and spec.convention == C.get("letor")
    assert str(spec) == "ndcg@10:letor"
    for bad in ("ndcg@0:letor", "map@10:letor", "ndcg@10"):
        with pytest.raises(ValueError, match="expected ndcg@K:CONVENTION|unknown convention"):
            MetricSpec.parse(bad)
