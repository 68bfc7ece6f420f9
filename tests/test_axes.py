"""The convention axes beyond the paper's (position discount, empty=skip, float32 scores, the
label policy, max_label, the sort-artefact tie orders) and the library conventions built on them:
round trips, refusals, both engines, the command line, the docs' table."""

import json
import runpy
from pathlib import Path

import numpy as np
import pytest
import yaml
from numba import njit

from ltrconv.cli import main
from ltrconv.data.conventions_file import load_conventions
from ltrconv.evaluation.convention_set import BUILTINS
from ltrconv.errors import InputError
from ltrconv.evaluation import conventions as C
from ltrconv.evaluation import axes as A
from ltrconv.evaluation.conventions import Convention
from ltrconv.evaluation.metrics import evaluate
from ltrconv.evaluation.scorer import NDCGScorer
from test_outputs import fails

ROOT = Path(__file__).resolve().parents[1]
LOG2 = 1 / np.log2(np.arange(2.0, 200.0))

NEW_AXES = [
    Convention(disc="position"),
    Convention(empty="skip", gain="linear"),
    Convention(scores="float32", ties="average"),
    Convention(scores="float32", ties="pessimistic", empty=0.5),
    Convention(labels="real", negative="keep", gain="linear", disc="position", empty="skip"),
    Convention(labels="trunc", negative="zero", ties="numba-quicksort", rel=2),
    Convention(labels="real", negative="keep-divide", ties="numpy-argsort-reversed"),
    Convention(max_label=4, ties="optimistic", short="zero", pk="k"),
    Convention(ties="numba-quicksort", scores="float32", disc="letor"),
]


def one(y, s, conv, cutoffs="1-10", **kw):
    (ev,) = evaluate(np.asarray(y), np.asarray(s, dtype=float), np.zeros(len(y), int),
                     conventions=[conv], cutoffs=cutoffs, **kw).values()
    return ev


# --- the string forms ------------------------------------------------------------------------
@pytest.mark.parametrize("conv", NEW_AXES, ids=lambda c: c.canonical)
def test_new_axes_round_trip(conv, tmp_path):
    assert C.parse(conv.canonical) == conv
    f = tmp_path / "c.yaml"
    params = {k: getattr(conv, k) for k in C.PARAMS if getattr(conv, k) is not None}
    f.write_text(yaml.safe_dump({"conventions": {"mine": params}}))
    (loaded,) = load_conventions(f).defined
    assert loaded == conv


def test_canonical_strings_name_new_axes_only_off_their_defaults():
    assert C.get("letor").canonical == \
        "ndcg(gain=exp,disc=letor,empty=0,short=zero,ties=input-order,rel=1,pk=k)"
    assert C.get("xgboost").canonical.endswith(",pk=min,scores=float32,max_label=31)")
    assert "empty=skip" in Convention(empty="skip").canonical
    # docid-desc compares as float32 by itself: saying so changes nothing, float64 is refused
    assert Convention(ties="docid-desc", scores="float32", pk="k") == C.get("trec")
    assert C.parse("ndcg(ties=docid-desc,pk=k,scores=float32)").name == "trec"
    with pytest.raises(C.ConventionError, match="scores=float64 is not available with ties=docid-desc"):
        Convention(ties="docid-desc", scores="float64")
    # scores=float32 stays with the convention when the tie policy changes
    assert C.get("xgboost").with_(ties="average").scores == "float32"
    assert Convention(scores="float64") == C.get("ranklib")


