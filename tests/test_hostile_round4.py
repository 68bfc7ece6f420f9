"""Hostile input: separators and numbers as the format's own tool reads them, errors that name
their file and line, and ends that are one line and an exit status."""

from __future__ import annotations

import math
import os
import re

import numpy as np
import pytest

import ltrconv
from ltrconv.cli import main
from ltrconv.data import trec
from ltrconv.errors import InputError

# trec_eval 10.0 (usnistgov/trec_eval) on these files gives ndcg_cut.10 = 0.6309 (1/log2(3)):
# d1 (grade 0) ranked above d2 (grade 1); a d2 glued to its neighbour would be unjudged (0.0)
QRELS = b"1 0 d1 0\n1 0 d2 1\n"
RUN = b"1 Q0 d1 1 2 t\n1 Q0 d2 2 1 t\n"
TREC_EVAL_NDCG = 1 / math.log2(3)


def ndcg10(qrels, run) -> float:
    ev = ltrconv.evaluate_run(qrels, run, conventions=["trec_eval"], cutoffs="10")["trec_eval"]
    return float(ev["NDCG@10"].mean())


# --- TREC separators: every byte C's isspace takes, as trec_eval splits --------------------
SEPARATED = {
    "form feed": b"\x0c", "vertical tab": b"\x0b", "tab": b"\t", "carriage return": b"\r",
    "spaces": b"   ", "tab and form feed": b"\t\x0c", "CR, VT and space": b"\r\x0b ",
}


@pytest.mark.parametrize("sep", SEPARATED.values(), ids=SEPARATED.keys())
@pytest.mark.parametrize("where", ["run", "qrels"])
def test_c_whitespace_separates_trec_fields(tmp_path, sep, where):
    # a form feed was kept in the docid ('d2\x0c2': unjudged, 0.0 where trec_eval has 0.6309);
    # a vertical tab was refused without a line
    q, r = QRELS, RUN
    if where == "run":
        r = RUN.replace(b"d2 2", b"d2" + sep + b"2")
    else:
        q = QRELS.replace(b"d2 1", b"d2" + sep + b"1")
    (tmp_path / "q").write_bytes(q)
    (tmp_path / "r").write_bytes(r)
    assert ndcg10(tmp_path / "q", tmp_path / "r") == pytest.approx(TREC_EVAL_NDCG, abs=1e-12)


@pytest.mark.parametrize("change", [
    lambda t: t.replace(b"\n", b"\r\n"),  # CR before LF
    lambda t: t.replace(b"\n", b" \x0c\r\n"),  # separators at the line's end
    lambda t: b"\x0b " + t.replace(b"\n1", b"\n\t1"),  # and at its start
    lambda t: t.replace(b"\n", b"\r\n")[:-1],  # a CR ends the file
    lambda t: t.replace(b" ", b"\t"),
    lambda t: t.replace(b"\n", b"\r\n").replace(b" ", b"\t"),
    lambda t: t.replace(b"d2 2", b"d2\x0b\x0c2"),  # in some pieces only
], ids=["CRLF", "line end", "line start", "final CR", "tabs", "tabs CRLF", "some pieces"])
@pytest.mark.parametrize("piece", [3, 1 << 23])
def test_trec_separators_in_any_piece(tmp_path, monkeypatch, change, piece):
    monkeypatch.setattr(trec, "PIECE", piece)
    (tmp_path / "q").write_bytes(QRELS)
    (tmp_path / "r").write_bytes(change(RUN * 3))
    got = trec.read(tmp_path / "r", "run")
    assert [str(x) for x in np.asarray(got.docid)] == ["d1", "d2"] * 3
    assert np.asarray(got.value).tolist() == [2.0, 1.0] * 3


def test_quotes_are_field_bytes_on_every_path(tmp_path):
    # pandas' parser (taken when the separators vary) read '"d1 ... d2"' as one quoted field
    # spanning two lines: a two-line run became one document
    (tmp_path / "r").write_bytes(b'1 Q0 "d1 1 2 t\n1  Q0 d2" 2 1 t\n')
    got = trec.read(tmp_path / "r", "run")
    assert [str(x) for x in np.asarray(got.docid)] == ['"d1', 'd2"']


@pytest.mark.parametrize("text, message", [
    (b"1 Q0 d1 1 2 t\n1 Q0 d\x002 2 1 t\n", "r:2: a NUL byte"),  # trec_eval crashes on one
    (b"\xef\xbb\xbf" + RUN, "r:1: a UTF-8 byte order mark"),  # trec_eval: part of the qid
    (RUN + b"\xef\xbb\xbf1 Q0 d3 3 0 t\n", "r:3: a UTF-8 byte order mark"),
    # a separator inside what should be one field: a field too many, named at its line
    (b"1 Q0 d1 1 2 t\n1 Q0 d\x0c2 2 1 t\n", "r:2: expected 6 fields"),
    (b"1 Q0 d1 1 2 t\n1\x0bQ0 d2 2 t\n", "r:2: expected 6 fields"),
    # bytes that are not C whitespace stay in their field (U+00A0, U+2028, FS)
    (b"1 Q0 d1 1 2\xc2\xa0t\n", "r:1: expected 6 fields"),
    (b"1 Q0 d1 1 2\x1ct\n", "r:1: expected 6 fields"),
])
def test_trec_bytes_refused_at_their_line(tmp_path, text, message):
    (tmp_path / "r").write_bytes(text)
    with pytest.raises(InputError, match=message):
        trec.read(tmp_path / "r", "run")


