"""The LETOR reader's fast path: a well-formed file parsed in bulk, with numpy byte operations
or, where numba is loaded anyway, with the kernel of :mod:`ltrconv.data.letor_kernel`.

:func:`parse_bulk` accepts a file only when every line is blank, a comment, or
``LABEL qid:QID INDEX:VALUE ... [# COMMENT]`` with

* ASCII throughout, lines ending at LF (no CR), fields separated by spaces, tabs, VT or FF;
* a label of one digit; a qid of 1 to 18 decimal digits without a leading zero;
* feature tokens ``INDEX:VALUE``: an index of 1 to 9 digits, increasing along the line within
  1..``limit``, and a value that :func:`~ltrconv.data.lines.parse_number` reads as a finite
  number.

It returns None for anything else, so that the line-by-line reader, which names the file and
line at fault, reads the file; what it accepts, it reads as that reader does (the docid too:
the first ``docid = D`` of the comment). A value of at most 15 digits without exponent,
``[+-]d...d.d...d`` (m its digits as an integer, k of them after the point), is m / 10^k: both
are exact doubles (m < 10^15 < 2^53, k <= 15), so the division, rounded once, is the double
nearest the decimal, which is Python's ``float`` of it (Clinger 1990, the fast path of correctly
rounded decimal conversion). Other values go through ``float``.
"""

from __future__ import annotations

import re
import sys
from typing import NamedTuple

import numpy as np

from .lines import parse_number

CHUNK_BYTES = 1 << 18
"""Bytes parsed at a time (cut at a line end). The arrays of one chunk take about 20 times its
size, a few MB whatever the file's size; chunks this small are also faster than larger ones
(their arrays stay in the cache and reuse freed memory)."""

_SPACE = b" \t\x0b\x0c"
_ALLOWED = b"0123456789.:+-eEqid\n" + _SPACE
_TO_SPACE = bytes.maketrans(_SPACE, b" " * len(_SPACE))
_DOCID = re.compile(rb"docid\s*=\s*(\S+)")  # bytes patterns: \s is ASCII whitespace
_DIGITS = 15
POW10 = np.array([float(10**k) for k in range(_DIGITS + 1)])
_WIDE = _DIGITS + 2  # sign, digits, point
_PAD = b"\n" * (_WIDE + 1)


class Bulk(NamedTuple):
    """What :func:`parse_bulk` read: per data line its 1-based line number, label, qid and docid
    (bytes, empty without); ``X`` the dense features, or None when they are not kept."""

    linenos: np.ndarray
    labels: np.ndarray
    qids: np.ndarray
    docids: np.ndarray
    X: np.ndarray | None


def parse_bulk(raw: bytes, limit: int, width: int | None, keep: bool, *,
               kernel: bool | None = None) -> Bulk | None:
    """The data lines of ``raw``, or None unless it is well formed (module docstring).

    ``limit`` is the largest feature index accepted; ``width`` fixes the columns of ``X``
    (default: the largest index, at least 1); ``keep=False`` checks the features and keeps none.
    ``kernel``: parse with :mod:`ltrconv.data.letor_kernel` (numba) rather than numpy; by
    default when numba is loaded already (importing it takes longer than any parse).
    """
    if not raw.isascii() or b"\r" in raw:
        return None
    if kernel is None:
        kernel = "numba" in sys.modules
    if kernel:
        from .letor_kernel import parse_chunk as scan

        def parse_chunk(chunk, limit):
            return scan(chunk, limit, POW10, odd_values)
    else:
        parse_chunk = _parse_chunk
    parts = []
    start, line0, rows = 0, 0, 0
    X = None
    cols = width or 1
    most_rows = raw.count(b"\n") + (not raw.endswith(b"\n")) if keep else 0
    while start < len(raw):
        end = raw.find(b"\n", start + CHUNK_BYTES)
        end = len(raw) if end < 0 else end + 1
        part = parse_chunk(raw[start:end], limit)
        if part is None:
            return None
        n_lines, lines, labels, qids, docids, feat_rows, index, values = part
        if keep:
            top = int(index.max(initial=0))
            if X is None or top > cols:
                cols = max(cols, top)
                try:
                    grown = np.zeros((most_rows, cols))
                except MemoryError:
                    return None
                if X is not None:
                    grown[:rows, :X.shape[1]] = X[:rows]
                X = grown
            X.reshape(-1)[(feat_rows + rows) * cols + (index - 1)] = values
        parts.append((lines + line0 + 1, labels, qids, docids))
        rows += len(labels)
        line0 += n_lines
        start = end
    if rows == 0:
        return None
    linenos, labels, qids, docids = (np.concatenate(a) for a in zip(*parts))
    if keep and X.shape[0] != rows:
        X = X[:rows]
    return Bulk(linenos, labels.astype(np.int64), qids, docids, X)