@pytest.mark.parametrize("kwargs, message", [
    (dict(disc="cosine"), "disc must be one of log2, letor, position; got 'cosine'"),
    (dict(empty="sometimes"), r"empty must be a number in \[0, 1\] or 'skip', got 'sometimes'"),
    (dict(scores="float16"), "scores must be one of float64, float32; got 'float16'"),
    (dict(labels="fuzzy"), "labels must be one of int, real, trunc; got 'fuzzy'"),
    (dict(negative="abs"), "negative must be one of refuse, zero, keep, keep-divide; got 'abs'"),
    (dict(max_label=-1), r"max_label must be an integer label in 0..1000 or none, got -1"),
    (dict(max_label=2.5), r"max_label must be an integer label in 0..1000 or none, got 2.5"),
    (dict(max_label=True), r"max_label must be an integer label"),
    (dict(ties="quicksort"), "ties must be one of"),
])
def test_bad_axis_values(kwargs, message):
    with pytest.raises(C.ConventionError, match=message):
        Convention(**kwargs)


@pytest.mark.parametrize("text, message", [
    ("conventions:\n  g:\n    scores: half\n", "bad.yaml: conventions.g: scores must be one of"),
    ("conventions:\n  g:\n    base: sklearn\n    negative: abs\n", "bad.yaml: conventions.g: negative must be"),
    ("conventions:\n  g:\n    max_label: 31.5\n", "bad.yaml: conventions.g: max_label must be"),
    ("conventions:\n  g:\n    base: sklern\n",
     "bad.yaml: conventions.g: unknown convention 'sklern'; did you mean 'sklearn'?"),
    ("conventions:\n  all:\n    empty: 1\n", "bad.yaml: conventions.all: 'all' cannot name a convention"),
    ("conventions:\n  LightGBM:\n    empty: 0\n", "bad.yaml: conventions.LightGBM: 'LightGBM' is the name of"),
])
def test_bad_conventions_files_name_file_and_key(tmp_path, text, message):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(C.ConventionError) as info:
        load_conventions(f)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_registry_holds_every_library():
    assert list(C.LIBRARIES) == [
        "sklearn", "sklearn-ignore-ties", "lightgbm", "xgboost", "xgboost-minus", "catboost",
        "catboost-exp", "catboost-position", "ranx", "ranx-burges", "trec-raw", "torchmetrics"]
    for name, lib in C.LIBRARIES.items():
        assert name in C.BUILTIN and C.library(name) is lib
        assert C.get(name) == Convention(**lib.axes) and str(C.get(name)) == name
        assert lib.version[0].isdigit() and lib.description and "\n" not in lib.description
    assert C.library("ranklib") is None
    assert C.builtin_names()[:4] == list(C.PAPER_TOOLS) and set(C.builtin_names()) == C.BUILTIN
    with pytest.raises(C.ConventionError, match="'ALL' cannot name a convention"):
        BUILTINS.define({"ALL": {}}, "f.yaml")


# --- what the axes compute -----------------------------------------------------------------
def test_position_discount():
    v = one([0, 2, 1], [0.3, 0.2, 0.1], Convention(disc="position", gain="linear"), "3")
    assert v["NDCG@3"][0] == pytest.approx((2 / 2 + 1 / 3) / (2 + 1 / 2))


def test_label_policies():
    y, s = [0.5, 1.7, 0.0, 2.2], [0.4, 0.3, 0.2, 0.1]
    real = one(y, s, Convention(gain="linear", labels="real"), "4")["NDCG@4"][0]
    assert real == pytest.approx(np.dot(y, LOG2[:4]) / np.dot(sorted(y, reverse=True), LOG2[:4]))
    exp = one(y, s, Convention(labels="real"), "4")["NDCG@4"][0]
    g = np.exp2(y) - 1
    assert exp == pytest.approx(np.dot(g, LOG2[:4]) / np.dot(sorted(g, reverse=True), LOG2[:4]))
    # ranx: truncation toward zero, labels below 1 gain 0
    assert one(y + [-1.5], s + [0.0], "ranx", "5")["NDCG@5"][0] == \
        one([0, 1, 0, 2, 0], s + [0.0], "ranx", "5")["NDCG@5"][0]
    # trec_eval: negative labels count 0; CatBoost keeps them (gain -1, -0.5)
    assert one([-1, 2, 0, 1], s, "trec-raw", "4", docid=list("abcd"))["NDCG@4"][0] == \
        one([0, 2, 0, 1], s, "trec-raw", "4", docid=list("abcd"))["NDCG@4"][0]
    assert one([-1, 2, 0, 1], s, "catboost", "1")["NDCG@1"][0] == -0.5
    assert one([-1, 2, 0, 1], s, "catboost-exp", "1")["NDCG@1"][0] == pytest.approx(-0.5 / 3)


