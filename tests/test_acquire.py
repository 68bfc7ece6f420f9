"""Dataset acquisition: verification, extraction, local copies, downloads, clear failures.

The downloads are real: a local HTTP server on 127.0.0.1 serves the archives, including the
MQ2008 copy beside the checkout packed as a .zip and a .tar.gz (those tests skip without it).
"""

from __future__ import annotations

import hashlib
import http.server
import os
import re
import shutil
import socket
import struct
import sys
import subprocess
import tarfile
import threading
import time
import zipfile
import zlib
from pathlib import Path

import pytest
import yaml

from ltrconv import errors
from ltrconv.data import acquire as A
from ltrconv.data import archives, download, verify
from ltrconv.data.synthetic import make_letor, write_letor

REPO = Path(__file__).resolve().parents[1]
LAYOUT = verify.Layout(n_folds=2)


def quiet(msg: str) -> None:
    pass


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
        (root / verify.SUMS_FILE).write_text(
            "".join(f"{verify.sha256_file(root / f)}  {f}\n" for f in LAYOUT.files())
        )
    return root


@pytest.fixture
def copy(tmp_path):
    return make_copy(tmp_path / "src" / "DS")


def source(**kw) -> A.Source:
    kw.setdefault("name", "DS")
    kw.setdefault("layout", LAYOUT)
    return A.Source(**kw)


def digests(root: Path, layout: verify.Layout = LAYOUT) -> tuple[dict, dict]:
    """(byte SHA-256, content digest) of each fold file of ``root``."""
    return ({f: verify.sha256_file(root / f) for f in layout.files()},
            {f: verify.content_sha256(root / f) for f in layout.files()})


def crlf(data: bytes) -> bytes:
    """The same lines with CRLF endings and trailing blanks, as another mirror might write."""
    return b"".join(line.rstrip(b"\n") + b"  \r\n" for line in data.splitlines(keepends=True))


def relabel_first_line(data: bytes) -> bytes:
    """One label changed (the first line's), everything else byte for byte the same."""
    first, rest = data.split(b"\n", 1)
    label, tail = first.split(b" ", 1)
    return (b"1" if label != b"1" else b"2") + b" " + tail + b"\n" + rest


# ---- verification -------------------------------------------------------------------------
def test_verify_reads_sums_and_counts(copy):
    manifest = verify.verify(copy, LAYOUT)
    assert [m["file"] for m in manifest] == LAYOUT.files()
    assert all(m["checked"] and m["verified_by"] == "sha256" for m in manifest)
    assert all(m["rows"] > 0 and m["queries"] > 0 for m in manifest)


def test_sha_mismatch_detected_and_not_published(copy, tmp_path):
    path = copy / "Fold2" / "test.txt"
    path.write_text(path.read_text()[:-40])  # truncated file, stale SHA256SUMS
    dest = tmp_path / "out" / "data"
    with pytest.raises(errors.AcquireError, match=r"refused Fold2/test.txt .*matches neither"):
        A.acquire(source(local=str(copy)), dest, tmp_path / "work", log=quiet)
    assert not dest.exists()


def test_config_sha_overrides_sums_file(copy):
    bad = {f: "0" * 64 for f in LAYOUT.files()}
    with pytest.raises(errors.AcquireError, match="config sha256 expects 0{64}"):
        verify.verify(copy, LAYOUT, sha256=bad)


def test_expected_counts_checked(copy):
    rows = sum(verify.count_rows_queries(copy / f)[0] for f in LAYOUT.files()[:3])
    verify.verify(copy, LAYOUT, expect={"rows": rows})
    with pytest.raises(errors.AcquireError, match=r"fold 1 has \d+ rows in total, expect.rows is"):
        verify.verify(copy, LAYOUT, expect={"rows": rows + 1})


