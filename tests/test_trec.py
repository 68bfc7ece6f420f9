"""Runs with qrels: readers, the run axes, and the IR tools per query against the real tools.

The trec_eval binary comes from LTRCONV_TREC_EVAL (built from usnistgov/trec_eval v9.0.8; its
own test collection is read from the ``test`` folder beside the binary)."""

from __future__ import annotations

import bz2
import gzip
import lzma
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ltrconv
from ltrconv.data.conventions_file import load_conventions
from ltrconv.cli import main
from ltrconv.errors import InputError
from ltrconv.evaluation import conventions as C
from ltrconv.study.library_check import doc_name
from cli_helpers import trec_eval_binary

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 x 1\n3 0 y 0\n"
RUN = "1 Q0 a 1 0.5 r\n1 Q0 b 2 0.5 r\n1 Q0 z 3 0.7 r\n3 Q0 y 1 1 r\n4 Q0 k 1 1 r\n"
IDCG3 = 2 + 1 / math.log2(3)
IR_TOOLS = list(C.IR_TOOLS)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    return tmp_path


def ndcg3(res, name):
    ev = res[name]
    return dict(zip(ev.qids.tolist(), ev["NDCG@3"].tolist()))


# --- closed form ---------------------------------------------------------------------------
def test_closed_form_every_tool(files):
    res = ltrconv.evaluate_run(files / "q", files / "r", conventions=IR_TOOLS, cutoffs="1,3")
    # q1: z (unjudged) first, then a tie b/a: docno descending puts b (0) before a (2)
    trec = {"1": (2 / 2) / IDCG3, "3": 0.0}
    assert ndcg3(res, "trec_eval") == pytest.approx(trec)
    assert ndcg3(res, "pytrec_eval") == pytest.approx(trec)
    assert ndcg3(res, "trec_eval-c") == pytest.approx({**trec, "2": 0.0})  # qrels-only: 0
    assert ndcg3(res, "ir_measures") == pytest.approx({**trec, "2": 0.0})
    # judged only: z dropped, then b, a
    assert ndcg3(res, "ir_measures-judged")["1"] == pytest.approx((2 / math.log2(3)) / IDCG3)
    # ranx: ties in input order, a before b
    assert ndcg3(res, "ranx-run")["1"] == pytest.approx((2 / math.log2(3)) / IDCG3)
    assert res["trec_eval"].mean()["NDCG@3"] == pytest.approx(trec["1"] / 2)


def test_axes_one_by_one(files):
    base = C.get("trec_eval")
    run = files / "r"

    def q1(**kw):
        conv = base.with_(**kw)
        return ndcg3(ltrconv.evaluate_run(files / "q", run, conventions=[conv], cutoffs=3),
                     str(conv))["1"]

    assert q1() == pytest.approx(1 / IDCG3)
    assert q1(ideal="list") == pytest.approx(1 / 2)  # list ideal: labels 2, 0, 0 in the run
    assert q1(depth=2) == 0.0  # z and b only
    (files / "dup").write_text(RUN + "1 Q0 a 4 0.9 r\n")
    run = files / "dup"
    with pytest.raises(InputError, match=r"dup:6: docid 'a' of query '1' is retrieved again "
                                          r"\(first at line 1\)"):
        q1()
    assert q1(duplicates="first") == pytest.approx(1 / IDCG3)
    assert q1(duplicates="last") == pytest.approx(2 / IDCG3)  # a at 0.9 ranks first


def test_negative_grades_and_relevance_level(tmp_path):
    (tmp_path / "q").write_text("1 0 a -1\n1 0 b 2\n1 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n")
    res = ltrconv.evaluate_run(tmp_path / "q", tmp_path / "r", conventions=["trec_eval"],
                               cutoffs=3)["trec_eval"]
    assert res["NDCG@3"][0] == pytest.approx((2 / math.log2(3) + 1 / 2) / IDCG3)
    assert res["P@3"][0] == pytest.approx(2 / 3)
    conv = C.get("trec_eval").with_(rel=2)
    res = ltrconv.evaluate_run(tmp_path / "q", tmp_path / "r", conventions=[conv], cutoffs=3)
    assert res[str(conv)]["P@3"][0] == pytest.approx(1 / 3)
    assert res[str(conv)]["MAP"][0] == pytest.approx(1 / 2)  # b at rank 2, one relevant