# --- grades and scores ---------------------------------------------------------------------
@pytest.mark.parametrize("grade", ["1e1", "10e-1", "1E0", ".5e1", "0e0"])
@pytest.mark.parametrize("form", ["trec", "tsv", "csv", "frame", "dict"])
def test_grade_with_an_exponent_is_refused(tmp_path, grade, form):
    # trec_eval reads grades with atol: 1e1 is 1 and 10e-1 is 10 to it, 10 and 1 to ltrconv
    pd = pytest.importorskip("pandas")
    rows = [("1", "d1", "0"), ("1", "d2", grade)]
    if form == "trec":
        path = tmp_path / "q"
        path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in rows))
        qrels, where = path, "q:2"
    elif form in ("tsv", "csv"):
        sep = "\t" if form == "tsv" else ","
        path = tmp_path / f"q.{form}"
        path.write_text("".join(f"{sep.join(r)}\n" for r in [("query_id", "doc_id", "relevance"),
                                                              *rows]))
        qrels, where = path, f"q.{form}:3"
    elif form == "frame":
        qrels = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
        where = "qrels DataFrame:2"
    else:
        qrels, where = {"1": {"d1": "0", "d2": grade}}, "qrels dict"
    (tmp_path / "r").write_bytes(RUN)
    with pytest.raises(InputError, match=f"{where}: .*grade '{grade}' has an exponent"):
        ltrconv.evaluate_run(qrels, tmp_path / "r")


@pytest.mark.parametrize("grade, value", [("+1", 1), ("1.0", 1), ("01", 1), ("1.", 1),
                                          ("-1", -1), ("2", 2)])
def test_grades_atol_and_float_read_alike_are_read(tmp_path, grade, value):
    (tmp_path / "q").write_text(f"1 0 d1 0\n1 0 d2 {grade}\n")
    assert trec.read(tmp_path / "q", "qrels").value.tolist() == [0, value]
    (tmp_path / "q").write_text(f"1 0 d1 0\n1  0 d2 {grade}\r\n")  # the other reader
    assert trec.read(tmp_path / "q", "qrels").value.tolist() == [0, value]


@pytest.mark.parametrize("token", ["0x1", "1_0", "inf", "nan", "-inf", "Infinity", "1e999", "١",
                                   "1e", "+-1"])
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_values_that_are_no_numbers_are_refused_everywhere(tmp_path, token, kind):
    pd = pytest.importorskip("pandas")
    name = "grade" if kind == "qrels" else "score"
    line = f"1 0 d2 {token}\n" if kind == "qrels" else f"1 Q0 d2 2 {token} t\n"
    (tmp_path / "t").write_text(("1 0 d1 0\n" if kind == "qrels" else "1 Q0 d1 1 2 t\n") + line)
    said = re.escape(f"{name} '{token}' is not a finite number")
    with pytest.raises(InputError, match=f"t:2: {said}"):
        trec.read(tmp_path / "t", kind)
    col = "relevance" if kind == "qrels" else "score"
    (tmp_path / "t.tsv").write_text(f"query_id\tdoc_id\t{col}\n1\td1\t0\n1\td2\t{token}\n")
    with pytest.raises(InputError, match=f"t.tsv:3: {said}"):
        trec.read(tmp_path / "t.tsv", kind)
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d1", "d2"], col: ["0", token]})
    with pytest.raises(InputError, match=f"DataFrame:2: {said}"):
        trec.from_frame(frame, kind)
    with pytest.raises(InputError, match=f"dict: query '1', docid 'd2': {said}"):
        trec.from_dict({"1": {"d1": "0", "d2": token}}, kind)


def test_score_exponents_read_as_atof_reads_them(tmp_path):
    (tmp_path / "r").write_text("1 Q0 d1 1 1e1 t\n1 Q0 d2 2 10e-1 t\n1 Q0 d3 3 -2.5E+2 t\n")
    assert trec.read(tmp_path / "r", "run").value.tolist() == [10.0, 1.0, -250.0]


def test_table_values_may_be_padded_as_atof_allows(tmp_path):
    (tmp_path / "r.csv").write_text("query_id,doc_id,score\n1,d1, 2\n1,d2,1.5 \n")
    assert trec.read(tmp_path / "r.csv", "run").value.tolist() == [2.0, 1.5]


# --- ids given as bytes --------------------------------------------------------------------
def test_bytes_ids_are_utf8_or_refused_naming_the_row():
    # a non-ASCII byte was a UnicodeDecodeError traceback (DataFrame), bytes keys of a dict
    # became "b'a'" and matched no docid of a DataFrame
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": [b"a", b"\xffb"], "score": [1.0, 0.5]})
    with pytest.raises(InputError, match=r"run DataFrame:2: docid b'\\xffb' in column 'doc_id' "
                                         r"is not UTF-8 text"):
        trec.from_frame(run, "run")
    with pytest.raises(InputError, match=r"qrels dict: query '1': docid b'\\xff' is not UTF-8"):
        trec.from_dict({"1": {b"\xff": 1}}, "qrels")
    qrels = {b"1": {b"a": 1, "b": 0}}
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", b"b"], "score": [1.0, 0.5]})
    ev = ltrconv.evaluate_run(qrels, run, conventions=["trec_eval"], cutoffs="2")["trec_eval"]
    assert ev["NDCG@2"].tolist() == [1.0]


