"""Obtain a LETOR dataset: a local directory or archive, or a download; extract; verify.

:func:`acquire` tries, in order, the configured ``local`` copy, the search directories and
the download URLs, and materialises the fold files under a destination directory (symlinks
to a local directory, or extracted files). Every fold file is checked before anything is
published: its bytes against a SHA-256 (config or a ``SHA256SUMS`` file beside the data),
or else its parsed content against a content digest (:func:`content_sha256`), which is the
same for copies that differ only in line endings or spacing; then each fold against the
expected query and row counts. A file that matches neither digest is refused, and a failed
check leaves no output behind.

The manifest records each published file's SHA-256 with its size, mtime and ctime;
:func:`check_unchanged` confirms, before the files are used, that they still hold the bytes
that were verified (published files may be links to a directory anyone can edit).

Downloads go to ``work/download/<one directory per URL>/``; an interrupted download resumes
from its ``.part`` file, and a complete download that could not be used for a reason of
this machine (no ``.rar`` extractor) is kept for the next run. A download that proves
broken or different (corrupt archive, refused file) is deleted and the next URL is tried.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import shutil
import socket
import subprocess
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile
import zlib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from .data import atomic_path
from .errors import LtrconvError

SUMS_FILE = "SHA256SUMS"
CHUNK = 1 << 20
READ_BLOCK = 1 << 16
PROGRESS_EVERY = 2.0  # seconds between progress lines of a download


class AcquireError(LtrconvError):
    """The dataset cannot be obtained or fails verification."""


class ExtractorMissing(AcquireError):
    """This machine cannot unpack the archive (no extractor); the archive itself may be fine."""


@dataclass(frozen=True)
class Layout:
    """Where the fold files sit inside a dataset copy."""

    n_folds: int = 5
    fold_dir: str = "Fold{k}"
    splits: Mapping[str, str] = field(
        default_factory=lambda: {"train": "train.txt", "vali": "vali.txt", "test": "test.txt"}
    )

    def fold_file(self, k: int, split: str) -> str:
        return f"{self.fold_dir.format(k=k)}/{self.splits[split]}"

    def files(self) -> list[str]:
        return [self.fold_file(k, s) for k in range(1, self.n_folds + 1) for s in self.splits]


# ---- hashing and verification ---------------------------------------------------------
def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


_DOCID = re.compile(rb"docid\s*=\s*(\S+)")
CONTENT_TAG = b"ltrconv letor content v1\n"


def content_sha256(path: str | Path) -> str:
    """SHA-256 of what a LETOR file says, not of how it is written.

    Each data line (blank lines and lines starting with ``#`` are skipped) contributes its
    label (as a number), its qid, its feature index/value pairs (as numbers, in file order)
    and the ``docid`` of its comment; other comment fields are ignored. Line endings
    (``\\n``, ``\\r\\n``, ``\\r``), spacing and number formatting (``0.5`` vs ``0.500000``)
    therefore do not change the digest; any label, qid, feature value or docid does.

    The digest is SHA-256 over ``CONTENT_TAG``, one ``label qid n_features docid`` record
    per line (labels as Python ``repr`` of the float, newline-separated), then the
    little-endian float64 array of all (index, value) pairs. A line that cannot be parsed
    raises :class:`AcquireError` naming the file and line.
    """
    path = Path(path)
    records, features, n_pairs = [], [], 0
    with open(path, "rb") as fh:
        lines = fh.read().splitlines()
    for lineno, line in enumerate(lines, start=1):
        head, _, comment = line.partition(b"#")
        tok = head.split()
        if not tok:
            continue
        if len(tok) < 2 or not tok[1].startswith(b"qid:") or len(tok[1]) == 4:
            raise AcquireError(f"{path}:{lineno}: expected 'LABEL qid:QID i:v ...'")
        pairs = tok[2:]
        if head.count(b":") != len(pairs) + 1:
            raise AcquireError(f"{path}:{lineno}: every feature must read INDEX:VALUE")
        try:
            label = repr(float(tok[0])).encode()
        except ValueError:
            raise AcquireError(f"{path}:{lineno}: label {tok[0].decode(errors='replace')!r} "
                               "is not a number") from None
        m = _DOCID.search(comment)
        records.append(b"%s %s %d %s" % (label, tok[1][4:], len(pairs), m.group(1) if m else b""))
        if pairs:
            features.append(b" ".join(pairs))
            n_pairs += len(pairs)
    text = b" ".join(features).replace(b":", b" ")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # older numpy warns and stops at a non-number
            values = np.fromstring(text, dtype=np.float64, sep=" ") if text else np.zeros(0)
    except ValueError:  # newer numpy raises instead
        values = None
    if values is None or values.size != 2 * n_pairs:
        raise AcquireError(f"{path}: a feature index or value is not a number")
    h = hashlib.sha256(CONTENT_TAG)
    h.update(b"\n".join(records))
    h.update(b"\n")
    h.update(values.astype("<f8").tobytes())
    return h.hexdigest()


def read_sums(path: str | Path) -> dict[str, str]:
    """``{relative path: sha256}`` from a ``sha256sum``-style file."""
    sums = {}
    for lineno, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split(None, 1)
        if len(parts) != 2 or len(parts[0]) != 64:
            raise AcquireError(f"{path}:{lineno}: expected '<sha256>  <file>'")
        sums[parts[1].strip().lstrip("*")] = parts[0].lower()
    return sums


def count_rows_queries(path: str | Path) -> tuple[int, set[str]]:
    """Data lines and distinct qids of a LETOR text file (no feature parsing)."""
    rows, qids = 0, set()
    with open(path, "rb") as fh:
        for line in fh:
            tok = line.split(None, 2)
            if len(tok) < 2 or tok[0].startswith(b"#"):
                continue
            rows += 1
            qids.add(tok[1].decode(errors="replace"))
    return rows, qids


def verify(root: Path, layout: Layout, sha256: Mapping[str, str] | None = None,
           expect: Mapping[str, int] | None = None, what: str = "dataset", *,
           content: Mapping[str, str] | None = None, origin: str | None = None) -> list[dict]:
    """Check presence, digests and per-fold counts; returns one manifest row per file.

    A file passes when its bytes match ``sha256`` (or ``root/SHA256SUMS`` when ``sha256`` is
    empty) or, failing that, its :func:`content_sha256` matches ``content``; the row's
    ``verified_by`` says which (``sha256``, ``content``, or ``none`` when no digest is
    known for the file). ``origin`` (URL or path) is named in the refusal.
    """
    root = Path(root)
    missing = [f for f in layout.files() if not (root / f).is_file()]
    if missing:
        raise AcquireError(f"{what}: {root} lacks {len(missing)} fold file(s), e.g. {missing[0]}")
    sums = {k: v.lower() for k, v in (sha256 or {}).items()}
    source = "config sha256"
    if not sums and (root / SUMS_FILE).is_file():
        sums, source = read_sums(root / SUMS_FILE), str(root / SUMS_FILE)
    content = {k: v.lower() for k, v in (content or {}).items()}
    manifest = []
    for rel in layout.files():
        path = root / rel
        stamp = file_stamp(path)  # before reading: a change while hashing shows later
        digest = sha256_file(path)
        want, want_c = sums.get(rel), content.get(rel)
        got_c = "-"
        if want is not None and digest == want:
            by = "sha256"
        elif want_c is not None:
            try:
                got_c = content_sha256(path)
            except AcquireError as exc:
                got_c = f"(unparseable: {exc})"
            by = "content" if got_c == want_c else None
        else:
            by = None if want is not None else "none"
        if by is None:
            came = f" (from {origin})" if origin else ""
            lines = [f"{what}: refused {rel}{came}: it matches neither known digest.",
                     f"  SHA-256 of its bytes:   {digest}"
                     + (f"  ({source} expects {want})" if want else "  (no SHA-256 known)")]
            if want_c is not None:
                lines.append(f"  digest of its content:  {got_c}  (config content_sha256 "
                             f"expects {want_c})")
            else:
                lines.append("  digest of its content:  not known for this file "
                             "(config content_sha256)")
            lines.append(f"  file: {path} -- corrupt or truncated, or different data")
            raise AcquireError("\n".join(lines))
        rows, qids = count_rows_queries(path)
        manifest.append({"file": rel, "sha256": digest, "checked": by != "none",
                         "verified_by": by, "content_sha256": got_c,
                         "rows": rows, "queries": len(qids), "_qids": qids, **stamp})
    if expect:
        for k in range(1, layout.n_folds + 1):
            parts = [m for m in manifest if m["file"].startswith(layout.fold_dir.format(k=k) + "/")]
            got = {"rows": sum(m["rows"] for m in parts),
                   "queries": len(set().union(*(m["_qids"] for m in parts)))}
            for key in ("queries", "rows"):
                if key in expect and expect[key] is not None and got[key] != expect[key]:
                    raise AcquireError(
                        f"{what}: fold {k} has {got[key]} {key} in total, expect.{key} is "
                        f"{expect[key]} (incomplete or wrong copy in {root})"
                    )
    for m in manifest:
        del m["_qids"]
    return manifest


STAMP = ("size", "mtime_ns", "ctime_ns")


def file_stamp(path: str | Path) -> dict[str, int]:
    """Size, mtime and ctime (ns) of ``path``, following links: what a change alters.

    The ctime cannot be set back by hand, so an edit that restores the mtime still shows."""
    st = os.stat(path)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns}


def recheck(root: str | Path, rows: list[dict], recorded_in: str, hint: str = "") -> list[dict]:
    """Confirm that each file ``row["file"]`` under ``root`` holds the bytes verified.

    A file whose :func:`file_stamp` equals the row's is taken as unchanged; any other is
    hashed and must have the row's ``sha256``, else :class:`AcquireError` names the file and
    ``recorded_in`` (followed by ``hint``). Returns the rows with the current stamps.
    """
    out = []
    for row in rows:
        path = Path(root) / row["file"]
        name = f"{path} (a link to {path.resolve()})" if path.is_symlink() else str(path)
        try:
            stamp = file_stamp(path)
        except OSError as exc:
            raise AcquireError(f"{name}: verified earlier ({recorded_in}) but now unreadable: "
                               f"{exc.strerror or exc}{hint}") from None
        if any(row.get(k) != stamp[k] for k in STAMP):
            digest = sha256_file(path)
            if digest != row["sha256"]:
                raise AcquireError(
                    f"{name}: changed since it was verified: its SHA-256 is now {digest}, "
                    f"{recorded_in} records {row['sha256']}{hint}")
        out.append({**row, **stamp})
    return out


def read_manifest(path: str | Path) -> tuple[str, list[dict]]:
    """(origin, rows) of a manifest written by :func:`write_manifest`.

    Manifests written before the stamp columns existed give rows without them (each file is
    then hashed by :func:`recheck`)."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise AcquireError(f"{path}: cannot read the manifest: "
                           f"{getattr(exc, 'strerror', None) or exc}") from None
    origin = lines[0][len("# origin: "):] if lines and lines[0].startswith("# origin: ") else ""
    body = lines[1:] if origin or (lines and lines[0].startswith("#")) else lines
    if not body or not body[0].startswith("file\tsha256\t"):
        raise AcquireError(f"{path}: not a dataset manifest (no 'file<TAB>sha256' header)")
    header = body[0].split("\t")
    rows = []
    for lineno, line in enumerate(body[1:], start=len(lines) - len(body) + 2):
        parts = line.split("\t")
        if len(parts) != len(header):
            raise AcquireError(f"{path}:{lineno}: expected {len(header)} columns, got {len(parts)}")
        row: dict[str, Any] = dict(zip(header, parts))
        for key in STAMP:
            if key in row:
                row[key] = int(row[key]) if row[key].isdigit() else None
        rows.append(row)
    return origin, rows


