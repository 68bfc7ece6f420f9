"""How a command ends: SIGTERM raised as :class:`Terminated`, a closed standard output, and
warnings printed as one line."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

from ..errors import printable
from .common import say

EXIT_ERROR = 2
EXIT_SIGNAL = 128  # plus the signal number, as a shell reports a command a signal ended


class Terminated(BaseException):
    """SIGTERM, raised where the program is, so that ``finally`` blocks and the output context
    managers remove their temporary files as they do for Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum, frame) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def sigterm_raises():
    """SIGTERM raises :class:`Terminated` meanwhile (only the main thread can set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stdout_gone() -> None:
    """Point standard output at /dev/null once its reader has left, so that the interpreter's
    final flush does not fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one line each, like the errors."""
    say(f"ltrconv: warning: {printable(' '.join(str(message).split()))}")
