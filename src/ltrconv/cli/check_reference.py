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
        wall times and are not compared. When both directories hold a provenance.json (what
        made them: package versions, commit, CPU and numpy's SIMD dispatch, data and
        configuration digests), it first prints what the two records disagree on, then, under
        each differing file, which of those differences are known to move it (for example the
        sklearn-ignore-ties rows on numpy and the CPU's SIMD sort, the figures' pixels on
        matplotlib and its fonts), or that none recorded does.
    """, writes=False)
    cr.add_argument("results", metavar="RESULTS", nargs="?", default="results/MQ2008",
                    help="the run's results directory (default: results/MQ2008)")
    cr.add_argument("reference", metavar="REFERENCE", nargs="?", default="reference/MQ2008",
                    help="the reference result (default: reference/MQ2008)")
    cr.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..study.reference import compare, explain, provenance_changes, skipped_files

    names, differences = compare(args.results, args.reference)
    changes, note = provenance_changes(args.results, args.reference)
    skipped = skipped_files(args.reference)
    lines = []
    if changes is None:
        lines.append(f"provenance: {note}; differences are not explained by versions")
    else:
        lines.append(f"provenance: {len(changes)} difference(s) between the records"
                     if changes else "provenance: the records agree (packages, commit, CPU, "
                     "numpy's SIMD dispatch, data, configuration, seeds)")
        lines += [f"  {c.text()}" for c in changes]
        if note:
            lines.append(f"  the reference's record says: {note}")
    lines.append(f"{printable(args.results)} against {printable(args.reference)}: {len(names)} "
                 "files compared byte for byte"
                 + (f"; not compared (wall times): {', '.join(skipped)}" if skipped else ""))
    named = {}
    for d in differences:
        lines.append(f"  differs: {d.name}: {d.detail}")
        why, deps = explain(d, args.results, args.reference, changes)
        lines += [f"    {w}" for w in why]
        named.update((dep.outputs, dep.why) for dep in deps)
    if named:
        lines.append("known dependences:")
        lines += [f"  {outputs}: {why}" for outputs, why in named.items()]
    lines.append(f"{len(differences)} of {len(names)} differ" if differences
                 else "every compared file equals the reference")
    write_stdout("\n".join(lines) + "\n")
    return 1 if differences else 0