def check_unchanged(root: str | Path, manifest: str | Path,
                    files: Iterable[str] | None = None) -> list[dict]:
    """Re-verify the published files of ``root`` against ``manifest`` (see :func:`recheck`).

    ``files`` (paths relative to ``root``) must all be listed in the manifest. A file changed
    since it was verified raises :class:`AcquireError` naming the file and the manifest.
    """
    _, rows = read_manifest(manifest)
    listed = {r["file"] for r in rows}
    for rel in files or ():
        if rel not in listed:
            raise AcquireError(f"{Path(root) / rel}: not verified (not in the manifest "
                               f"{manifest})")
    hint = (f"; if the change is intended, delete {manifest} so that the acquire step "
            "verifies the data again")
    return recheck(root, rows, f"the manifest {manifest}", hint)


# ---- download ---------------------------------------------------------------------------
class _Truncated(Exception):
    pass


def _mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


def _reason(exc: BaseException, timeout: float) -> str:
    """One line for a failed request."""
    inner = exc.reason if isinstance(exc, urllib.error.URLError) and not isinstance(
        exc, urllib.error.HTTPError) else exc
    if isinstance(inner, TimeoutError) or "timed out" in str(inner):
        return f"timed out (no data for {timeout:g} s)"
    if isinstance(inner, ConnectionRefusedError):
        return "connection refused"
    if isinstance(inner, socket.gaierror):
        return f"cannot resolve the host name, no network? ({inner.strerror})"
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    return str(inner) or type(inner).__name__


