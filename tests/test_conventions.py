"""Conventions are validated value objects whose canonical string round-trips."""

import os
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from ltrconv.data.conventions_file import load_conventions
from ltrconv.evaluation import conventions as C
from ltrconv.evaluation import axes as A
from ltrconv.evaluation.convention_set import BUILTINS, ConventionSet
from ltrconv.evaluation.spec import MetricSpec


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
    loaded = load_conventions(f)
    assert [c.name for c in loaded.defined] == ["msn", "half"]
    assert loaded.get("msn").disc == "letor" and loaded.get("msn").gain == "linear"
    assert loaded.names() == [*C.names(), "msn", "half"] and "msn" not in C.names()
    bad = tmp_path / "bad.yaml"
    bad.write_text("conventions:\n  broken:\n    ties: sometimes\n")
    with pytest.raises(C.ConventionError, match=r"bad.yaml: conventions.broken: ties must be"):
        load_conventions(bad)


def test_metric_spec():
    spec = MetricSpec.parse("ndcg@10:letor")
    assert spec.k == 10 and spec.convention == C.get("letor")
    assert str(spec) == "ndcg@10:letor"
    for bad in ("ndcg@0:letor", "map@10:letor", "ndcg@10", "ndcg@10:", "ndcg@x:letor",
                "ndcg@10:nosuch", "ndcg@10:ndcg(colour=red)"):
        with pytest.raises(ValueError, match="expected ndcg@K:CONVENTION|unknown convention|"
                                             "bad parameter"):
            MetricSpec.parse(bad)
    for k in (0, -1, True, 2.0, "10"):
        with pytest.raises(ValueError, match="must be an integer >= 1"):
            MetricSpec(k, C.get("letor"))


# --- one grammar: str(metric) parses back to an equal metric --------------------------------
CUTOFFS = (1, 2, 5, 10, 37, 100_000)
CUSTOM = (
    C.Convention(empty=0.5),  # equal to yahoo-half: written by that name
    C.Convention(gain=((0, 0.0), (1, 1.0), (2, 3.0)), disc="letor"),
    C.Convention(gain="linear", ties="docid-desc", rel=2, pk="k", short="zero", empty=0.25),
    C.Convention(empty=1 / 3, ties="optimistic"),
    C.Convention(gain={0: 0, 1: 0.1, 2: 1e-300, 3: 2.5e17}, ties="average"),
    C.get("letor").with_(ties="pessimistic", name="letor"),  # a built-in's name, other values
    C.get("ranklib").with_(name="RankLib"),  # a built-in's name in other letter case
)


def assert_round_trips(metric: MetricSpec) -> None:
    text = str(metric)
    again = MetricSpec.parse(text)
    assert again == metric and again.k == metric.k
    assert C.get(text.split(":", 1)[1]) == metric.convention
    assert str(again) == text


@pytest.mark.parametrize("name", sorted(C.BUILTIN))
@pytest.mark.parametrize("k", CUTOFFS)
def test_builtin_metric_round_trips_by_name(name, k):
    metric = MetricSpec(k, C.get(name))
    assert str(metric) == f"ndcg@{k}:{name}"
    assert_round_trips(metric)


@pytest.mark.parametrize("conv", CUSTOM, ids=lambda c: c.canonical)
@pytest.mark.parametrize("k", CUTOFFS)
def test_custom_metric_round_trips(conv, k):
    metric = MetricSpec(k, conv)
    assert_round_trips(metric)
    registered = [c for c in C.names() if C.get(c) == conv]
    text = str(metric).split(":", 1)[1]
    assert text == (registered[0] if registered else conv.canonical)


def test_a_files_metric_is_written_by_name_and_read_against_its_set():
    cset = BUILTINS.define({"grammar-test-linear": {"gain": "linear", "empty": 0.75}}, "f.yaml")
    conv = cset["grammar-test-linear"]
    metric = MetricSpec.parse("ndcg@7:grammar-test-linear", conventions=cset)
    assert str(metric) == "ndcg@7:grammar-test-linear" and metric.convention is conv
    assert MetricSpec.parse(str(metric), conventions=cset) == metric
    assert MetricSpec.parse(f"ndcg@7:{conv.canonical}", conventions=cset).convention.name == \
        "grammar-test-linear"
    assert MetricSpec.parse(f"ndcg@7:{conv.canonical}") == metric  # the definition reads anywhere
    with pytest.raises(C.ConventionError, match="unknown convention 'grammar-test-linear'"):
        MetricSpec.parse("ndcg@7:grammar-test-linear")  # not against the built-in ones