@pytest.mark.parametrize("text", [
    "ndcg(ideal=qrels)", "ndcg(unjudged=drop,missing=zero)", "ndcg(duplicates=last,depth=1000)",
    "ndcg(ties=docid-desc,negative=zero,ideal=qrels,duplicates=first,depth=5)"])
def test_run_axes_round_trip(text, tmp_path):
    conv = C.parse(text)
    assert C.parse(conv.canonical) == conv and C.parse(str(conv)) == conv
    (tmp_path / "c.yaml").write_text("conventions:\n  mine:\n" + "".join(
        f"    {k}: {v}\n" for k, v in (p.split("=") for p in text[5:-1].split(","))))
    assert load_conventions(tmp_path / "c.yaml").defined[0] == conv


def test_run_axes_defaults_leave_canonical_strings():
    assert C.get("ranklib").canonical == ("ndcg(gain=exp,disc=log2,empty=0,short=truncate,"
                                          "ties=input-order,rel=1,pk=min)")
    for bad, msg in [("ndcg(ideal=run)", "ideal must be one of list, qrels"),
                     ("ndcg(depth=0)", "depth must be an integer >= 1 or none"),
                     ("ndcg(duplicates=max)", "duplicates must be one of refuse, first, last")]:
        with pytest.raises(C.ConventionError, match=msg):
            C.parse(bad)


def test_ir_tools_listed_with_versions(capsys):
    assert main(["conventions"]) == 0
    out = capsys.readouterr().out
    for name, lib in C.IR_TOOLS.items():
        assert C.library(name) is lib and f"checked on {lib.checked}" in out


# --- inputs --------------------------------------------------------------------------------
def test_every_input_form_gives_the_same_values(files, tmp_path):
    pd = pytest.importorskip("pandas")
    want = ltrconv.evaluate_run(files / "q", files / "r", conventions=["trec_eval"])["trec_eval"]
    qdf = pd.DataFrame([ln.split() for ln in QRELS.splitlines()],
                       columns=["query_id", "iter", "doc_id", "relevance"])
    rdf = pd.DataFrame([ln.split() for ln in RUN.splitlines()],
                       columns=["q_id", "Q0", "doc_id", "rank", "score", "tag"])
    qdict = {}
    for q, _, d, g in (ln.split() for ln in QRELS.splitlines()):
        qdict.setdefault(q, {})[d] = int(g)
    with gzip.open(tmp_path / "r.gz", "wt") as fh:
        fh.write(RUN)
    qdf.to_csv(tmp_path / "q.tsv", sep="\t", index=False)
    forms = [(qdf, rdf), (qdict, rdf), (tmp_path / "q.tsv", tmp_path / "r.gz")]
    if pytest.importorskip("pyarrow"):
        rdf.astype({"score": float}).to_parquet(tmp_path / "r.parquet")
        forms.append((files / "q", tmp_path / "r.parquet"))
    for q, r in forms:
        got = ltrconv.evaluate_run(q, r, conventions=["trec_eval"])["trec_eval"]
        assert got.qids.tolist() == want.qids.tolist()
        np.testing.assert_array_equal(got.values, want.values)