def test_negative_idcg_takes_empty_value_or_divides():
    y, s = [0, -1, -2], [0.1, 0.3, 0.2]  # IDCG@3 < 0 (and IDCG@1 = 0)
    keep = one(y, s, "catboost", "1,3")
    divide = one(y, s, "torchmetrics", "1,3")
    assert keep["NDCG@1"][0] == keep["NDCG@3"][0] == 1.0
    assert divide["NDCG@1"][0] == 0.0
    dcg, idcg = -1 + -2 * LOG2[1], -1 * LOG2[1] + -2 * LOG2[2]
    assert divide["NDCG@3"][0] == pytest.approx(dcg / idcg)


@pytest.mark.parametrize("conv, y, message", [
    ("ranklib", [0, 0.5], r"label 0.5 of document 2 \(qid 0\) is not an integer; convention ranklib takes integer labels"),
    ("sklearn", [0, -1], r"label -1 of document 2 \(qid 0\) is negative; convention sklearn refuses negative labels"),
    ("lightgbm", [31, 0], r"label 31 of document 1 \(qid 0\) is above 30, the largest label convention lightgbm accepts \(max_label=30\)"),
    ("xgboost", [32, 1], r"label 32 of document 1 \(qid 0\) is above 31, the largest label convention xgboost accepts"),
    ("trec-raw", [0, 1.5], r"label 1.5 of document 2 .* convention trec-raw takes integer labels"),
    ("catboost", [0, -1e30], r"label -1e\+30 is below -1000, the smallest accepted"),
])
def test_labels_a_convention_does_not_accept(conv, y, message):
    with pytest.raises(InputError, match=message):
        one(y, [0.2, 0.1], conv, "2", docid=["a", "b"])
    if " of document" in message:  # training refuses what the convention does not accept
        with pytest.raises(ValueError, match=message.split(" of document")[0]):
            NDCGScorer(np.array(y), [0, 2], conv, 2)


def test_library_limits_are_inclusive():
    assert one([30, 0, 1], [0.1, 0.3, 0.2], "lightgbm", "3")["NDCG@3"][0] > 0
    assert one([31, 0, 1], [0.1, 0.3, 0.2], "xgboost", "3")["NDCG@3"][0] > 0


@pytest.mark.parametrize("ties", ["input-order", "average", "pessimistic", "optimistic",
                                  "numpy-argsort-reversed", "numba-quicksort"])
def test_float32_scores_under_every_tie_policy(ties):
    rng = np.random.default_rng(5)
    qid = np.repeat(np.arange(20), rng.integers(1, 30, 20))
    y = rng.integers(0, 3, len(qid))
    s = rng.integers(0, 4, len(qid)) / 3 + rng.choice([0.0, 1e-12], len(qid))
    f32 = Convention(ties=ties, scores="float32")
    for engine in ("numpy", "numba"):
        got = evaluate(y, s, qid, conventions=[f32], engine=engine)[str(f32)].values
        rounded = s.astype(np.float32).astype(np.float64)
        want = evaluate(y, rounded, qid, conventions=[f32.with_(scores="float64")],
                        engine=engine)
        np.testing.assert_array_equal(got, next(iter(want.values())).values)
    # scores equal only as float32 are tied (in float64, the label-1 document leads: 1/3)
    y, s = [0, 2, 1, 0], [0.1, 0.1 + 1e-12, 0.1 + 2e-12, 0.05]
    assert one(y, s, Convention(ties=ties), "1")["NDCG@1"][0] == pytest.approx(1 / 3)
    tied = {"input-order": 0.0, "average": 4 / 9, "pessimistic": 0.0, "optimistic": 1.0,
            "numba-quicksort": 0.0}  # numba: input order at 4 documents
    if ties in tied:
        assert one(y, s, Convention(ties=ties, scores="float32"), "1")["NDCG@1"][0] == \
            pytest.approx(tied[ties])