def download_one(url: str, dest: str | Path, *, sha256: str | None = None, retries: int = 3,
                 timeout: float = 60.0, backoff: float = 2.0,
                 log: Callable[[str], None] = print) -> Path:
    """Fetch ``url`` into ``dest``, retrying; raises :class:`AcquireError` naming the URL.

    Data goes to ``dest.part`` and resumes from it with an HTTP Range request; the file is
    renamed to ``dest`` only when its length matches Content-Length and, if given, its
    SHA-256 matches ``sha256`` (a mismatching download is deleted). ``timeout`` bounds
    each wait for the server (connecting, or the next block of data).
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    failures = []
    for attempt in range(1, retries + 1):
        try:
            _fetch(url, part, timeout, log)
        except urllib.error.HTTPError as exc:
            failures.append(f"attempt {attempt}/{retries}: {_reason(exc, timeout)}")
            log(f"download of {url} failed: {failures[-1]}")
            if exc.code == 416:  # our partial download does not fit the file: start afresh
                part.unlink(missing_ok=True)
            elif 400 <= exc.code < 500 and exc.code not in (408, 429):
                break  # the server said no: asking again will not help
        except (urllib.error.URLError, OSError, http.client.HTTPException, _Truncated,
                ValueError) as exc:
            failures.append(f"attempt {attempt}/{retries}: {_reason(exc, timeout)}")
            log(f"download of {url} failed: {failures[-1]}")
        else:
            if sha256 is not None:
                digest = sha256_file(part)
                if digest != sha256.lower():
                    part.unlink(missing_ok=True)
                    raise AcquireError(f"{url}: the download has SHA-256 {digest}, "
                                       f"archive_sha256 is {sha256} (deleted it)")
            os.replace(part, dest)
            return dest
        if attempt < retries:
            time.sleep(backoff * attempt)
    reasons = [f.split(": ", 1)[1] for f in failures]
    if len(failures) > 1 and len(set(reasons)) == 1:
        raise AcquireError(f"{url}: {len(failures)} attempts, each: {reasons[0]}")
    raise AcquireError(f"{url}: " + "; ".join(failures))


def download(urls: Iterable[str], dest: str | Path, *, sha256: str | None = None,
             retries: int = 3, timeout: float = 60.0, backoff: float = 2.0,
             log: Callable[[str], None] = print) -> Path:
    """Fetch the first of ``urls`` that works into ``dest`` (see :func:`download_one`)."""
    errors = []
    for url in urls:
        try:
            return download_one(url, dest, sha256=sha256, retries=retries, timeout=timeout,
                                backoff=backoff, log=log)
        except AcquireError as exc:
            errors.append(str(exc))
    raise AcquireError("download failed:\n  " + "\n  ".join(errors or ["no URL configured"]))


def _fetch(url: str, part: Path, timeout: float, log: Callable[[str], None]) -> None:
    have = part.stat().st_size if part.exists() else 0
    req = urllib.request.Request(url, headers={"User-Agent": "ltrconv"})
    if have:
        req.add_header("Range", f"bytes={have}-")
    start = time.monotonic()
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        status = getattr(resp, "status", 200)
        if have and (status != 206 or not str(resp.headers.get("Content-Range", "")).startswith(
                f"bytes {have}-")):
            have = 0  # the server ignored the Range header: start over
        length = resp.headers.get("Content-Length")
        total = have + int(length) if length is not None else None
        log(f"downloading {url}" + (f" ({_mb(total)})" if total else "")
            + (f", resuming at {_mb(have)}" if have else ""))
        got, last = 0, start
        with open(part, "ab" if have else "wb") as fh:
            while True:
                block = resp.read(READ_BLOCK)
                if not block:
                    break
                fh.write(block)
                got += len(block)
                now = time.monotonic()
                if now - last >= PROGRESS_EVERY:
                    last = now
                    share = f" of {_mb(total)} ({100 * (have + got) / total:.0f}%)" if total else ""
                    log(f"  {_mb(have + got)}{share}, {_mb(got / (now - start))}/s")
    size = part.stat().st_size
    secs = max(time.monotonic() - start, 1e-6)
    log(f"  {size} bytes ({_mb(size)}) in {secs:.1f} s, {_mb(got / secs)}/s")
    if total is not None and size != total:
        raise _Truncated(f"connection closed after {size} of {total} bytes")


# ---- extraction ---------------------------------------------------------------------------
def archive_kind(path: str | Path) -> str | None:
    name = Path(path).name.lower()
    if name.endswith(".zip"):
        return "zip"
    if name.endswith(".rar"):
        return "rar"
    if any(name.endswith(s) for s in (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")):
        return "tar"
    return None


def extract(archive: str | Path, dest: str | Path) -> Path:
    """Unpack ``archive`` into the new directory ``dest`` (all or nothing)."""
    archive, dest = Path(archive), Path(dest)
    kind = archive_kind(archive)
    if kind is None:
        raise AcquireError(f"{archive}: unknown archive type (use .zip, .tar.*, or .rar)")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent))
    try:
        if kind == "zip":
            _extract_zip(archive, tmp)
        elif kind == "tar":
            _extract_tar(archive, tmp)
        else:
            _extract_rar(archive, tmp)
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def _safe_target(out: Path, name: str, archive: Path) -> Path:
    target = (out / name).resolve()
    if not target.is_relative_to(out.resolve()) or target == out.resolve():
        raise AcquireError(f"{archive}: member {name!r} points outside the archive")
    return target


def _extract_zip(archive: Path, out: Path) -> None:
    try:
        with zipfile.ZipFile(archive) as zf:
            bad = zf.testzip()
            if bad is not None:
                raise AcquireError(f"{archive}: member {bad} fails its CRC check (corrupt archive)")
            for name in zf.namelist():
                _safe_target(out, name, archive)
            zf.extractall(out)
    except (zipfile.BadZipFile, EOFError, OSError, zlib.error) as exc:
        raise AcquireError(f"{archive}: corrupt or truncated zip archive ({exc})") from None


def _extract_tar(archive: Path, out: Path) -> None:
    try:
        with tarfile.open(archive) as tf:
            tf.extractall(out, filter="data")
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise AcquireError(f"{archive}: corrupt or truncated tar archive ({exc})") from None


RAR_TOOLS = (("bsdtar", ["-x", "-f", "{archive}", "-C", "{out}"]),
             ("unar", ["-q", "-f", "-o", "{out}", "{archive}"]))
RAR_PACKAGE = "unrar2-cffi"


def _python_rar_reader():
    """The UnRAR library bound by the ``unrar2-cffi`` package, or None when not installed."""
    try:
        from unrar.cffi import unrarlib
    except ImportError:
        return None
    return unrarlib


def _extract_rar(archive: Path, out: Path) -> None:
    """Unpack with the UnRAR library (``unrar2-cffi``), else ``bsdtar``, else ``unar``."""
    lib = _python_rar_reader()
    if lib is not None:
        _extract_rar_unrarlib(lib, archive, out)
        return
    for tool, args in RAR_TOOLS:
        exe = shutil.which(tool)
        if exe is None:
            continue
        cmd = [exe] + [a.format(archive=archive, out=out) for a in args]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise AcquireError(
                f"{archive}: corrupt or unreadable rar archive: {tool} failed "
                f"(exit {proc.returncode}): {proc.stderr.strip()[-500:]}"
            )
        return
    raise ExtractorMissing(
        f"{archive}: cannot unpack a .rar archive on this machine: the Python package "
        f"'{RAR_PACKAGE}' (a dependency of ltrconv: pip install {RAR_PACKAGE}) is not "
        "installed, and neither 'bsdtar' nor 'unar' is on PATH (e.g. 'apt-get install "
        "libarchive-tools' for bsdtar, or 'apt-get install unar')"
    )


def _extract_rar_unrarlib(lib, archive: Path, out: Path) -> None:
    n = 0
    try:
        with lib.RarArchive.open_for_processing(str(archive)) as rar:
            for header in rar.iterate_headers():
                name = header.FileNameW.replace("\\", "/")
                target = _safe_target(out, name, archive)
                if header.Flags & lib.FLAGS_RHDF_DIRECTORY:
                    target.mkdir(parents=True, exist_ok=True)
                    header.skip()
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(target, "wb") as fh:
                    header.test(fh.write)  # streams the member and checks its CRC
                n += 1
    except lib.BadRarFile as exc:
        raise AcquireError(
            f"{archive}: corrupt or truncated rar archive ({getattr(exc, 'message', exc)})"
        ) from None
    if n == 0:
        raise AcquireError(f"{archive}: corrupt or truncated rar archive (no file inside)")


def find_root(tree: Path, layout: Layout, hint: str = "") -> Path:
    """The directory of ``tree`` that holds the fold layout (``hint`` first, then a search)."""
    probe = layout.fold_file(1, next(iter(layout.splits)))
    for cand in ([tree / hint] if hint else []) + [tree]:
        if (cand / probe).is_file():
            return cand
    found = sorted(p for p in tree.rglob(probe.split("/")[-1]) if p.as_posix().endswith("/" + probe))
    if not found:
        raise AcquireError(f"{tree}: no {probe} inside (is this the right archive?)")
    return Path(str(found[0])[: -len(probe) - 1])


# ---- publication ----------------------------------------------------------------------------
def materialise(root: Path, layout: Layout, dest: Path, mode: str = "symlink") -> None:
    """Publish the fold files of ``root`` under ``dest`` as symlinks or copies, all or nothing."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent))
    try:
        for rel in layout.files() + ([SUMS_FILE] if (root / SUMS_FILE).is_file() else []):
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            src = (root / rel).resolve()
            if mode == "symlink":
                target.symlink_to(src)
            else:
                shutil.copy2(src, target)
        if dest.exists() or dest.is_symlink():
            shutil.rmtree(dest) if dest.is_dir() and not dest.is_symlink() else dest.unlink()
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


