"""Command line: ``ltrconv COMMAND``, one of eval, eval-score, ttest, audit, conventions, train,
predict and check-reference, each in its own module here (``add_parser(subparsers)`` and
``run(args)``); :mod:`.main` builds the parser from them and runs one.

Errors print one line ``ltrconv: error: ...`` naming the file, line or parameter and exit 2.
Output paths are checked before any work (see :data:`.common.OUTPUT_RULES`). Ctrl-C and SIGTERM
stop a command with one line and exit 130 and 143 (128 + the signal), temporary files removed;
a reader that closes standard output early (``ltrconv eval ... | head``) ends the command
silently with exit 141, as a shell reports a command killed by SIGPIPE (:mod:`.signals`).
"""

from ..data.letor import Dataset  # the commands' data reader, as ltrconv.cli.Dataset before
from .main import build_parser, main, run
from .signals import EXIT_ERROR, EXIT_SIGNAL, Terminated

__all__ = ["Dataset", "EXIT_ERROR", "EXIT_SIGNAL", "Terminated", "build_parser", "main", "run"]