@pytest.mark.parametrize("text, name", [
    ("ndcg@10:ranklib", "ranklib"),
    ("ndcg@10:ndcg(empty=0.5)", "yahoo-half"),
    (" ndcg@10: ndcg( empty = 0.5 ) ", "yahoo-half"),
    ("ndcg@010:letor", "letor"),
    ("ndcg@3:ndcg(disc=letor,short=zero,pk=k)", "letor"),
    ("NDCG@10:letor", "letor"),  # as eval labels its columns
    ("Ndcg@5:yahoo-half", "yahoo-half"),
])
def test_accepted_spellings(text, name):
    metric = MetricSpec.parse(text)
    assert metric.convention == C.get(name) and metric.convention.name == name
    assert_round_trips(metric)


gains = st.one_of(
    st.sampled_from(A.GAIN_KINDS),
    st.dictionaries(st.integers(0, 5), st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=4))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 10**5), gains, st.sampled_from(A.BY_NAME["disc"].choices),
       st.floats(0, 1, allow_nan=False), st.sampled_from(A.BY_NAME["short"].choices),
       st.sampled_from(A.BY_NAME["ties"].choices), st.integers(1, 4), st.sampled_from(A.BY_NAME["pk"].choices))
def test_any_metric_round_trips(k, gain, disc, empty, short, ties, rel, pk):
    conv = C.Convention(gain=gain, disc=disc, empty=empty, short=short, ties=ties, rel=rel, pk=pk)
    assert_round_trips(MetricSpec(k, conv))


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
        # legal floats whose DCG overflows: NDCG would be inf/inf = nan
        ("{0: 0, 1: 1e308, 2: 1e308}", r"gain map value 1e\+308 is above 2\^1000 .*could overflow"),
        ("{0: 0, 1: 1, 2: 2.0e+301}", r"gain map value 2e\+301 is above 2\^1000"),
    ],
)
def test_malformed_gain_maps_name_the_file(tmp_path, gain, message):
    f = tmp_path / "gains.yaml"
    f.write_text(f"conventions:\n  g:\n    gain: {gain}\n")
    with pytest.raises(C.ConventionError, match=rf"gains.yaml: conventions.g: .*{message}"):
        load_conventions(f)


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
        # the last definition must not win silently
        ("conventions:\n  g: {empty: 1}\n  h: {}\n  g: {empty: 0}\n",
         r"bad.yaml:4: not valid YAML: while constructing a mapping; found the key 'g' a second "
         r"time \(first on line 2\)"),
        ("conventions:\n  g:\n    empty: 1\n    empty: 0.5\n",
         r"bad.yaml:4: not valid YAML: .*found the key 'empty' a second time \(first on line 3\)"),
        ("conventions: {}\nconventions: {g: {}}\n", r"bad.yaml:2: .*the key 'conventions' a second"),
        ("conventions:\n  g: &a [*a]\n", r"bad.yaml:2: not valid YAML: an alias refers to a value "
                                         r"that contains it"),
        # a name or key with control characters stays on one line
        ('conventions:\n  "a\\nb\\x1b[31m": {empty: 1}\n',
         r"bad.yaml: conventions.a\\nb\\x1b\[31m: convention name 'a\\nb\\x1b\[31m' must match"),
    ],
)
def test_bad_conventions_files_are_one_line(tmp_path, text, message):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(C.ConventionError, match=message) as info:
        load_conventions(f)
    assert "\n" not in str(info.value)


