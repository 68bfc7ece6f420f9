"""Verify fold files (bytes against SHA-256, else parsed content against a content digest, then
query and row counts) and keep the manifest that records what was verified and when.

A fold file without qids (LightGBM's and XGBoost's layout) comes with its query sizes file,
``FILE.query`` or ``FILE.group`` (:data:`ltrconv.data.letor.GROUP_SUFFIXES`), found beside it
as the reader finds it; that file is verified, published and recorded with it, and a sizes
file beside a file with qids too (the reader checks it against them)."""

from __future__ import annotations

import hashlib
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from ..errors import AcquireError, InputError, printable
from ..outputs import atomic_path
from .fileio import read_bytes
from .letor import GROUP_SUFFIXES, check_sizes, read_groups
from .lines import data_lines, has_qid

SUMS_FILE = "SHA256SUMS"


CHUNK = 1 << 20


@dataclass(frozen=True)
class Layout:
    """Where the fold files sit inside a dataset copy.

    ``fold_dir`` and the file names are templates of ``{k}``, the fold number; a ``fold_dir``
    of ``"."`` puts the files at the top of the copy. A split absent from ``splits`` (or None
    there: no validation file) has no file."""

    n_folds: int = 5
    fold_dir: str = "Fold{k}"
    splits: Mapping[str, str] = field(
        default_factory=lambda: {"train": "train.txt", "vali": "vali.txt", "test": "test.txt"}
    )

    def __post_init__(self):
        object.__setattr__(self, "splits",
                           {s: n for s, n in dict(self.splits).items() if n is not None})

    def fold_file(self, k: int, split: str) -> str:
        name = self.splits[split].format(k=k)
        folder = self.fold_dir.format(k=k)
        return name if folder == "." else f"{folder}/{name}"

    def fold_files(self, k: int) -> list[str]:
        return [self.fold_file(k, s) for s in self.splits]

    def files(self) -> list[str]:
        return [f for k in range(1, self.n_folds + 1) for f in self.fold_files(k)]


def sizes_file(root: str | Path, rel: str) -> str | None:
    """The query sizes file beside fold file ``rel`` of the copy at ``root`` (``rel.query``,
    else ``rel.group``), relative to ``root``; None when there is none."""
    return next((rel + s for s in GROUP_SUFFIXES if (Path(root) / (rel + s)).is_file()), None)


def with_sizes(root: str | Path, files: Iterable[str]) -> list[str]:
    """``files`` (relative to ``root``), each followed by its query sizes file if it has one."""
    out = []
    for rel in files:
        out += [rel] + [s for s in [sizes_file(root, rel)] if s is not None]
    return out


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


CONTENT_TAG = b"ltrconv letor content v1\n"


def _text(path: Path) -> tuple[str, str]:
    """The file as text and the codec that gives its bytes back: UTF-8 (what the reader
    takes) when the bytes are UTF-8, else Latin-1 (one character per byte). Either way the
    line, field and docid boundaries are those of the bytes: line breaks and field separators
    are ASCII, and no UTF-8 sequence holds an ASCII byte."""
    try:
        raw = read_bytes(path)
    except InputError as exc:
        raise AcquireError(str(exc)) from None
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("latin-1"), "latin-1"


def content_sha256(path: str | Path) -> str:
    """SHA-256 of what a LETOR file says, not of how it is written.

    Each data line (read by the rules of :mod:`ltrconv.data.lines`, which the reader follows
    too) contributes its label (as a number), its qid (``-`` in a file without qids, whose
    sizes file has a digest of its own: :func:`sizes_sha256`), its feature index/value pairs
    (as numbers, in file order) and the ``docid`` of its comment; other comment fields are
    ignored. Line endings (``\\n``, ``\\r\\n``, ``\\r``), spacing and number formatting
    (``0.5`` vs ``0.500000``) therefore do not change the digest; any label, qid, feature value
    or docid does.

    The digest is SHA-256 over ``CONTENT_TAG``, one ``label qid n_features docid`` record
    per line (labels as Python ``repr`` of the float, the qid as written, newline-separated),
    then the little-endian float64 array of all (index, value) pairs. A line that cannot be
    parsed raises :class:`AcquireError` naming the file and line.
    """
    path = Path(path)
    records, features, n_pairs = [], [], 0
    text, codec = _text(path)
    with_qid = has_qid(text)
    for line in data_lines(text, str(path), AcquireError, with_qid=with_qid):
        pairs = line.features.count(" ") + 1 if line.features else 0
        if line.features.count(":") != pairs:
            raise AcquireError(f"{printable(path)}:{line.lineno}: every feature must read "
                               "INDEX:VALUE")
        qid = line.qid_text if with_qid else "-"
        records.append(f"{float(line.label)!r} {qid} {pairs} {line.docid}")
        if pairs:
            features.append(line.features)
            n_pairs += pairs
    text = " ".join(features).replace(":", " ")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # older numpy warns and stops at a non-number
            values = np.fromstring(text, dtype=np.float64, sep=" ") if text else np.zeros(0)
    except ValueError:  # newer numpy raises instead
        values = None
    if values is None or values.size != 2 * n_pairs:
        raise AcquireError(f"{printable(path)}: a feature index or value is not a number")
    h = hashlib.sha256(CONTENT_TAG)
    h.update("\n".join(records).encode(codec))
    h.update(b"\n")
    h.update(values.astype("<f8").tobytes())
    return h.hexdigest()


