"""``python -m ltrconv.cli``: the ``ltrconv`` command."""

import sys

from .main import main

try:
    status = main()
except KeyboardInterrupt:  # between main's own handlers
    sys.stderr.write("ltrconv: interrupted\n")
    status = 130
sys.exit(status)