def test_content_digest_ignores_form_not_substance(tmp_path):
    line = b"2 qid:7 1:0.500000 2:0 3:1.000000 #docid = GX1-2 inc = 1 prob = 0.25\n"
    other = b"0 qid:7 1:0.1 2:0.2 3:0.3 #docid = GX3-4 inc = 0 prob = 0.5\n"
    base = line + other

    def digest(data: bytes) -> str:
        path = tmp_path / "f.txt"
        path.write_bytes(data)
        return verify.content_sha256(path)

    want = digest(base)
    same = [crlf(base), base.replace(b"\n", b"\r"), b"\n" + base + b"\n\n",
            base.replace(b"1:0.500000", b"1:0.5").replace(b"2:0 ", b"2:0.000 "),
            base.replace(b" 3:", b"\t3:"), base.replace(b"prob = 0.25", b"prob = 0.3")]
    for variant in same:
        assert digest(variant) == want, variant
    changed = [base.replace(b"2 qid", b"1 qid"), base.replace(b"qid:7 1:0.5", b"qid:8 1:0.5"),
               base.replace(b"3:0.3", b"3:0.31"), base.replace(b"GX3-4", b"GX3-5"),
               base.replace(b"2:0.2 ", b""), other + line]
    for variant in changed:
        assert digest(variant) != want, variant
    with pytest.raises(errors.AcquireError, match=r"f\.txt:2: every feature must read INDEX:VALUE"):
        digest(line + b"0 qid:7 1:0.1 2 3:0.3\n")
    with pytest.raises(errors.AcquireError, match=r"f\.txt: a feature index or value is not a number"):
        digest(line + b"0 qid:7 1:0.1 2:NULL 3:0.3\n")


def test_content_digest_accepts_a_reformatted_copy(copy, tmp_path):
    sha, content = digests(copy)
    other = tmp_path / "mirror" / "DS"
    for rel in LAYOUT.files():
        (other / rel).parent.mkdir(parents=True, exist_ok=True)
        (other / rel).write_bytes(crlf((copy / rel).read_bytes()))
    manifest = verify.verify(other, LAYOUT, sha, content=content)
    assert [m["verified_by"] for m in manifest] == ["content"] * len(LAYOUT.files())
    assert [m["content_sha256"] for m in manifest] == [content[f] for f in LAYOUT.files()]
    assert all(m["sha256"] != sha[m["file"]] for m in manifest)
    # the original still matches by bytes, and the content digest is then not needed
    assert {m["verified_by"] for m in verify.verify(copy, LAYOUT, sha, content=content)} == {"sha256"}


def test_file_matching_neither_digest_is_refused_with_both(copy, tmp_path):
    sha, content = digests(copy)
    path = copy / "Fold1" / "vali.txt"
    path.write_bytes(relabel_first_line(path.read_bytes()))
    with pytest.raises(errors.AcquireError) as exc:
        verify.verify(copy, LAYOUT, sha, content=content, origin="http://mirror.example/DS.zip")
    msg = str(exc.value)
    assert "refused Fold1/vali.txt (from http://mirror.example/DS.zip)" in msg
    assert verify.sha256_file(path) in msg and sha["Fold1/vali.txt"] in msg
    assert verify.content_sha256(path) in msg and content["Fold1/vali.txt"] in msg


# ---- local copies and archives ------------------------------------------------------------
@pytest.mark.parametrize("mode", ["symlink", "copy"])
def test_local_directory_published(copy, tmp_path, mode):
    dest = tmp_path / "res" / "data"
    manifest, origin = A.acquire(source(local=str(copy), link=mode), dest, tmp_path / "work",
                                 log=quiet)
    assert origin == str(copy)
    for rel in LAYOUT.files():
        assert (dest / rel).read_bytes() == (copy / rel).read_bytes()
        assert (dest / rel).is_symlink() == (mode == "symlink")
    assert len(manifest) == len(LAYOUT.files())


def test_search_paths_used_in_order(copy, tmp_path):
    dest = tmp_path / "res" / "data"
    _, origin = A.acquire(source(search=[str(tmp_path / "absent"), str(copy)]), dest,
                          tmp_path / "work", log=quiet)
    assert origin == str(copy)


def zip_dir(src: Path, archive: Path, prefix: str = "DS", files: list[str] | None = None,
            edit=None) -> Path:
    """``src`` (or just ``files`` of it) as ``prefix/...`` in a zip; ``edit(rel, bytes)``
    may change a member on the way."""
    names = files if files is not None else sorted(
        str(p.relative_to(src)) for p in src.rglob("*") if p.is_file())
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for rel in names:
            data = (src / rel).read_bytes()
            zf.writestr(f"{prefix}/{rel}", edit(rel, data) if edit else data)
    return archive


