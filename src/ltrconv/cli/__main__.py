"""``python -m ltrconv.cli``: the ``ltrconv`` command."""

import sys

from . import run

sys.exit(run())