@dataclass
class Source:
    """Everything config says about obtaining one dataset."""

    name: str
    layout: Layout = field(default_factory=Layout)
    urls: list[str] = field(default_factory=list)
    archive_sha256: str | None = None
    archive_name: str | None = None
    archive_root: str = ""
    local: str | None = None
    search: list[str] = field(default_factory=list)
    sha256: dict[str, str] = field(default_factory=dict)
    content_sha256: dict[str, str] = field(default_factory=dict)
    expect: dict[str, int] = field(default_factory=dict)
    link: str = "symlink"
    page: str | None = None
    config_key: str = ""

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> "Source":
        """From plain values (``layout`` as a dict, unknown keys ignored)."""
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in spec.items() if k in known}
        if isinstance(kw.get("layout"), Mapping):
            kw["layout"] = Layout(**kw["layout"])
        return cls(**kw)


def locations(spec: dict, name: str, repo: str | Path) -> dict[str, Any]:
    """Where a config entry says to look: ``local`` (relative to the working directory),
    ``search`` (relative to ``repo``, ``{dataset}`` filled in), and where to download from.

    None of this says what the data is, so changing it does not invalidate results."""
    local = spec.get("local")
    return dict(
        local=str(Path(local).expanduser().resolve()) if local else None,
        search=[str((Path(repo) / p.format(dataset=name)).resolve())
                for p in spec.get("search", [])],
        urls=list(spec.get("urls", [])),
        archive_name=spec.get("archive_name"),
        archive_sha256=spec.get("archive_sha256"),
        archive_root=spec.get("archive_root", ""),
        page=spec.get("page"),
    )


