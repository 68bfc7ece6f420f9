"""One reading of a LETOR/SVMlight text, shared by the reader, the content digest and the counts.

* Lines end at LF, CRLF or a lone CR, as text-mode ``open`` (and grep, sed, editors) count
  them; never at form feeds, U+2028 or the other characters ``str.splitlines`` also breaks at,
  which may sit inside a comment.
* A data line reads ``LABEL qid:QID FEATURES... [# COMMENT]``; blank lines and lines that
  start with ``#`` are skipped. Fields are separated by ASCII whitespace only (space, tab,
  vertical tab, form feed), as the byte-oriented tools split them.
* Numbers are written as the LETOR tools read them: ASCII digits with an optional sign, decimal
  point and exponent (``nan`` and ``inf`` are recognised so that they can be refused by name);
  ``1_0`` (which Python's ``float`` reads as 10) and non-ASCII digits (``١``, read as 1) are
  not numbers.
* A label is a number with an integer value in ``0..MAX_LABEL``.
* A qid is a decimal integer that fits in 64 bits. Tools that keep qids as text (RankLib,
  trec_eval) see ``qid:07`` and ``qid:7`` as two queries, while ltrconv groups by the number;
  a file that spells one number two ways is therefore refused rather than read either way.
* The docid is the ``docid = D`` field of the comment (empty when there is none).
"""

from __future__ import annotations

import os
import re
from typing import Iterator, NamedTuple

from ..errors import ECHO_LIMIT, InputError, printable, shown
from ..evaluation.queries import MAX_LABEL

MAX_FEATURES = 100_000
"""Largest feature index accepted, hence most feature tokens on one line. Features are held
densely (rows x largest index, float64), so one stray ``1000000000:0.3`` would ask for gigabytes
per row; public LTR datasets have at most a few hundred features (MSLR-WEB 136, Yahoo 700,
Istella 220). A line is refused on this count before its tokens are split."""