@pytest.mark.parametrize("run, message", [
    ("1 Q0 a 1 0.5\n", "r:1: expected 6 fields (qid Q0 docno rank score tag), got 5"),
    ("1 Q0 a 1 0.5 t\n1 Q0 b 2 high t\n", "r:2: score 'high' is not a finite number"),
    ("1 Q0 a 1 0.5 t\n\n", "r:2: expected 6 fields"),
    ("1 Q0 a 1 0.5 t x\n", "r:1: expected 6 fields"),
    ("1 Q0 a 1 0.5 t\n1 Q0 a 2 0.4 t\n", "r:2: docid 'a' of query '1' is retrieved again"),
    ("9 Q0 a 1 0.5 t\n", "r: no query in common with the qrels"),
    ("9 Q0 a 1 0.5 t\n", "(run queries e.g. '9', qrels queries e.g. '1')"),
    # Python's float() reads 1_000 as 1000; pandas refused it with a message naming no line
    ("1 Q0 a 1 0.5 t\n1 Q0 b 2 1_000 t\n", "r:2: score '1_000' is not a finite number"),
    ("", "r: the run is empty"),
    (b"1 Q0 a 1 0.5 t\n1 Q0 \xe9 2 0.4 t\n", "r:2: not UTF-8 text (byte 6 of the line)"),
    # one line of 3 million fields: refused by its length, not tokenized (gigabytes)
    pytest.param("1 Q0 a 1 0.5 t" + " x" * 3_000_000 + "\n",
                 "r:1: line longer than 1,048,576 bytes", id="long-line"),
    pytest.param(gzip.compress(bytes(50_000_000)), "r: not a text file: a NUL byte at byte 0 "
                 "of its decompressed content (gzip)", id="gzip-of-zeros"),
])
def test_bad_run_is_one_line_exit_2_nothing_written(files, capsys, run, message):
    (files / "r").write_bytes(run if isinstance(run, bytes) else run.encode())
    out = files / "out.json"
    assert main(["eval", "--qrels", str(files / "q"), "--run", str(files / "r"), "-c",
                 "trec_eval", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and str(files / "r") in err
    assert not out.exists()


def test_bad_qrels_and_frames(files):
    pd = pytest.importorskip("pandas")
    (files / "q").write_text("1 0 a two\n")
    with pytest.raises(InputError, match="q:1: grade 'two' is not a finite number"):
        ltrconv.evaluate_run(files / "q", files / "r")
    (files / "q").write_text(QRELS)
    with pytest.raises(InputError, match="no score column: expected one of score; have "
                                         "query_id, doc_id"):
        ltrconv.evaluate_run(files / "q", pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}))


def test_qrels_grades_are_refused_at_their_line(files):
    (files / "q").write_text("1 0 a 2\n1 0 b 1000000000\n")
    with pytest.raises(InputError, match=r"q:2: grade 1e\+09 is beyond \+-1000"):
        ltrconv.evaluate_run(files / "q", files / "r")
    (files / "q").write_text("1 0 a 2\n1 0 b 0.5\n")
    with pytest.raises(InputError, match=r"q:2: label 0.5 \(qid 1\) is not an integer"):
        ltrconv.evaluate_run(files / "q", files / "r")


RUN_FRAME = {"query_id": ["1", "1", "3"], "doc_id": ["a", "b", "y"], "score": [0.5, 0.4, 1.0]}


@pytest.mark.parametrize("column, values, message", [
    # NaN qids were a numpy traceback; None/NaN docids became the docid 'None' or 'nan'
    ("query_id", [1.0, np.nan, 3.0], r"run DataFrame:2: no query id \(got nan\)"),
    ("doc_id", ["a", None, "y"], r"run DataFrame:2: no docid"),
    ("doc_id", ["a", "", "y"], r"run DataFrame:2: no docid \(got ''\)"),
    # complex scores lost their imaginary part, dates ranked by their nanoseconds
    ("score", [0.5, 1 + 2j, 1.0], "column 'score' holds complex128 values"),
    ("score", ["2020-01-01"] * 3, "column 'score' holds datetime64"),
])
def test_frames_refuse_missing_ids_and_non_real_values(files, column, values, message):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(RUN_FRAME)
    df[column] = pd.to_datetime(values) if column == "score" and isinstance(values[0], str) \
        else values
    with pytest.raises(InputError, match=message):
        ltrconv.evaluate_run(files / "q", df)


def test_a_series_or_a_repeated_column_is_refused(files):
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match="cannot read run from a Series"):
        ltrconv.evaluate_run(files / "q", pd.DataFrame(RUN_FRAME)["score"])
    (files / "r.tsv").write_text("query_id\tdoc_id\tscore\tscore\n1\ta\t0.5\t0.9\n")
    with pytest.raises(InputError, match=r"r.tsv:1: column 'score' appears 2 times"):
        ltrconv.evaluate_run(files / "q", files / "r.tsv")


def test_table_lines_must_have_the_header_fields(files):
    # a trailing tab on every row made pandas take the first column as the index and shift
    # the others: query ids read from the docids, scores from nothing
    pytest.importorskip("pandas")
    (files / "r.tsv").write_text("query_id\tdoc_id\tscore\n1\ta\t0.5\t\n1\tb\t0.4\t\n")
    with pytest.raises(InputError, match=r"r.tsv:2: 4 fields, the header has 3"):
        ltrconv.evaluate_run(files / "q", files / "r.tsv")