def no_data_message(src: Source, looked: list[tuple[str, str]], tried: list[tuple[str, str]],
                    offline: bool) -> str:
    """Why there is no data: every place looked at, every URL tried, and the ways out."""
    key = src.config_key or f"datasets.{src.name}"
    lines = [f"dataset {src.name}: no usable copy found.", "Local copies looked for:",
             f"  - config key {key}.local: not set"]
    for place, outcome in looked:
        first, *more = outcome.splitlines() or [""]
        lines.append(f"  - {place}: {first}")
        lines += [f"      {w.strip()}" for w in more]
    if not src.search:
        lines.append(f"  - no search directory configured ({key}.search)")
    if not src.urls:
        lines.append(f"No download URL is configured ({key}.urls).")
    elif offline:
        lines.append("Not downloaded (config key offline is true); the configured URLs are:")
        lines += [f"  - {url}" for url in src.urls]
    else:
        lines.append("Downloads tried:")
        for url, why in tried:
            lines.append(f"  - {url}")
            lines += [f"      {w}" for w in why.splitlines()]
    files = f"{src.layout.fold_file(1, 'train')} etc."
    lines += [
        "Two ways out:",
        f"  1. Set config key {key}.local to a directory holding {files}, or to the dataset's "
        "archive (.zip, .tar.*, .rar).",
        "  2. Download the archive by hand from "
        + (src.page if src.page else f"the dataset's home page (config key {key}.page)")
        + f" (accepting its terms there), then set config key {key}.local to the downloaded file.",
    ]
    return "\n".join(lines)


