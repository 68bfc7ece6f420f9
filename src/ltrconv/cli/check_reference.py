"""``ltrconv check-reference [RESULTS [REFERENCE]]``: a run's results against the reference."""

from __future__ import annotations

import argparse

from ..errors import printable
from ..outputs import write_stdout
from .common import add_command


def add_parser(subparsers) -> None:
    cr = add_command(subparsers, "check-reference",
                     "compare a run's results with the reference result", """
        Compares claims.md, every table and every figure (PNG and PDF) that REFERENCE holds
        with the file of the same name under RESULTS, byte for byte, and prints each that
        differs or is missing; exit status 1 if any does. The runtime table and figures hold
        wall times and are not compared.
    """, writes=False)
    cr.add_argument("results", metavar="RESULTS", nargs="?", default="results/MQ2008",
                    help="the run's results directory (default: results/MQ2008)")
    cr.add_argument("reference", metavar="REFERENCE", nargs="?", default="reference/MQ2008",
                    help="the reference result (default: reference/MQ2008)")
    cr.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..study.reference import compare, skipped_files

    names, differences = compare(args.results, args.reference)
    skipped = skipped_files(args.reference)
    lines = [f"{printable(args.results)} against {printable(args.reference)}: {len(names)} files "
             "compared byte for byte"
             + (f"; not compared (wall times): {', '.join(skipped)}" if skipped else "")]
    lines += [f"  differs: {d.name}: {d.detail}" for d in differences]
    lines.append(f"{len(differences)} of {len(names)} differ" if differences
                 else "every compared file equals the reference")
    write_stdout("\n".join(lines) + "\n")
    return 1 if differences else 0