LINE_BREAK = re.compile(r"\r\n|\r|\n")
ASCII_SPACE = " \t\n\r\x0b\x0c"
_SPACE_RUN = re.compile(r"[ \t\n\r\x0b\x0c]+")
_ODD_SPACE = re.compile("[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
"""The characters ``str.split()`` takes for whitespace besides :data:`ASCII_SPACE`."""

NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                    r"|(?i:nan|inf|infinity))")  # no nested repeats: linear time on any token
_QID = re.compile(r"-?[0-9]+")
_DOCID = re.compile(r"docid\s*=\s*(\S+)", re.ASCII)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` (see the module rules); a final line break ends the last line."""
    return LINE_BREAK.split(text) if "\r" in text else text.split("\n")


def parse_number(token: str) -> float | None:
    """The value of ``token`` if it is a number by the module's rules, else None (may be nan
    or infinite: callers refuse those by name)."""
    return float(token) if NUMBER.fullmatch(token) else None


class DataLine(NamedTuple):
    """What one data line says; ``features`` is its ``INDEX:VALUE`` tokens single-spaced."""

    lineno: int
    label: int
    qid: int
    qid_text: str
    docid: str
    features: str


def data_lines(text: str, path: str, error: type[Exception] = InputError, *,
               with_qid: bool = True) -> Iterator[DataLine]:
    """Every data line of ``text`` in order. A malformed label or qid, or a qid number spelled
    two ways, raises ``error`` (an :class:`InputError` class or one taking one message)
    naming ``path`` and the line. ``with_qid=False`` reads lines ``LABEL FEATURES... [#
    COMMENT]`` (LightGBM's and XGBoost's, whose queries are in a group sizes file), each
    with qid 0."""
    fields = _SPACE_RUN.split if _ODD_SPACE.search(text) else None
    labels = _LABELS
    first_spelling: dict[int, tuple[str, int]] = {}
    previous, qid = None, 0
    cut = 2 if with_qid else 1
    for lineno, line in enumerate(split_lines(text), start=1):
        body, _, comment = line.partition("#")
        if fields is None:
            parts = body.split(None, cut)
        else:
            parts = fields(body.strip(ASCII_SPACE), cut) if body.strip(ASCII_SPACE) else []
        if not parts:
            continue
        label = labels.get(parts[0])
        if label is None:
            label = _label(parts, path, lineno, error)
        if not with_qid:
            parts = [parts[0], "qid:0", *parts[1:]]
            previous = "0"
        q_text = parts[1][4:] if len(parts) > 1 and parts[1].startswith("qid:") else None
        if q_text != previous or q_text is None:  # a new run of the qid: checked once per run
            qid = _qid(parts, path, lineno, error)
            seen = first_spelling.setdefault(qid, (q_text, lineno))
            if seen[0] != q_text:
                raise _error(error, f"qid {qid} is written {shown(q_text)} here but "
                                    f"{shown(seen[0])} on line {seen[1]}: RankLib and "
                                    "trec_eval would read two "
                                    "queries, ltrconv one; write each qid one way", path, lineno)
            previous = q_text
        m = _DOCID.search(comment) if comment else None
        rest = parts[2] if len(parts) > 2 else ""
        if len(rest) > MAX_FEATURES and rest.count(":") > MAX_FEATURES:
            raise _error(error, f"{rest.count(':')} feature tokens on one line, more than the "
                                f"{MAX_FEATURES} features accepted", path, lineno)
        tokens = rest.split() if fields is None else fields(rest.strip(ASCII_SPACE))
        feats = " ".join(tokens)
        yield DataLine(lineno, label, qid, q_text, m.group(1) if m else "", feats)


def has_qid(text: str) -> bool:
    """Whether the first data line of ``text`` has a ``qid:`` second token (True when there is
    no data line: the qid reader then says what is wrong)."""
    for line in split_lines(text):
        parts = line.partition("#")[0].split(None, 2)
        if parts:
            return len(parts) > 1 and parts[1].startswith("qid:")
    return True


_LABELS = {str(i): i for i in range(10)}
"""The usual label tokens, read without the general number rules (the same values)."""


def _error(error: type[Exception], message: str, path: str, lineno: int) -> Exception:
    if issubclass(error, InputError):
        return error(message, path, lineno)
    return error(str(InputError(message, path, lineno)))


def _label(parts: list[str], path: str, lineno: int, error: type[Exception]) -> int:
    tok = parts[0]
    value = parse_number(tok)
    if value is None:
        raise _error(error, f"label {shown(tok)} is not a number", path, lineno)
    if not value.is_integer() or value < 0:
        raise _error(error, f"label {shown(tok)} is not a non-negative integer", path, lineno)
    if value > MAX_LABEL:
        raise _error(error, f"label {shown(tok)} is above {MAX_LABEL}, the largest label "
                            "accepted (gains are tabulated per label)", path, lineno)
    return int(value)


def _qid(parts: list[str], path: str, lineno: int, error: type[Exception]) -> int:
    if len(parts) < 2:
        raise _error(error, "expected 'LABEL qid:QID FEATURE:VALUE ...'", path, lineno)
    tok = parts[1]
    if not tok.startswith("qid:") or len(tok) == 4:
        name = printable(os.path.basename(path) or "FILE", ECHO_LIMIT)
        raise _error(error, f"missing qid: second token is {shown(tok)}, expected qid:QID (a "
                            f"file without qids needs its query sizes beside it, in {name}.query "
                            f"or {name}.group)", path, lineno)
    q = tok[4:]
    if not _QID.fullmatch(q):
        raise _error(error, f"qid {shown(q)} is not an integer", path, lineno)
    if len(q.lstrip("-").lstrip("0")) > 19 or not _INT64_MIN <= int(q) <= _INT64_MAX:
        digits = q if len(q) <= ECHO_LIMIT else q[: ECHO_LIMIT - 1] + "…"
        raise _error(error, f"qid {digits} does not fit in 64 bits", path, lineno)
    return int(q)
