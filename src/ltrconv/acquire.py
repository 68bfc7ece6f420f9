"""Obtain a LETOR dataset: a local directory or archive, or a download; extract; verify.

:func:`acquire` tries, in order, the configured ``local`` copy, the search directories and
the download URLs, and materialises the fold files under a destination directory (symlinks
to a local directory, or extracted files). Every file is checked against SHA-256 sums
(config or a ``SHA256SUMS`` file beside the data) and each fold against the expected query
and row counts before anything is published; a failed check leaves no output behind.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from .data import atomic_path
from .errors import LtrconvError

SUMS_FILE = "SHA256SUMS"
CHUNK = 1 << 20


class AcquireError(LtrconvError):
    """The dataset cannot be obtained or fails verification."""


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
           expect: Mapping[str, int] | None = None, what: str = "dataset") -> list[dict]:
    """Check presence, checksums and per-fold counts; returns one manifest row per file."""
    root = Path(root)
    missing = [f for f in layout.files() if not (root / f).is_file()]
    if missing:
        raise AcquireError(f"{what}: {root} lacks {len(missing)} fold file(s), e.g. {missing[0]}")
    sums = dict(sha256 or {})
    source = "config sha256"
    if not sums and (root / SUMS_FILE).is_file():
        sums, source = read_sums(root / SUMS_FILE), str(root / SUMS_FILE)
    manifest = []
    for rel in layout.files():
        digest = sha256_file(root / rel)
        want = sums.get(rel)
        if want is not None and digest != want.lower():
            raise AcquireError(
                f"{what}: {root / rel} has SHA-256 {digest}, {source} says {want} "
                "(corrupt or truncated copy)"
            )
        rows, qids = count_rows_queries(root / rel)
        manifest.append({"file": rel, "sha256": digest, "checked": want is not None,
                         "rows": rows, "queries": len(qids), "_qids": qids})
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


# ---- download ---------------------------------------------------------------------------
def download(urls: Iterable[str], dest: str | Path, *, sha256: str | None = None,
             retries: int = 3, timeout: float = 60.0, backoff: float = 2.0,
             log: Callable[[str], None] = print) -> Path:
    """Fetch the first URL that works into ``dest``.

    Data goes to ``dest.part`` and resumes from it with an HTTP Range request; the file is
    renamed to ``dest`` only when its length matches Content-Length and, if given, its
    SHA-256 matches ``sha256``. A mismatching download is deleted.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    errors = []
    for url in urls:
        for attempt in range(1, retries + 1):
            try:
                _fetch(url, part, timeout)
            except (urllib.error.URLError, OSError, _Truncated) as exc:
                errors.append(f"{url} (attempt {attempt}): {exc}")
                log(f"download failed: {errors[-1]}")
                if attempt < retries:
                    time.sleep(backoff * attempt)
                continue
            if sha256 is not None:
                digest = sha256_file(part)
                if digest != sha256.lower():
                    part.unlink(missing_ok=True)
                    errors.append(f"{url}: SHA-256 {digest} != expected {sha256}")
                    log(f"download rejected: {errors[-1]}")
                    continue
            os.replace(part, dest)
            return dest
    raise AcquireError("download failed:\n  " + "\n  ".join(errors or ["no URL configured"]))


class _Truncated(Exception):
    pass


def _fetch(url: str, part: Path, timeout: float) -> None:
    have = part.stat().st_size if part.exists() else 0
    req = urllib.request.Request(url, headers={"User-Agent": "ltrconv"})
    if have:
        req.add_header("Range", f"bytes={have}-")
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        status = getattr(resp, "status", 200)
        if have and status != 206:
            have = 0  # server ignored the Range header: start over
        length = resp.headers.get("Content-Length")
        total = have + int(length) if length is not None else None
        with open(part, "ab" if have else "wb") as fh:
            shutil.copyfileobj(resp, fh, CHUNK)
    size = part.stat().st_size
    if total is not None and size != total:
        raise _Truncated(f"got {size} of {total} bytes")


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


def _extract_zip(archive: Path, out: Path) -> None:
    try:
        with zipfile.ZipFile(archive) as zf:
            bad = zf.testzip()
            if bad is not None:
                raise AcquireError(f"{archive}: member {bad} fails its CRC check (corrupt archive)")
            for name in zf.namelist():
                target = (out / name).resolve()
                if not target.is_relative_to(out.resolve()):
                    raise AcquireError(f"{archive}: member {name!r} points outside the archive")
            zf.extractall(out)
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        raise AcquireError(f"{archive}: corrupt or truncated zip archive ({exc})") from None


def _extract_tar(archive: Path, out: Path) -> None:
    try:
        with tarfile.open(archive) as tf:
            tf.extractall(out, filter="data")
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise AcquireError(f"{archive}: corrupt or truncated tar archive ({exc})") from None


RAR_TOOLS = (("bsdtar", ["-x", "-f", "{archive}", "-C", "{out}"]),
             ("unar", ["-q", "-f", "-o", "{out}", "{archive}"]))