@njit
def _numba_argsort(x):
    return np.argsort(x)


def _dcg(gains, k):
    """Summed rank by rank, as the kernels do."""
    total = 0.0
    for g, d in zip(gains[:k], LOG2):
        total += g * d
    return total


def _dcg_in_order(y, order, k):
    return _dcg((np.exp2(np.asarray(y, float)) - 1)[order], k)


@pytest.mark.parametrize("n", [5, 15, 16, 17, 40, 129])
def test_sort_artefacts_rank_as_the_primitives(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        y = rng.integers(0, 4, n)
        s = rng.integers(0, 3, n).astype(float)
        k = n
        for ties, order in (("numpy-argsort-reversed", np.argsort(s[None, :])[0, ::-1]),
                            ("numba-quicksort", _numba_argsort(-s))):
            got = one(y, s, Convention(ties=ties), str(k), metrics=["DCG"])[f"DCG@{k}"][0]
            assert got == _dcg_in_order(y, order, k)


def test_numba_quicksort_order_facts():
    """numba's sort is an insertion sort up to 15 elements (ties in input order) and leaves
    input order at 16 (measured with numba 0.68.1: all-equal keys give [14, 13, ..., 0, 15])."""
    assert _numba_argsort(np.zeros(15)).tolist() == list(range(15))
    assert _numba_argsort(np.zeros(16)).tolist() == [*range(14, -1, -1), 15]
    y = np.arange(16) % 3
    quick = one(y, np.zeros(16), "ranx", "16", metrics=["DCG"])["DCG@16"][0]
    ordered = [*range(14, -1, -1), 15]
    assert quick == _dcg(y[ordered].astype(float), 16)
    short = one(y[:15], np.zeros(15), "ranx", "1-15").values
    assert np.array_equal(short, one(y[:15], np.zeros(15), C.get("ranx").with_(ties="input-order"),
                                     "1-15").values)


def test_constant_scores_under_numpy_argsort_rank_the_last_document_first():
    y = [2, 0, 0, 0, 0, 0, 0, 1]
    v = one(y, np.zeros(8), "sklearn-ignore-ties", "1")["NDCG@1"][0]
    assert v == 0.5  # the label-1 document (last) is first


# --- empty=skip in evaluate ------------------------------------------------------------------
def test_skip_marks_queries_and_means_leave_them_out():
    y = np.array([0, 0, 2, 1, 0, 0, 1])
    s = np.array([0.5, 0.1, 0.2, 0.9, 0.3, 0.3, 0.1])
    qid = np.array([1, 1, 2, 2, 3, 3, 4])
    for engine in ("numpy", "numba"):
        res = evaluate(y, s, qid, conventions=["ranklib", "ndcg(empty=skip)"], engine=engine,
                       cutoffs="1,5", rankdcg=engine == "numba")
        skip = res["ndcg(gain=exp,disc=log2,empty=skip,short=truncate,ties=input-order,rel=1,pk=min)"]
        base = res["ranklib"]
        assert skip.skipped.tolist() == [True, False, True, False] and skip.n_counted == 2
        assert np.all(np.isnan(skip.values[skip.skipped]))
        # RankDCG: a query of one label takes the empty value, so the one-document query is
        # left out of that column only
        assert np.isnan(skip["RankDCG"][3]) if engine == "numba" else True
        cols = [j for j, c in enumerate(skip.columns) if c != "RankDCG"]
        np.testing.assert_array_equal(skip.values[~skip.skipped][:, cols],
                                      base.values[~skip.skipped][:, cols])
        for col, m in skip.mean().items():
            if col == "RankDCG":
                assert m == base["RankDCG"][1]
                continue
            assert m == pytest.approx(base.values[~skip.skipped, skip.columns.index(col)].mean())
        assert base.skipped is None and base.n_counted == 4
    every = one([0, 0], [0.1, 0.2], "ndcg(empty=skip)", "1")
    assert every.skipped.tolist() == [True] and np.isnan(every.mean()["NDCG@1"])


# --- both engines ---------------------------------------------------------------------------
REAL_LABEL_CONVENTIONS = ["sklearn", "sklearn-ignore-ties", "catboost", "catboost-exp",
                          "catboost-position", "ranx", "ranx-burges", "torchmetrics"] + [
    c for c in NEW_AXES if c.labels != "int"] + [
    Convention(gain="linear", labels="real", negative="keep", ties=t, rel=2, pk="k", empty="skip")
    for t in A.BY_NAME["ties"].choices if t != "docid-desc"]


@pytest.mark.parametrize("trial", range(8))
def test_engines_agree_on_real_and_negative_labels(trial):
    rng = np.random.default_rng(100 + trial)
    sizes = rng.integers(1, rng.choice([6, 20, 70]), rng.integers(2, 20))
    qid = np.repeat(np.arange(len(sizes)), sizes)
    n = len(qid)
    y = np.round(rng.uniform(-1.5, 4.5, n), 1) if trial % 2 else rng.integers(0, 4, n) - 0.5
    y[rng.random(n) < 0.3] = 0.0
    s = rng.integers(0, 4, n) / 4 + rng.choice([0.0, 1e-12], n)
    convs = [c for c in REAL_LABEL_CONVENTIONS if not (
        C.get(c).negative == "refuse" and y.min() < 0)]
    kw = dict(conventions=convs, cutoffs="1-12", docid=[f"d{i % 7}" for i in range(n)])
    a = evaluate(y, s, qid, engine="numba", **kw)
    b = evaluate(y, s, qid, engine="numpy", **kw)
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].values.tobytes() == b[name].values.tobytes(), name
        if a[name].skipped is not None:
            assert np.array_equal(a[name].skipped, b[name].skipped)