# --- tables: a message's line is the file's line -------------------------------------------
@pytest.mark.parametrize("text, message", [
    # pandas skipped the blank line: the bad score two lines on was named one line early
    ("query_id\tdoc_id\tscore\n1\td1\t1\n\n1\td2\tx\n", r"r.tsv:3: a blank line"),
    ("query_id\tdoc_id\tscore\n1\td1\t1\r1\td2\tx\n", r"r.tsv:2: a carriage return not "
                                                       r"followed by a line feed"),
    ('query_id\tdoc_id\tscore\n1\t"d1\n1"\t1\n1\td2\tx\n', r"r.tsv:2: a quoted field holds a "
                                                            r"line break"),
    ("query_id\tdoc_id\tscore\n1\td1\t1\n1\td\x002\t1\n", r"r.tsv:3: a NUL byte"),
])
def test_table_errors_name_the_files_line(tmp_path, text, message):
    (tmp_path / "r.tsv").write_text(text)
    with pytest.raises(InputError, match=message):
        trec.read(tmp_path / "r.tsv", "run")


def test_frame_names_the_first_bad_row_whatever_its_problem():
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame({"query_id": ["1", "1", "1"], "doc_id": ["a", "", "c"],
                        "score": [1.0, 0.5, np.nan]})
    with pytest.raises(InputError, match=r"run DataFrame:2: no docid"):
        trec.from_frame(run, "run")


def test_bad_trec_line_through_the_cli_is_one_line(tmp_path, capsys):
    (tmp_path / "q").write_bytes(QRELS)
    # a form feed inside a docid: kept in it (an unjudged document) before, seven fields now
    (tmp_path / "r").write_bytes(b"1 Q0 d1 1 2 t\n1 Q0 d\x0c2 2 1 t\n")
    out = tmp_path / "o.json"
    assert main(["eval", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"),
                 "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'r'}:2: expected 6 fields" in err
    assert not out.exists()


# --- every reader error names its file and line --------------------------------------------
@pytest.mark.parametrize("fast", [True, False], ids=["bulk", "lines"])
@pytest.mark.parametrize("text, message", [
    # "not UTF-8 text (byte 77)" named the byte of the file, not the line
    (b"1 qid:1 1:0.5 #docid = a\n0 qid:1 1:0.5 #docid = \xff\n", r"d.txt:2: not UTF-8 text "
                                                                  r"\(byte 24 of the line\)"),
    (b"1 qid:1 1:0.5\r0 qid:1 1:\xe9\n", r"d.txt:2: not UTF-8 text \(byte 11 of the line\)"),
    # a NUL in a comment became part of the docid in the bulk reader
    (b"1 qid:1 1:0.5 #docid = a\n0 qid:1 1:0.5 #docid = b\x00c\n", r"d.txt:2: not a text file: "
                                                                   r"a NUL byte"),
])
def test_letor_byte_errors_name_the_line(tmp_path, monkeypatch, fast, text, message):
    from ltrconv.data import letor

    if not fast:
        monkeypatch.setattr(letor, "parse_bulk", lambda *a, **k: None)
    (tmp_path / "d.txt").write_bytes(text)
    with pytest.raises(InputError, match=message):
        letor.read_letor(tmp_path / "d.txt")


def test_score_and_json_files_name_the_line_of_a_bad_byte(tmp_path, capsys):
    from ltrconv.data.letor import read_scores

    (tmp_path / "s.txt").write_bytes(b"0.5\n0.25\n\xff\n")
    with pytest.raises(InputError, match=r"s.txt:3: not UTF-8 text \(byte 1 of the line\)"):
        read_scores(tmp_path / "s.txt", 3)
    (tmp_path / "a.json").write_bytes(b'{"conventions": {\n"x\xff": {}}}\n')
    assert main(["ttest", str(tmp_path / "a.json"), str(tmp_path / "a.json")]) == 2
    assert f"{tmp_path / 'a.json'}:2: not UTF-8 text (byte 3 of the line)" in capsys.readouterr().err


# --- how a command ends: closed standard streams, signals behind other errors --------------
def _closing(*fds):
    import os

    def close():
        for fd in fds:
            os.close(fd)
    return close


def _cli(args, close=(), timeout=300, code=None):
    import subprocess
    import sys

    argv = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "ltrconv.cli",
                                                             *args]
    close_fds = _closing(*close) if close else None

    def preexec():
        # SIGINT as an interactive shell leaves it: a worker that ignores it (pytest-xdist's
        # may) would pass SIG_IGN on, and ltrconv keeps an ignored signal ignored
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if close_fds is not None:
            close_fds()

    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout, preexec_fn=preexec)


@pytest.fixture(scope="module")
def letor_pair(tmp_path_factory):
    from ltrconv.data.synthetic import make_letor, write_letor

    d = tmp_path_factory.mktemp("pair")
    write_letor(make_letor(n_queries=4, n_features=3, seed=1), d / "d.txt")
    n = sum(1 for line in (d / "d.txt").read_text().splitlines() if line.strip())
    (d / "s.txt").write_text("".join(f"{i % 5 / 4}\n" for i in range(n)))
    return d


@pytest.mark.parametrize("args", [["conventions"], ["conventions", "--axes"],
                                  ["eval", "{d}/d.txt", "{d}/s.txt"],
                                  ["eval", "{d}/d.txt", "{d}/s.txt", "-o", "-"],
                                  ["predict", "{d}/no-model", "{d}/d.txt"]])
def test_closed_stdout_is_refused_in_one_line_before_the_work(letor_pair, args):
    # AttributeError: 'NoneType' object has no attribute 'flush', exit status 1
    proc = _cli([a.format(d=letor_pair) for a in args], close=(1,))
    assert proc.returncode == 2
    assert proc.stderr.startswith("ltrconv: error: standard output: closed")
    assert proc.stderr.count("\n") == 1


def test_closed_stdout_is_no_matter_when_the_result_goes_to_a_file(letor_pair, tmp_path):
    proc = _cli(["eval", str(letor_pair / "d.txt"), str(letor_pair / "s.txt"), "-o",
                 str(tmp_path / "o.json")], close=(1,))
    assert proc.returncode == 0, proc.stderr
    assert '"conventions"' in (tmp_path / "o.json").read_text()


