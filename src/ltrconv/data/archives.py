"""Unpack a dataset archive (``.zip``, ``.tar.*``, ``.rar``) into a directory, refusing members
that would land outside it, and find the directory that holds the fold files."""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
import zlib
from pathlib import Path

from ..errors import AcquireError, ExtractorMissing
from .verify import Layout


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
