"""Fuzzed input, seeded: every reader of one format gives the same arrays or the same error.

* TREC qrels and runs: the same rows written as TREC text (separators, line ends and the final
  newline mutated; read whole and piece by piece), TSV, CSV, Parquet and a DataFrame give the
  same ids and bit-identical values, or all refuse the same row; a text read agrees with
  trec_eval's own splitting (fields at runs of C whitespace, lines at LF) and with the value
  rules (a score as ``atof`` and ltrconv both read it, a grade without exponent).
* LETOR files: the bulk readers (numpy, numba) and the line-by-line reader give the same arrays
  or the same error, on valid lines mutated (separators, unicode, long ids, exponents, empty
  fields, CRLF and lone CR, a missing final newline, NUL bytes).
"""

from __future__ import annotations

import csv
import io
import random
import re

import numpy as np
import pytest

from ltrconv.data import trec
from ltrconv.errors import InputError

SEED = 20240611
C_SPACE = " \t\n\r\x0b\x0c"  # C isspace, the C locale

# --- TREC ----------------------------------------------------------------------------------
ID_CHARS = (list("abcXYZ019-_.:/#'\",;") + ["\u00a0", "\u2028", "\x1c", "\x85", "é", "中",
                                             "\U0001f600", "\ufeff", "\\"])
SEPARATORS = [" ", " ", " ", "\t", "  ", "\x0b", "\x0c", " \t", "\r", "\t\x0c "]
LINE_ENDS = ["\n", "\n", "\n", "\r\n", " \n", "\t\r\n", "\x0c\n"]
SCORES = ["0", "1", "-2", "0.5", "+3.25", ".5", "5.", "1e1", "10e-1", "2.5E+3", "-1.5e-2",
          "123456789012345678", "0.1000000000000000055511151231257827", "4.9e-324", "1e308",
          "007", "-0"]
BAD = ["", "0x1", "1_0", "inf", "-inf", "nan", "Infinity", "1e", "+-1", "1e999", "١", "1,5",
       "e5", ".", "1.5.5", "1d5", "0b1"]
GRADES = ["0", "1", "2", "-1", "+1", "01", "1.0", "1.", "0.5", "3"]


def an_id(rng: random.Random) -> str:
    if rng.random() < 0.05:
        return ""
    n = rng.choice([1, 2, 3, 5, 8, 300]) if rng.random() < 0.9 else rng.randint(1, 2000)
    s = "".join(rng.choice(ID_CHARS) for _ in range(n))
    return s.lstrip("\ufeff") or "x"  # TREC text refuses a BOM at a line's start, tables not


def a_value(rng: random.Random, kind: str) -> str:
    r = rng.random()
    if r < 0.04:
        return rng.choice(BAD)
    if kind == "qrels" and r < 0.08:
        return rng.choice(["1e1", "10e-1", "0e0", "2E0"])  # grades with an exponent: refused
    if r < 0.5:
        return rng.choice(GRADES if kind == "qrels" else SCORES)
    if kind == "qrels":
        return str(rng.randint(-2, 4))
    digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 20)))
    p = rng.randint(0, len(digits))
    s = rng.choice(["", "-", "+"]) + digits[:p] + "." + digits[p:]
    return s + (f"e{rng.randint(-30, 30)}" if rng.random() < 0.3 else "")


def rows_for(rng: random.Random, kind: str) -> list[tuple[str, str, str]]:
    return [(an_id(rng) if rng.random() < 0.3 else str(rng.randint(1, 3)), an_id(rng),
             a_value(rng, kind)) for _ in range(rng.randint(1, 9))]


