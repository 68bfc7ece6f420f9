"""Input files a hostile user gives: compressed, not regular, forged caches."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import zipfile

import numpy as np
import pytest

from ltrconv.data.letor import Dataset, read_letor, read_scores
from ltrconv.data.synthetic import make_letor, write_letor
from ltrconv.errors import InputError


@pytest.fixture
def letor_file(tmp_path):
    data = make_letor(n_queries=6, n_features=4, seed=3)
    path = tmp_path / "train.txt"
    write_letor(data, path)
    return path


@pytest.mark.parametrize("compress,suffix", [(gzip.compress, ".gz"), (bz2.compress, ".bz2"),
                                             (lzma.compress, ".xz")])
def test_compressed_letor_reads_as_plain(letor_file, tmp_path, compress, suffix):
    packed = tmp_path / f"train.txt{suffix}"
    packed.write_bytes(compress(letor_file.read_bytes()))
    a, b = read_letor(letor_file), read_letor(packed)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert np.array_equal(a.qid, b.qid) and list(a.docid) == list(b.docid)


def test_compressed_scores(tmp_path):
    path = tmp_path / "s.txt.gz"
    path.write_bytes(gzip.compress(b"0.5\n-1\n2e3\n"))
    assert read_scores(path, 3).tolist() == [0.5, -1.0, 2000.0]


def test_truncated_gzip_names_the_file(letor_file, tmp_path):
    packed = tmp_path / "cut.txt.gz"
    packed.write_bytes(gzip.compress(letor_file.read_bytes())[:-20])
    with pytest.raises(InputError, match=r"cut\.txt\.gz: cannot decompress \(gzip\)"):
        read_letor(packed)


@pytest.mark.parametrize("pack", [gzip.compress, bz2.compress, lzma.compress])
def test_compressed_zeros_stop_at_the_first_block(tmp_path, pack):
    # a few hundred kilobytes that decompress to gigabytes of NUL bytes were decompressed
    # whole (2.1 GB for 4.6 MB of gzip) before the parser refused the first line
    bomb = tmp_path / "bomb.txt.gz"
    bomb.write_bytes(pack(b"0 qid:1 1:0.5\n" + bytes(40_000_000)))
    with pytest.raises(InputError, match=r"bomb.txt.gz: not a text file: a NUL byte at byte "
                                         r"14 of its decompressed content"):
        read_letor(bomb)


@pytest.mark.parametrize("reader", [read_letor, read_scores, Dataset.load])
def test_fifo_is_refused_without_waiting(tmp_path, reader):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="pipe.txt: is a FIFO"):
        reader(fifo)


def test_device_is_refused(tmp_path):
    link = tmp_path / "zero.npz"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputError, match="is a device"):
        Dataset.load(link)


def _cache(tmp_path):
    data = make_letor(n_queries=4, n_features=3, seed=1)
    path = tmp_path / "d.npz"
    data.save(path)
    return data, path


def test_text_file_named_npz(tmp_path):
    path = tmp_path / "x.npz"
    path.write_text("1 qid:1 1:0.5\n")
    with pytest.raises(InputError, match="not a zip archive|is not \\(a LETOR text file"):
        Dataset.load(path)
    with pytest.raises(InputError) as err:
        Dataset.load(path)
    assert "delete" not in str(err.value)


def test_forged_header_is_refused_before_allocating(tmp_path):
    """A member whose header claims 10^6 x 10^6 float64 (7.28 TiB) in a few bytes."""
    _, path = _cache(tmp_path)
    forged = tmp_path / "forged.npz"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(forged, "w") as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == "X.npy":
                head = io.BytesIO()
                np.lib.format.write_array_header_1_0(
                    head, {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)})
                body = head.getvalue() + b"\0" * 64
            dst.writestr(info.filename, body)
    with pytest.raises(InputError, match=r"corrupt dataset cache: member 'X.npy' declares"):
        Dataset.load(forged)


def test_compressed_member_is_refused(tmp_path):
    """A zip bomb: a small file that would decompress to far more than its size."""
    bomb = tmp_path / "bomb.npz"
    with open(bomb, "wb") as fh:
        np.savez_compressed(fh, X=np.zeros((2000, 1000)), y=np.zeros(2000, dtype=np.int64),
                            qid=np.ones(2000, dtype=np.int64), offsets=np.array([0, 2000]),
                            docid=np.array(["d"] * 2000))
    assert bomb.stat().st_size < 100_000
    with pytest.raises(InputError, match="is compressed"):
        Dataset.load(bomb)


def test_saved_cache_still_loads(tmp_path):
    data, path = _cache(tmp_path)
    back = Dataset.load(path)
    assert np.array_equal(back.X, data.X) and np.array_equal(back.y, data.y)


def test_long_source_name_is_cut(tmp_path):
    data = make_letor(n_queries=3, n_features=2, seed=2)
    data = Dataset(X=data.X, y=data.y, qid=data.qid, offsets=data.offsets, docid=data.docid,
                   source="s" * 100_000)
    path = tmp_path / "long.npz"
    data.save(path)
    assert len(Dataset.load(path).source) <= 1000


def test_evaluation_reads_no_features(tmp_path):
    """A 3-line file naming feature 100000: the features are checked, not held densely."""
    path = tmp_path / "wide.txt"
    path.write_text("1 qid:1 1:0.5 100000:1 #docid = a\n0 qid:1 2:1 #docid = b\n"
                    "0 qid:2 7:1 #docid = c\n")
    data = Dataset.load(path, features=False)
    assert data.X.shape == (3, 0) and data.y.tolist() == [1, 0, 0]
    assert read_letor(path).X.shape == (3, 100_000)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 qid:1 1:0.5 #docid = a\n0 qid:1 2:nan #docid = b\n")
    with pytest.raises(InputError, match=r"bad.txt:2: feature value in '2:nan' is not finite"):
        Dataset.load(bad, features=False)


def test_a_line_with_too_many_tokens_is_refused_before_splitting(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("0 qid:1 1:0\n1 qid:1 " + "1:0 " * 100_001 + "\n")
    with pytest.raises(InputError, match=r"long.txt:2: 100001 feature tokens on one line"):
        read_letor(path)