@pytest.mark.parametrize("pack", [gzip.compress, bz2.compress, lzma.compress])
def test_compressed_runs_by_their_bytes(files, pack):
    (files / "r.tsv.gz").write_bytes(pack(b"query_id\tdoc_id\tscore\n1\ta\t0.5\n"))
    (files / "run").write_bytes(pack(RUN.encode()))
    want = ltrconv.evaluate_run(files / "q", files / "r")["trec_eval"]
    got = ltrconv.evaluate_run(files / "q", files / "run")["trec_eval"]
    np.testing.assert_array_equal(got.values, want.values)
    assert ltrconv.evaluate_run(files / "q", files / "r.tsv.gz")["trec_eval"].qids.tolist() == ["1"]


def test_plain_runs_are_mapped_others_read(files, tmp_path):
    import mmap

    from ltrconv.data.fileio import map_bytes

    data = map_bytes(files / "r")
    assert isinstance(data, mmap.mmap) and data[:] == RUN.encode()
    data.close()
    (tmp_path / "r.gz").write_bytes(gzip.compress(RUN.encode()))
    assert map_bytes(tmp_path / "r.gz") == RUN.encode()
    (tmp_path / "empty").write_bytes(b"")
    assert map_bytes(tmp_path / "empty") == b""
    if os.path.exists("/proc/self/status"):  # size 0 to stat: read, not mapped
        assert map_bytes("/proc/self/status").startswith(b"Name:")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(InputError, match="fifo: is a FIFO"):
        ltrconv.evaluate_run(files / "q", tmp_path / "fifo")
    (tmp_path / "blank").write_bytes(b" \n" * 5000)  # blank beyond the first 4 KiB
    with pytest.raises(InputError, match="blank:1: expected 6 fields"):
        ltrconv.evaluate_run(files / "q", tmp_path / "blank")


@pytest.mark.parametrize("piece", [1, 7, 40, 5000])
def test_runs_read_piece_by_piece(files, monkeypatch, piece):
    """Pieces cut after a newline (a line longer than a piece is one piece) read as one,
    pages let go as they are read; a bad line in a later piece is named as in the whole
    file."""
    from ltrconv.data import trec

    def both(run):
        monkeypatch.setattr(trec, "PIECE", 1 << 23)
        want = ltrconv.evaluate_run(files / "q", run, conventions=["trec_eval"])["trec_eval"]
        monkeypatch.setattr(trec, "PIECE", piece)
        got = ltrconv.evaluate_run(files / "q", run, conventions=["trec_eval"])["trec_eval"]
        assert got.qids.tolist() == want.qids.tolist()
        np.testing.assert_array_equal(got.values, want.values)
        return got

    text = RUN.encode() * 3
    spans = list(trec._pieces(text, piece))
    assert b"".join(text[a:b] for a, b in spans) == text
    assert all(text[b - 1:b] == b"\n" for _, b in spans)
    other = RUN.encode().replace(b"1 Q0", b"2 Q0").replace(b"3 Q0", b"5 Q0")
    (files / "r3").write_bytes(RUN.encode() + other.replace(b"4 Q0", b"6 Q0"))
    assert both(files / "r3").qids.tolist() == ["1", "3", "2"]
    if piece > 4096:  # 140 KB in 28 pieces: pages let go
        big = "".join(f"{q} Q0 d{i} {i} {i % 7 / 3!r} r\n" for q in (1, 3) for i in range(3000))
        (files / "big").write_text(big)
        assert both(files / "big").qids.tolist() == ["1", "3"]
    for bad, message in [(b"1 Q0  x 9 0.1 r\n", "r4:7: docid 'x' of query '1'"),
                         (b"1 Q0 x 9 0.1\tr\n", "r4:7: docid 'x' of query '1'"),
                         (b"1 Q0 x 9 0.1\n", "r4:7: expected 6 fields")]:
        (files / "r4").write_bytes(RUN.encode() + b"1 Q0 x 8 0.2 r\n" + bad)
        with pytest.raises(InputError, match=message):
            ltrconv.evaluate_run(files / "q", files / "r4", conventions=["trec_eval"])


def test_eval_command_outputs(files, capsys):
    assert main(["eval", "--qrels", str(files / "q"), "--run", str(files / "r"), "-c",
                 "trec_eval", "--cutoffs", "3", "--per-query", "--format", "tsv"]) == 0
    rows = [ln.split("\t") for ln in capsys.readouterr().out.splitlines()]
    assert rows[0][:3] == ["convention", "qid", "NDCG@3"]
    assert [r[1] for r in rows[1:]] == ["1", "3", "all"]
    assert float(rows[1][2]) == pytest.approx(1 / IDCG3, abs=1e-6)