@pytest.mark.parametrize("name", ["sklearn", "lightgbm", "catboost-position", "trec-raw",
                                  "ranx", "xgboost", "torchmetrics", "sklearn-ignore-ties"])
def test_scorer_agrees_with_evaluate(name):
    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(25), rng.integers(1, 40, 25))
    y = rng.integers(0, 4, len(qid))
    s = rng.integers(0, 5, len(qid)) / 4 + rng.choice([0.0, 1e-12], len(qid))
    docid = [f"d{i}" for i in rng.permutation(len(qid))]
    offsets = np.concatenate(([0], np.flatnonzero(np.diff(qid)) + 1, [len(qid)]))
    want = evaluate(y, s, qid, conventions=[name], docid=docid, cutoffs=10)[name]["NDCG@10"]
    scorer = NDCGScorer(y, offsets, name, 10, docid=docid)
    np.testing.assert_allclose(scorer.per_query(s), want, atol=1e-12)
    if C.get(name).scores == "float32" or name in ("ranx", "sklearn-ignore-ties"):
        with pytest.raises(ValueError, match=f"convention {name} .* training code does not"):
            scorer.arrays
    else:
        assert scorer.arrays.tie_code == scorer.tie_code


# --- command line ---------------------------------------------------------------------------
@pytest.fixture
def files(tmp_path):
    (tmp_path / "d.txt").write_text("2 qid:1 1:0.5 #docid = a\n0 qid:1 1:0.2 #docid = b\n"
                                    "0 qid:2 1:0.1 #docid = c\n0 qid:2 1:0.3 #docid = d\n"
                                    "1 qid:3 1:0.3 #docid = e\n0 qid:3 1:0.3 #docid = f\n")
    (tmp_path / "s.txt").write_text("0.5\n0.2\n0.1\n0.3\n0.3\n0.3\n")
    return tmp_path