def test_conventions_file_not_utf8(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_bytes(b"\xff\xfeconventions: {}\n")
    with pytest.raises(C.ConventionError, match=r"bad.yaml:1: cannot read conventions: not UTF-8 "
                                                r"text \(byte 1 of the line\)"):
        load_conventions(f)


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
        load_conventions(f)
    msg = str(info.value)
    assert msg.startswith(f"{f}: conventions.{name}: {name!r} is the name of ")
    assert f"e.g. '{builtin}-custom'" in msg and "\n" not in msg
    # the built-in is untouched and nothing of the refused file is defined anywhere
    assert C.get(builtin) == dict(BUILT_IN)[builtin] and "fresh-one" not in C.names()
    assert "fresh-one" not in BUILTINS


def test_built_in_conventions_are_fixed():
    assert C.BUILTIN >= {*C.PAPER_TOOLS, "yahoo-half", "ranklib-tieavg"}
    assert BUILTINS.names() == C.names() == C.builtin_names() and set(BUILTINS) == C.BUILTIN
    with pytest.raises(C.ConventionError, match="'Yahoo' is the name of the built-in convention "
                                                "'yahoo' in other letter case"):
        BUILTINS.define({"Yahoo": {}}, "f.yaml")
    with pytest.raises(TypeError):
        BUILTINS["mine"] = C.Convention()  # a set is read-only
    assert C.get("ranklib").empty == 0.0 and C.reserved("my-ranklib") is None


def test_tie_policies_are_named_once():
    from ltrconv.evaluation import ties

    assert A.BY_NAME["ties"].choices == ties.POLICIES == tuple(ties.CODES)
    for policy, code in ties.CODES.items():
        assert getattr(ties, policy.upper().replace("-", "_")) == code
    assert sorted(ties.CODES.values()) == list(range(len(ties.CODES)))
    for policy in ties.POLICIES:
        assert C.Convention(ties=policy).ties == policy


def yaml_bomb(levels: int = 9) -> str:
    """Each level a list of nine aliases of the level below: 9^levels values from a few lines."""
    lines = ["anchors:", "  - &l0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        lines.append(f"  - &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines + ["conventions:", "  g:", f"    gain: *l{levels - 1}", ""])


def test_yaml_bomb_is_refused_at_once_in_one_short_line(tmp_path):
    """Nine levels of aliases took 63 s, 8 GB and a 2 GB error line; the expanded size is counted
    on the node graph before anything is built."""
    import time

    f = tmp_path / "bomb.yaml"
    f.write_text(yaml_bomb())
    start = time.process_time()
    with pytest.raises(C.ConventionError) as info:
        load_conventions(f)
    assert time.process_time() - start < 2
    msg = str(info.value)
    assert msg.startswith(f"{f}:") and "expand the document by more than 10,000 values" in msg
    assert "\n" not in msg and len(msg) < 300 + len(str(f))


def test_deep_nesting_is_one_line(tmp_path):
    f = tmp_path / "deep.yaml"
    f.write_text("conventions:\n  g: " + "[" * 3000 + "]" * 3000 + "\n")
    with pytest.raises(C.ConventionError, match=r"deep.yaml: not valid YAML: nested too deeply$"):
        load_conventions(f)


def test_a_large_value_is_echoed_cut_short(tmp_path):
    """Within the node bound a value can still be long; a message echoes 80 characters of it."""
    f = tmp_path / "long.yaml"
    f.write_text("conventions:\n  g:\n    gain: [" + ", ".join(["[0, 1, 2]"] * 2000) + "]\n")
    with pytest.raises(C.ConventionError, match=r"or a list of \[label, gain\] pairs") as info:
        load_conventions(f)
    assert len(str(info.value)) < 300 + len(str(f)) and "…" in str(info.value)


@pytest.mark.parametrize("text, message", [
    ("ndcg(empty=0.5,empty=1)", r"cannot parse convention 'ndcg\(empty=0.5,empty=1\)': empty is given "
                                r"twice \(empty=0.5 and empty=1\)"),
    ("ndcg(gain=linear,disc=letor,gain=exp)", r"gain is given twice \(gain=linear and gain=exp\)"),
])
def test_a_key_repeated_in_a_definition_string_is_refused(text, message):
    with pytest.raises(C.ConventionError, match=message):
        C.get(text)


# --- conventions files give sets; nothing changes the built-in conventions ---------------------
def test_loading_files_leaves_the_built_in_conventions_unchanged(tmp_path):
    """Loading a file twice, or one that fails half-way, changes no built-in name and defines
    nothing outside the set returned."""
    before = {n: (C.get(n), str(C.get(n))) for n in C.names()}
    good = tmp_path / "good.yaml"
    good.write_text("conventions:\n  mine: {base: yahoo, empty: 0.25}\n")
    first, second = load_conventions(good), load_conventions(good)
    assert first == second and first is not second and first.get("mine").empty == 0.25
    bad = tmp_path / "bad.yaml"
    bad.write_text("conventions:\n  other: {empty: 0.5}\n  broken: {ties: sometimes}\n")
    with pytest.raises(C.ConventionError, match="conventions.broken: ties must be"):
        load_conventions(bad)
    (tmp_path / "builtin.yaml").write_text("conventions:\n  ranklib: {empty: 1}\n")
    for _ in range(2):
        with pytest.raises(C.ConventionError, match="conventions.ranklib: 'ranklib' is the name"):
            load_conventions(tmp_path / "builtin.yaml")
    assert {n: (C.get(n), str(C.get(n))) for n in C.names()} == before
    assert list(BUILTINS) == list(before) and "mine" not in C.names()
    for name in ("mine", "other", "broken"):
        with pytest.raises(C.ConventionError, match="unknown convention"):
            C.get(name)
    assert MetricSpec.parse("ndcg@10:ranklib") == MetricSpec(10, C.RANKLIB)
    assert "other" not in first and first.get("mine") == second.get("mine")


def test_two_sets_give_one_name_two_definitions(tmp_path):
    """Two conventions files defining the same name are used side by side in one process: the
    engine, the scorer, the metric grammar and the rankers each read the name against the set
    they are given."""
    import numpy as np

    from ltrconv import rankers
    from ltrconv.data.synthetic import make_letor
    from ltrconv.evaluation.metrics import evaluate
    from ltrconv.evaluation.scorer import NDCGScorer

    (tmp_path / "a.yaml").write_text("conventions:\n  house: {base: ranklib, empty: 0.25}\n")
    (tmp_path / "b.yaml").write_text("conventions:\n  house: {base: ranklib, empty: 0.75}\n")
    a, b = load_conventions(tmp_path / "a.yaml"), load_conventions(tmp_path / "b.yaml")
    assert a["house"].empty == 0.25 and b["house"].empty == 0.75
    d = make_letor(n_queries=20, empty_share=0.3, seed=4)
    scores = np.random.default_rng(0).random(d.n_docs)
    ev_a = evaluate(d.y, scores, d.qid, conventions=["house", "ranklib"], convention_set=a)
    ev_b = evaluate(d.y, scores, d.qid, conventions=["house"], convention_set=b)
    assert set(ev_a) == {"house", "ranklib"} and set(ev_b) == {"house"}
    ref = ev_a["ranklib"]["NDCG@10"]
    empty = np.array([d.y[s:e].max() == 0 for s, e in zip(d.offsets[:-1], d.offsets[1:])])
    assert empty.any() and not empty.all()
    np.testing.assert_allclose(ev_a["house"]["NDCG@10"], np.where(empty, 0.25, ref))
    np.testing.assert_allclose(ev_b["house"]["NDCG@10"], np.where(empty, 0.75, ref))
    sa = NDCGScorer(d.y, d.offsets, "house", 10, conventions=a).mean(scores)
    sb = NDCGScorer(d.y, d.offsets, "house", 10, conventions=b).mean(scores)
    assert sb - sa == pytest.approx(0.5 * empty.mean())
    with pytest.raises(C.ConventionError, match="unknown convention 'house'"):
        NDCGScorer(d.y, d.offsets, "house", 10)
    # rankers: each trained under its own set's "house", each model reporting its own
    tr, va = make_letor(n_queries=16, empty_share=0.3, seed=5), d
    models = []
    for cset in (a, b):
        metric = cset.ranker_metric("ndcg@10:house")
        m = rankers.make("adarank", metric=metric, n_rounds=5)
        models.append(m.fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid))
    assert [str(m.metric_spec) for m in models] == ["ndcg@10:house"] * 2
    assert [m.metric_spec.convention.empty for m in models] == [0.25, 0.75]
    for m, cset in zip(models, (a, b)):  # selected under its own definition
        scorer = NDCGScorer(va.y, va.offsets, "house", 10, conventions=cset)
        assert m.val_score_ == pytest.approx(scorer.mean(m.predict(va.X)))
    assert a.ranker_metric("ndcg@10:ranklib") == "ndcg@10:ranklib"  # built-in: as it always was


