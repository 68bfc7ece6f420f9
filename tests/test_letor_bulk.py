"""The LETOR reader's fast path (numpy, and the numba kernel) reads what the line-by-line reader
reads: the same arrays to the bit, the same warnings, and every file it cannot confirm is left
to that reader, whose errors name the line."""

import random
import warnings
from functools import partial

import numpy as np
import pytest

import ltrconv.data.letor as letor
import ltrconv.data.letor_bulk as bulk
from ltrconv.data.lines import parse_number

ENGINES = ["numpy", "numba"]
FIELDS = ("X", "y", "qid", "offsets", "docid", "lines")


def read(path, engine, **kw):
    """(Dataset or the error's text, warnings' texts) of ``read_letor`` with the fast path forced
    to ``engine`` ("lines": no fast path)."""
    fast = (lambda *a, **k: None) if engine == "lines" else partial(bulk.parse_bulk,
                                                                      kernel=engine == "numba")
    saved, letor.parse_bulk = letor.parse_bulk, fast
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = letor.read_letor(path, **kw)
            except letor.InputError as exc:
                out = str(exc)
    finally:
        letor.parse_bulk = saved
    return out, [str(w.message) for w in caught]


def assert_same(a, b):
    (da, wa), (db, wb) = a, b
    assert wa == wb
    if isinstance(da, str) or isinstance(db, str):
        assert da == db
        return
    for f in FIELDS:
        x, y = getattr(da, f), getattr(db, f)
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), f


def number(rng):
    if rng.random() < 0.01:
        return rng.choice(["1.2.3", "1_0", "nan", "-", "", "0x1", "1e999"])
    if rng.random() < 0.2:
        return rng.choice(["0", "-0", "+0", ".5", "5.", "-.5", "00.25", "1e-5", "2.5E+3",
                           "9007199254740993", "123456789012345.6", "1" * 20])
    s = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 17)))
    if rng.random() < 0.6:
        p = rng.randint(0, len(s))
        s = s[:p] + "." + s[p:]
    return rng.choice(["", "", "-", "+"]) + s


def text(rng):
    lines, q = [], rng.randint(0, 3)
    for i in range(rng.randint(1, 12)):
        q += rng.random() < 0.3
        idx = sorted(rng.sample(range(1, 30), rng.randint(0, 6)))
        sep = rng.choice([" ", " ", "  ", "\t"])
        comment = rng.choice(["", f" #docid = D{rng.randint(0, 5)} inc = 1", "#docid=x y",
                              " # none", "#", " #docid\t=\x0bq\x0c#docid = r", " #docid = "])
        lines.append(f"{rng.randint(0, 4)}{sep}qid:{q}{sep}"
                     + " ".join(f"{j}:{number(rng)}" for j in idx) + comment)
        if rng.random() < 0.05:
            lines.append(rng.choice(["", "# a comment line", "  "]))
    out = "\n".join(lines) + rng.choice(["\n", ""])
    for _ in range(rng.choice([0, 0, 1, 2])):  # a stray byte or two, often a bad one
        i = rng.randrange(len(out) + 1)
        out = out[:i] + rng.choice(list("0.:-+eq #\t\x01\r\n_x") + ["\u00a0", "\x1c"]) + out[i:]
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_random_files_read_as_the_line_reader_reads_them(tmp_path, monkeypatch, engine):
    rng = random.Random(7)
    path = tmp_path / "data.txt"
    taken = 0
    for _ in range(150):
        path.write_bytes(text(rng).encode())
        monkeypatch.setattr(bulk, "CHUNK_BYTES", rng.choice([1, 40, 1 << 18]))  # chunks of lines
        for kw in ({}, {"features": False}, {"n_features": rng.choice([3, 29, 40])}):
            assert_same(read(path, engine, **kw), read(path, "lines", **kw))
        taken += bulk.parse_bulk(path.read_bytes(), 100_000, None, True,
                                 kernel=engine == "numba") is not None
    assert 40 < taken < 150  # both paths were exercised


TOKENS = ["0", "-0", "+0.0", "5.", ".5", "-.5", "0.007477", "1.000000", "00012.50",
          "999999999999999", "99999999999999.9", ".000000000000001", "1234567890.12345",
          "9007199254740993", "9007199254740992", "4503599627370497.5", "0.1000000000000000055",
          "2.2250738585072011e-308", "1e22", "1E-5", "-3.5e+2", "123456789012345678901234"]


@pytest.mark.parametrize("engine", ENGINES)
def test_values_equal_pythons_float(tmp_path, engine):
    rng = random.Random(3)
    tokens = TOKENS + [number(rng) for _ in range(3000)]
    tokens = [t for t in tokens if (v := parse_number(t)) is not None and np.isfinite(v)]
    rows = [tokens[i:i + 40] for i in range(0, len(tokens), 40)]
    path = tmp_path / "values.txt"
    path.write_text("".join("0 qid:1 " + " ".join(f"{j + 1}:{t}" for j, t in enumerate(r)) + "\n"
                            for r in rows))
    assert bulk.parse_bulk(path.read_bytes(), 100, None, True, kernel=engine == "numba")
    data, _ = read(path, engine)
    expected = np.zeros((len(rows), 40))
    for i, r in enumerate(rows):
        expected[i, :len(r)] = [float(t) + 0.0 for t in r]  # -0 is the absent feature, +0.0
    assert data.X.tobytes() == expected.tobytes()


WELL_FORMED = [
    "2 qid:10 1:0.5 2:0.25 3:1 #docid = GX01 inc = 1\n0 qid:10 1:0.1 3:0 #docid = GX02\n",
    "1 qid:1\t1:0.5   3:-2.5e-3 \n\n# a comment line\n0 qid:2 2:7",
    "0 qid:0 1:1\n",
]
NOT_FAST = [
    "1 qid:1 1:0.5\r\n",  # CR line ends
    "1 qid:1 1:0.5 #docid = \u00e9\n",  # not ASCII
    "10 qid:1 1:0.5\n",  # a label of two digits
    "1 qid:07 1:0.5\n",  # a qid with a leading zero
    "1 qid:-7 1:0.5\n",
    "1 qid:1 2:0.5 1:0.5\n",
    "1 qid:1 0:0.5\n",
    "1 qid:1 1:nan\n",
    "1 qid:1 1:1_0\n",
    "1 qid:1 1:0.5\x01\n",
    "# only comments\n\n",
    "0 qid:1 " + " ".join(f"{j}:" for j in range(1, 5000)) + "\n",  # empty values, many
]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_fast_path_takes_well_formed_files_only(engine):
    fast = partial(bulk.parse_bulk, limit=100_000, width=None, keep=True, kernel=engine == "numba")
    for good in WELL_FORMED:
        assert fast(good.encode()) is not None, good
    for other in NOT_FAST:
        assert fast(other.encode()) is None, other


@pytest.mark.parametrize("engine", ENGINES)
def test_public_data_reads_alike(mq2008_dir, engine):
    """MQ2008 Fold1 and, when kept beside it, OHSUMED Fold1: the same arrays either way."""
    files = [mq2008_dir / "Fold1" / f"{s}.txt" for s in ("train", "vali", "test")]
    files += [p for p in [mq2008_dir.parent / "OHSUMED" / "Fold1" / "vali.txt"] if p.exists()]
    for f in files:
        assert bulk.parse_bulk(f.read_bytes(), 100_000, None, True, kernel=engine == "numba")
        assert_same(read(f, engine), read(f, "lines"))