def acquire(src: Source, dest: str | Path, work: str | Path, *, offline: bool = False,
            log: Callable[[str], None] = print, timeout: float = 60.0, retries: int = 3,
            backoff: float = 2.0) -> tuple[list[dict], str]:
    """Materialise verified fold files of ``src`` in ``dest``; returns (manifest, origin).

    ``work`` holds downloads and extractions. ``offline`` skips the URLs. ``timeout``,
    ``retries`` and ``backoff`` apply to each URL (see :func:`download_one`).
    """
    dest, work = Path(dest), Path(work)
    what = f"dataset {src.name}"
    _clean_stale(dest, work)
    if src.local:
        origin = str(src.local)
        return _from_path(src, Path(src.local), dest, work, what, log, origin), origin
    looked: list[tuple[str, str]] = []
    for cand in src.search:
        path = Path(cand)
        if not path.exists():
            looked.append((str(path), "absent"))
            continue
        try:
            return _from_path(src, path, dest, work, what, log, str(path)), str(path)
        except AcquireError as exc:
            log(f"ignoring {path}: {exc}")
            looked.append((str(path), f"unusable: {exc}"))
    tried: list[tuple[str, str]] = []
    if not offline:
        for url in src.urls:
            try:
                manifest = _from_url(src, url, dest, work, what, log, timeout=timeout,
                                     retries=retries, backoff=backoff)
            except AcquireError as exc:
                why = _without(url, str(exc))
                log(f"{what}: cannot use {url}: {why}")
                tried.append((url, why))
                continue
            return manifest, url
    _tidy(work)
    raise AcquireError(no_data_message(src, looked, tried, offline))


