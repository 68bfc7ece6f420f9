"""The ``ltrconv`` parser, built from the command modules, and the run of one command."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import warnings
from typing import Sequence

from ..errors import LtrconvError, printable
from .common import FORMATTER, Parser, paragraphs, say
from .signals import (EXIT_ERROR, EXIT_SIGNAL, closed_standard_streams, received, show_warning,
                      sigterm_raises, signal_of, stdout_gone, stop_message)

COMMANDS = ("eval", "eval_score", "ttest", "compare", "audit", "conventions", "train", "predict",
            "check_reference", "check_libraries", "explain", "identify")
"""The command modules, in the order of ``ltrconv --help``."""

DESCRIPTION = ("NDCG as each public learning-to-rank tool computes it (RankLib, trec_eval, the "
               "Yahoo! challenge script, LETOR's Eval-Score), and what the choice does to "
               "evaluation and training.")

EPILOG = ("Bad input stops with one line, 'ltrconv: error: ...', naming the file and line or "
          "the parameter, and exit status 2; so does an output that cannot be written in full "
          "(a full disk, standard output included). Ctrl-C and SIGTERM stop a command with one "
          "line and exit status 130 and 143, leaving no temporary file; a reader that closes "
          "standard output early (| head) ends it silently with exit status 141, as SIGPIPE "
          "would. 'ltrconv COMMAND --help' describes a command.")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; help texts are plain text for the terminal."""
    p = Parser(prog="ltrconv", description=paragraphs(DESCRIPTION),
                                epilog=paragraphs(EPILOG), formatter_class=FORMATTER)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f".{name}", __package__).add_parser(sub)
    return p


NO_LINEAR_ALGEBRA = ("eval", "eval-score", "explain", "identify")
"""Commands that only sort and sum: OpenBLAS (loaded with numpy) need not start a thread per
core, which spin at start-up (0.06 s of CPU time on two cores, a tenth of a 1M-line run's
evaluation)."""


STDOUT_COMMANDS = ("conventions", "check-reference")
"""Commands without an output option that write their result to standard output; the others
do when their ``output`` is absent or '-'."""


def writes_stdout(args: argparse.Namespace) -> bool:
    """Whether the parsed command ``args`` writes its result to standard output."""
    if "output" in vars(args):
        return args.output in (None, "-")
    return args.command in STDOUT_COMMANDS


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names (default: ``sys.argv[1:]``); its exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] and argv[0] in NO_LINEAR_ALGEBRA and "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    closed = closed_standard_streams()
    if 2 in closed and sys.stderr is None:  # print(file=None) would write to stdout
        sys.stderr = open(2, "w", closefd=False)  # /dev/null now
    try:
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:  # while the command modules load
        say("ltrconv: interrupted")
        return EXIT_SIGNAL + signal.SIGINT
    with warnings.catch_warnings(), sigterm_raises():
        warnings.showwarning = show_warning
        try:
            if 1 in closed or sys.stdout is None:
                if writes_stdout(args):
                    raise LtrconvError("standard output: closed, and the result is written "
                                       "there; give an output file"
                                       + (" (-o FILE)" if "output" in vars(args) else ""))
                if sys.stdout is None:  # what libraries print goes to /dev/null, not a file
                    sys.stdout = open(1, "w", closefd=False)
            status = args.func(args)
            signum = received()  # one that arrived but was swallowed on its way out
            if signum is not None:
                say(stop_message(signum))
                return EXIT_SIGNAL + signum
        except BaseException as exc:  # noqa: B036 -- each ending is one line and a status
            status = ending(exc)
            if status is None:
                raise
    return status or 0


def ending(exc: BaseException) -> int | None:
    """The exit status of a command that raised ``exc``, its one line said; None for an
    exception that is a bug (its traceback is the report).

    A stop signal comes first, found behind whatever error it became (:func:`signal_of`; a
    signal that arrived during the command and was turned into an unrelated error counts
    too); then bad input, and a reader that left standard output."""
    signum = signal_of(exc)
    if signum is None and not isinstance(exc, (LtrconvError, BrokenPipeError, SystemExit)):
        signum = received()
    if signum is not None:
        say(stop_message(signum))
        return EXIT_SIGNAL + signum
    if isinstance(exc, LtrconvError):
        say(f"ltrconv: error: {printable(exc)}")
        return EXIT_ERROR
    if isinstance(exc, BrokenPipeError):
        stdout_gone()
        return EXIT_SIGNAL + signal.SIGPIPE
    return None