def test_closed_stderr_keeps_warnings_out_of_the_result(tmp_path):
    # print(file=sys.stderr) with sys.stderr None writes to stdout: the warning (no docids for
    # the trec convention) came before the JSON
    import json

    (tmp_path / "d.txt").write_text("1 qid:1 1:0.5\n0 qid:1 1:0.2\n")
    (tmp_path / "s.txt").write_text("1\n2\n")
    proc = _cli(["eval", str(tmp_path / "d.txt"), str(tmp_path / "s.txt"), "-c", "trec"],
                close=(2,))
    assert proc.returncode == 0
    assert "trec" in json.loads(proc.stdout)["conventions"]


@pytest.mark.parametrize("exc, status, line", [
    ("Terminated(15)", 143, "ltrconv: terminated (SIGTERM)"),
    ("KeyboardInterrupt()", 130, "ltrconv: interrupted"),
])
def test_a_signal_behind_another_error_ends_as_the_signal(exc, status, line):
    # SIGTERM during LambdaMART's fit_tree: 'SystemError: CPUDispatcher(<fit_tree>) returned a
    # result with an exception set', chained to the Terminated, a 50-line traceback, exit 1
    code = f"""
import sys
from ltrconv.cli import conventions, main
from ltrconv.cli.signals import Terminated
def run(args):
    try:
        try:
            raise {exc}
        except BaseException as e:
            raise SystemError("CPUDispatcher(<fit_tree>) returned a result with an exception set") from e
    except SystemError:
        raise RuntimeError("and then this")
conventions.run = run
sys.exit(main(["conventions"]))
"""
    proc = _cli([], code=code)
    assert (proc.returncode, proc.stderr) == (status, line + "\n")


@pytest.mark.parametrize("signame, status, line", [
    ("SIGTERM", 143, "ltrconv: terminated (SIGTERM)"), ("SIGINT", 130, "ltrconv: interrupted")])
def test_a_signal_while_lambdamarts_kernel_runs(signame, status, line):
    # the handler's exception, raised as fit_tree's result was boxed, came out as a SystemError
    # chained to it: a 36-line traceback and exit status 1, every time in 30 runs
    code = f"""
import os, signal, sys, threading
import numpy as np
from ltrconv.cli import conventions, main
from ltrconv.rankers import regression_tree as RT
rng = np.random.default_rng(0)
X = rng.random((2000, 40)).astype(np.float32)
th, nb = RT.threshold_candidates(X, 64)
bins = RT.bin_index(X, th, nb)
counts = RT.bin_counts(bins, nb, th.shape[1])
r = rng.standard_normal(2000)
perm, work = np.empty(2000, np.int64), np.empty(2000, np.int64)
def run(args):
    threading.Timer(0.1, os.kill, (os.getpid(), signal.{signame})).start()
    while True:
        RT.fit_tree(bins, nb, th, counts, r, 10, 1, perm, work)
conventions.run = run
sys.exit(main(["conventions"]))
"""
    proc = _cli([], code=code)
    assert (proc.returncode, proc.stderr) == (status, line + "\n")


@pytest.mark.parametrize("signame, status, line", [
    ("SIGTERM", 143, "ltrconv: terminated (SIGTERM)"), ("SIGINT", 130, "ltrconv: interrupted")])
def test_a_signal_while_numba_compiles(signame, status, line):
    # a first fit compiles its kernels for tens of seconds (an empty cache): a Ctrl-C then must
    # not be lost inside numba's compiler; here a loop of fresh functions is compiled, one after
    # the other, until the signal ends it
    code = f"""
import os, signal, sys, threading
import numpy as np
from numba import njit
from ltrconv.cli import conventions, main
def run(args):
    threading.Timer(0.3, os.kill, (os.getpid(), signal.{signame})).start()
    i = 0
    while True:
        i += 1
        ns = {{}}
        exec(f"def f(x):\\n    s = 0.0\\n    for k in range(x.shape[0]):\\n        s += x[k] * {{i}}\\n    return s", ns)
        njit(ns["f"])(np.ones(3))
conventions.run = run
sys.exit(main(["conventions"]))
"""
    proc = _cli([], code=code)
    assert (proc.returncode, proc.stderr) == (status, line + "\n")


def test_a_signal_raised_inside_a_callback_is_delivered_again():
    # a SIGTERM handled inside a ctypes callback (as inside a finalizer or compiled code that
    # calls back) was printed as 'Exception ignored ...' with its traceback, and the command
    # went on to finish with status 0
    code = """
import ctypes, os, signal, sys
from ltrconv.cli import conventions, main
libc = ctypes.CDLL(None)
CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))
sent = []
def compare(a, b):
    if not sent:
        sent.append(1)
        signal.raise_signal(signal.SIGTERM)
    return a[0] - b[0]
def run(args):
    values = (ctypes.c_int * 50)(*range(50, 0, -1))
    libc.qsort(values, 50, ctypes.sizeof(ctypes.c_int), CMP(compare))
    for _ in range(10 ** 7):  # the signal, delivered again, ends this
        pass
    print("finished", file=sys.stderr)
conventions.run = run
sys.exit(main(["conventions"]))
"""
    proc = _cli([], code=code)
    assert (proc.returncode, proc.stderr) == (143, "ltrconv: terminated (SIGTERM)\n")


def test_a_second_stop_signal_while_the_first_ends_the_command():
    # a second Ctrl-C (or SIGTERM) while the first one's line was said was a traceback
    code = """
import os, signal, sys
from ltrconv.cli import conventions, main
def run(args):
    try:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10 ** 7):
            pass
    finally:
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10 ** 6):
            pass
conventions.run = run
sys.exit(main(["conventions"]))
"""
    proc = _cli([], code=code)
    assert (proc.returncode, proc.stderr) == (130, "ltrconv: interrupted\n")


