"""Errors raised for bad input; the CLI prints them as one line and exits non-zero.

Messages echo what the user gave through :func:`printable` (paths, names: control characters
escaped, so that a message stays one line) and :func:`shown` (values: ``repr``, cut to
:data:`ECHO_LIMIT` characters, so that a huge token or a nested YAML value never floods the
terminal).
"""

from __future__ import annotations

import os
import reprlib
import stat
from pathlib import Path

ECHO_LIMIT = 80
"""Characters of a user value a message echoes at most (the rest becomes an ellipsis)."""

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxdict, _REPR.maxlist, _REPR.maxtuple, _REPR.maxset = 3, 8, 8, 8, 8
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = ECHO_LIMIT + 2


def printable(text: object, limit: int | None = None) -> str:
    """``text`` (a path, a name) with every character that ``str.isprintable`` refuses (line
    breaks, tabs, escape sequences, undecodable bytes of a file name) written as its Python
    escape, e.g. a newline as ``\\n``; other characters are kept. With ``limit``, at most that
    many characters, a longer text cut and ending in ``…``."""
    s = os.fsdecode(text) if isinstance(text, (bytes, os.PathLike)) else str(text)
    cut = limit is not None and len(s) > limit
    if cut:
        s = s[:limit]
    if not s.isprintable():
        s = "".join(c if c.isprintable() else repr(c)[1:-1] for c in s)
    if limit is not None and (cut or len(s) > limit):
        return s[: limit - 1] + "…"
    return s


def shown(value: object, limit: int = ECHO_LIMIT) -> str:
    """``repr(value)``, at most ``limit`` characters: a longer one is cut and ends in ``…``.

    The work is bounded too: a long string is cut before ``repr``, and containers show a few
    items per level (:mod:`reprlib`), so echoing a value costs little whatever its size."""
    if isinstance(value, str):
        text = repr(value[: limit + 1])
        cut = len(value) > limit + 1 or len(text) > limit
    else:
        text = _REPR.repr(value)
        cut = len(text) > limit
    return text[: limit - 1] + "…" if cut else text


class LtrconvError(ValueError):
    """Any user-facing error: bad data file, bad config, bad parameter."""


class InputError(LtrconvError):
    """Malformed input, located as precisely as possible: ``file:line: message``."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        where = ""
        if path is not None:
            name = printable(path)
            where = f"{name}:{line}: " if line is not None else f"{name}: "
        super().__init__(where + message)
        self.path = path
        self.line = line


class AcquireError(LtrconvError):
    """The dataset cannot be obtained or fails verification."""


class ExtractorMissing(AcquireError):
    """This machine cannot unpack the archive (no extractor); the archive itself may be fine."""


def check_regular(path: str | Path) -> None:
    """Raise :class:`InputError` unless ``path`` is (a link to) a regular file."""
    where = str(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", where) from None
    if stat.S_ISDIR(mode):
        raise InputError("is a directory, not a file", where)
    if not stat.S_ISREG(mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else
                "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
                "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        raise InputError(f"is {kind}; give a regular file", where)
