"""``ltrconv check-libraries [--data FILE]``: whether the NDCG libraries installed here still
compute what their conventions describe."""

from __future__ import annotations

import argparse
import json

from ..errors import printable
from .common import add_command, add_format, add_output, check_out, emit


def add_parser(subparsers) -> None:
    c = add_command(subparsers, "check-libraries",
                    "check the installed libraries' NDCG against their conventions", """
        For each of scikit-learn, LightGBM, XGBoost, CatBoost, ranx, pytrec_eval, ir_measures
        and torchmetrics installed here, computes the library's own NDCG@1..10 on built-in
        adversarial queries (ties, no relevant document, fewer documents than k, one document,
        negative, real and large labels, scores equal only as float32) and, with --data, on
        every query of a LETOR file under three score vectors (a random linear combination of
        the features, the most tied feature, a constant), and compares it query by query with
        ltrconv's value under the convention named after the library. Prints, per library and
        convention, the installed version and whether they agree, or the first query, cutoff
        and values where they do not; a library not installed is said so. Exit status 1 when
        an installed library departs from its convention.
    """)
    c.add_argument("--data", metavar="FILE",
                   help="a LETOR file whose queries are compared too (e.g. MQ2008/Fold1/test.txt)")
    c.add_argument("--library", metavar="NAME", action="append",
                   help="check only this library or convention (repeatable; default: all)")
    add_format(c, more="json: a list of objects with library, package, version, convention, "
                       "checked_on, equal (true, false, or null when not installed), queries, "
                       "largest_difference, and first_difference when equal is false")
    add_output(c)
    c.set_defaults(func=run)


def text(outcomes) -> str:
    lines = []
    for o in outcomes:
        head = f"{o.library} {o.version or ''}".strip() + f" / {o.convention}: "
        if o.equal is None:
            lines.append(head + f"not checked: {o.reason}")
        elif o.equal:
            lines.append(head + f"equal on {o.queries} queries (largest difference "
                         f"{o.largest_difference:.1e}; checked on {o.checked_on})")
        else:
            d = o.first_difference
            at = f" at k={d['k']}" if d["k"] is not None else ""
            lines.append(head + f"DIFFERS: first at {d['case']}{at}: library {d['library']}, "
                         f"ltrconv {d['ltrconv']} (convention checked on {o.checked_on})")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from ..data.letor import Dataset
    from ..study.library_check import check_libraries

    check_out(args.output, *([args.data] if args.data else []))
    data = Dataset.load(args.data) if args.data else None
    outcomes = check_libraries(data, printable(args.data) if args.data else "data",
                               args.library)
    if args.format == "json":
        emit(json.dumps([o.as_dict() for o in outcomes], indent=1) + "\n", args.output)
    else:
        emit(text(outcomes), args.output)
    return 1 if any(o.equal is False for o in outcomes) else 0