def _without(url: str, text: str) -> str:
    """``text`` without a leading ``url: `` (said once already)."""
    return text[len(url) + 2:] if text.startswith(f"{url}: ") else text


def _archive_name(src: Source, url: str) -> str:
    name = Path(urllib.parse.urlsplit(url).path).name
    if archive_kind(name) is None:
        if src.archive_name is None or archive_kind(src.archive_name) is None:
            key = src.config_key or f"datasets.{src.name}"
            raise AcquireError(
                f"cannot tell the archive type of {url}; set config key {key}.archive_name "
                f"(e.g. {src.name}.zip)"
            )
        name = src.archive_name
    return name


def download_path(work: Path, url: str, name: str) -> Path:
    """Where the download of ``url`` is kept: one directory per URL, so that a partial
    download is only ever resumed from the URL it came from."""
    parts = urllib.parse.urlsplit(url)
    host = re.sub(r"[^A-Za-z0-9.-]+", "_", parts.hostname or "local")
    tag = hashlib.sha256(url.encode()).hexdigest()[:10]
    return work / "download" / f"{host}-{tag}" / name


def _from_url(src: Source, url: str, dest: Path, work: Path, what: str,
              log: Callable[[str], None], **net) -> list[dict]:
    archive = download_path(work, url, _archive_name(src, url))
    if archive.exists():
        log(f"{what}: using {archive}, downloaded earlier from {url}")
    else:
        download_one(url, archive, sha256=src.archive_sha256, log=log, **net)
    try:
        return _from_path(src, archive, dest, work, what, log, url)
    except ExtractorMissing as exc:
        raise AcquireError(f"{exc}.\nThe download is kept at {archive} and is used on the next "
                           "run, once an extractor is installed.") from None
    except AcquireError as exc:
        if src.archive_sha256 is not None:  # the archive itself is verified: keep it
            raise AcquireError(f"{exc}\n(the download matches archive_sha256 and is kept at "
                               f"{archive})") from None
        archive.unlink(missing_ok=True)
        _tidy(archive.parent)
        raise AcquireError(f"{exc}\n(removed the download {archive})") from None


