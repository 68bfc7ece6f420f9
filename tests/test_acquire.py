"""Dataset acquisition: verification, extraction, local copies, downloads, clear failures."""

from __future__ import annotations

import http.server
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest

from ltrconv import acquire as A
from ltrconv.synthetic import make_letor, write_letor

LAYOUT = A.Layout(n_folds=2)


def make_copy(root: Path, sums: bool = True) -> Path:
    """A two-fold LETOR directory with a SHA256SUMS file."""
    data = make_letor(n_queries=12, n_features=4, seed=3)
    write_letor(data, root / "all.txt")
    text = (root / "all.txt").read_text().splitlines(keepends=True)
    (root / "all.txt").unlink()
    half = len(text) // 2
    for k in (1, 2):
        for split in ("train", "vali", "test"):
            path = root / f"Fold{k}" / f"{split}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(text[:half] if split == "train" else text[half:]))
    if sums:
        (root / A.SUMS_FILE).write_text(
            "".join(f"{A.sha256_file(root / f)}  {f}\n" for f in LAYOUT.files())
        )
    return root


@pytest.fixture
def copy(tmp_path):
    return make_copy(tmp_path / "src" / "DS")


def source(**kw) -> A.Source:
    kw.setdefault("name", "DS")
    kw.setdefault("layout", LAYOUT)
    return A.Source(**kw)


def test_verify_reads_sums_and_counts(copy):
    manifest = A.verify(copy, LAYOUT)
    assert [m["file"] for m in manifest] == LAYOUT.files()
    assert all(m["checked"] for m in manifest)
    assert all(m["rows"] > 0 and m["queries"] > 0 for m in manifest)


def test_sha_mismatch_detected_and_not_published(copy, tmp_path):
    path = copy / "Fold2" / "test.txt"
    path.write_text(path.read_text()[:-40])  # truncated file, stale SHA256SUMS
    dest = tmp_path / "out" / "data"
    with pytest.raises(A.AcquireError, match=r"Fold2/test.txt has SHA-256 .*corrupt or truncated"):
        A.acquire(source(local=str(copy)), dest, tmp_path / "work", log=lambda m: None)
    assert not dest.exists()


def test_config_sha_overrides_sums_file(copy):
    bad = {f: "0" * 64 for f in LAYOUT.files()}
    with pytest.raises(A.AcquireError, match="config sha256"):
        A.verify(copy, LAYOUT, sha256=bad)


def test_expected_counts_checked(copy):
    rows = sum(A.count_rows_queries(copy / f)[0] for f in LAYOUT.files()[:3])
    A.verify(copy, LAYOUT, expect={"rows": rows})
    with pytest.raises(A.AcquireError, match=r"fold 1 has \d+ rows in total, expect.rows is"):
        A.verify(copy, LAYOUT, expect={"rows": rows + 1})


@pytest.mark.parametrize("mode", ["symlink", "copy"])
def test_local_directory_published(copy, tmp_path, mode):
    dest = tmp_path / "res" / "data"
    manifest, origin = A.acquire(source(local=str(copy), link=mode), dest, tmp_path / "work",
                                 log=lambda m: None)
    assert origin == str(copy)
    for rel in LAYOUT.files():
        assert (dest / rel).read_bytes() == (copy / rel).read_bytes()
        assert (dest / rel).is_symlink() == (mode == "symlink")
    assert len(manifest) == len(LAYOUT.files())


def test_search_paths_used_in_order(copy, tmp_path):
    dest = tmp_path / "res" / "data"
    _, origin = A.acquire(source(search=[str(tmp_path / "absent"), str(copy)]), dest,
                          tmp_path / "work", log=lambda m: None)
    assert origin == str(copy)


def zip_dir(src: Path, archive: Path, prefix: str = "DS") -> Path:
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(src.rglob("*")):
            if path.is_file():
                zf.write(path, f"{prefix}/{path.relative_to(src)}")
    return archive


def pack(src: Path, archive: Path) -> Path:
    """src as DS/… in a .zip or .tar.gz, by the archive's name."""
    if archive.name.endswith(".zip"):
        return zip_dir(src, archive)
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(src, arcname="DS")
    return archive


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_archive_extracted_and_verified(copy, tmp_path, kind):
    archive = pack(copy, tmp_path / f"DS.{kind}")
    dest = tmp_path / "res" / "data"
    A.acquire(source(local=str(archive), archive_root="DS"), dest, tmp_path / "work",
              log=lambda m: None)
    assert (dest / "Fold2" / "vali.txt").read_bytes() == (copy / "Fold2" / "vali.txt").read_bytes()


