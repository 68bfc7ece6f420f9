"""How a command ends: SIGTERM and SIGINT raised where the program is, the signal found behind
whatever error it became, closed standard streams, and warnings printed as one line."""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
import time

from ..errors import printable
from .common import say

EXIT_ERROR = 2
EXIT_SIGNAL = 128  # plus the signal number, as a shell reports a command a signal ended

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)

REPEAT_GRACE = 2.0
"""Seconds after a stop signal during which the same or another stop signal is not raised
again: the first one is on its way out (``finally`` blocks removing temporary files, the
one-line message), and a second exception raised there would cut that short or end in a
traceback. A signal later than that is raised again, in case the first was swallowed."""


class Terminated(BaseException):
    """SIGTERM, raised where the program is, so that ``finally`` blocks and the output context
    managers remove their temporary files as they do for Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class _Received:
    """The stop signal the running command received first, and when; whether the unraisable
    hook runs, and the timers delivering a signal again."""

    signum: int | None = None
    at: float = 0.0
    in_hook: bool = False
    timers: list = []


REDELIVERY_DELAY = 0.01
"""Seconds after which a signal raised inside a finalizer is delivered again: time for the
unraisable hook to return, so that the signal is raised in the code the finalizer
interrupted."""


def _deliver_again(signum: int) -> None:
    timer = threading.Timer(REDELIVERY_DELAY, _thread.interrupt_main, (signum,))
    timer.daemon = True
    _Received.timers.append(timer)
    timer.start()


def _raise_stop(signum, frame) -> None:
    if _Received.in_hook:  # raised in the hook, it would be printed and lost
        _deliver_again(signum)
        return
    now = time.monotonic()
    if _Received.signum is not None and now - _Received.at < REPEAT_GRACE:
        return
    _Received.signum, _Received.at = signum, now
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def signal_of(exc: BaseException | None) -> int | None:
    """The stop signal behind ``exc``: a :class:`Terminated` or :class:`KeyboardInterrupt`
    that is ``exc`` or among its causes and contexts (a signal handled inside compiled code
    comes out as a ``SystemError`` "returned a result with an exception set", chained to it),
    or None."""
    todo, seen = [exc], set()
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, Terminated):
            return e.signum
        if isinstance(e, KeyboardInterrupt):
            return signal.SIGINT
        todo += [e.__cause__, e.__context__]
        todo += list(getattr(e, "exceptions", ()))  # an exception group's members
    return None


def received() -> int | None:
    """The stop signal the command last run under :func:`sigterm_raises` received, if any
    (also one that is still to be delivered again)."""
    pending = [t.args[0] for t in _Received.timers if not t.finished.is_set()]
    return _Received.signum if _Received.signum is not None else (pending or [None])[0]


def _unraisable_hook(previous):
    def hook(unraisable) -> None:
        _Received.in_hook = True
        try:
            signum = signal_of(unraisable.exc_value)
            if signum is None:
                previous(unraisable)
                return
            # raised inside a finalizer or a callback from C, where Python prints it and goes
            # on: deliver it again, to be raised in the code that was interrupted
            _Received.signum = None
            _deliver_again(signum)
        finally:
            _Received.in_hook = False

    return hook


@contextlib.contextmanager
def sigterm_raises():
    """SIGTERM raises :class:`Terminated` and SIGINT :class:`KeyboardInterrupt` meanwhile, once
    (see :data:`REPEAT_GRACE`); one raised inside a finalizer is delivered again rather than
    printed and lost. Only the main thread can set handlers; a signal the parent process
    ignores stays ignored."""
    _Received.signum, _Received.timers = None, []
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, _raise_stop)
    hook, sys.unraisablehook = sys.unraisablehook, _unraisable_hook(sys.unraisablehook)
    try:
        yield
    finally:
        for timer in _Received.timers:
            timer.cancel()
        sys.unraisablehook = hook
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def stop_message(signum: int) -> str:
    """The line a command a stop signal ended prints."""
    if signum == signal.SIGINT:
        return "ltrconv: interrupted"
    return f"ltrconv: terminated ({signal.Signals(signum).name})"


def closed_standard_streams() -> set[int]:
    """Which of the descriptors 0, 1 and 2 are closed; each is opened on /dev/null, so that no
    file the command opens takes its number (LightGBM and ``library_output_to_stderr`` write
    to descriptor 1 whatever it is). Python leaves ``sys.stdout`` None for a descriptor closed
    at start-up, and writing a result there is refused (:func:`ltrconv.outputs.write_stdout`)."""
    closed = set()
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.add(fd)
    for fd in sorted(closed):
        with contextlib.suppress(OSError):
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    return closed


def stdout_gone() -> None:
    """Point standard output at /dev/null once its reader has left, so that the interpreter's
    final flush does not fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one line each, like the errors."""
    say(f"ltrconv: warning: {printable(' '.join(str(message).split()))}")
