"""Dataset acquisition from archives: .zip, .tar.gz and .rar extracted and verified, broken
archives refused, no half extraction left behind."""

from __future__ import annotations

import pytest

from ltrconv import errors
from ltrconv.data import acquire as A
from ltrconv.data import archives

from acquire_helpers import LAYOUT, make_copy, pack, quiet, source, zip_dir


@pytest.fixture
def copy(tmp_path):
    return make_copy(tmp_path / "src" / "DS")


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_archive_extracted_and_verified(copy, tmp_path, kind):
    archive = pack(copy, tmp_path / f"DS.{kind}")
    dest = tmp_path / "res" / "data"
    A.acquire(source(local=str(archive), archive_root="DS"), dest, tmp_path / "work", log=quiet)
    assert (dest / "Fold2" / "vali.txt").read_bytes() == (copy / "Fold2" / "vali.txt").read_bytes()


def test_rar_unpacked_without_system_tools(copy, tmp_path, monkeypatch):
    if archives._python_rar_reader() is None:
        pytest.skip(f"the {archives.RAR_PACKAGE} package (a dependency) is not installed")
    monkeypatch.setattr(A.shutil, "which", lambda name: None)  # no bsdtar, no unar
    archive = pack(copy, tmp_path / "DS.rar")
    dest = tmp_path / "res" / "data"
    manifest, _ = A.acquire(source(local=str(archive)), dest, tmp_path / "work", log=quiet)
    assert [m["verified_by"] for m in manifest] == ["sha256"] * len(LAYOUT.files())
    for rel in LAYOUT.files():
        assert (dest / rel).read_bytes() == (copy / rel).read_bytes()
    blob = bytearray(archive.read_bytes())
    blob[len(blob) // 2] ^= 0xFF  # one byte of a member's data: its CRC no longer matches
    archive.write_bytes(bytes(blob))
    with pytest.raises(errors.AcquireError, match="corrupt or truncated rar archive"):
        A.acquire(source(local=str(archive)), tmp_path / "res2" / "data", tmp_path / "work2",
                  log=quiet)
    assert not (tmp_path / "res2").exists() or list((tmp_path / "res2").iterdir()) == []
    assert list((tmp_path / "work2").iterdir()) == []


def test_archive_root_found_without_hint(copy, tmp_path):
    archive = zip_dir(copy, tmp_path / "DS.zip", prefix="deep/er")
    dest = tmp_path / "res" / "data"
    A.acquire(source(local=str(archive)), dest, tmp_path / "work", log=quiet)
    assert (dest / "Fold1" / "train.txt").is_file()


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_truncated_archive_rejected(copy, tmp_path, kind):
    archive = pack(copy, tmp_path / f"DS.{kind}")
    blob = archive.read_bytes()
    archive.write_bytes(blob[: len(blob) // 2])
    dest = tmp_path / "res" / "data"
    with pytest.raises(errors.AcquireError, match="corrupt or truncated"):
        A.acquire(source(local=str(archive)), dest, tmp_path / "work", log=quiet)
    assert not dest.exists()
    assert not (tmp_path / "work").exists() or list((tmp_path / "work").iterdir()) == []


def test_archive_sha_mismatch(copy, tmp_path):
    archive = zip_dir(copy, tmp_path / "DS.zip")
    with pytest.raises(errors.AcquireError, match="archive_sha256"):
        A.acquire(source(local=str(archive), archive_sha256="f" * 64), tmp_path / "d",
                  tmp_path / "work", log=quiet)


def test_rar_without_any_extractor_names_the_ways(tmp_path, monkeypatch):
    monkeypatch.setattr(A.shutil, "which", lambda name: None)
    monkeypatch.setattr(archives, "_python_rar_reader", lambda: None)
    archive = tmp_path / "DS.rar"
    archive.write_bytes(b"Rar!\x1a\x07\x00")
    with pytest.raises(errors.ExtractorMissing, match="unrar2-cffi.*bsdtar.*unar.*libarchive-tools"):
        archives.extract(archive, tmp_path / "x")
    assert list(tmp_path.iterdir()) == [archive]


def test_stale_half_extractions_are_cleaned(copy, tmp_path):
    work, dest = tmp_path / "work", tmp_path / "res" / "data"
    stale = [work / ".extract.abc.part", dest.parent / ".data.xyz.part"]
    for d in stale:
        (d / "Fold1").mkdir(parents=True)
        (d / "Fold1" / "train.txt").write_text("half\n")
    A.acquire(source(local=str(copy)), dest, work, log=quiet)
    assert not any(d.exists() for d in stale)
