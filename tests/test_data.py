"""Reading LETOR files: the data, the docids, and one clear error per kind of bad input."""

import numpy as np
import pytest

from ltrconv.data import Dataset, read_letor, read_scores
from ltrconv.errors import InputError

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
]


@pytest.mark.parametrize("text, message", BAD, ids=[m.split(": ", 1)[-1][:25] for _, m in BAD])
def test_bad_input_names_file_and_line(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_letor(write(tmp_path, text))


def test_scores_file_checks(tmp_path):
    assert read_scores(write(tmp_path, "0.5\n-1e3\n", "s.txt"), 2).tolist() == [0.5, -1000.0]
    with pytest.raises(InputError, match="s.txt: has 2 score lines but the data has 3 documents"):
        read_scores(write(tmp_path, "0.5\n0.1\n", "s.txt"), 3)
    with pytest.raises(InputError, match=r"s.txt:2: score 'nan' is not finite"):
        read_scores(write(tmp_path, "0.5\nnan\n", "s.txt"), 2)
    with pytest.raises(InputError, match=r"s.txt:1: score 'abc' is not a number"):
        read_scores(write(tmp_path, "abc\n", "s.txt"), 1)


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