def _parse_chunk(chunk: bytes, limit: int):
    """(lines in ``chunk``; line, label, qid, docid of each data line; row, index, value of each
    feature token) of the whole lines ``chunk`` (lines counted from 0, rows from the chunk's
    first data line), or None unless well formed."""
    if b"#" in chunk:
        parts = [line.partition(b"#") for line in chunk.split(b"\n")]
        body = b"\n".join([p[0] for p in parts])
        comments = [p[2] for p in parts]
    else:
        body, comments = chunk, None
    if body.translate(None, _ALLOWED):
        return None
    if b"\t" in body or b"\x0b" in body or b"\x0c" in body:
        body = body.translate(_TO_SPACE)
    b = np.frombuffer(b"\n" + body + b"\n" + _PAD, np.uint8)
    core = b[:len(body) + 2]
    sep = core <= 32  # the allowed bytes up to 32 are space and LF
    edge = np.flatnonzero(sep[1:] != sep[:-1]) + 1
    st, en = edge[0::2], edge[1::2]  # core starts and ends with LF: starts and ends alternate
    nl = np.flatnonzero(core == 10)
    first = np.searchsorted(st, nl)
    ntok = np.diff(first)
    lines = np.flatnonzero(ntok)
    if len(lines) == 0:
        return (len(nl) - 2, lines, np.zeros(0, np.uint8), np.zeros(0, np.int64),
                np.zeros(0, "S1"), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    per_line = ntok[lines]
    if per_line.min() < 2:
        return None
    lab = first[lines]
    labels = b[st[lab]] - 48
    if (en[lab] - st[lab] != 1).any() or labels.max() > 9:
        return None
    qids = _qids(b, st[lab + 1], en[lab + 1])
    if qids is None:
        return None
    feat = np.ones(len(st), dtype=bool)
    feat[lab] = False
    named = np.flatnonzero(feat)  # tokens with a colon: qids and features
    feat[lab + 1] = False
    colon = np.flatnonzero(core == 58)
    if len(colon) != len(named) or (st[named] >= colon).any() or (colon >= en[named] - 1).any():
        return None  # not exactly one colon inside each, with something on both sides
    ft = np.flatnonzero(feat)
    fcol = colon[feat[named]]
    index = _index(b, st[ft], fcol - st[ft], limit)
    if index is None:
        return None
    same_line = ft[1:] == ft[:-1] + 1
    if (same_line & (index[1:] <= index[:-1])).any():
        return None
    values = _values(b, fcol + 1, en[ft] - fcol - 1)
    if values is None:
        return None
    rows = np.repeat(np.arange(len(lines)), per_line - 2)
    if comments is None:
        docids = np.zeros(len(lines), "S1")
    else:
        search = _DOCID.search
        docids = np.array([(m.group(1) if (m := search(comments[i])) else b"")
                           for i in lines.tolist()], dtype="S")
    return len(nl) - 2, lines, labels, qids, docids, rows, index, values


def odd_values(text, odd: np.ndarray, values: np.ndarray) -> bool:
    """Set ``values[k]`` to ``float`` of the token at ``text[start:start + length]`` for each row
    ``(k, start, length)`` of ``odd``; False unless each is a finite number of
    :func:`~ltrconv.data.lines.parse_number`."""
    text = memoryview(text)
    for k, start, length in odd.tolist():
        v = parse_number(bytes(text[start:start + length]).decode("ascii"))
        if v is None or not np.isfinite(v):
            return False
        values[k] = v + 0.0  # a written -0 is the absent feature
    return True


def _qids(b: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray | None:
    """The numbers of the tokens ``qid:DIGITS`` at ``start:end`` (no leading zero), or None."""
    length = end - start - 4
    if length.min() < 1 or length.max() > 18:
        return None
    if not ((b[start] == 113) & (b[start + 1] == 105) & (b[start + 2] == 100)
            & (b[start + 3] == 58)).all():
        return None
    digits = start + 4
    if ((b[digits] == 48) & (length > 1)).any():
        return None
    return _decimal(b, digits, length)


def _index(b: np.ndarray, start: np.ndarray, length: np.ndarray, limit: int) -> np.ndarray | None:
    """The feature indices at ``start`` (``length`` digits), or None unless all are in 1..limit."""
    if len(start) == 0:
        return np.zeros(0, dtype=np.int64)
    if length.max() > 9:
        return None
    i = _decimal(b, start, length)
    if i is None or i.min() < 1 or i.max() > limit:
        return None
    return i


def _decimal(b: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray | None:
    """The numbers written by the ``length`` (at least 1, at most 18) digits at ``start``, or
    None if any of those bytes is not a digit."""
    out = np.zeros(len(start), dtype=np.int64)
    for j in range(int(length.max())):
        d = b[start + j] - 48  # uint8: a byte below '0' wraps past 9
        on = length > j
        if (on & (d > 9)).any():
            return None
        out = np.where(on, out * 10 + d, out)
    return out


def _values(b: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray | None:
    """The numbers at ``start`` (``length`` bytes each), or None unless all are finite numbers
    of :func:`~ltrconv.data.lines.parse_number`; ``-0`` is read as ``+0.0``."""
    n = len(start)
    if n == 0:
        return np.zeros(0)
    width = min(int(length.max()), _WIDE)
    m = np.zeros(n)
    digits = np.zeros(n, dtype=np.uint8)
    after = np.zeros(n, dtype=np.uint8)  # digits after the point
    points = np.zeros(n, dtype=np.uint8)
    odd = length > _WIDE  # read by float() instead
    short = np.minimum(length, _WIDE + 1).astype(np.uint8)
    negative = b[start] == 45
    for j in range(width):
        c = b[start + j]
        on = short > j
        d = c - 48
        is_digit = (d < 10) & on
        is_point = (c == 46) & on
        other = on & ~is_digit & ~is_point
        if j == 0:
            other &= ~(negative | (c == 43))
        odd |= other
        m *= np.where(is_digit, 10.0, 1.0)
        m += d * is_digit
        digits += is_digit
        after += is_digit & (points > 0)
        points += is_point
    odd |= (points > 1) | (digits == 0) | (digits > _DIGITS)
    values = m / POW10[np.minimum(after, _DIGITS)]
    values = np.where(negative, -values, values)
    where = np.flatnonzero(odd)
    if len(where) and not odd_values(b, np.stack([where, start[where], length[where]], 1), values):
        return None
    return values + 0.0  # a written -0 is the absent feature