def test_eval_all_conventions(files, capsys):
    assert main(["eval", str(files / "d.txt"), str(files / "s.txt"), "-c", "all",
                 "--metrics", "NDCG"]) == 0
    doc = json.loads(capsys.readouterr().out)["conventions"]
    assert list(doc) == C.builtin_names()
    assert doc["ranklib"]["mean"]["NDCG@1"] == pytest.approx(2 / 3)
    assert doc["lightgbm"]["mean"]["NDCG@1"] == 1.0  # the empty query scores 1
    assert doc["sklearn"]["mean"]["NDCG@1"] == pytest.approx((1 + 0 + 0.5) / 3)  # tie averaged


def test_eval_skip_output(files, capsys):
    args = ["eval", str(files / "d.txt"), str(files / "s.txt"), "-c", "ranklib", "-c",
            "ndcg(empty=skip)", "--metrics", "NDCG,MAP", "--cutoffs", "1", "--per-query"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)["conventions"]
    skip = doc[str(C.parse("ndcg(empty=skip)"))]
    assert skip["skipped"] == ["2"] and "skipped" not in doc["ranklib"]
    assert skip["per_query"]["2"] == {"NDCG@1": None, "MAP": None}
    assert skip["mean"]["NDCG@1"] == pytest.approx(1.0) and doc["ranklib"]["mean"]["NDCG@1"] == \
        pytest.approx(2 / 3)
    assert main(args + ["--format", "tsv"]) == 0
    rows = [r.split("\t") for r in capsys.readouterr().out.splitlines()]
    skipped_rows = [r for r in rows if r[0].startswith("ndcg(") and r[1] == "2"]
    assert skipped_rows == [[skipped_rows[0][0], "2", "nan", "nan"]]
    assert [r for r in rows if r[0].startswith("ndcg(") and r[1] == "all"][0][2:] == \
        ["1.000000", "1.000000"]


def test_conventions_command_shows_the_libraries(capsys):
    assert main(["conventions"]) == 0
    out = capsys.readouterr().out
    for name, lib in C.LIBRARIES.items():
        line = next(ln for ln in out.splitlines() if ln.startswith(f"{name} "))
        detail = out.splitlines()[out.splitlines().index(line) + 1]
        assert lib.tool in detail and lib.checked in detail and lib.description in detail
        assert (f"[float32: {lib.float32}]" in detail) == bool(lib.float32)


def test_command_line_refusals(files, tmp_path, capsys):
    d, s = files / "d.txt", files / "s.txt"
    (tmp_path / "c.yaml").write_text("conventions:\n  mine:\n    base: ranx\n    ties: random\n")
    fails(capsys, ["eval", d, s, "--conventions-file", tmp_path / "c.yaml"],
          f"{tmp_path / 'c.yaml'}: conventions.mine: ties must be one of")
    fails(capsys, ["eval", d, s, "-c", "sklearn2"],
          "unknown convention 'sklearn2'; did you mean 'sklearn'?")
    (tmp_path / "big.txt").write_text("31 qid:1 1:0.5 #docid = a\n0 qid:1 1:0.2 #docid = b\n")
    (tmp_path / "big-scores.txt").write_text("1\n2\n")
    fails(capsys, ["eval", tmp_path / "big.txt", tmp_path / "big-scores.txt", "-c", "lightgbm"],
          f"{tmp_path / 'big.txt'}:1: label 31 (qid 1) is above 30, the largest "
          "label convention lightgbm accepts (max_label=30)")


# --- the docs' table ------------------------------------------------------------------------
def test_docs_table_is_the_registry():
    table = runpy.run_path(str(ROOT / "scripts" / "convention_table.py"))["table"]()
    readme = (ROOT / "docs" / "libraries.md").read_text()
    start, end = "<!-- convention-table: scripts/convention_table.py -->\n", "<!-- /convention-table -->"
    assert start in readme and end in readme
    assert readme.split(start)[1].split(end)[0] == table
    for name in C.LIBRARIES:
        assert f"`{name}`" in table