def pack(src: Path, archive: Path, prefix: str = "DS", files: list[str] | None = None) -> Path:
    """src as ``prefix/...`` in a .zip, .tar.gz or .rar, by the archive's name."""
    if archive.name.endswith(".zip"):
        return zip_dir(src, archive, prefix, files)
    names = files if files is not None else sorted(
        str(p.relative_to(src)) for p in src.rglob("*") if p.is_file())
    if archive.name.endswith(".rar"):
        archive.write_bytes(rar_store([(f"{prefix}/{rel}", (src / rel).read_bytes())
                                       for rel in names]))
        return archive
    with tarfile.open(archive, "w:gz", compresslevel=1) as tf:
        for rel in names:
            tf.add(src / rel, arcname=f"{prefix}/{rel}")
    return archive


def rar_store(members: list[tuple[str, bytes]]) -> bytes:
    """A RAR 2.9 archive holding ``members`` uncompressed ("store" method).

    Blocks are CRC16 (low half of CRC-32), type, flags, size; a file block carries packed
    and unpacked size, host OS (3 = Unix), CRC-32 of the data, DOS time, version, method
    0x30, name length and attributes, then the name and the data."""
    def block(kind: int, flags: int, body: bytes) -> bytes:
        head = struct.pack("<BHH", kind, flags, 7 + len(body)) + body
        return struct.pack("<H", zlib.crc32(head) & 0xFFFF) + head

    out = b"Rar!\x1a\x07\x00" + block(0x73, 0, bytes(6))
    for name, data in members:
        raw = name.encode()
        body = struct.pack("<IIBIIBBHI", len(data), len(data), 3, zlib.crc32(data),
                           0x21 << 16, 20, 0x30, len(raw), 0o100644) + raw
        out += block(0x74, 0x8000, body) + data
    return out


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


def test_offline_message_names_places_urls_and_ways_out(tmp_path):
    (tmp_path / "empty" / "Fold1").mkdir(parents=True)
    (tmp_path / "empty" / "Fold1" / "train.txt").write_text("0 qid:1 1:0\n")
    src = source(name="MQ2008", urls=["http://127.0.0.1:9/MQ2008.zip", "http://x.invalid/M.rar"],
                 search=[str(tmp_path / "nowhere"), str(tmp_path / "empty")],
                 config_key="datasets.MQ2008", page="https://example.org/letor4")
    with pytest.raises(errors.AcquireError) as exc:
        A.acquire(src, tmp_path / "d", tmp_path / "w", offline=True, log=quiet)
    msg = str(exc.value)
    assert "offline is true" in msg
    assert f"{tmp_path / 'nowhere'}: absent" in msg
    assert f"{tmp_path / 'empty'}: unusable: dataset MQ2008: {tmp_path / 'empty'} lacks 5" in msg
    assert "http://127.0.0.1:9/MQ2008.zip" in msg and "http://x.invalid/M.rar" in msg
    assert "Set config key datasets.MQ2008.local to a directory holding Fold1/train.txt" in msg
    # the command shown works: snakemake --config cannot set datasets.MQ2008.local
    echo = next(line for line in msg.splitlines() if "> local.yaml" in line)
    assert yaml.safe_load(echo.split("'")[1]) == {"datasets": {"MQ2008": {"local": "/path/to/MQ2008"}}}
    assert "       snakemake --cores 2 --configfile local.yaml" in msg.splitlines()
    assert "Download the archive by hand from https://example.org/letor4" in msg
    assert not (tmp_path / "w").exists() and not (tmp_path / "d").exists()


def test_atomic_manifest(tmp_path):
    path = tmp_path / "m.tsv"
    verify.write_manifest([{"file": "a", "sha256": "x", "checked": True, "rows": 1, "queries": 1,
                       "verified_by": "content", "content_sha256": "y"},
                      {"file": "b", "sha256": "z", "checked": True, "rows": 2, "queries": 1,
                       "verified_by": "sha256", "size": 10, "mtime_ns": 20, "ctime_ns": 30}],
                     path, "here")
    assert path.read_text().splitlines() == [
        "# origin: here",
        "file\tsha256\tchecked\trows\tqueries\tverified_by\tcontent_sha256\tsize\tmtime_ns\tctime_ns",
        "a\tx\ttrue\t1\t1\tcontent\ty\t-\t-\t-",
        "b\tz\ttrue\t2\t1\tsha256\t-\t10\t20\t30"]
    assert [p.name for p in tmp_path.iterdir()] == ["m.tsv"]
    origin, rows = verify.read_manifest(path)
    assert origin == "here" and [r["file"] for r in rows] == ["a", "b"]
    assert [(r["size"], r["mtime_ns"], r["ctime_ns"]) for r in rows] == [(None,) * 3, (10, 20, 30)]


