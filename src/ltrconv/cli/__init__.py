"""Command line: ``ltrconv COMMAND``, one of eval, eval-score, ttest, audit, conventions, train,
predict and check-reference, each in its own module here (``add_parser(subparsers)`` and
``run(args)``); :mod:`.main` builds the parser from them and runs one.

Errors print one line ``ltrconv: error: ...`` naming the file, line or parameter and exit 2.
Output paths are checked before any work (see :data:`.common.OUTPUT_RULES`). Ctrl-C and SIGTERM
stop a command with one line and exit 130 and 143 (128 + the signal), temporary files removed;
a reader that closes standard output early (``ltrconv eval ... | head``) ends the command
silently with exit 141, as a shell reports a command killed by SIGPIPE (:mod:`.signals`).
"""

import sys

from .main import build_parser, main  # light: the command modules load when the parser is built
from .signals import EXIT_ERROR, EXIT_SIGNAL, Terminated

__all__ = ["Dataset", "EXIT_ERROR", "EXIT_SIGNAL", "Terminated", "build_parser", "main", "run"]


def __getattr__(name: str):
    if name == "Dataset":  # the commands' data reader (numpy), as ltrconv.cli.Dataset before
        from ..data.letor import Dataset

        return Dataset
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run() -> int:
    """The ``ltrconv`` command: :func:`.main.main`, which also reports a Ctrl-C during the
    imports of the command modules (about a second) in one line, exit status 130."""
    try:
        return main()
    except KeyboardInterrupt:  # between main's own handlers
        sys.stderr.write("ltrconv: interrupted\n")
        return 130
