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


@pytest.mark.parametrize(
    "gain, message",
    [
        ("{0: 0, 1: x}", r"gain map value 'x' is not a number"),
        ("{0: 0, 1: [1]}", r"gain map value \[1\] is not a number"),
        ("{0: 0, 1: true}", r"gain map value True is not a number"),
        ("{0: 0, 1.5: 1}", r"gain map label 1.5 is not a non-negative integer"),
        ("{0: 0, true: 1}", r"gain map label True is not a non-negative integer"),
        ("{0: 0, x: 1}", r"gain map label 'x' is not a non-negative integer"),
        ("{0: 0, 1: -1}", r"gain map values must be finite and >= 0"),
        ("{}", r"the label map is empty"),
        ("[1, 2]", r"or a list of \[label, gain\] pairs, got \[1, 2\]"),
        ("[[0, 0], [1]]", r"or a list of \[label, gain\] pairs"),
        ("'0:0;1'", r"gain must be one of .* got '0:0;1'"),
        ("5", r"gain must be one of .* got 5"),
    ],
)
def test_malformed_gain_maps_name_the_file(tmp_path, gain, message):
    f = tmp_path / "gains.yaml"
    f.write_text(f"conventions:\n  g:\n    gain: {gain}\n")
    with pytest.raises(C.ConventionError, match=rf"gains.yaml: conventions.g: .*{message}"):
        C.load_yaml(f)


@pytest.mark.parametrize(
    "text, message",
    [
        ("conventions:\n  g:\n    gain: {0: 0, [1]: 1}\n", r"bad.yaml:3: not valid YAML: .*unhashable key"),
        ("conventions: [\n", r"bad.yaml:2: not valid YAML: .*expected the node content"),
        ("conventions:\n  g:\n  empty: 1\n   x: 2\n", r"bad.yaml:4: not valid YAML"),
        ("conventions:\n  5:\n    gain: linear\n", r"bad.yaml: conventions.5: convention name 5 must match"),
        ("conventions:\n  g:\n    base: [ranklib]\n", r"bad.yaml: conventions.g: base must be a convention name"),
        ("conventions:\n  g:\n    base: nope\n", r"bad.yaml: conventions.g: unknown convention 'nope'"),
        ("conventions:\n  g:\n    rel: true\n", r"bad.yaml: conventions.g: rel must be"),
        ("conventions:\n  g:\n    empty: true\n", r"bad.yaml: conventions.g: empty must be"),
        ("conventions:\n  g:\n    rel: 100000000000000000000000\n", r"conventions.g: rel must be an integer label in 1..1000"),
        ("conventions:\n  g:\n    1: 2\n", r"bad.yaml: conventions.g: keys must be names"),
    ],
)
def test_bad_conventions_files_are_one_line(tmp_path, text, message):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(C.ConventionError, match=message) as info:
        C.load_yaml(f)
    assert "\n" not in str(info.value)


def test_conventions_file_not_utf8(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_bytes(b"\xff\xfeconventions: {}\n")
    with pytest.raises(C.ConventionError, match=r"bad.yaml: cannot read conventions: not UTF-8"):
        C.load_yaml(f)


def test_gain_map_spellings_agree():
    want = ((0, 0.0), (1, 1.0), (2, 3.0))
    for spelling in ({0: 0, 1: 1, 2: 3}, {"0": "0", "1": 1, "2": 3.0}, [[2, 3], [0, 0], [1, 1]],
                     "0:0;1:1;2:3", {0.0: 0, 1: 1, 2: 3}):
        assert C.Convention(gain=spelling).gain == want


BUILT_IN = [(n, C.get(n)) for n in sorted(C.BUILTIN)]


@pytest.mark.parametrize("name", ["ranklib", "trec", "yahoo-half", "letor-tieavg", "RankLib", "TREC"])
def test_built_in_names_are_reserved(tmp_path, name):
    f = tmp_path / "mine.yaml"
    f.write_text(f"conventions:\n  fresh-one:\n    empty: 0.5\n  {name}:\n    empty: 1\n")
    builtin = C.reserved(name)
    assert builtin == name.lower()
    with pytest.raises(C.ConventionError) as info:
        C.load_yaml(f)
    msg = str(info.value)
    assert msg.startswith(f"{f}: conventions.{name}: {name!r} is the name of ")
    assert f"e.g. '{builtin}-custom'" in msg and "\n" not in msg
    # the built-in is untouched and nothing of the refused file is registered
    assert C.get(builtin) == dict(BUILT_IN)[builtin] and "fresh-one" not in C.names()


def test_register_refuses_to_redefine_a_built_in():
    assert C.BUILTIN >= {*C.PAPER_TOOLS, "yahoo-half", "ranklib-tieavg"}
    with pytest.raises(C.ConventionError, match="reserved for the built-in convention 'ranklib'"):
        C.register("ranklib", C.Convention(empty=1.0), overwrite=True)
    with pytest.raises(C.ConventionError, match="reserved for the built-in convention 'yahoo'"):
        C.register("Yahoo", C.get("yahoo"))
    assert C.register("ranklib", C.Convention()) is not None  # the same definition again is fine
    assert C.get("ranklib").empty == 0.0 and C.reserved("my-ranklib") is None