SIZES_TAG = b"ltrconv query sizes v1\n"


def sizes_sha256(path: str | Path) -> str:
    """SHA-256 of the query sizes a ``.query``/``.group`` file holds (``SIZES_TAG``, then the
    sizes in decimal, one a line), whatever its line endings and blank lines; a line that is
    not one size raises :class:`AcquireError` naming the file and line."""
    h = hashlib.sha256(SIZES_TAG)
    h.update("".join(f"{n}\n" for n in _sizes(path).tolist()).encode())
    return h.hexdigest()


def _sizes(path: str | Path) -> np.ndarray:
    try:
        return read_groups(path)
    except InputError as exc:
        raise AcquireError(str(exc)) from None


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
    """Data lines and distinct queries of a LETOR text file (no feature parsing), read by the
    rules of :mod:`ltrconv.data.lines`. A file without qids is counted with its query sizes
    file beside it (:func:`sizes_file`), which must add up to its lines; its queries are
    ``N@FILE``, query N of that file, distinct from any other file's."""
    path = Path(path)
    text = _text(path)[0]
    with_qid = has_qid(text)
    sizes = None if with_qid else sizes_file(path.parent, path.name)
    rows, qids = 0, set()
    for line in data_lines(text, str(path), AcquireError, with_qid=with_qid or sizes is None):
        rows += 1
        qids.add(line.qid_text)
    if not with_qid:
        counts = _sizes(path.parent / sizes)
        try:
            check_sizes(str(path), counts, str(path.parent / sizes), rows)
        except InputError as exc:
            raise AcquireError(str(exc)) from None
        qids = {f"{n}@{path}" for n in range(1, len(counts) + 1)}
    return rows, qids


def verify(root: Path, layout: Layout, sha256: Mapping[str, str] | None = None,
           expect: Mapping[str, int] | None = None, what: str = "dataset", *,
           content: Mapping[str, str] | None = None, origin: str | None = None) -> list[dict]:
    """Check presence, digests and per-fold counts; returns one manifest row per file.

    A file passes when its bytes match ``sha256`` (or ``root/SHA256SUMS`` when ``sha256`` is
    empty) or, failing that, its :func:`content_sha256` (a query sizes file's
    :func:`sizes_sha256`) matches ``content``; the row's ``verified_by`` says which
    (``sha256``, ``content``, or ``none`` when no digest is known for the file). Each fold
    file's query sizes file (:func:`sizes_file`) follows it in the manifest, with the rows and
    queries it groups. ``origin`` (URL or path) is named in the refusal.
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
    sizes = {f for f in with_sizes(root, layout.files()) if f not in layout.files()}
    manifest = []
    for rel in with_sizes(root, layout.files()):
        path = root / rel
        stamp = file_stamp(path)  # before reading: a change while hashing shows later
        digest = sha256_file(path)
        want, want_c = sums.get(rel), content.get(rel)
        got_c = "-"
        if want is not None and digest == want:
            by = "sha256"
        elif want_c is not None:
            try:
                got_c = sizes_sha256(path) if rel in sizes else content_sha256(path)
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
        if rel in sizes:
            counts = _sizes(path)
            rows, qids = int(counts.sum()), set(range(len(counts)))
        else:
            rows, qids = count_rows_queries(path)
        manifest.append({"file": rel, "sha256": digest, "checked": by != "none",
                         "verified_by": by, "content_sha256": got_c,
                         "rows": rows, "queries": len(qids), "_qids": qids, **stamp})
    if expect:
        for k in range(1, layout.n_folds + 1):
            names = set(layout.fold_files(k))
            parts = [m for m in manifest if m["file"] in names]
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


def write_manifest(manifest: list[dict], path: str | Path, origin: str) -> None:
    """Tab-separated manifest, written atomically: file, sha256, checked, rows, queries (of a
    query sizes file: the rows and queries it groups),
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
