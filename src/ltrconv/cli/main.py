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
from .common import FORMATTER, paragraphs, say
from .signals import (EXIT_ERROR, EXIT_SIGNAL, Terminated, show_warning, sigterm_raises,
                      stdout_gone)

COMMANDS = ("eval", "eval_score", "ttest", "audit", "conventions", "train", "predict",
            "check_reference", "explain")
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
    p = argparse.ArgumentParser(prog="ltrconv", description=paragraphs(DESCRIPTION),
                                epilog=paragraphs(EPILOG), formatter_class=FORMATTER)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f".{name}", __package__).add_parser(sub)
    return p


NO_LINEAR_ALGEBRA = ("eval", "eval-score", "explain")
"""Commands that only sort and sum: OpenBLAS (loaded with numpy) need not start a thread per
core, which spin at start-up (0.06 s of CPU time on two cores, a tenth of a 1M-line run's
evaluation)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names (default: ``sys.argv[1:]``); its exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] and argv[0] in NO_LINEAR_ALGEBRA and "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:  # while the command modules load
        say("ltrconv: interrupted")
        return EXIT_SIGNAL + signal.SIGINT
    with warnings.catch_warnings():
        warnings.showwarning = show_warning
        try:
            with sigterm_raises():
                status = args.func(args)
        except LtrconvError as exc:
            say(f"ltrconv: error: {printable(exc)}")
            return EXIT_ERROR
        except BrokenPipeError:
            stdout_gone()
            return EXIT_SIGNAL + signal.SIGPIPE
        except KeyboardInterrupt:
            say("ltrconv: interrupted")
            return EXIT_SIGNAL + signal.SIGINT
        except Terminated as exc:
            say(f"ltrconv: terminated ({signal.Signals(exc.signum).name})")
            return EXIT_SIGNAL + exc.signum
    return status or 0