# --- the real tools ------------------------------------------------------------------------
def run_trec_eval(args) -> dict[tuple[str, str], float]:
    out = subprocess.run([str(trec_eval_binary()), "-q", *map(str, args)], check=True,
                         capture_output=True, text=True).stdout
    return {(m, q): float(v) for m, q, v in (ln.split() for ln in out.splitlines())}


def assert_matches_trec_eval(qrels, run, conv, cutoffs, extra=()):
    got = ltrconv.evaluate_run(qrels, run, conventions=[conv], cutoffs=cutoffs)[str(conv)]
    ks = ",".join(map(str, cutoffs))
    want = run_trec_eval([*extra, "-m", f"ndcg_cut.{ks}", "-m", "ndcg", qrels, run])
    listed = {q for _, q in want} - {"all"}
    # trec_eval 9.0.8 -c lists no line for a query without results, but counts it 0 in "all"
    assert listed <= set(got.qids.tolist())
    assert (listed == set(got.qids.tolist())) != (C.get(conv).missing == "zero" and
                                                   len(listed) < len(got.qids))
    means = got.mean()
    for k in cutoffs:
        for q, v in zip(got.qids, got[f"NDCG@{k}"]):
            assert v == pytest.approx(want.get((f"ndcg_cut_{k}", q), 0.0), abs=5e-5), (k, q)
        assert means[f"NDCG@{k}"] == pytest.approx(want[(f"ndcg_cut_{k}", "all")], abs=5e-5)
    return got


def test_trec_eval_test_collection():
    te = trec_eval_binary()
    test = te.parent / "test"
    if not (test / "qrels.test").exists():
        pytest.skip(f"trec_eval's test collection not found beside the binary ({test})")
    cutoffs = [5, 10, 15, 20, 30, 100, 200, 500, 1000]
    assert_matches_trec_eval(test / "qrels.test", test / "results.test", "trec_eval", cutoffs)
    assert_matches_trec_eval(test / "qrels.test", test / "results.test", "trec_eval-c",
                             cutoffs, ["-c"])
    # its own expected output, where it lists ndcg_cut
    want = {(m, q): float(v) for m, q, v in (ln.split() for ln in
            (test / "out.test.aq").read_text().splitlines() if ln.startswith("ndcg_cut_"))}
    if want:
        got = ltrconv.evaluate_run(test / "qrels.test", test / "results.test",
                                   conventions=["trec_eval"], cutoffs=cutoffs)["trec_eval"]
        means = got.mean()
        for k in cutoffs:
            if (f"ndcg_cut_{k}", "all") in want:
                assert means[f"NDCG@{k}"] == pytest.approx(want[(f"ndcg_cut_{k}", "all")],
                                                           abs=5e-5)


@pytest.fixture(scope="module")
def mq_run(mq2008_dir, tmp_path_factory):
    """MQ2008 Fold1 test as qrels and a run (feature 5 rounded: many ties) with every case:
    judged documents left out, unjudged ones added, a query missing, a run-only query, negative
    grades, and a duplicate variant."""
    from ltrconv.data.letor import read_letor

    d = read_letor(mq2008_dir / "Fold1" / "test.txt")
    rng = np.random.default_rng(7)
    tmp = tmp_path_factory.mktemp("mq")
    docno = np.array([f"D{i:06d}" for i in range(len(d.y))])
    grade = d.y.astype(int).copy()
    grade[(grade == 0) & (rng.random(len(grade)) < 0.1)] = -1
    qrels = [f"{q} 0 {n} {g}\n" for q, n, g in zip(d.qid, docno, grade)]
    (tmp / "qrels").write_text("".join(qrels))
    score = np.round(d.X[:, 4], 2)
    keep = rng.random(len(score)) > 0.15
    missing_q = d.qid[d.offsets[3]]
    lines = [f"{q} Q0 {n} 0 {float(s)!r} t\n" for q, n, s, k in zip(d.qid, docno, score, keep)
             if k and q != missing_q]
    lines += [f"{d.qid[0]} Q0 U{i} 0 {float(rng.choice([0.0, 0.5, 1.0]))!r} t\n" for i in range(40)]
    lines += ["999999 Q0 X1 0 1.0 t\n"]
    order = rng.permutation(len(lines))
    (tmp / "run").write_text("".join(lines[i] for i in order))
    return tmp