def _from_path(src: Source, path: Path, dest: Path, work: Path, what: str,
               log: Callable[[str], None], origin: str) -> list[dict]:
    if not path.exists():
        raise AcquireError(f"{what}: local copy {path} does not exist")
    if path.is_dir():
        root = find_root(path, src.layout, src.archive_root)
        manifest = verify(root, src.layout, src.sha256, src.expect, what,
                          content=src.content_sha256, origin=origin)
        materialise(root, src.layout, dest, src.link)
        manifest = _published(dest, manifest, what)
        log(f"{what}: published {len(manifest)} verified files from {root} ({src.link})")
        return manifest
    if src.archive_sha256 is not None and sha256_file(path) != src.archive_sha256.lower():
        raise AcquireError(f"{what}: archive {path} does not match archive_sha256 {src.archive_sha256}")
    tree = extract(path, work / "extract")
    try:
        root = find_root(tree, src.layout, src.archive_root)
        manifest = verify(root, src.layout, src.sha256, src.expect, what,
                          content=src.content_sha256, origin=origin)
    except AcquireError:
        shutil.rmtree(tree, ignore_errors=True)
        raise
    materialise(root, src.layout, dest, "symlink")
    manifest = _published(dest, manifest, what)
    by = sorted({m["verified_by"] for m in manifest})
    log(f"{what}: extracted {len(manifest)} files from {path} (verified by {', '.join(by)})")
    return manifest


def _published(dest: Path, manifest: list[dict], what: str) -> list[dict]:
    """The manifest with the stamps of the published files, which must hold the verified bytes
    (a copy is hashed again; a file edited while being acquired is unpublished and refused)."""
    try:
        return recheck(dest, manifest, f"{what}'s verification",
                       " (edited while being acquired?)")
    except AcquireError:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def _clean_stale(dest: Path, work: Path) -> None:
    """Remove half-written directories that a killed earlier run left behind."""
    for parent, prefix in ((dest.parent, f".{dest.name}."), (work, ".extract.")):
        if parent.is_dir():
            for p in parent.glob(f"{prefix}*.part"):
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p, ignore_errors=True)


def _tidy(top: Path) -> None:
    """Remove empty directories under and including ``top`` (keeps anything with a file)."""
    if not top.is_dir():
        return
    for d in sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        try:
            d.rmdir()
        except OSError:
            pass
    try:
        top.rmdir()
    except OSError:
        pass


def write_manifest(manifest: list[dict], path: str | Path, origin: str) -> None:
    """Tab-separated manifest, written atomically: file, sha256, checked, rows, queries,
    verified_by (``sha256``, ``content`` or ``none``), content_sha256 (``-`` where the
    bytes matched and the content digest was not needed), then the published file's size,
    mtime_ns and ctime_ns (``-`` when unknown), which :func:`check_unchanged` compares."""
    with atomic_path(path) as tmp, open(tmp, "w") as fh:
        fh.write(f"# origin: {origin}\n"
                 "file\tsha256\tchecked\trows\tqueries\tverified_by\tcontent_sha256\t"
                 "size\tmtime_ns\tctime_ns\n")
        for m in manifest:
            stamp = "\t".join("-" if m.get(k) is None else str(m[k]) for k in STAMP)
            fh.write(f"{m['file']}\t{m['sha256']}\t{str(m['checked']).lower()}\t{m['rows']}\t"
                     f"{m['queries']}\t{m.get('verified_by', 'none')}\t"
                     f"{m.get('content_sha256', '-')}\t{stamp}\n")
