"""What the dataset-acquisition tests share: a small two-fold LETOR copy, a source for it,
digests, edited file contents as another mirror might serve them, and archives made here
(.zip, .tar.gz, and a stored .rar written byte by byte)."""

from __future__ import annotations

import struct
import tarfile
import zipfile
import zlib
from pathlib import Path

from ltrconv.data import acquire as A
from ltrconv.data import verify
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