@pytest.mark.parametrize("name, extra", [("trec_eval", []), ("trec_eval-c", ["-c"])])
def test_trec_eval_on_mq2008(mq_run, name, extra):
    assert_matches_trec_eval(mq_run / "qrels", mq_run / "run", name, [1, 3, 5, 10, 20], extra)
    depth = C.get(name).with_(depth=7)
    assert_matches_trec_eval(mq_run / "qrels", mq_run / "run", depth, [1, 5, 10],
                             [*extra, "-M", "7"])


def _dicts(path, kind):
    out: dict = {}
    for ln in Path(path).read_text().splitlines():
        f = ln.split()
        q, d, v = (f[0], f[2], int(f[3])) if kind == "qrels" else (f[0], f[2], float(f[4]))
        out.setdefault(q, {})[d] = v
    return out


def test_python_tools_on_mq2008(mq_run):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = _dicts(mq_run / "qrels", "qrels"), _dicts(mq_run / "run", "run")
    ks = [1, 3, 5, 10]
    res = ltrconv.evaluate_run(qrels, run, conventions=IR_TOOLS, cutoffs=ks)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut." + ",".join(map(str, ks))})
    want = ev.evaluate(run)
    got = res["pytrec_eval"]
    assert sorted(got.qids) == sorted(want)
    for k in ks:
        for q, v in zip(got.qids, got[f"NDCG@{k}"]):
            assert v == pytest.approx(want[q][f"ndcg_cut_{k}"], abs=1e-12)
    for name, measure in [("ir_measures", ir_measures.nDCG),
                          ("ir_measures-judged", ir_measures.nDCG(judged_only=True))]:
        got = res[name]
        for k in ks:
            want = {m.query_id: m.value for m in ir_measures.iter_calc([measure @ k], qrels, run)}
            assert dict(zip(got.qids.tolist(), got[f"NDCG@{k}"].tolist())) == \
                pytest.approx(want, abs=1e-12)


def test_ranx_on_mq2008(mq_run):
    ranx = pytest.importorskip("ranx")
    qrels, run = _dicts(mq_run / "qrels", "qrels"), _dicts(mq_run / "run", "run")
    run = {q: docs for q, docs in run.items() if q in qrels}
    qrels = {q: docs for q, docs in qrels.items() if q in run}  # ranx needs the same queries
    ks = [1, 3, 5, 10, 20, 50]
    # the run as ranx.Run receives it (its dict order decides ranx's tie order)
    got = ltrconv.evaluate_run(qrels, run, conventions=["ranx-run"], cutoffs=ks)["ranx-run"]
    R, Q = ranx.Run(run), ranx.Qrels(qrels)
    at = {q: i for i, q in enumerate(got.qids.tolist())}
    rows = [at[q] for q in R.keys()]
    for k in ks:
        want = ranx.evaluate(Q, R, f"ndcg@{k}", return_mean=False)
        np.testing.assert_allclose(got[f"NDCG@{k}"][rows], want, rtol=0, atol=1e-12)
    # a ranx Run object holds its documents already ranked, its ties settled: read in that order
    obj = ltrconv.evaluate_run(Q, R, conventions=["ranx-run"], cutoffs=ks)["ranx-run"]
    rows = [{q: i for i, q in enumerate(obj.qids.tolist())}[q] for q in R.keys()]
    for k in ks:
        want = ranx.evaluate(Q, R, f"ndcg@{k}", return_mean=False)
        np.testing.assert_allclose(obj[f"NDCG@{k}"][rows], want, rtol=0, atol=1e-12)