def _extract_rar(archive: Path, out: Path) -> None:
    for tool, args in RAR_TOOLS:
        exe = shutil.which(tool)
        if exe is None:
            continue
        cmd = [exe] + [a.format(archive=archive, out=out) for a in args]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise AcquireError(
                f"{archive}: {tool} failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}"
            )
        return
    raise AcquireError(
        f"{archive}: a .rar archive needs 'bsdtar' or 'unar'; install one, e.g. "
        "'apt-get install libarchive-tools' (bsdtar) or 'apt-get install unar'"
    )


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
    expect: dict[str, int] = field(default_factory=dict)
    link: str = "symlink"
    config_key: str = ""


def locations(spec: dict, name: str, repo: str | Path) -> dict[str, Any]:
    """Where a config entry says to look, as absolute paths: ``local`` (relative to the
    working directory) and ``search`` (relative to ``repo``, ``{dataset}`` filled in)."""
    local = spec.get("local")
    return dict(
        local=str(Path(local).expanduser().resolve()) if local else None,
        search=[str((Path(repo) / p.format(dataset=name)).resolve()) for p in spec["search"]],
    )


def acquire(src: Source, dest: str | Path, work: str | Path, *, offline: bool = False,
            log: Callable[[str], None] = print) -> tuple[list[dict], str]:
    """Materialise verified fold files of ``src`` in ``dest``; returns (manifest, origin).

    ``work`` holds downloads and extractions. ``offline`` skips the URLs.
    """
    dest, work = Path(dest), Path(work)
    key = src.config_key or f"datasets.{src.name}"
    what = f"dataset {src.name}"
    if src.local:
        return _from_path(src, Path(src.local), dest, work, what, log), str(src.local)
    for cand in src.search:
        path = Path(cand)
        if path.exists():
            try:
                return _from_path(src, path, dest, work, what, log), str(path)
            except AcquireError as exc:
                log(f"ignoring {path}: {exc}")
    if src.urls and not offline:
        name = src.archive_name or Path(src.urls[0].split("?")[0]).name
        if archive_kind(name) is None:
            raise AcquireError(
                f"{what}: cannot tell the archive type of {src.urls[0]}; set config key "
                f"{key}.archive_name (e.g. {src.name}.zip)"
            )
        archive = work / "download" / name
        try:
            if not archive.exists():
                download(src.urls, archive, sha256=src.archive_sha256, log=log)
            return _from_path(src, archive, dest, work, what, log), src.urls[0]
        except AcquireError as exc:
            removed = ""
            if archive.exists():  # unusable: never reuse it, download afresh next time
                archive.unlink()
                removed = f" (removed the downloaded {archive})"
            raise AcquireError(
                f"{what}: {exc}{removed}\nNo usable local copy either: set config key {key}.local "
                f"to a directory holding {src.layout.fold_file(1, 'train')} etc., or to the archive."
            ) from None
    looked = ", ".join(src.search) or "none"
    raise AcquireError(
        f"{what}: no local copy and {'offline' if offline else 'no download URL configured'}. "
        f"Set config key {key}.local to a directory holding "
        f"{src.layout.fold_file(1, 'train')} etc. (or to the .zip/.tar/.rar archive); "
        f"searched: {looked}."
    )


def _from_path(src: Source, path: Path, dest: Path, work: Path, what: str,
               log: Callable[[str], None]) -> list[dict]:
    if not path.exists():
        raise AcquireError(f"{what}: local copy {path} does not exist")
    if path.is_dir():
        root = find_root(path, src.layout, src.archive_root)
        manifest = verify(root, src.layout, src.sha256, src.expect, what)
        materialise(root, src.layout, dest, src.link)
        log(f"{what}: linked {len(manifest)} verified files from {root}")
        return manifest
    if src.archive_sha256 is not None and sha256_file(path) != src.archive_sha256.lower():
        raise AcquireError(f"{what}: archive {path} does not match archive_sha256 {src.archive_sha256}")
    tree = extract(path, work / "extract")
    root = find_root(tree, src.layout, src.archive_root)
    try:
        manifest = verify(root, src.layout, src.sha256, src.expect, what)
    except AcquireError:
        shutil.rmtree(tree, ignore_errors=True)
        raise
    materialise(root, src.layout, dest, "symlink")
    log(f"{what}: extracted and verified {len(manifest)} files from {path}")
    return manifest


def write_manifest(manifest: list[dict], path: str | Path, origin: str) -> None:
    """Tab-separated manifest (file, sha256, checked, rows, queries), written atomically."""
    with atomic_path(path) as tmp, open(tmp, "w") as fh:
        fh.write(f"# origin: {origin}\nfile\tsha256\tchecked\trows\tqueries\n")
        for m in manifest:
            fh.write(f"{m['file']}\t{m['sha256']}\t{str(m['checked']).lower()}\t{m['rows']}\t{m['queries']}\n")
