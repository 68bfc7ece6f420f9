"""``python -m ltrconv``: the ``ltrconv`` command, as ``python -m ltrconv.cli`` runs it."""

import sys

from .cli import run

sys.exit(run())