def test_ranx_run_object_keeps_its_order_past_15_tied_documents():
    """ranx sorts a Run's documents once, when the Run is made (numba's quicksort, which leaves
    ties in input order only up to 15 documents), and evaluates them in that order: sorting
    them again would move ties of more than 15 documents."""
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(3)
    run, qrels = {}, {}
    for q in range(12):
        n = int(rng.integers(20, 70))
        scores = rng.integers(0, 3, n)  # tie groups of 7-40 documents
        run[f"q{q}"] = {doc_name(i): float(scores[i]) for i in range(n)}
        qrels[f"q{q}"] = {doc_name(i): int(rng.integers(0, 3)) for i in range(n)}
    R, Q = ranx.Run(run), ranx.Qrels(qrels)
    ks = [1, 5, 10, 20]
    for qrels_in, run_in in ((Q, R), (qrels, run)):
        got = ltrconv.evaluate_run(qrels_in, run_in, conventions=["ranx-run"],
                                   cutoffs=ks)["ranx-run"]
        rows = [{q: i for i, q in enumerate(got.qids.tolist())}[q] for q in R.keys()]
        for k in ks:
            want = ranx.evaluate(Q, R, f"ndcg@{k}", return_mean=False)
            np.testing.assert_allclose(got[f"NDCG@{k}"][rows], want, rtol=0, atol=1e-12)
    # the order matters here: the same documents sorted again score otherwise
    again = ltrconv.evaluate_run(qrels, R.to_dict(), conventions=["ranx-run"],
                                 cutoffs=[5])["ranx-run"]
    assert not np.array_equal(again["NDCG@5"], got["NDCG@5"])


def test_numpy_dcg_path_equals_the_engine(mq_run):
    from ltrconv.data.trec import read
    from ltrconv.evaluation.runs import evaluate_run_arrays

    q, r = read(mq_run / "qrels", "qrels"), read(mq_run / "run", "run")
    for name in ("trec_eval", "trec_eval-c", "ir_measures-judged"):
        fast = evaluate_run_arrays(q, r, conventions=[name], cutoffs="1-20", metrics=["NDCG"])
        engine = evaluate_run_arrays(q, r, conventions=[name], cutoffs="1-20",
                                     metrics=["NDCG"], engine="numba")
        assert fast[name].qids.tolist() == engine[name].qids.tolist()
        np.testing.assert_array_equal(fast[name].values, engine[name].values)


def test_arrow_and_pandas_readers_agree(mq_run, tmp_path):
    from ltrconv.data.trec import _read_trec_arrow, _read_trec_pandas

    data = (mq_run / "run").read_bytes()
    # separated as trec_eval separates: runs of spaces, tabs, VT, FF, a CR before the LF
    spaced = data.replace(b" Q0 ", b"  Q0\t\x0b").replace(b" t\n", b"\x0c t \r\n")
    a = _read_trec_arrow(data, "run", "run")
    s = _read_trec_arrow(spaced, "spaced", "run")  # read squeezed
    p = _read_trec_pandas(spaced, "spaced", "run")
    for other in (s, p):
        qid, docid = (other.qid, other.docid) if hasattr(other.qid, "astype") else (
            np.array(other.qid.to_pylist()), np.array(other.docid.to_pylist()))
        assert [str(x) for x in a.qid.to_pylist()] == qid.astype(str).tolist()
        assert [str(x) for x in a.docid.to_pylist()] == docid.astype(str).tolist()
        np.testing.assert_array_equal(a.value, other.value)


@pytest.mark.parametrize("text, ok", [
    (b"1 Q0 d 1 2.5 t\n2 Q0 e 1 1.5 t\n", True),
    (b"1 Q0 d 1 2.5 t\n2 Q0  e 1 1.5 t\n", False),  # two delimiters
    (b"1 Q0 d 1 2.5 t \n", False),  # one at a line's end
    (b"1 Q0 d 1 2.5 t\n 2 Q0 e 1 1.5 t\n", False),  # one at a line's start
    (b" 1 Q0 d 1 2.5 t\n", False),
    (b"1 Q0 d 1 2.5 t\r\n", False),  # other whitespace
    (b"1 Q0 d\t1 2.5 t\n", False),
    (b"1 Q0 d 1 2.5 t\x0b\n", False),
    (b"1 Q0 d 1 2.5 \x0ct\n", False),
    (b"1\tQ0\td\t1\t2.5\tt\n", False),  # tabs where the delimiter is a space
])
@pytest.mark.parametrize("block", [1, 2, 3, 7, 1 << 20])
def test_single_delimited_sees_pairs_across_blocks(text, ok, block):
    """The fast reader's precondition, checked block by block, finds a pair of separators
    wherever the block boundary falls."""
    from ltrconv.data.trec import _single_delimited

    assert _single_delimited(text, ord(" "), block) is ok