def test_archive_root_found_without_hint(copy, tmp_path):
    archive = zip_dir(copy, tmp_path / "DS.zip", prefix="deep/er")
    dest = tmp_path / "res" / "data"
    A.acquire(source(local=str(archive)), dest, tmp_path / "work", log=lambda m: None)
    assert (dest / "Fold1" / "train.txt").is_file()


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_truncated_archive_rejected(copy, tmp_path, kind):
    archive = pack(copy, tmp_path / f"DS.{kind}")
    blob = archive.read_bytes()
    archive.write_bytes(blob[: len(blob) // 2])
    dest = tmp_path / "res" / "data"
    with pytest.raises(A.AcquireError, match="corrupt or truncated"):
        A.acquire(source(local=str(archive)), dest, tmp_path / "work", log=lambda m: None)
    assert not dest.exists()
    assert not (tmp_path / "work").exists() or list((tmp_path / "work").iterdir()) == []


def test_archive_sha_mismatch(copy, tmp_path):
    archive = zip_dir(copy, tmp_path / "DS.zip")
    with pytest.raises(A.AcquireError, match="archive_sha256"):
        A.acquire(source(local=str(archive), archive_sha256="f" * 64), tmp_path / "d",
                  tmp_path / "work", log=lambda m: None)


def test_rar_without_tools_names_them(tmp_path, monkeypatch):
    monkeypatch.setattr(A.shutil, "which", lambda name: None)
    archive = tmp_path / "DS.rar"
    archive.write_bytes(b"Rar!\x1a\x07\x00")
    with pytest.raises(A.AcquireError, match="bsdtar.*unar.*libarchive-tools"):
        A.extract(archive, tmp_path / "x")
    assert list(tmp_path.iterdir()) == [archive]


def test_offline_message_names_config_key(tmp_path):
    src = source(name="MQ2008", urls=["http://127.0.0.1:9/MQ2008.rar"],
                 search=[str(tmp_path / "nowhere")], config_key="datasets.MQ2008")
    with pytest.raises(A.AcquireError, match=r"Set config key datasets\.MQ2008\.local") as exc:
        A.acquire(src, tmp_path / "d", tmp_path / "w", offline=True, log=lambda m: None)
    assert "offline" in str(exc.value)


def test_atomic_manifest(tmp_path):
    path = tmp_path / "m.tsv"
    A.write_manifest([{"file": "a", "sha256": "x", "checked": True, "rows": 1, "queries": 1}],
                     path, "here")
    assert path.read_text().splitlines()[1:] == ["file\tsha256\tchecked\trows\tqueries",
                                                 "a\tx\ttrue\t1\t1"]
    assert [p.name for p in tmp_path.iterdir()] == ["m.tsv"]


# ---- downloads from a local HTTP server ------------------------------------------------------
class _Handler(http.server.BaseHTTPRequestHandler):
    payload = b""
    cut = None  # serve only this many bytes of the body, claiming the full length

    def do_GET(self):  # noqa: N802
        body, status = self.payload, 200
        rng = self.headers.get("Range")
        if rng:
            start = int(rng.split("=")[1].split("-")[0])
            body, status = body[start:], 206
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: self.cut] if self.cut is not None else body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    _Handler.cut = None


def test_download_verified(server, tmp_path):
    _Handler.payload = b"x" * 5000
    url = f"http://127.0.0.1:{server.server_port}/DS.zip"
    sha = A.hashlib.sha256(_Handler.payload).hexdigest()
    out = A.download([url], tmp_path / "DS.zip", sha256=sha, retries=1, log=lambda m: None)
    assert out.read_bytes() == _Handler.payload
    assert sorted(p.name for p in tmp_path.iterdir()) == ["DS.zip"]


def test_download_sha_mismatch_leaves_nothing(server, tmp_path):
    _Handler.payload = b"y" * 3000
    url = f"http://127.0.0.1:{server.server_port}/DS.zip"
    with pytest.raises(A.AcquireError, match="SHA-256"):
        A.download([url], tmp_path / "DS.zip", sha256="0" * 64, retries=1, log=lambda m: None)
    assert list(tmp_path.iterdir()) == []


def test_truncated_download_resumed(server, tmp_path):
    _Handler.payload = bytes(range(256)) * 40
    _Handler.cut = 4000  # the first response stops early
    url = f"http://127.0.0.1:{server.server_port}/DS.zip"
    with pytest.raises(A.AcquireError, match=r"got 4000 of 10240 bytes"):
        A.download([url], tmp_path / "DS.zip", retries=1, backoff=0, log=lambda m: None)
    assert not (tmp_path / "DS.zip").exists()
    assert (tmp_path / "DS.zip.part").stat().st_size == 4000
    _Handler.cut = None
    out = A.download([url], tmp_path / "DS.zip", retries=1, log=lambda m: None)
    assert out.read_bytes() == _Handler.payload  # resumed with a Range request


def test_unusable_download_is_removed(server, tmp_path):
    _Handler.payload = b"<html>not an archive</html>"
    url = f"http://127.0.0.1:{server.server_port}/DS.zip"
    work = tmp_path / "work"
    with pytest.raises(A.AcquireError, match="removed the downloaded"):
        A.acquire(source(urls=[url]), tmp_path / "data", work, log=lambda m: None)
    assert not (work / "download" / "DS.zip").exists()
    assert not (tmp_path / "data").exists()
