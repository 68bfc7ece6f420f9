"""``python -m ltrconv.cli``: the ``ltrconv`` command."""

import sys

from .main import run

sys.exit(run())
