"""The LETOR reader's fast path as one numba kernel, for commands that have loaded numba anyway.

:func:`parse_chunk` accepts the well-formed files :mod:`ltrconv.data.letor_bulk` describes
and reads them as the line-by-line reader does, in one pass over the bytes. The reader uses it
instead of the numpy operations when numba is imported already, as in ``ltrconv train``, whose
rankers need it: importing numba takes longer than any parse.
"""

from __future__ import annotations

import numpy as np

from ..jit import njit

_FAIL = -1


@njit(cache=True)
def _scan(buf, limit, pow10, line, label, qid, comment, row, index, value, odd):
    """Fill the per-line (``line``: 0-based number, ``label``, ``qid``, ``comment``: start and
    end of the docid, -1 without) and per-token (``row``, ``index``, ``value``) arrays; ``odd``
    gets the token, start and length of the values left to ``float``. Returns the counts of data
    lines, tokens, odd values and lines, or ``_FAIL`` first unless the text is well formed (a
    NUL byte in a docid included)."""
    n = buf.shape[0]
    i = lineno = lines = tokens = odds = 0
    while i < n:
        while i < n and (buf[i] == 32 or 9 <= buf[i] <= 12 and buf[i] != 10):
            i += 1
        if i < n and buf[i] != 10 and buf[i] != 35:
            if lines == line.shape[0]:
                return _FAIL, 0, 0, 0
            c = buf[i]
            if c < 48 or c > 57 or i + 1 >= n or not (buf[i + 1] == 32 or 9 <= buf[i + 1] <= 12
                                                       and buf[i + 1] != 10):
                return _FAIL, 0, 0, 0
            label[lines] = c - 48
            i += 1
            while i < n and (buf[i] == 32 or 9 <= buf[i] <= 12 and buf[i] != 10):
                i += 1
            if (i + 4 >= n or buf[i] != 113 or buf[i + 1] != 105 or buf[i + 2] != 100
                    or buf[i + 3] != 58 or buf[i + 4] == 48 and i + 5 < n
                    and 48 <= buf[i + 5] <= 57):
                return _FAIL, 0, 0, 0
            i += 4
            start = i
            q = 0
            while i < n and 48 <= buf[i] <= 57 and i - start < 19:
                q = q * 10 + (buf[i] - 48)
                i += 1
            if i == start or i - start > 18 or i < n and not (
                    buf[i] == 32 or 9 <= buf[i] <= 12 or buf[i] == 35):
                return _FAIL, 0, 0, 0
            line[lines] = lineno
            qid[lines] = q
            comment[lines, 0] = comment[lines, 1] = -1
            last = 0
            while True:
                while i < n and (buf[i] == 32 or 9 <= buf[i] <= 12 and buf[i] != 10):
                    i += 1
                if i >= n or buf[i] == 10 or buf[i] == 35:
                    break
                start = i
                k = 0
                while i < n and 48 <= buf[i] <= 57 and i - start < 10:
                    k = k * 10 + (buf[i] - 48)
                    i += 1
                if i == start or i - start > 9 or i >= n or buf[i] != 58:
                    return _FAIL, 0, 0, 0
                if k < 1 or k > limit or k <= last:
                    return _FAIL, 0, 0, 0
                last = k
                i += 1
                start = i
                if tokens == row.shape[0]:
                    return _FAIL, 0, 0, 0
                negative = i < n and buf[i] == 45
                if i < n and (buf[i] == 45 or buf[i] == 43):
                    i += 1
                m = digits = after = points = other = 0
                while i < n and not (buf[i] == 32 or 9 <= buf[i] <= 12 or buf[i] == 35):
                    c = buf[i]
                    if 48 <= c <= 57:
                        if digits < 16:
                            m = m * 10 + (c - 48)
                        digits += 1
                        after += points > 0
                    elif c == 46:
                        points += 1
                    else:
                        other += 1
                    i += 1
                row[tokens] = lines
                index[tokens] = k
                if other or points > 1 or digits == 0 or digits > 15:
                    odd[odds, 0] = tokens
                    odd[odds, 1] = start
                    odd[odds, 2] = i - start
                    odds += 1
                    value[tokens] = 0.0
                else:
                    v = m / pow10[after]
                    value[tokens] = (-v if negative else v) + 0.0
                tokens += 1
            if i < n and buf[i] == 35:  # the docid: the first 'docid\s*=\s*(\S+)' of the comment
                i += 1
                while i < n and buf[i] != 10 and comment[lines, 0] < 0:
                    if (buf[i] == 100 and i + 5 < n and buf[i + 1] == 111 and buf[i + 2] == 99
                            and buf[i + 3] == 105 and buf[i + 4] == 100):
                        j = i + 5
                        while j < n and (buf[j] == 32 or 9 <= buf[j] <= 13 and buf[j] != 10):
                            j += 1
                        if j < n and buf[j] == 61:
                            j += 1
                            while j < n and (buf[j] == 32 or 9 <= buf[j] <= 13 and buf[j] != 10):
                                j += 1
                            if j < n and not (buf[j] == 32 or 9 <= buf[j] <= 13):
                                comment[lines, 0] = j
                                while j < n and not (buf[j] == 32 or 9 <= buf[j] <= 13):
                                    if buf[j] == 0:
                                        return _FAIL, 0, 0, 0
                                    j += 1
                                comment[lines, 1] = j
                    i += 1
            lines += 1
        while i < n and buf[i] != 10:
            i += 1
        i += 1
        lineno += 1
    return lines, tokens, odds, lineno


def parse_chunk(chunk: bytes, limit: int, pow10: np.ndarray, odd_values):
    """What :func:`ltrconv.data.letor_bulk._parse_chunk` returns, from one pass of
    :func:`_scan`; ``pow10`` and ``odd_values`` are that module's (10^k as doubles, and the
    reading of the values the kernel leaves to ``float``)."""
    buf = np.frombuffer(chunk, np.uint8)
    most_lines, most_tokens = len(chunk) // 8 + 1, len(chunk) // 3 + 1  # 0 qid:0 / 1:
    line, qid = np.empty(most_lines, np.int64), np.empty(most_lines, np.int64)
    label, docid = np.empty(most_lines, np.uint8), np.empty((most_lines, 2), np.int64)
    row, index = np.empty(most_tokens, np.int64), np.empty(most_tokens, np.int64)
    value, odd = np.empty(most_tokens), np.empty((most_tokens, 3), np.int64)
    lines, tokens, odds, n_lines = _scan(buf, limit, pow10, line, label, qid, docid, row, index,
                                         value, odd)
    if lines == _FAIL:
        return None
    value = value[:tokens]
    if odds and not odd_values(chunk, odd[:odds], value):
        return None
    return (n_lines, line[:lines], label[:lines], qid[:lines], _strings(buf, docid[:lines]),
            row[:tokens], index[:tokens], value)


def _strings(buf: np.ndarray, spans: np.ndarray) -> np.ndarray:
    """The bytes ``buf[start:end]`` of each row of ``spans`` (empty where start is -1)."""
    length = np.where(spans[:, 0] < 0, 0, spans[:, 1] - spans[:, 0])
    width = max(int(length.max(initial=0)), 1)
    at = np.clip(spans[:, :1] + np.arange(width), 0, len(buf) - 1)
    out = np.where(np.arange(width) < length[:, None], buf[at], 0).astype(np.uint8)
    return out.view(f"S{width}").ravel()