def test_forged_npy_header_is_one_line(tmp_path):
    # an unterminated string in a member's .npy header: tokenize.TokenError, a traceback
    import struct
    import zipfile

    from ltrconv.data.letor import Dataset

    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': '''"
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    member = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + bytes(8)
    with zipfile.ZipFile(tmp_path / "c.npz", "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("X.npy", member)
    with pytest.raises(InputError, match=r"c.npz: not a dataset cache: member 'X.npy' has an "
                                         r"unreadable .npy header \(.TokenError"):
        Dataset.load(tmp_path / "c.npz")


# --- labels a convention refuses, named at their file and line -----------------------------
LABELLED = "1 qid:1 1:0.5 2:0.1\n0 qid:1 1:0.2 2:0.3\n\n1 qid:2 1:0.1 2:0.9\n9 qid:2 1:0.4 2:0.2\n"


@pytest.mark.parametrize("split", ["train", "vali"])
def test_train_names_the_file_and_line_of_a_refused_label(tmp_path, capsys, split):
    # "label 9 of document 4 is above 3 ...": neither the file (training or validation) nor
    # the line
    good = LABELLED.replace("9 qid", "2 qid")
    (tmp_path / "train.txt").write_text(LABELLED if split == "train" else good)
    (tmp_path / "vali.txt").write_text(LABELLED if split == "vali" else good)
    out = tmp_path / "m"
    assert main(["train", "--algorithm", "ranksvm", "--train", str(tmp_path / "train.txt"),
                 "--vali", str(tmp_path / "vali.txt"), "--out", str(out),
                 "--metric", "ndcg@10:ndcg(max_label=3)"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / (split + '.txt')}:5: label 9 (qid 2) is above 3" in err
    assert not out.exists()


@pytest.mark.parametrize("command", ["eval", "explain"])
def test_eval_names_the_line_of_a_refused_label(tmp_path, capsys, command):
    (tmp_path / "d.txt").write_text(LABELLED)
    (tmp_path / "s.txt").write_text("1\n2\n3\n4\n")
    args = (["eval", str(tmp_path / "d.txt"), str(tmp_path / "s.txt"), "-c", "ndcg(max_label=3)"]
            if command == "eval" else
            ["explain", str(tmp_path / "d.txt"), str(tmp_path / "s.txt"), "--from",
             "ndcg(max_label=3)", "--to", "ranklib"])
    assert main(args) == 2
    assert f"{tmp_path / 'd.txt'}:5: label 9 (qid 2) is above 3" in capsys.readouterr().err


# --- a key given twice ---------------------------------------------------------------------
def test_param_given_twice_is_refused(tmp_path, capsys):
    (tmp_path / "t.txt").write_text(LABELLED)
    assert main(["train", "--algorithm", "ranksvm", "--train", str(tmp_path / "t.txt"), "--out",
                 str(tmp_path / "m"), "--param", "tol=0.1", "--param", "tol=0.2"]) == 2
    assert ("--param 'tol' is given twice ('tol=0.1' and 'tol=0.2')"
            in capsys.readouterr().err)


def test_config_key_given_twice_is_refused_naming_key_and_lines(tmp_path):
    from ltrconv.pipeline import config

    (tmp_path / "c.yaml").write_text("results_dir: r\nalgorithms:\n  lambdamart:\n"
                                     "    n_estimators: 10\n    learning_rate: 0.1\n"
                                     "    n_estimators: 20\n")
    message = (r"c.yaml:6: config key 'algorithms.lambdamart.n_estimators' is given twice "
               r"\(first on line 4\)")
    with pytest.raises(config.ConfigError, match=message):
        config.load_file(tmp_path / "c.yaml")
    with pytest.raises(config.ConfigError, match=message):
        config.check_files([tmp_path / "missing.yaml", tmp_path / "c.yaml"])
    # a merge key may be overridden; a list item's keys are checked too
    (tmp_path / "m.yaml").write_text("base: &b {a: 1}\nx:\n  <<: *b\n  a: 2\n"
                                     "l:\n  - {k: 1, k: 2}\n")
    with pytest.raises(config.ConfigError, match=r"m.yaml:6: config key 'l.0.k' is given twice"):
        config.load_file(tmp_path / "m.yaml")
    (tmp_path / "ok.json").write_text('{"a": {"b": 1}, "c": [1, 2]}')
    assert config.load_file(tmp_path / "ok.json") == {"a": {"b": 1}, "c": [1, 2]}


def test_the_shipped_config_files_and_schema_give_each_key_once():
    from pathlib import Path

    from ltrconv.pipeline import config

    repo = Path(__file__).resolve().parents[1]
    config.check_files(sorted((repo / "config").glob("*.yaml")))
    assert config.load_schema(repo)["type"] == "object"


# --- the figures ltrconv conventions states ------------------------------------------------
@pytest.mark.parametrize("convention, variant", [("catboost", ""), ("catboost-exp", ";type=Exp"),
                                                 ("catboost-position", ";denominator=Position")])
def test_catboost_real_labels_agree_as_the_listing_says(convention, variant):
    # the listing said "agree to 1e-8"; 2.09e-8 was measured, and up to 6e-7 with gain 2^l - 1
    pytest.importorskip("catboost")
    from catboost.utils import eval_metric

    from ltrconv.evaluation import conventions as C
    from ltrconv.evaluation.metrics import evaluate

    note = C.library(convention).float32
    stated = re.search(r"on the labels as given up to ([0-9.e+-]+) apart", note or "")
    assert stated, note
    rng = np.random.default_rng(2012)
    ks, given, rounded = (1, 5, 10), 0.0, 0.0
    for high in (4.0, 30.0):
        for _ in range(40):
            n = int(rng.integers(2, 30))
            y, s = rng.random(n) * high, rng.standard_normal(n)
            lib = np.array([eval_metric(y.tolist(), s.tolist(), f"NDCG:top={k}{variant}",
                                        group_id=[0] * n)[0] for k in ks])
            for labels, worst in ((y, "given"), (y.astype(np.float32).astype(float), "rounded")):
                ev = evaluate(labels, s, np.zeros(n, int), conventions=[convention],
                              cutoffs=list(ks), metrics=["NDCG"])[convention]
                gap = np.max(np.abs(lib - np.array([ev[f"NDCG@{k}"][0] for k in ks])))
                if worst == "given":
                    given = max(given, gap)
                else:
                    rounded = max(rounded, gap)
    assert rounded <= 1e-15
    assert 1e-8 < given <= float(stated.group(1))


def test_bytes_docids_rank_by_their_bytes_in_evaluate():
    """docid-desc ranks ties by the docid's bytes: bytes docids (UTF-8 or not, in a bytes or
    an object array) by themselves, text by its UTF-8 bytes; a mix of kinds is refused."""
    import numpy as np

    import ltrconv
    from ltrconv.errors import InputError

    y, s, q = np.array([0, 1, 0]), np.full(3, 0.5), np.zeros(3, dtype=int)
    for docs in ([b"a", b"\xff\x01", b"\xc3\xa9"],
                 np.array([b"a", b"\xff\x01", b"\xc3\xa9"], dtype=object),
                 ["a", "\u00ff", "\u00e9"]):  # c3 bf > c3 a9 > 61
        ev = ltrconv.evaluate(y, s, q, docid=docs, conventions=["trec"], cutoffs=[1])
        assert ev["trec"]["NDCG@1"][0] == 1.0, docs
    with pytest.raises(InputError, match="docid mixes bytes and other values"):
        ltrconv.evaluate(y, s, q, docid=np.array([b"a", "b", b"c"], dtype=object),
                         conventions=["trec"], cutoffs=[1])


# --- query ids a TSV row cannot hold -------------------------------------------------------
def test_a_query_named_all_is_refused_in_tsv_and_kept_apart_in_json(tmp_path, capsys):
    # a query named 'all' was written as a row the TSV's mean row could not be told from:
    # ttest then read n = 1 where the JSON files gave n = 2
    (tmp_path / "q").write_bytes(b"all 0 d1 1\nall 0 d2 0\n2 0 d1 1\n2 0 d2 0\n")
    for name, order in (("a", b"d1 d2"), ("b", b"d2 d1")):
        first, second = order.split()
        run = b"".join(b"%s Q0 %s %d %d s\n" % (q, d, r, 3 - r) for q in (b"all", b"2")
                       for r, d in ((1, first), (2, second)))
        (tmp_path / name).write_bytes(run)
    base = ["eval", "--qrels", tmp_path / "q", "-c", "trec_eval", "--per-query"]
    capsys.readouterr()
    assert main([str(a) for a in base + ["--run", tmp_path / "a", "--format", "tsv"]]) == 2
    err = capsys.readouterr().err
    assert "query 'all' is the name of the TSV's mean row" in err and "--format json" in err, err
    assert len(err.strip().splitlines()) == 1
    for name in "ab":
        assert main([str(a) for a in base + ["--run", tmp_path / name, "--out",
                                             tmp_path / f"{name}.json"]]) == 0
    assert main(["ttest", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("trec_eval\tNDCG@10"))
    assert row.split("\t")[2] == "2", out


def test_query_ids_that_would_break_a_tsv_row_are_refused():
    from ltrconv.evaluation.per_query import format_per_query

    for qid in ("a\tb", "a\nb", "a\rb"):
        ev = ltrconv.evaluate([1, 0], [0.5, 0.2], [qid, qid], conventions=["trec"], cutoffs="1")
        assert "\n" in format_per_query(ev, "json", queries=True)
        with pytest.raises(InputError, match="tab, newline or carriage return"):
            format_per_query(ev, "tsv", queries=True)
        assert format_per_query(ev, "tsv").count("\n") == 2  # the means alone are written


# --- warnings about what a command does not use --------------------------------------------
@pytest.mark.parametrize("command, warns", [
    (["explain", "--from", "ranklib", "--to", "yahoo"], False),
    (["explain", "--from", "ranklib", "--to", "trec"], True),
    (["eval-score"], False),
    (["eval", "-c", "yahoo"], False),
    (["eval", "-c", "trec"], True),
])
def test_missing_docids_warn_only_where_ties_go_by_docid(tmp_path, capsys, command, warns):
    # explain and eval-score warned that the docid-desc tie order (trec) could not use the
    # missing docids, though neither of them (eval-score never, explain without trec) uses it
    (tmp_path / "d.txt").write_text("1 qid:1 1:0.5\n0 qid:1 1:0.2\n2 qid:2 1:0.1\n0 qid:2 1:0.3\n")
    (tmp_path / "s.txt").write_text("0.5\n0.2\n0.1\n0.3\n")
    files = [tmp_path / "d.txt", tmp_path / "s.txt"]
    if command[0] == "eval-score":
        args = ["eval-score", *files, tmp_path / "out.txt", "0"]
    else:
        args = [command[0], *files, *command[1:]]
    capsys.readouterr()
    assert main([str(a) for a in args]) == 0
    err = capsys.readouterr().err
    assert ("docid-desc tie order" in err) == warns, err


# --- every metric family the API computes is reachable from the CLI ------------------------
@pytest.mark.parametrize("family", ltrconv.evaluation.metrics.METRICS)
@pytest.mark.parametrize("source", ["letor", "trec"])
def test_each_metric_family_alone_from_the_cli(tmp_path, capsys, family, source):
    # --metrics DCG printed an empty result and exit 0; DCG,NDCG dropped DCG
    import json

    (tmp_path / "d.txt").write_text("2 qid:1 1:0.5 #docid = a\n0 qid:1 1:0.2 #docid = b\n"
                                    "1 qid:1 1:0.4 #docid = c\n")
    (tmp_path / "s.txt").write_text("0.2\n0.5\n0.4\n")
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 0\n1 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 b 1 0.5 t\n1 Q0 c 2 0.4 t\n1 Q0 a 3 0.2 t\n")
    inputs = ([tmp_path / "d.txt", tmp_path / "s.txt"] if source == "letor"
              else ["--qrels", tmp_path / "q", "--run", tmp_path / "r"])
    capsys.readouterr()
    assert main([str(a) for a in ["eval", *inputs, "-c", "trec", "--cutoffs", "2",
                                  "--metrics", f"{family},NDCG"]]) == 0
    mean = json.loads(capsys.readouterr().out)["conventions"]["trec"]["mean"]
    if source == "letor":
        api = ltrconv.evaluate([2, 0, 1], [0.2, 0.5, 0.4], [1, 1, 1], docid=["a", "b", "c"],
                               conventions=["trec"], cutoffs="2", metrics=[family, "NDCG"])
    else:
        api = ltrconv.evaluate_run(tmp_path / "q", tmp_path / "r", conventions=["trec"],
                                   cutoffs="2", metrics=[family, "NDCG"])
    ev = api["trec"]
    assert set(mean) == set(ev.columns), (mean, ev.columns)
    for column in ev.columns:
        assert mean[column] == pytest.approx(float(ev[column].mean()), abs=1e-12), column


# --- options given twice; a string where a list is documented -------------------------------
def _value_options():
    """Every option of every command that takes one value (not repeatable)."""
    import argparse

    from ltrconv.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command, p in sub.choices.items():
        for action in p._actions:
            if action.option_strings and type(action).__name__ == "_StoreOnce":
                # two values the option's type takes: the refusal is of the repeat, not the value
                values = (list(action.choices)[:2] if action.choices else
                          ["1", "2"] if action.type is int else
                          ["0.5", "0.25"] if action.type is float else ["x1", "x2"])
                yield command, action.option_strings[-1], values


def test_every_one_value_option_given_twice_is_refused(capsys):
    # --cutoffs 1 --cutoffs 2 kept 2 silently (argparse's default); -c and --param append
    options = {(c, o): v for c, o, v in _value_options()}
    assert ("eval", "--cutoffs") in options and ("train", "--metric") in options
    assert ("eval", "--convention") not in options and ("train", "--param") not in options
    for (command, option), (a, b) in options.items():
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            main([command.replace("_", "-"), option, a, option, b])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert f"{option} is given twice ({a!r} and {b!r}); give it once" in err, (command, err)


def test_a_string_where_a_list_is_documented_is_one_item(tmp_path):
    # conventions="trec" was read as the conventions 't', 'r', 'e', 'c'
    y, s, q = [1, 0, 2, 0], [0.5, 0.2, 0.1, 0.3], [1, 1, 2, 2]
    one = ltrconv.evaluate(y, s, q, conventions="yahoo", metrics="NDCG", cutoffs="2")
    assert list(one) == ["yahoo"]
    assert one["yahoo"].values.tolist() == ltrconv.evaluate(
        y, s, q, conventions=["yahoo"], metrics=["NDCG"], cutoffs=[2])["yahoo"].values.tolist()
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5 t\n")
    from ltrconv.data.trec import coerce
    from ltrconv.evaluation.runs import evaluate_run_arrays

    arrays = evaluate_run_arrays(coerce(tmp_path / "q", "qrels"), coerce(tmp_path / "r", "run"),
                                 conventions="pytrec_eval", metrics="NDCG", cutoffs="2")
    assert list(arrays) == ["pytrec_eval"]
    from ltrconv.data.audit import audit
    from ltrconv.data.synthetic import make_letor

    data = make_letor(n_queries=5, seed=1)
    assert audit(data, "1-3") == audit(data, [1, 2, 3])
    import pandas as pd

    from ltrconv.study.winning import winning_numbers

    table = pd.DataFrame({"dataset": ["d"] * 4, "fold": [1, 1, 2, 2],
                          "algorithm": ["a", "b"] * 2, "mean": [0.5, 0.4, 0.3, 0.6]})
    assert winning_numbers(table, unit="fold", by=[]).equals(
        winning_numbers(table, unit=["fold"], by=[]))


# --- duplicate docids where trec_eval looks for them -----------------------------------------
# trec_eval 9.0.8 (usnistgov/trec_eval) on qrels "1 0 a 1 / 1 0 b 0": it refuses a docid
# retrieved twice only among the ranked documents it evaluates: the qrels' queries, within -M
DUP_QRELS = "1 0 a 1\n1 0 b 0\n"
DUP_RUNS = {
    # (run, -M): None where trec_eval stops with "duplicate docs x", else its ndcg_cut.10
    "in a judged query": ("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 x 3 1.5 t\n1 Q0 x 4 1 t\n", None, None),
    "in a query the qrels lack": ("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 z 1 1 t\n2 Q0 z 2 0.5 t\n",
                                  None, 1.0),
    "below -M": ("1 Q0 a 1 3 t\n1 Q0 x 2 2 t\n1 Q0 b 3 1.5 t\n1 Q0 x 4 1 t\n", 2, 1.0),
    "within -M": ("1 Q0 a 1 3 t\n1 Q0 x 2 2 t\n1 Q0 x 3 1.5 t\n1 Q0 b 4 1 t\n", 3, None),
}


@pytest.mark.parametrize("case", DUP_RUNS)
def test_duplicates_are_refused_where_trec_eval_refuses_them(tmp_path, case):
    # a repeat in a query the qrels lack, or below -M, was refused though trec_eval evaluates
    # the run
    from ltrconv.evaluation.conventions import get

    run, depth, expected = DUP_RUNS[case]
    (tmp_path / "q").write_text(DUP_QRELS)
    (tmp_path / "r").write_text(run)
    conv = get("trec_eval").with_(depth=depth)
    if expected is None:
        with pytest.raises(InputError, match="docid 'x' of query '1' is retrieved again"):
            ltrconv.evaluate_run(tmp_path / "q", tmp_path / "r", conventions=[conv],
                                 cutoffs="10")
    else:
        ev = ltrconv.evaluate_run(tmp_path / "q", tmp_path / "r", conventions=[conv],
                                  cutoffs="10")
        assert float(next(iter(ev.values()))["NDCG@10"].mean()) == expected
    binary = os.environ.get("LTRCONV_TREC_EVAL")
    if binary:  # the same verdict from trec_eval itself
        import subprocess

        proc = subprocess.run([binary, *(["-M", str(depth)] if depth else []), "-m",
                               "ndcg_cut.10", str(tmp_path / "q"), str(tmp_path / "r")],
                              capture_output=True, text=True)
        assert (proc.returncode != 0) == (expected is None), proc.stderr


# --- ranx-run as ranx reads a run -------------------------------------------------------------
def test_ranx_run_keeps_a_repeated_docids_last_score_at_its_first_place(tmp_path):
    # ranx (a dict updated line by line) keeps a docid's last score at its first place; the file
    # reader kept the last line at its own place, and a tie then ranked otherwise (NDCG@1 0.0
    # where ranx gives 1.0); a qrels query the run lacks was skipped, a number ranx never gives
    ranx = pytest.importorskip("ranx", reason="ranx (the test extra) is not installed")
    from ltrconv.study.library_check import doc_name  # the ranx tests' one name width

    rng = np.random.default_rng(4)
    names = [doc_name(i) for i in range(4)]
    a, b, c = names[:3]
    (tmp_path / "q").write_text(f"1 0 {a} 1\n1 0 {b} 0\n1 0 {c} 2\n2 0 {a} 1\n")
    qrels = ranx.Qrels.from_file(str(tmp_path / "q"), kind="trec")
    for trial in range(10):
        rows = [(str(rng.choice(names)), float(rng.choice([1.0, 2.0, 3.0])))
                for _ in range(int(rng.integers(2, 8)))]
        (tmp_path / "r").write_text("".join(f"1 Q0 {d} {i + 1} {s} t\n"
                                            for i, (d, s) in enumerate(rows)))
        as_dict: dict = {}
        for d, s in rows:
            as_dict.setdefault("1", {})[d] = s
        for k in (1, 3):
            want = ranx.evaluate(qrels, ranx.Run.from_file(str(tmp_path / "r"), kind="trec"),
                                 f"ndcg@{k}", make_comparable=True)
            for run in (tmp_path / "r", as_dict):
                got = ltrconv.evaluate_run(tmp_path / "q", run, conventions=["ranx-run"],
                                           cutoffs=str(k))["ranx-run"]
                assert len(got.qids) == 2  # query 2, which the run lacks, scores 0
                assert float(got[f"NDCG@{k}"].mean()) == pytest.approx(want, abs=1e-12), rows


# --- numba's sort order without numba's compiler ---------------------------------------------
def test_the_numba_quicksort_order_is_numbas_argsort():
    """ranx's tie order, written out, equals numba's compiled np.argsort on tie-heavy keys of
    every size around the insertion-sort threshold and beyond (NaN included)."""
    import numba

    from ltrconv.evaluation._artefact_kernels import quicksort_order

    argsort = numba.njit(lambda a: np.argsort(a))
    rng = np.random.default_rng(0)
    for n in [*range(1, 70), 100, 257, 1000]:
        for t in range(12):
            a = rng.integers(0, int(rng.integers(1, 6)), n).astype(np.float64)
            if t % 3 == 0:
                a = rng.random(n)
            if t % 4 == 1:
                a[rng.integers(0, n, max(1, n // 8))] = np.nan
            if t % 5 == 2:
                a = np.sort(a)[::-1].copy()
            assert np.array_equal(quicksort_order(a), argsort(a)), (n, t)


def test_numba_disable_jit_changes_no_number(tmp_path):
    # NUMBA_DISABLE_JIT=1 (numba's debugging switch) ran numpy's own argsort where numba's
    # was emulated: ranx's NDCG@1 moved from 0.2037 to 0.1481
    import subprocess
    import sys

    code = ("import numpy as np, ltrconv\n"
            "from ltrconv.data.synthetic import make_letor\n"
            "d = make_letor(n_queries=40, min_docs=5, max_docs=40, seed=3)\n"
            "ev = ltrconv.evaluate(d.y, np.round(d.X[:, 0], 1), d.qid, docid=d.docid,\n"
            "                      conventions=['ranx', 'sklearn-ignore-ties'], cutoffs='1-5')\n"
            "print([v.values.tobytes().hex() for v in ev.values()])\n")
    out = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "NUMBA_DISABLE_JIT": flag}, check=True).stdout
           for flag in ("0", "1")]
    assert out[0] == out[1]