def trec_text(rows, kind: str, rng: random.Random) -> bytes:
    lines = []
    for q, d, v in rows:
        fields = [q, "0", d, v] if kind == "qrels" else [q, "Q0", d, "1", v, "tag"]
        line = "".join(f + rng.choice(SEPARATORS) for f in fields[:-1]) + fields[-1]
        if rng.random() < 0.1:
            line = rng.choice(["\x0b", " ", "\t "]) + line
        lines.append(line + rng.choice(LINE_ENDS))
    text = "".join(lines)
    if rng.random() < 0.2:  # no final newline (a final CR is a separator: kept)
        text = text.rstrip("\n")
    return text.encode("utf-8")


GRADE_RULE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
SCORE_RULE = re.compile(GRADE_RULE.pattern + r"(?:[eE][+-]?[0-9]+)?")


def oracle(text: bytes, kind: str):
    """trec_eval's reading of ``text`` (fields at runs of C whitespace, lines at LF), with
    the value rules: (qids, docids, values), or the 1-based line of the first bad one."""
    n, v = (4, 3) if kind == "qrels" else (6, 4)
    lines = text.split(b"\n")
    if text.endswith(b"\n"):
        lines.pop()
    out = ([], [], [])
    for i, line in enumerate(lines, 1):
        f = line.split()  # bytes.split(): C's whitespace
        rule = GRADE_RULE if kind == "qrels" else SCORE_RULE
        if len(f) != n or not rule.fullmatch(f[v].decode()) or not np.isfinite(float(f[v])):
            return i
        out[0].append(f[0].decode())
        out[1].append(f[2].decode())
        out[2].append(float(f[v]))
    return out


def outcome(read, first_line: int = 1):
    """(qids, docids, values) read, or the row (from 1) an error names."""
    try:
        got = read()
    except InputError as exc:
        m = re.search(r":(\d+): ", str(exc))
        assert m, f"no line in: {exc}"
        return int(m.group(1)) - first_line + 1
    ids = [[str(x) for x in (col.to_pylist() if hasattr(col, "to_pylist") else list(col))]
           for col in (got.qid, got.docid)]
    return ids[0], ids[1], np.asarray(got.value, dtype=np.float64).tolist()


def same(a, b, what: str) -> None:
    if isinstance(a, int) or isinstance(b, int):
        assert a == b, f"{what}: {a!r} != {b!r}"
        return
    assert a[0] == b[0] and a[1] == b[1], what
    assert np.array_equal(np.array(a[2]).view(np.int64), np.array(b[2]).view(np.int64)), what


def table_text(rows, kind: str, sep: str, crlf: bool) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=sep, lineterminator="\r\n" if crlf else "\n")
    w.writerow(["query_id", "doc_id", "relevance" if kind == "qrels" else "score"])
    w.writerows(rows)
    return buf.getvalue().encode("utf-8")


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_trec_formats_read_alike(tmp_path, monkeypatch, kind):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = random.Random(f"{SEED}-{kind}")
    refused = read = 0
    for case in range(120):
        rows = rows_for(rng, kind)
        text = trec_text(rows, kind, rng)
        path = tmp_path / f"t{case}"
        path.write_bytes(text)
        want = oracle(text, kind)
        for piece in (1 << 23, rng.choice([1, 16, 64])):
            monkeypatch.setattr(trec, "PIECE", piece)
            got = outcome(lambda: trec.read(path, kind))
            same(got, want, f"case {case}, text {text!r}, piece {piece}")
        # the rows as a table: the same rows, or the same row refused
        if any("\r" in x or "\n" in x for r in rows for x in r):
            continue
        want_rows = oracle(b"".join(
            f"{q} 0 {d} {v}\n".encode() if kind == "qrels" else f"{q} Q0 {d} 1 {v} t\n".encode()
            for q, d, v in rows), kind) if all(all(x and not set(x) & set(C_SPACE) for x in r)
                                               for r in rows) else None
        empty = next((i for i, r in enumerate(rows, 1) if not all(r)), None)
        bad_value = next((i for i, r in enumerate(rows, 1) if r[2] and not (
            (GRADE_RULE if kind == "qrels" else SCORE_RULE).fullmatch(r[2])
            and np.isfinite(float(r[2])))), None)
        first_bad = min(x for x in (empty, bad_value, 10 ** 9) if x is not None)
        expect = first_bad if first_bad < 10 ** 9 else want_rows
        col = "relevance" if kind == "qrels" else "score"
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", col], dtype=object)
        for suffix, sep in ((".tsv", "\t"), (".csv", ",")):
            p = tmp_path / f"t{case}{suffix}"
            p.write_bytes(table_text(rows, kind, sep, crlf=rng.random() < 0.3))
            same(outcome(lambda: trec.read(p, kind), first_line=2), expect,
                 f"case {case} {suffix} {rows!r}")
        p = tmp_path / f"t{case}.parquet"
        frame.astype(str).to_parquet(p)
        same(outcome(lambda: trec.read(p, kind)), expect, f"case {case} parquet {rows!r}")
        same(outcome(lambda: trec.from_frame(frame, kind)), expect, f"case {case} frame")
        if not isinstance(expect, int):  # numbers given as numbers read alike
            numeric = frame.assign(**{col: [float(v) for _, _, v in rows]})
            same(outcome(lambda: trec.from_frame(numeric, kind)), expect, f"case {case} floats")
        refused += isinstance(want, int)
        read += not isinstance(want, int)
    assert refused > 10 and read > 10  # both outcomes were exercised


