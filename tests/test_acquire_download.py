"""Dataset acquisition by download: a local HTTP server on 127.0.0.1 serves the archives,
including the MQ2008 copy beside the checkout packed as a .zip and a .tar.gz (those tests skip
without it); retries, resumption, timeouts and the next URL after a bad one."""

from __future__ import annotations

import hashlib
import http.server
import os
import re
import socket
import subprocess
import sys
import threading
import time

import pytest
import yaml

from ltrconv import errors
from ltrconv.data import acquire as A
from ltrconv.data import archives, download, verify

from acquire_helpers import (LAYOUT, REPO, crlf, make_copy, pack, quiet, relabel_first_line,
                             source, zip_dir)


@pytest.fixture
def copy(tmp_path):
    return make_copy(tmp_path / "src" / "DS")


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
