"""Reading an input file whole: regular files only, gzip / bzip2 / xz recognised by their
magic bytes (the name does not matter), errors naming the file.

A FIFO, a character device (``/dev/zero``) or a directory is refused before it is opened, so
that reading never blocks on a writer that does not come or runs without end. A compressed
file is decompressed block by block, and a block holding a NUL byte (no text file does) stops
it: a few megabytes of compressed zeros would otherwise fill gigabytes before any parser sees
them. :func:`map_bytes` maps a plain file instead of copying it (TREC runs: a 1M-line run's
copy cost 0.03-0.06 s of system time in page faults).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import mmap
import os
import stat
import zlib
from pathlib import Path

from ..errors import InputError, check_regular  # noqa: F401  (re-exported)

COMPRESSIONS = {b"\x1f\x8b": "gzip", b"BZh": "bzip2", b"\xfd7zXZ\x00": "xz"}
"""Magic bytes at the start of a file -> the compression it is read with."""

_OPENERS = {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}
_BLOCK = 1 << 24


def compression(head: bytes) -> str | None:
    """The compression whose magic bytes start ``head``, or None."""
    for magic, name in COMPRESSIONS.items():
        if head.startswith(magic):
            return name
    return None


def read_bytes(path: str | Path) -> bytes:
    """The content of the regular file ``path``, decompressed when it is gzip, bzip2 or xz
    (then refused at the first decompressed block that holds a NUL byte)."""
    check_regular(path)
    where = str(path)
    try:
        with open(path, "rb") as fh:
            kind = compression(fh.read(6))
            if kind is None:
                fh.seek(0)
                return fh.read()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", where) from None
    out = io.BytesIO()
    try:
        with _OPENERS[kind](path, "rb") as fh:
            while block := fh.read(_BLOCK):
                nul = block.find(b"\0")
                if nul >= 0:
                    raise InputError(f"not a text file: a NUL byte at byte {out.tell() + nul:,} "
                                     f"of its decompressed content ({kind})", where)
                out.write(block)
    except InputError:
        raise
    except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as exc:
        raise InputError(f"cannot decompress ({kind}): {exc}", where) from None
    except MemoryError:
        raise InputError(f"not enough memory to decompress ({kind})", where) from None
    return out.getvalue()


def map_bytes(path: str | Path) -> bytes | mmap.mmap:
    """:func:`read_bytes`, but a plain (uncompressed) non-empty file is mapped read-only rather
    than copied: an :class:`mmap.mmap` (``find``, slicing and the buffer protocol, as bytes
    have), to be closed by the caller. A file the system cannot map (``/proc``'s, of size 0)
    is read. The mapping has the size the file had when it was opened: lines appended later
    are not seen (as with a read), but a file truncated while it is being parsed ends the
    process with SIGBUS, as trec_eval (which maps its input too) would."""
    check_regular(path)
    where = str(path)
    try:
        with open(path, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):  # replaced since it was checked
                raise InputError("not a regular file", where)
            if info.st_size and compression(fh.read(6)) is None:
                try:
                    return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
                except (OSError, ValueError):
                    pass
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", where) from None
    return read_bytes(path)


def read_text(path: str | Path) -> str:
    """:func:`read_bytes` decoded as UTF-8 (:func:`decode`)."""
    return decode(read_bytes(path), path)


def decode(raw: bytes, path: str | Path) -> str:
    """``raw`` (the content of ``path``) as UTF-8 text. Bytes that are not UTF-8, and a NUL
    byte (no text file holds one), raise :class:`InputError` naming the line (lines ending at
    LF, CRLF or a lone CR, as text-mode ``open`` counts them) and the byte within it (in the
    decompressed content for a compressed file)."""
    refuse_nul(raw, path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {column_at(raw, exc.start)} of the line)",
                         str(path), line_at(raw, exc.start)) from None


def refuse_nul(raw: bytes, path: str | Path) -> None:
    """Raise :class:`InputError` at the first NUL byte of ``raw`` (the content of ``path``),
    naming its line as :func:`decode` does."""
    nul = raw.find(b"\0")
    if nul >= 0:
        raise InputError(f"not a text file: a NUL byte (byte {column_at(raw, nul)} of the line)",
                         str(path), line_at(raw, nul))


def line_at(raw: bytes, offset: int) -> int:
    """The 1-based line of ``raw`` that holds byte ``offset``, lines ending at LF, CRLF or a
    lone CR."""
    head = raw[:offset]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def column_at(raw: bytes, offset: int) -> int:
    """The 1-based place of byte ``offset`` in its line (see :func:`line_at`)."""
    start = max(raw.rfind(b"\n", 0, offset), raw.rfind(b"\r", 0, offset))
    return offset - start