# ---- re-verification before use -----------------------------------------------------------
def acquired(copy: Path, tmp_path: Path, mode: str = "symlink") -> tuple[Path, Path]:
    """(published data directory, manifest) after acquiring ``copy`` as the workflow does."""
    dest, manifest = tmp_path / "res" / "data", tmp_path / "res" / "manifest.tsv"
    rows, origin = A.acquire(source(local=str(copy), link=mode), dest, tmp_path / "work",
                             log=quiet)
    verify.write_manifest(rows, manifest, origin)
    return dest, manifest


def hashed(monkeypatch) -> list[Path]:
    """The files hashed from now on."""
    calls: list[Path] = []
    real = verify.sha256_file
    monkeypatch.setattr(verify, "sha256_file", lambda p: calls.append(Path(p)) or real(p))
    return calls


def test_unchanged_files_pass_and_only_touched_ones_are_hashed(copy, tmp_path, monkeypatch):
    dest, manifest = acquired(copy, tmp_path)
    calls = hashed(monkeypatch)
    rows = verify.check_unchanged(dest, manifest, LAYOUT.files())
    assert [r["file"] for r in rows] == LAYOUT.files() and calls == []
    st = (copy / "Fold1" / "train.txt").stat()
    os.utime(copy / "Fold1" / "train.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    verify.check_unchanged(dest, manifest, LAYOUT.files())  # touched, same bytes: accepted
    assert calls == [dest / "Fold1" / "train.txt"]


@pytest.mark.parametrize("edit", ["appended", "same size and mtime"])
def test_source_edited_after_acquire_is_refused(copy, tmp_path, edit):
    dest, manifest = acquired(copy, tmp_path)
    path = copy / "Fold2" / "vali.txt"
    before, st = path.read_bytes(), path.stat()
    if edit == "appended":
        path.write_bytes(before + before.splitlines(keepends=True)[0])
    else:  # one label changed in place, size and mtime put back
        path.write_bytes(relabel_first_line(before))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    with pytest.raises(errors.AcquireError) as info:
        verify.check_unchanged(dest, manifest, LAYOUT.files())
    msg = str(info.value)
    assert msg.startswith(f"{dest / 'Fold2' / 'vali.txt'} (a link to {path}): changed since it "
                          f"was verified: its SHA-256 is now {verify.sha256_file(path)}, the manifest "
                          f"{manifest} records {hashlib.sha256(before).hexdigest()}; if the change "
                          f"is intended, delete {manifest}"), msg
    assert "\n" not in msg


def test_published_copy_does_not_follow_later_edits(copy, tmp_path):
    dest, manifest = acquired(copy, tmp_path, mode="copy")
    published = dest / "Fold1" / "test.txt"
    before = published.read_bytes()
    assert not published.is_symlink() and before == (copy / "Fold1" / "test.txt").read_bytes()
    (copy / "Fold1" / "test.txt").write_text("0 qid:1 1:0.5\n")
    rows = verify.check_unchanged(dest, manifest, LAYOUT.files())  # the edit is not seen
    assert [r["file"] for r in rows] == LAYOUT.files()
    assert published.read_bytes() == before


def test_manifest_without_stamps_hashes_every_file(copy, tmp_path, monkeypatch):
    dest, manifest = acquired(copy, tmp_path)
    lines = manifest.read_text().splitlines()
    manifest.write_text("".join("\t".join(ln.split("\t")[:7]) + "\n" for ln in lines))
    calls = hashed(monkeypatch)
    verify.check_unchanged(dest, manifest, LAYOUT.files())
    assert sorted(calls) == sorted(dest / f for f in LAYOUT.files())
    (copy / "Fold1" / "train.txt").write_bytes(relabel_first_line((copy / "Fold1" / "train.txt")
                                                                  .read_bytes()))
    with pytest.raises(errors.AcquireError, match="Fold1/train.txt .*changed since it was verified"):
        verify.check_unchanged(dest, manifest)


def test_unlisted_or_vanished_files_are_refused(copy, tmp_path):
    dest, manifest = acquired(copy, tmp_path)
    with pytest.raises(errors.AcquireError, match=rf"Fold3/train.txt: not verified \(not in the "
                                             rf"manifest {re.escape(str(manifest))}\)"):
        verify.check_unchanged(dest, manifest, ["Fold3/train.txt"])
    (copy / "Fold1" / "vali.txt").unlink()
    with pytest.raises(errors.AcquireError, match="Fold1/vali.txt .*verified earlier .* but now "
                                             "unreadable: No such file"):
        verify.check_unchanged(dest, manifest)
    manifest.write_text("not a manifest\n")
    with pytest.raises(errors.AcquireError, match="not a dataset manifest"):
        verify.check_unchanged(dest, manifest)


def test_file_edited_while_being_acquired_is_not_published(copy, tmp_path, monkeypatch):
    real = A.materialise

    def then_edit(root, layout, dest, mode="symlink"):
        real(root, layout, dest, mode)
        path = root / "Fold2" / "test.txt"
        path.write_bytes(relabel_first_line(path.read_bytes()))

    monkeypatch.setattr(A, "materialise", then_edit)
    dest = tmp_path / "res" / "data"
    with pytest.raises(errors.AcquireError, match=r"Fold2/test.txt .*changed since it was verified.*"
                                             r"edited while being acquired"):
        A.acquire(source(local=str(copy)), dest, tmp_path / "work", log=quiet)
    assert not dest.exists()


# ---- a local HTTP server ---------------------------------------------------------------------
class Routes(http.server.BaseHTTPRequestHandler):
    """Serves ``server.routes[path] = (payload, how)``: how is "ok", "cut" (claims the full
    length, sends the first ``server.cut`` bytes, closes) or "hang" (never answers)."""

    protocol_version = "HTTP/1.0"

    def do_GET(self):  # noqa: N802
        self.server.hits.append(self.path)
        if self.path not in self.server.routes:
            self.send_error(404)
            return
        body, how = self.server.routes[self.path]
        if how == "hang":
            self.server.release.wait(30)
            return
        status, rng = 200, self.headers.get("Range")
        if rng:
            start = int(rng.split("=")[1].split("-")[0])
            body, status = body[start:], 206
        self.send_response(status)
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{start + len(body) - 1}/*")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: self.server.cut] if how == "cut" else body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Routes)
    srv.daemon_threads = True
    srv.routes, srv.hits, srv.cut, srv.release = {}, [], None, threading.Event()
    srv.url = lambda path: f"http://127.0.0.1:{srv.server_port}{path}"
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield srv
    srv.release.set()
    srv.shutdown()
    srv.server_close()


def closed_port_url(name: str) -> str:
    """A URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/{name}"


def test_download_verified(server, tmp_path):
    server.routes["/DS.zip"] = (b"x" * 5000, "ok")
    sha = hashlib.sha256(b"x" * 5000).hexdigest()
    out = download.download([server.url("/DS.zip")], tmp_path / "DS.zip", sha256=sha, retries=1,
                     log=quiet)
    assert out.read_bytes() == b"x" * 5000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["DS.zip"]


def test_download_sha_mismatch_leaves_nothing(server, tmp_path):
    server.routes["/DS.zip"] = (b"y" * 3000, "ok")
    with pytest.raises(errors.AcquireError, match="SHA-256"):
        download.download([server.url("/DS.zip")], tmp_path / "DS.zip", sha256="0" * 64, retries=1,
                   log=quiet)
    assert list(tmp_path.iterdir()) == []


def test_truncated_download_resumed(server, tmp_path):
    payload = bytes(range(256)) * 40
    server.routes["/DS.zip"] = (payload, "cut")
    server.cut = 4000  # the first response stops early
    url = server.url("/DS.zip")
    with pytest.raises(errors.AcquireError, match=r"closed after 4000 of 10240 bytes"):
        download.download([url], tmp_path / "DS.zip", retries=1, backoff=0, log=quiet)
    assert not (tmp_path / "DS.zip").exists()
    assert (tmp_path / "DS.zip.part").stat().st_size == 4000
    server.routes["/DS.zip"] = (payload, "ok")
    out = download.download([url], tmp_path / "DS.zip", retries=1, log=quiet)
    assert out.read_bytes() == payload  # resumed with a Range request


def test_http_error_not_retried(server, tmp_path):
    lines = []
    with pytest.raises(errors.AcquireError, match=r"/gone.zip: attempt 1/3: HTTP 404"):
        download.download([server.url("/gone.zip")], tmp_path / "g.zip", retries=3, backoff=0,
                   log=lines.append)
    assert server.hits == ["/gone.zip"]


def test_unresolvable_host_is_not_retried_and_the_next_url_is_tried(server, tmp_path, monkeypatch):
    """No network or no such host: one attempt, no backoff, then the next URL."""
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if host == "no-such-host.invalid":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    server.routes["/DS.zip"] = (b"z" * 100, "ok")
    lines = []
    t0 = time.monotonic()
    out = download.download(["http://no-such-host.invalid/DS.zip", server.url("/DS.zip")],
                            tmp_path / "DS.zip", retries=9, backoff=5, log=lines.append)
    assert time.monotonic() - t0 < 5 and out.read_bytes() == b"z" * 100
    failed = [line for line in lines if "failed" in line]
    assert failed == ["download of http://no-such-host.invalid/DS.zip failed: attempt 1/9: cannot "
                      "resolve the host name, no network? (Name or service not known); not retried"]


def test_hanging_server_times_out_naming_the_url(server, tmp_path):
    server.routes["/slow.zip"] = (b"", "hang")
    url = server.url("/slow.zip")
    t0 = time.monotonic()
    with pytest.raises(errors.AcquireError) as exc:
        A.acquire(source(urls=[url]), tmp_path / "d", tmp_path / "w", timeout=0.5, retries=1,
                  log=quiet)
    assert time.monotonic() - t0 < 10
    assert re.search(re.escape(f"  - {url}\n") + r"\s+attempt 1/1: timed out \(no data for 0.5 s\)",
                     str(exc.value))


def test_unusable_download_is_removed(server, tmp_path):
    server.routes["/DS.zip"] = (b"<html>not an archive</html>", "ok")
    work = tmp_path / "work"
    with pytest.raises(errors.AcquireError, match="removed the download"):
        A.acquire(source(urls=[server.url("/DS.zip")]), tmp_path / "data", work, log=quiet)
    assert not work.exists() or not any(p.is_file() for p in work.rglob("*"))
    assert not (tmp_path / "data").exists()


def test_next_url_after_a_bad_one_and_progress_logged(copy, server, tmp_path):
    good = zip_dir(copy, tmp_path / "DS.zip").read_bytes()
    server.routes["/a/DS.zip"] = (good[: len(good) // 2], "ok")  # complete response, half a zip
    server.routes["/b/DS.zip"] = (good, "ok")
    urls = [closed_port_url("DS.zip"), server.url("/a/DS.zip"), server.url("/b/DS.zip")]
    lines = []
    manifest, origin = A.acquire(source(urls=urls, archive_root="DS"), tmp_path / "res" / "data",
                                 tmp_path / "work", retries=1, log=lines.append)
    log = "\n".join(lines)
    assert origin == urls[2]
    assert [m["verified_by"] for m in manifest] == ["sha256"] * len(LAYOUT.files())
    assert f"cannot use {urls[0]}: attempt 1/1: connection refused" in log
    assert re.search(re.escape(f"cannot use {urls[1]}: ") + r".*corrupt or truncated zip", log)
    assert re.search(rf"{len(good)} bytes \([\d.]+ MB\) in [\d.]+ s, [\d.]+ MB/s", log)
    kept = [p for p in (tmp_path / "work" / "download").rglob("*") if p.is_file()]
    assert [p.read_bytes() == good for p in kept] == [True]  # the half zip is gone


def test_kept_download_when_no_rar_extractor(copy, server, tmp_path, monkeypatch):
    if archives._python_rar_reader() is None:
        pytest.skip(f"the {archives.RAR_PACKAGE} package (a dependency) is not installed")
    server.routes["/DS.rar"] = (pack(copy, tmp_path / "DS.rar").read_bytes(), "ok")
    url = server.url("/DS.rar")
    real_reader = archives._python_rar_reader
    monkeypatch.setattr(A.shutil, "which", lambda name: None)
    monkeypatch.setattr(archives, "_python_rar_reader", lambda: None)
    with pytest.raises(errors.AcquireError, match=r"(?s)cannot unpack a \.rar.*The download is kept at"):
        A.acquire(source(urls=[url]), tmp_path / "res" / "data", tmp_path / "work", log=quiet)
    assert server.hits == ["/DS.rar"]
    kept = download.download_path(tmp_path / "work", url, "DS.rar")
    assert kept.read_bytes() == server.routes["/DS.rar"][0]
    monkeypatch.setattr(archives, "_python_rar_reader", real_reader)  # the extractor is installed
    manifest, origin = A.acquire(source(urls=[url]), tmp_path / "res" / "data", tmp_path / "work",
                                 log=quiet)
    assert origin == url and server.hits == ["/DS.rar"]  # no second download
    assert (tmp_path / "res" / "data" / "Fold2" / "test.txt").read_bytes() == \
        (copy / "Fold2" / "test.txt").read_bytes()


# ---- MQ2008 itself, served as the mirrors serve it ----------------------------------------------
def mq2008_source(**kw) -> A.Source:
    """MQ2008 as config/config.yaml describes it (digests, counts, layout), with ``kw``."""
    spec = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["datasets"]["MQ2008"]
    lay = spec["layout"]
    return A.Source.from_dict(dict(
        name="MQ2008", config_key="datasets.MQ2008",
        layout={"n_folds": lay["n_folds"], "fold_dir": lay["fold_dir"],
                "splits": {s: lay[s] for s in ("train", "vali", "test")}},
        sha256=spec["sha256"], content_sha256=spec["content_sha256"], expect=spec["expect"],
        archive_root=spec["archive_root"], page=spec["page"], **kw))


MQ_FILES = verify.Layout().files()


@pytest.fixture(scope="module")
def mq2008_archives(mq2008_dir, tmp_path_factory):
    """The MQ2008 copy as MQ2008.zip, .tar.gz, a CRLF .zip and a .zip with one label changed."""
    out = tmp_path_factory.mktemp("mq2008_archives")
    return {
        "zip": zip_dir(mq2008_dir, out / "MQ2008.zip", "MQ2008", MQ_FILES).read_bytes(),
        "tar.gz": pack(mq2008_dir, out / "MQ2008.tar.gz", "MQ2008", MQ_FILES).read_bytes(),
        "crlf": zip_dir(mq2008_dir, out / "crlf.zip", "MQ2008", MQ_FILES,
                        edit=lambda rel, data: crlf(data)).read_bytes(),
        "label": zip_dir(mq2008_dir, out / "label.zip", "MQ2008", MQ_FILES,
                         edit=lambda rel, data: relabel_first_line(data)
                         if rel == "Fold3/train.txt" else data).read_bytes(),
    }


def check_mq2008_manifest(manifest, mq2008_dir, verified_by):
    src = mq2008_source()
    assert [m["file"] for m in manifest] == MQ_FILES
    assert [m["verified_by"] for m in manifest] == [verified_by] * len(MQ_FILES)
    assert [m["sha256"] == src.sha256[m["file"]] for m in manifest] == \
        [verified_by == "sha256"] * len(MQ_FILES)
    for k in range(1, 6):
        fold = [m for m in manifest if m["file"].startswith(f"Fold{k}/")]
        assert sum(m["rows"] for m in fold) == src.expect["rows"]
    for m in manifest:
        assert m["rows"] == verify.count_rows_queries(mq2008_dir / m["file"])[0]


@pytest.mark.mq2008
def test_mq2008_dead_then_truncated_then_good_mirror(mq2008_dir, mq2008_archives, server,
                                                     tmp_path):
    good = mq2008_archives["zip"]
    server.routes["/cut/MQ2008.zip"] = (good[: len(good) // 3], "ok")
    server.routes["/MQ2008.zip"] = (good, "ok")
    urls = [closed_port_url("MQ2008.zip"), server.url("/cut/MQ2008.zip"),
            server.url("/MQ2008.zip")]
    dest, lines = tmp_path / "resources" / "MQ2008" / "data", []
    manifest, origin = A.acquire(mq2008_source(urls=urls), dest, dest.parent / "work",
                                 retries=1, log=lines.append)
    assert origin == urls[2]
    check_mq2008_manifest(manifest, mq2008_dir, "sha256")
    for rel in MQ_FILES:
        assert (dest / rel).read_bytes() == (mq2008_dir / rel).read_bytes()
    log = "\n".join(lines)
    assert "connection refused" in log and "corrupt or truncated zip" in log
    assert re.search(rf"{len(good)} bytes \([\d.]+ MB\) in [\d.]+ s, [\d.]+ MB/s", log)
    leftovers = [p.name for p in (tmp_path / "resources").rglob("*.part")]
    assert leftovers == []


@pytest.mark.mq2008
def test_mq2008_tar_gz_mirror(mq2008_dir, mq2008_archives, server, tmp_path):
    server.routes["/MQ2008.tar.gz"] = (mq2008_archives["tar.gz"], "ok")
    dest = tmp_path / "data"
    manifest, _ = A.acquire(mq2008_source(urls=[server.url("/MQ2008.tar.gz")]), dest,
                            tmp_path / "work", retries=1, log=quiet)
    check_mq2008_manifest(manifest, mq2008_dir, "sha256")


@pytest.mark.mq2008
def test_mq2008_crlf_mirror_accepted_by_content(mq2008_dir, mq2008_archives, server, tmp_path):
    server.routes["/MQ2008.zip"] = (mq2008_archives["crlf"], "ok")
    dest = tmp_path / "data"
    manifest, _ = A.acquire(mq2008_source(urls=[server.url("/MQ2008.zip")]), dest,
                            tmp_path / "work", retries=1, log=quiet)
    check_mq2008_manifest(manifest, mq2008_dir, "content")
    assert (dest / "Fold1" / "test.txt").read_bytes().count(b"\r\n") == \
        (mq2008_dir / "Fold1" / "test.txt").read_bytes().count(b"\n")


@pytest.mark.mq2008
def test_mq2008_changed_label_refused(mq2008_archives, server, tmp_path):
    server.routes["/MQ2008.zip"] = (mq2008_archives["label"], "ok")
    url = server.url("/MQ2008.zip")
    res = tmp_path / "resources" / "MQ2008"
    with pytest.raises(errors.AcquireError) as exc:
        A.acquire(mq2008_source(urls=[url]), res / "data", res / "work", retries=1, log=quiet)
    msg = str(exc.value)
    assert f"refused Fold3/train.txt (from {url})" in msg
    assert len(re.findall(r"\b[0-9a-f]{64}\b", msg)) >= 4  # two digests found, two expected
    assert "removed the download" in msg and "Two ways out" in msg
    assert not (res / "data").exists()
    assert not res.exists() or [p for p in res.rglob("*") if not p.is_dir()] == []


@pytest.mark.mq2008
def test_mq2008_acquire_rule_downloads(mq2008_dir, mq2008_archives, server, tmp_path):
    good = mq2008_archives["zip"]
    server.routes["/cut/MQ2008.zip"] = (good[: len(good) // 3], "ok")
    server.routes["/MQ2008.zip"] = (good, "ok")
    urls = [closed_port_url("MQ2008.zip"), server.url("/cut/MQ2008.zip"),
            server.url("/MQ2008.zip")]
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump({"datasets": {"MQ2008": {"urls": urls, "search": []}},
                                   "download": {"timeout": 10, "retries": 1}}))
    work = tmp_path / "run"
    env = dict(os.environ)  # the jobs import this checkout's ltrconv
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(work), "--configfile",
         str(cfg), "--cores", "1", "resources/MQ2008/manifest.tsv"],
        capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest = (work / "resources" / "MQ2008" / "manifest.tsv").read_text().splitlines()
    assert manifest[0] == f"# origin: {urls[2]}"
    rows = [line.split("\t") for line in manifest[2:]]
    assert [r[0] for r in rows] == MQ_FILES and {r[5] for r in rows} == {"sha256"}
    log = (work / "logs" / "MQ2008" / "acquire.log").read_text()
    assert "connection refused" in log and "corrupt or truncated zip" in log
    assert re.search(rf"{len(good)} bytes \([\d.]+ MB\) in [\d.]+ s, [\d.]+ MB/s", log)
    assert (work / "resources" / "MQ2008" / "data" / "Fold5" / "test.txt").read_bytes() == \
        (mq2008_dir / "Fold5" / "test.txt").read_bytes()
