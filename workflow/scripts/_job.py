"""Shared plumbing of the workflow scripts: logging to the rule's log file, clean failures."""

from __future__ import annotations

import logging
import sys
import traceback
from typing import Callable

from ltrconv.errors import LtrconvError


def run(snakemake, main: Callable[[object, logging.Logger], None]) -> None:
    """Call ``main(snakemake, log)``; a user error becomes one line on stderr and exit 1."""
    log_path = snakemake.log[0] if len(snakemake.log) else None
    handlers = [logging.StreamHandler(sys.stderr)]
    if log_path:
        handlers.append(logging.FileHandler(log_path, mode="w"))
    logging.basicConfig(level=logging.INFO, format="%(message)s", handlers=handlers, force=True)
    logging.captureWarnings(True)  # e.g. DocidWarning from the reader, into the rule log
    log = logging.getLogger(snakemake.rule)
    try:
        main(snakemake, log)
    except LtrconvError as exc:
        log.error(f"error in rule {snakemake.rule} {dict(snakemake.wildcards)}: {exc}")
        sys.exit(1)
    except Exception:
        log.error(traceback.format_exc())
        sys.exit(1)