@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
def test_a_conventions_file_must_be_a_regular_file(tmp_path, special):
    # a FIFO blocked the command; /dev/zero was read until the memory ran out
    path = tmp_path / "c.yaml"
    if special == "fifo":
        os.mkfifo(path)
    else:
        path = Path(special)
    with pytest.raises(C.ConventionError, match=rf"{path}: cannot read conventions: is a "):
        load_conventions(path)


@pytest.mark.parametrize("text", [
    "conventions:\n  x: {base: y}\n  y: {base: ranklib, empty: 1}\n",
    "conventions:\n  x: {base: y}\n  y: {base: x}\n",  # each the other's base
])
def test_a_base_defined_below_is_named_as_such(tmp_path, text):
    # was "unknown convention 'y'; known: ranklib, ..." while y stood two lines below
    f = tmp_path / "c.yaml"
    f.write_text(text)
    with pytest.raises(C.ConventionError, match=r"conventions.x: base 'y' is defined further "
                                                r"down the file"):
        load_conventions(f)


def test_a_conventions_file_is_bounded_by_its_size(tmp_path):
    # PyYAML's nodes take over 100 times the text: 100,000 definitions (3.8 MB) held 510 MB
    f = tmp_path / "c.yaml"
    f.write_text("conventions:\n" + "".join(f"  c{i}: {{base: ranklib, empty: 0.5}}\n"
                                            for i in range(40_000)))
    with pytest.raises(C.ConventionError, match=r"c.yaml: cannot read conventions: 1,[0-9,]+ "
                                                r"bytes, more than the 1,048,576"):
        load_conventions(f)
