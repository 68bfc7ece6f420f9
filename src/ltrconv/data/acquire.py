"""Obtain a LETOR dataset: a local directory or archive, or a download; extract; verify.

:func:`acquire` tries, in order, the configured ``local`` copy, the search directories and
the download URLs, and materialises the fold files (with the query sizes file beside each
that has one: LightGBM's ``FILE.query``, XGBoost's ``FILE.group``) under a destination
directory (symlinks to a local directory, or extracted files). Every such file is checked
before anything is published: its bytes against a SHA-256 (config or a ``SHA256SUMS`` file
beside the data), or else its parsed content against a content digest (:func:`content_sha256`,
a sizes file's ``sizes_sha256``), which is the same for copies that differ only in line endings
or spacing; then each fold against the expected query and row counts. A file that matches
neither digest is refused, and a failed check leaves no output behind.

The manifest records each published file's SHA-256 with its size, mtime and ctime;
:func:`check_unchanged` confirms, before the files are used, that they still hold the bytes
that were verified (published files may be links to a directory anyone can edit).

Downloads go to ``work/download/<one directory per URL>/``; an interrupted download resumes
from its ``.part`` file, and a complete download that could not be used for a reason of
this machine (no ``.rar`` extractor) is kept for the next run. A download that proves
broken or different (corrupt archive, refused file) is deleted and the next URL is tried.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Mapping

from ..errors import AcquireError, ExtractorMissing
from .archives import archive_kind, extract, find_root
from .download import download_one, download_path
from .verify import SUMS_FILE, Layout, recheck, sha256_file, verify

# ---- hashing and verification ---------------------------------------------------------


# ---- download ---------------------------------------------------------------------------


# ---- extraction ---------------------------------------------------------------------------


# ---- publication ----------------------------------------------------------------------------
def materialise(root: Path, files: list[str], dest: Path, mode: str = "symlink") -> None:
    """Publish ``files`` of ``root`` (the verified ones: fold files and their query sizes
    files) under ``dest`` as symlinks or copies, all or nothing."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent))
    try:
        for rel in list(files) + ([SUMS_FILE] if (root / SUMS_FILE).is_file() else []):
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


def local_config(key: str, path: str) -> str:
    """The YAML that sets config key ``key``.local (``datasets.MQ2008``) to ``path``, in flow
    style on one line: ``datasets: {MQ2008: {local: PATH}}``."""
    text = f"local: {path}"
    for part in reversed(key.split(".")):
        text = f"{part}: {{{text}}}"
    return text


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
        "archive (.zip, .tar.*, .rar). 'snakemake --config' cannot set a nested key; put it in "
        "a file given after any other --configfile:",
        f"       echo '{local_config(key, '/path/to/' + src.name)}' > local.yaml",
        "       snakemake --cores 2 --configfile local.yaml",
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
        materialise(root, [m["file"] for m in manifest], dest, src.link)
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
    materialise(root, [m["file"] for m in manifest], dest, "symlink")
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

