"""Reading LETOR files: the data, the docids, and one clear error per kind of bad input."""

import warnings
from dataclasses import replace

import numpy as np
import pytest

from ltrconv.data.letor import MAX_FEATURES, Dataset, DocidWarning, read_letor, read_scores
from ltrconv.errors import InputError, LtrconvError
from ltrconv.evaluation.queries import offsets_from_qid
from ltrconv.data.synthetic import make_letor, split

GOOD = (
    "2 qid:10 1:0.5 2:0.25 3:1 #docid = GX01 inc = 1 prob = 0.5\n"
    "0 qid:10 1:0.1 2:0.00 3:0 #docid = GX02 inc = 1 prob = 0.1\n"
    "1 qid:11 1:0.3 3:0.75 #docid = GX03\n"
)


def write(tmp_path, text, name="data.txt"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_reads_labels_qids_features_docids(tmp_path):
    d = read_letor(write(tmp_path, GOOD))
    assert d.y.tolist() == [2, 0, 1]
    assert d.query_ids.tolist() == [10, 11] and d.offsets.tolist() == [0, 2, 3]
    assert d.docid.tolist() == ["GX01", "GX02", "GX03"]
    np.testing.assert_array_equal(d.X[2], [0.3, 0.0, 0.75])


@pytest.mark.filterwarnings("ignore::ltrconv.data.letor.DocidWarning")
def test_dense_and_sparse_lines_parse_alike(tmp_path):
    dense = "1 qid:1 1:0.5 2:-0 3:1e-3\n0 qid:1 1:0 2:2 3:.25\n"
    sparse = "1 qid:1 1:0.5 3:1e-3\n0 qid:1 2:2 3:.25\n"
    a = read_letor(write(tmp_path, dense, "a.txt"))
    b = read_letor(write(tmp_path, sparse, "b.txt"))
    assert a.X.tobytes() == b.X.tobytes()  # a written -0 is the absent feature, +0.0
    np.testing.assert_array_equal(a.X, [[0.5, 0.0, 0.001], [0.0, 2.0, 0.25]])
    tabs = read_letor(write(tmp_path, "1 qid:1\t1:0.5  3:1e-3 \n0 qid:1 2:2\t3:.25", "c.txt"))
    assert tabs.X.tobytes() == b.X.tobytes()
    assert read_letor(write(tmp_path, "0 qid:1\n1 qid:1\n", "d.txt")).X.shape == (2, 1)


@pytest.mark.filterwarnings("ignore::ltrconv.data.letor.DocidWarning")
def test_chunked_parse_is_the_whole_parse(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    lines = []
    for i in range(60):  # widths grow from chunk to chunk; some lines sparse, some empty
        idx = np.flatnonzero(rng.random(3 + i // 10) < 0.7) + 1
        lines.append(f"{i % 3} qid:{i // 4} " + " ".join(f"{j}:{rng.random():.6g}" for j in idx))
    f = write(tmp_path, "\n".join(lines) + "\n")
    monkeypatch.setattr("ltrconv.data.letor.parse_bulk", lambda *a, **k: None)  # line by line
    whole = read_letor(f)
    monkeypatch.setattr("ltrconv.data.letor.CHUNK_TOKENS", 5)
    chunked = read_letor(f)
    assert chunked.X.tobytes() == whole.X.tobytes() and chunked.X.shape == (60, 8)
    assert read_letor(f, n_features=9).X.tobytes() == whole.with_width(9).X.tobytes()
    # the first bad line of the file is reported, whichever chunk failed to parse
    lines[3] += " 20:nan"
    lines[50] += " x:1"
    with pytest.raises(InputError, match=r"data.txt:4: feature value in '20:nan' is not finite"):
        read_letor(write(tmp_path, "\n".join(lines)))


def test_cache_round_trip(tmp_path):
    d = read_letor(write(tmp_path, GOOD))
    d.save(tmp_path / "c.npz")
    e = Dataset.load(tmp_path / "c.npz")
    for f in ("X", "y", "qid", "offsets", "docid"):
        np.testing.assert_array_equal(getattr(d, f), getattr(e, f))
    assert not list(tmp_path.glob("*.part"))


BAD = [
    ("0 qid:1 1:0.5 2-0.3\n", r"data.txt:1: malformed token '2-0.3'"),
    ("0 qid:1 1:0.5\n1 1:0.5 2:0.1\n", r"data.txt:2: missing qid"),
    ("x qid:1 1:0.5\n", r"data.txt:1: label 'x' is not a number"),
    ("0 qid:1 1:nan\n", r"data.txt:1: feature 1 is nan"),
    ("0 qid:1 1:0.5\n0 qid:1 1:inf\n", r"data.txt:2: feature 1 is inf"),
    ("0 qid:1 1:0.5\n0 qid:2 1:0.5\n0 qid:1 1:0.5\n", r"data.txt:3: documents of qid 1 are not contiguous"),
    ("", r"data.txt: no data lines \(empty file\)"),
    ("0 qid:1 1:0.5 1:0.7\n", r"data.txt:1: feature indices must increase"),
    ("1.5 qid:1 1:0.5\n", r"data.txt:1: label '1.5' is not a non-negative integer"),
    # qids: integers that fit in 64 bits, refused with their line otherwise
    ("0 qid:1 1:0.5\n0 qid:abc 1:0.5\n", r"data.txt:2: qid 'abc' is not an integer"),
    ("0 qid:1 1:0.5\n0 qid:1.5 1:0.5\n", r"data.txt:2: qid '1.5' is not an integer"),
    ("0 qid:1e11 1:0.5\n", r"data.txt:1: qid '1e11' is not an integer"),
    ("0 qid:1 1:0.5\n0 qid:123456789012345678901234567890 1:0.5\n",
     r"data.txt:2: qid 123456789012345678901234567890 does not fit in 64 bits"),
    ("0 qid:9223372036854775808 1:0.5\n", r"data.txt:1: qid 9223372036854775808 does not fit"),
    # one stray feature index or label must not ask for gigabytes
    ("0 qid:1 1:0.5\n0 qid:1 1:0.5 1000000000:0.3\n",
     rf"data.txt:2: feature index 1000000000 is above {MAX_FEATURES}, the largest accepted"),
    ("0 qid:1 1:0.5 100000000000:0.3\n", r"data.txt:1: feature index 100000000000 is above"),
    ("0 qid:1 1:0.5 100000000000000000000000:0.3\n", r"data.txt:1: feature index 1000000000"),
    ("0 qid:1 1:0.5 1e11:0.3\n", r"data.txt:1: malformed token '1e11:0.3'"),
    ("0 qid:1 1:0.5 2:1_0\n", r"data.txt:1: feature value in '2:1_0' is not a number"),
    ("0 qid:1 1:0.5\n99999999999999999999999 qid:1 1:0.5\n",
     r"data.txt:2: label '99999999999999999999999' is above 1000"),
    ("1e11 qid:1 1:0.5\n", r"data.txt:1: label '1e11' is above 1000"),
    # feature tokens are INDEX:VALUE with an unsigned ASCII index and an ASCII number
    ("0 qid:1 1:0.5\n0 qid:1 +3:1\n", r"data.txt:2: malformed token '\+3:1'"),
    ("0 qid:1 qid:2 1:0.5\n", r"data.txt:1: malformed token 'qid:2'"),
    ("0 qid:1 1:\u0661\n", r"data.txt:1: feature value in '1:\u0661' is not a number"),
    ("0 qid:1 1:0.5 2:3:4\n", r"data.txt:1: feature value in '2:3:4' is not a number"),
    ("0 qid:1 1 2:3\n", r"data.txt:1: malformed token '1'"),
    ("0 qid:1 1:0.5 :3\n", r"data.txt:1: malformed token ':3'"),
    ("0 qid:1 1:0.5 2:\n", r"data.txt:1: feature value in '2:' is not a number"),
    ("0 qid:1 1:0.5 0:3\n", r"data.txt:1: feature index in '0:3' must be >= 1"),
    # labels are ASCII numbers, as the LETOR tools read them (float() takes both of these)
    ("1_0 qid:1 1:0.5\n", r"data.txt:1: label '1_0' is not a number"),
    ("0 qid:1 1:0.5\n\u0661 qid:1 1:0.5\n", r"data.txt:2: label '\u0661' is not a number"),
    ("0 qid:1 1:0.5\nnan qid:1 1:0.5\n", r"data.txt:2: label 'nan' is not a non-negative integer"),
    # one qid number spelled two ways: RankLib and trec_eval see two queries
    ("0 qid:07 1:0.5\n1 qid:7 1:0.5\n", r"data.txt:2: qid 7 is written '7' here but '07' on line 1"),
    ("0 qid:7 1:0.5\n0 qid:8 1:0.5\n1 qid:008 1:0.5\n",
     r"data.txt:3: qid 8 is written '008' here but '8' on line 2"),
    ("0 qid:0 1:0.5\n1 qid:-0 1:0.5\n", r"data.txt:2: qid 0 is written '-0' here but '0' on line 1"),
    # fields are separated by ASCII whitespace only, as byte-oriented tools split them
    ("0 qid:1\u00a01:0.5\n", r"data.txt:1: qid '1\\xa01:0.5' is not an integer"),
    ("0 qid:1 1:0.5\x1c2:0.5\n", r"data.txt:1: feature value in '1:0.5\\x1c2:0.5' is not a number"),
    # echoed values are cut to 80 characters
    ("0 qid:1 1:0.5 2:" + "9" * 10**6 + "x\n", r"data.txt:1: feature value in '2:9{76}… is not a number$"),
]


@pytest.mark.parametrize("text, message", BAD, ids=[m.split(": ", 1)[-1][:25] for _, m in BAD])
def test_bad_input_names_file_and_line(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_letor(write(tmp_path, text))


@pytest.mark.parametrize("text, message", [
    ("0.5\n1_000\n", r"s.txt:2: score '1_000' is not a number"),
    ("\u0661\u0662\n0.5\n", r"s.txt:1: score '\u0661\u0662' is not a number"),
    ("0.5\n0.25\u20280.75\n", r"s.txt:2: expected one score per line, got '0.25\\u20280.75'"),
    ("0.5\f\n0.5\n", r"s.txt:1: expected one score per line, got '0.5\\x0c'"),
    ("0.5\n0x1p3\n", r"s.txt:2: score '0x1p3' is not a number"),
    ("0.5\n-inf\n", r"s.txt:2: score '-inf' is not finite"),
])
def test_scores_are_ascii_numbers_one_per_line(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_scores(write(tmp_path, text, "s.txt"), 2)


def test_scores_split_at_line_ends_only(tmp_path):
    """299 scores with form feeds and U+2028 in them are not read as 301 scores."""
    lines = ["0.5"] * 299
    lines[10] = "0.25\f"
    lines[20] = "0.125\u2028"
    with pytest.raises(InputError, match=r"s.txt:11: expected one score per line"):
        read_scores(write(tmp_path, "\n".join(lines) + "\n", "s.txt"), 301)
    crlf = read_scores(write(tmp_path, "0.5\r\n-1e3\r\n", "s.txt"), 2)
    assert crlf.tolist() == [0.5, -1000.0]


READER_AND_DIGEST = [
    "2 qid:10 1:0.5 #docid = A\n0 qid:10 1:0.1 #docid = B\n",
    "2 qid:10 1:0.5 #docid = A\r1 qid:11 1:0.1 #docid = B\u2028c\r\n0 qid:11 2:3 #docid = C\f",
    "2\tqid:007 1:0.5\x0b#docid = A\n0 qid:007   1:0.1 # docid = B\n# a comment\n\n1 qid:8\n",
    "0 qid:07 1:0.5\n1 qid:7 1:0.5\n",
    "1_0 qid:1 1:0.5\n",
    "0 qid:1 1:0.5\x1c2:0.5\n0 qid:1 1:0.5\n",
    "0 qid:1 1:0.5\n1 qid:1\u00a01:0.5\n",
]


@pytest.mark.filterwarnings("ignore::ltrconv.data.letor.DocidWarning")
@pytest.mark.parametrize("text", READER_AND_DIGEST)
def test_reader_digest_and_counts_read_lines_alike(tmp_path, text):
    """The reader, the content digest and the row count parse each line by the same rules:
    they refuse the same line (with the same message, unless the features are at fault,
    which the digest only needs as numbers), or agree on the rows and qids, and the digest
    ignores spacing and line ends."""
    from ltrconv.data.verify import content_sha256, count_rows_queries
    from ltrconv.errors import AcquireError

    path = write(tmp_path, text)
    try:
        d = read_letor(path)
    except InputError as exc:
        features = "feature" in str(exc)  # the row count reads no feature
        for f in (content_sha256,) if features else (content_sha256, count_rows_queries):
            with pytest.raises(AcquireError) as caught:
                f(path)
            if features:
                assert str(caught.value).split(": ")[0] == str(exc).split(": ")[0]
            else:
                assert str(caught.value) == str(exc)
        return
    rows, qids = count_rows_queries(path)
    assert rows == d.n_docs and {int(q) for q in qids} == set(d.query_ids.tolist())
    content_sha256(path)
    respaced = write(tmp_path, "".join(f"{y} qid:{q} " + " ".join(f"{j + 1}:{v}" for j, v in
                                                                   enumerate(x) if v)
                                       + f" #docid = {doc}\n"
                                       for y, q, x, doc in zip(d.y, qids_as_written(text), d.X,
                                                               d.docid)), "b.txt")
    assert content_sha256(respaced) == content_sha256(path)


def qids_as_written(text):
    from ltrconv.data.lines import data_lines

    return [line.qid_text for line in data_lines(text, "t")]


def test_scores_file_checks(tmp_path):
    assert read_scores(write(tmp_path, "0.5\n-1e3\n", "s.txt"), 2).tolist() == [0.5, -1000.0]
    with pytest.raises(InputError, match="s.txt: has 2 score lines but the data has 3 documents"):
        read_scores(write(tmp_path, "0.5\n0.1\n", "s.txt"), 3)
    with pytest.raises(InputError, match=r"s.txt:2: score 'nan' is not finite"):
        read_scores(write(tmp_path, "0.5\nnan\n", "s.txt"), 2)
    with pytest.raises(InputError, match=r"s.txt:1: score 'abc' is not a number"):
        read_scores(write(tmp_path, "abc\n", "s.txt"), 1)


def test_concat_pads_widths_and_keeps_query_boundaries():
    data = make_letor(n_queries=5, n_features=4, seed=3)
    a = split(data, np.arange(2))
    b = replace(split(data, np.arange(2, 5)), source="b")
    b = replace(b, X=b.X[:, :2])  # trailing features absent: zeros
    both = Dataset.concat([a, b])
    assert both.X.shape == (data.n_docs, 4) and np.all(both.X[a.n_docs:, 2:] == 0)
    np.testing.assert_array_equal(both.offsets, data.offsets)
    np.testing.assert_array_equal(both.query_ids, data.query_ids)
    assert both.qid.dtype == np.int64 and both.source == "synthetic+b"
    assert Dataset.concat([a, b], source="s").source == "s"
    mixed = Dataset.concat([a, replace(b, qid=b.qid.astype(str))])
    assert list(mixed.query_ids) == [str(q) for q in data.query_ids]
    with pytest.raises(LtrconvError, match="no datasets"):
        Dataset.concat([])


def test_mq2008_facts(mq2008_dir):
    parts = [read_letor(mq2008_dir / f"S{i}.txt") for i in range(1, 6)]
    sizes = np.concatenate([p.sizes for p in parts])
    y = np.concatenate([p.y for p in parts])
    empty = sum(int((np.maximum.reduceat(p.y, p.offsets[:-1]) == 0).sum()) for p in parts)
    assert (len(sizes), len(y), parts[0].X.shape[1]) == (784, 15211, 46)
    assert empty == 220
    assert int((sizes < 10).sum()) == 403 and int((sizes == 8).sum()) == 339
    assert (sizes.min(), sizes.max()) == (5, 121)
    train = read_letor(mq2008_dir / "Fold1" / "train.txt")
    assert train.n_queries == sum(p.n_queries for p in parts[:3])


@pytest.mark.filterwarnings("ignore::ltrconv.data.letor.DocidWarning")
def test_width_given_pads_omitted_trailing_zero_features(tmp_path):
    # the sparse format omits zero features: a file whose last features are zero is narrower
    f = write(tmp_path, "1 qid:1 1:0.5 2:0.1\n0 qid:1 2:0.3\n")
    assert read_letor(f).X.shape == (2, 2)
    d = read_letor(f, n_features=4)
    np.testing.assert_array_equal(d.X, [[0.5, 0.1, 0, 0], [0, 0.3, 0, 0]])
    with pytest.raises(InputError, match=r"data.txt:2: feature index 2 is beyond the 1 features "
                                         r"of the model"):
        read_letor(write(tmp_path, "1 qid:1 1:0.5\n0 qid:1 2:0.3\n"), 1, "of the model")
    with pytest.raises(ValueError, match="n_features must be an integer"):
        read_letor(f, n_features=10**9)


def test_with_width_and_cached_load_name_the_file(tmp_path):
    d = read_letor(write(tmp_path, GOOD))
    assert d.with_width(3) is d
    np.testing.assert_array_equal(d.with_width(5).X[:, 3:], 0)
    d.save(tmp_path / "c.npz")
    assert Dataset.load(tmp_path / "c.npz", n_features=4).X.shape == (3, 4)
    with pytest.raises(InputError, match=r"c.npz: has 3 features, more than the 2 features "
                                         r"of the model"):
        Dataset.load(tmp_path / "c.npz", n_features=2, what="of the model")
    with pytest.raises(InputError, match=r"data.txt:1: feature index 3 is beyond the 2 features"):
        Dataset.load(tmp_path / "data.txt", n_features=2)


@pytest.mark.parametrize("odd", ["\f", "\u2028", "\u2029", "\x85", "\x1c", "\v"])
def test_odd_characters_in_comments_do_not_shift_line_numbers(tmp_path, odd):
    text = f"# header with {odd} inside\n0 qid:1 1:0.5 #docid = A{odd}B\n0 qid:1 1:x\n"
    with pytest.raises(InputError, match=r"data.txt:3: feature value in '1:x'"):
        read_letor(write(tmp_path, text))


@pytest.mark.parametrize("eol", ["\r\n", "\r"])
def test_crlf_and_cr_line_endings(tmp_path, eol):
    f = tmp_path / "data.txt"
    f.write_bytes(GOOD.replace("\n", eol).encode())
    d = read_letor(f)
    assert d.y.tolist() == [2, 0, 1] and d.docid.tolist() == ["GX01", "GX02", "GX03"]
    f.write_bytes(("0 qid:1 1:0.5" + eol + "0 qid:1 1:x" + eol).encode())
    with pytest.raises(InputError, match=r"data.txt:2: feature value in '1:x'"):
        read_letor(f)


def test_duplicate_docid_within_a_query_warns_with_file_and_lines(tmp_path):
    text = ("0 qid:1 1:0.5 #docid = A\n1 qid:1 1:0.3 #docid = B\n0 qid:1 1:0.2 #docid = A\n"
            "0 qid:2 1:0.2 #docid = A\n0 qid:2 1:0.1 #docid = B\n0 qid:2 1:0.1 #docid = B\n")
    with pytest.warns(DocidWarning) as record:
        d = read_letor(write(tmp_path, text))
    assert len(record) == 1
    msg = str(record[0].message)
    assert msg.startswith(f"{tmp_path / 'data.txt'}:3: docid A repeats within query 1 (first on line 1)")
    assert "2 docid(s) repeat within a query" in msg and "trec" in msg
    assert d.docid.tolist() == ["A", "B", "A", "A", "B", "B"]


def test_missing_docids_warn_and_distinct_ones_do_not(tmp_path):
    with pytest.warns(DocidWarning, match=r"data.txt:2: 2 of 3 documents have no '#docid"):
        read_letor(write(tmp_path, "0 qid:1 1:0.5 #docid = A\n0 qid:1 1:0.5\n1 qid:2 1:1\n"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # the same docid under different queries is normal (LETOR: one page, many queries)
        read_letor(write(tmp_path, "0 qid:1 1:0.5 #docid = A\n1 qid:2 1:0.5 #docid = A\n"))
        read_letor(write(tmp_path, GOOD))


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda b: b[:300], r"c.npz: not a dataset cache, or a truncated/corrupt one"),
        (lambda b: b[: len(b) // 2], r"c.npz: not a dataset cache, or a truncated/corrupt one"),
        (lambda b: b"", r"c.npz: not a dataset cache, or a truncated/corrupt one"),
        (lambda b: b"0 qid:1 1:0.5\n", r"c.npz: not a dataset cache"),
    ],
    ids=["truncated-300", "truncated-half", "empty", "text"],
)
def test_damaged_cache_is_one_clear_error(tmp_path, damage, message):
    read_letor(write(tmp_path, GOOD)).save(tmp_path / "c.npz")
    p = tmp_path / "c.npz"
    p.write_bytes(damage(p.read_bytes()))
    with pytest.raises(InputError, match=message):
        Dataset.load(p)


def test_cache_offsets_must_follow_the_qids(tmp_path):
    """Offsets [0, n] over 20 queries would merge them into one; the cache is refused instead."""
    d = make_letor(n_queries=20, seed=0)
    p = tmp_path / "c.npz"
    np.savez(p, X=d.X, y=d.y, qid=d.qid, offsets=np.array([0, d.n_docs]), docid=d.docid)
    with pytest.raises(InputError, match=r"c.npz: corrupt dataset cache: the query offsets "
                                         r"\(1 queries\) disagree with the qid vector \(20 queries\)"):
        Dataset.load(p)
    qid = d.qid.copy()
    qid[-1] = qid[0]  # the first query reappears at the end
    np.savez(p, X=d.X, y=d.y, qid=qid, offsets=offsets_from_qid(qid[:-1]).tolist()[:-1]
             + [d.n_docs - 1, d.n_docs], docid=d.docid)
    with pytest.raises(InputError, match=r"c.npz: corrupt dataset cache: documents of qid "):
        Dataset.load(p)
    d.save(p)
    assert Dataset.load(p).offsets.tolist() == d.offsets.tolist()


def test_cache_with_wrong_arrays_is_refused(tmp_path):
    d = read_letor(write(tmp_path, GOOD))
    p = tmp_path / "c.npz"
    np.savez(p, X=d.X, y=d.y, qid=d.qid, docid=d.docid)
    with pytest.raises(InputError, match=r"c.npz: not a dataset cache: no array\(s\) offsets"):
        Dataset.load(p)
    np.savez(p, X=d.X, y=d.y, qid=d.qid, offsets=np.array([0, 5]), docid=d.docid)
    with pytest.raises(InputError, match=r"c.npz: corrupt dataset cache: query offsets"):
        Dataset.load(p)
    np.savez(p, X=d.X, y=d.y + 10**6, qid=d.qid, offsets=d.offsets, docid=d.docid)
    with pytest.raises(InputError, match=r"c.npz: corrupt dataset cache: y must hold"):
        Dataset.load(p)
    np.savez(p, X=d.X, y=d.y, qid=d.qid + 0.5, offsets=d.offsets, docid=d.docid)
    with pytest.raises(InputError, match=r"c.npz: corrupt dataset cache: qid must hold integer "
                                         r"query ids, not float64"):
        Dataset.load(p)
    np.savez(p, X=d.X, y=d.y, qid=d.qid[:-1], offsets=d.offsets, docid=d.docid)
    with pytest.raises(InputError, match=r"c.npz: corrupt dataset cache: X has 3 rows, y 3, qid 2"):
        Dataset.load(p)
    with open(tmp_path / "one.npz", "wb") as fh:  # a bare .npy array under an .npz name
        np.save(fh, d.X)
    with pytest.raises(InputError, match=r"one.npz: not a dataset cache"):
        Dataset.load(tmp_path / "one.npz")


# --- the LETOR writer -------------------------------------------------------------------------
def _two_docs(X):
    return Dataset(X=X, y=np.array([2, 0]), qid=np.array([7, 7]), offsets=np.array([0, 2]),
                   docid=np.array(["a", "b"]))


def test_writer_formats_both_precisions(tmp_path):
    from ltrconv.data.writer import FLOAT32_EXACT, write_letor
    X = np.array([[0.1, 1 / 3], [2.5e-7, 12345.678901]], dtype=np.float32)
    write_letor(_two_docs(X), tmp_path / "six.txt")
    assert (tmp_path / "six.txt").read_text() == (
        "2 qid:7 1:0.100000 2:0.333333 #docid = a\n0 qid:7 1:0.000000 2:12345.678711 #docid = b\n")
    write_letor(_two_docs(X), tmp_path / "exact.txt", precision=FLOAT32_EXACT, docids=False)
    assert (tmp_path / "exact.txt").read_text() == (
        "2 qid:7 1:0.100000001 2:0.333333343\n0 qid:7 1:2.49999999e-07 2:12345.6787\n")


def test_writer_exact_precision_reads_back_every_float32(tmp_path):
    from ltrconv.data.synthetic import make_mslr_like
    from ltrconv.data.writer import FLOAT32_EXACT, write_letor
    d = make_mslr_like(3000, n_features=7, seed=3)
    write_letor(d, tmp_path / "a.txt", precision=FLOAT32_EXACT, docids=False, block=250)
    write_letor(d, tmp_path / "b.txt", precision=FLOAT32_EXACT, docids=False)
    assert (tmp_path / "a.txt").read_bytes() == (tmp_path / "b.txt").read_bytes()  # block-free
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DocidWarning)  # no docid comments, as in MSLR's files
        back = read_letor(tmp_path / "a.txt")
    assert np.array_equal(back.X.astype(np.float32), d.X) and np.array_equal(back.y, d.y)
    assert np.array_equal(back.qid, d.qid)
    six = make_letor(n_queries=12, n_features=5, seed=2)  # values with six decimals
    write_letor(six, tmp_path / "six.txt", block=7)
    again = read_letor(tmp_path / "six.txt")
    assert np.array_equal(again.X, six.X) and np.array_equal(again.docid, six.docid)


@pytest.mark.parametrize("bad", ["6", "%.6f", ".6d", ".100f", 6])
def test_writer_refuses_a_bad_precision_and_writes_nothing(tmp_path, bad):
    from ltrconv.data.writer import write_letor
    with pytest.raises(InputError, match="precision must be a format spec"):
        write_letor(make_letor(n_queries=2, seed=0), tmp_path / "d.txt", precision=bad)
    assert not list(tmp_path.iterdir())


def test_draw_validation_splits_by_query_with_a_seeded_permutation():
    from ltrconv.data.split import draw_validation, n_drawn

    data = make_letor(n_queries=21, n_features=3, seed=5)
    train, vali, drawn = draw_validation(data, 0.2, 4)
    order = data.query_ids
    want = order[np.random.default_rng(4).permutation(len(order))[:4]]  # round(0.2 x 21) = 4
    assert list(drawn) == list(want) and n_drawn(21, 0.2) == 4
    assert set(vali.query_ids) == set(drawn) and not set(vali.query_ids) & set(train.query_ids)
    assert train.n_docs + vali.n_docs == data.n_docs
    # each query keeps its rows, in file order
    for part in (train, vali):
        for i, q in enumerate(part.query_ids):
            j = list(order).index(q)
            rows = slice(data.offsets[j], data.offsets[j + 1])
            np.testing.assert_array_equal(part.X[part.offsets[i]:part.offsets[i + 1]], data.X[rows])
    assert list(draw_validation(data, 0.2, 4)[2]) == list(drawn)  # same seed, same draw
    assert n_drawn(3, 0.01) == 1 and n_drawn(3, 0.99) == 2  # both splits keep a query
    with pytest.raises(InputError, match="at least two training queries"):
        draw_validation(split(data, np.array([0])), 0.5, 0)


def test_queries_numbered_by_sizes_are_not_compared_across_files_and_follow_in_one_cache(tmp_path):
    """Files without qids number their queries 1, 2, ... each: two files' query 1 are not one
    query, so check_disjoint leaves such a pair unchecked (saying so) and ``after`` shifts the
    numbers past those before them in the whole dataset's cache, which then reads back."""
    from ltrconv.data.split import after, check_disjoint, draw_validation

    paths = {}
    for split_name, text, sizes in (("train", "1 1:1\n0 1:2\n2 1:3\n0 1:4\n1 1:5\n", "2\n1\n2\n"),
                                    ("test", "1 1:6\n0 1:7\n", "1\n1\n")):
        paths[split_name] = tmp_path / f"{split_name}.txt"
        paths[split_name].write_text(text)
        (tmp_path / f"{split_name}.txt.query").write_text(sizes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DocidWarning)
        fold = {s: read_letor(p) for s, p in paths.items()}
    assert fold["train"].groups == f"{paths['train']}.query" and fold["test"].qid.tolist() == [1, 2]
    fold["train"], fold["vali"], drawn = draw_validation(fold["train"], 0.34, 1)
    assert fold["vali"].groups == fold["train"].groups  # drawn from the same file's numbers
    notes = check_disjoint(fold, {**paths, "vali": "the drawn queries"})
    assert notes == [f"test and {s} not checked for shared queries: their queries are numbered "
                     f"by {paths['train']}.query and {paths['test']}.query, not named by qids"
                     for s in ("train", "vali")]
    # vali and train share one numbering: a query in both is refused
    clash = {**fold, "vali": replace(fold["vali"], qid=np.full(fold["vali"].n_docs,
                                                              fold["train"].qid[0]))}
    with pytest.raises(InputError, match="1 vali query also in"):
        check_disjoint(clash, {**paths, "vali": "the drawn queries"})
    parts = [fold["train"], fold["vali"]]
    full = Dataset.concat(parts + [after(fold["test"], parts)])
    assert sorted(set(full.qid[:5].tolist())) == [1, 2, 3] and full.qid[5:].tolist() == [4, 5]
    full.save(tmp_path / "all.npz")
    assert Dataset.load(tmp_path / "all.npz").qid.tolist() == full.qid.tolist()
    # qids read from a file are kept, and files with qids are all compared
    with_qids = {s: read_letor(write(tmp_path, f"1 qid:{q} 1:1 #docid = a\n", f"{s}.q"))
                 for s, q in (("train", 9), ("vali", 8), ("test", 7))}
    assert after(with_qids["test"], parts) is with_qids["test"]
    assert check_disjoint(with_qids, {s: s for s in with_qids}) == []
