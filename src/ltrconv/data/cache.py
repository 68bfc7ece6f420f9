"""The binary cache of a LETOR file (:meth:`ltrconv.data.letor.Dataset.save`): an uncompressed
``.npz`` of ``X``, ``y``, ``qid``, ``offsets``, ``docid`` and ``source``, read back only after
each member is checked, so that a forged or damaged file is one clear error, never a huge
allocation."""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

import numpy as np

from ..errors import InputError, printable, shown
from ..evaluation.queries import MAX_LABEL, offsets_from_qid
from .fileio import check_regular


def read_cache(path: Path) -> dict:
    """The arrays of an ``.npz`` dataset cache (``X``, ``y``, ``qid``, ``offsets``, ``docid``,
    ``source``), checked member by member before they are read and array by array after."""
    where = str(path)
    check_regular(path)
    _check_npz_members(path)
    try:
        z = np.load(path, allow_pickle=False)
        if not isinstance(z, np.lib.npyio.NpzFile):
            raise InputError("not a dataset cache (a single .npy array, not an .npz archive)", where)
        with z:
            missing = [k for k in ("X", "y", "qid", "offsets", "docid") if k not in z.files]
            if missing:
                raise InputError(f"not a dataset cache: no array(s) {', '.join(missing)}", where)
            arrays = {k: z[k] for k in ("X", "y", "qid", "offsets", "docid")}
            source = (printable(str(z["source"]), limit=SOURCE_LIMIT) if "source" in z.files
                      else where)
    except InputError:
        raise
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", where) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, KeyError) as exc:
        raise InputError(
            f"not a dataset cache, or a truncated/corrupt one ({exc}); delete it so that it is "
            "rebuilt from the text file", where,
        ) from None
    X, y, qid, offsets, docid = (arrays[k] for k in ("X", "y", "qid", "offsets", "docid"))
    if X.ndim != 2 or X.dtype.kind not in "fiu":
        raise InputError(f"corrupt dataset cache: X has shape {X.shape} and dtype {X.dtype}", where)
    if y.ndim != 1 or y.dtype.kind not in "iu" or (len(y) and (y.min() < 0 or y.max() > MAX_LABEL)):
        raise InputError(f"corrupt dataset cache: y must hold integer labels 0..{MAX_LABEL}", where)
    if qid.ndim != 1 or docid.ndim != 1 or docid.dtype.kind not in "US":
        raise InputError("corrupt dataset cache: qid and docid must be vectors, docid strings", where)
    if qid.dtype.kind not in "iu":
        raise InputError(f"corrupt dataset cache: qid must hold integer query ids, not {qid.dtype}",
                         where)
    if not X.shape[0] == len(y) == len(qid) == len(docid):
        raise InputError(f"corrupt dataset cache: X has {X.shape[0]} rows, y {len(y)}, qid "
                         f"{len(qid)} and docid {len(docid)}; they must be equal", where)
    if (offsets.ndim != 1 or offsets.dtype.kind not in "iu" or len(offsets) < 1
            or offsets[0] != 0 or offsets[-1] != len(y) or np.any(np.diff(offsets) <= 0)):
        raise InputError("corrupt dataset cache: query offsets must rise from 0 to the number "
                         "of rows", where)
    try:
        expected = offsets_from_qid(qid)
    except InputError as exc:
        raise InputError(f"corrupt dataset cache: {exc}", where) from None
    if len(expected) != len(offsets) or np.any(expected != offsets):
        raise InputError(f"corrupt dataset cache: the query offsets ({len(offsets) - 1} queries) "
                         f"disagree with the qid vector ({len(expected) - 1} queries)", where)
    if not np.all(np.isfinite(X)):
        raise InputError("corrupt dataset cache: X has non-finite values", where)
    return dict(X=X.astype(np.float64, copy=False), y=y.astype(np.int64, copy=False),
                qid=qid, offsets=offsets.astype(np.int64, copy=False),
                docid=docid.astype(str), source=source)


SOURCE_LIMIT = 1000
"""Characters of the source name a cache records that are kept (it is echoed in messages)."""


def _check_npz_members(path: Path) -> None:
    """Refuse, before any array is read, an ``.npz`` that :meth:`Dataset.save` cannot have
    written: not a zip archive, a compressed member (the caches are stored uncompressed, so
    an array never takes more memory than the file's own size), or a member whose ``.npy``
    header declares a shape that its stored bytes do not hold."""
    where = str(path)
    with open(path, "rb") as fh:
        head = fh.read(4)
    if not head:
        raise InputError("not a dataset cache, or a truncated/corrupt one (empty file); delete "
                         "it so that it is rebuilt from the text file", where)
    if head != b"PK\x03\x04":
        raise InputError("not a dataset cache: an .npz file is a zip archive and this one is "
                         "not (a LETOR text file must not be named *.npz)", where)
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if info.compress_type != zipfile.ZIP_STORED:
                    raise InputError(f"not a dataset cache written by ltrconv: member "
                                     f"{shown(info.filename)} is compressed (caches are "
                                     "stored uncompressed)", where)
                with zf.open(info) as member:
                    shape, dtype, header = _member_header(member, info.filename, where)
                if dtype.hasobject:
                    raise InputError(f"not a dataset cache: member {shown(info.filename)} holds "
                                     "Python objects", where)
                nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
                if nbytes != info.file_size - header:
                    raise InputError(
                        f"corrupt dataset cache: member {shown(info.filename)} declares shape "
                        f"{shape} ({nbytes:,} bytes) but stores {info.file_size - header:,}",
                        where)
    except InputError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError) as exc:
        raise InputError(f"not a dataset cache, or a truncated/corrupt one ({shown(str(exc))})",
                         where) from None


def _member_header(member, name: str, where: str) -> tuple[tuple, np.dtype, int]:
    """(shape, dtype, header length) of the ``.npy`` member ``name``. numpy parses the header
    as a Python literal: a forged one may raise whatever the tokenizer or the parser raise
    (``tokenize.TokenError`` for an unterminated string, ``SyntaxError``, ``RecursionError``,
    ``MemoryError``), each an :class:`InputError` here."""
    try:
        version = np.lib.format.read_magic(member)
        if version not in ((1, 0), (2, 0), (3, 0)):
            raise ValueError(f"unknown .npy format version {version}")
        read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                       else np.lib.format.read_array_header_2_0)
        shape, _, dtype = read_header(member)
        return shape, dtype, member.tell()
    except (OSError, zipfile.BadZipFile, zlib.error, EOFError, ValueError):
        raise  # said by the caller
    except Exception as exc:  # the header is untrusted text numpy evaluates as a literal
        raise InputError(f"not a dataset cache: member {shown(name)} has an unreadable .npy "
                         f"header ({shown(f'{type(exc).__name__}: {exc}')})", where) from None