# --- LETOR ---------------------------------------------------------------------------------
def letor_text(rng: random.Random) -> bytes:
    from test_letor_bulk import number  # feature values: signs, points, exponents, bad ones

    lines, q = [], rng.randint(0, 3)
    for _ in range(rng.randint(1, 10)):
        q += rng.random() < 0.3
        idx = sorted(rng.sample(range(1, 25), rng.randint(0, 6)))
        sep = rng.choice([" ", " ", "\t", "  ", "\x0b", "\x0c", " \t"])
        label = (rng.choice(["1e0", "10e-1", "+1", "1.0", "x", "", "01"]) if rng.random() < 0.1
                 else rng.choice("0123"))
        docid = "".join(rng.choice(ID_CHARS[:-3]) for _ in range(rng.choice([1, 3, 300])))
        comment = rng.choice(["", f" #docid = {docid} inc = 1", f"#docid\x0b=\x0c{docid}",
                              " # none", " #docid = "])
        qid = (rng.choice([f"qid:0{q}", "qid:", "qid:x", f"qid:{q}x"]) if rng.random() < 0.03
               else f"qid:{q}")
        lines.append(sep.join([label, qid, *(f"{j}:{number(rng)}" for j in idx)])
                     + comment)
        if rng.random() < 0.05:
            lines.append(rng.choice(["", "# a comment line", "  ", "\x0c"]))
    out = "".join(line + rng.choice(["\n", "\n", "\r\n", "\r"]) for line in lines)
    if rng.random() < 0.2:
        out = out.rstrip("\r\n")
    for _ in range(rng.choice([0, 0, 0, 0, 0, 1])):  # a stray byte
        i = rng.randrange(len(out) + 1)
        out = out[:i] + rng.choice(["\x00", "\u00a0", "\x1c", "\u2028", ":", "#", "\r"]) + out[i:]
    return out.encode("utf-8")


def test_letor_readers_read_alike(tmp_path):
    pytest.importorskip("numba")
    from test_letor_bulk import assert_same, read

    rng = random.Random(f"{SEED}-letor")
    outcomes = {"error": 0, "read": 0}
    for case in range(250):
        path = tmp_path / f"d{case}.txt"
        path.write_bytes(letor_text(rng))
        base = read(path, "lines")
        outcomes["error" if isinstance(base[0], str) else "read"] += 1
        for engine in ("numpy", "numba"):
            try:
                assert_same(read(path, engine), base)
            except AssertionError:
                raise AssertionError(f"case {case} ({engine}): {path.read_bytes()!r}") from None
    assert outcomes["error"] > 20 and outcomes["read"] > 20
