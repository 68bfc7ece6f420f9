"""``ltrconv audit DATA...``: how much the NDCG conventions can disagree on a dataset."""

from __future__ import annotations

import argparse
import contextlib
import json
import os

import numpy as np

from ..data.letor import Dataset
from ..errors import LtrconvError, printable
from ..evaluation.metrics import parse_cutoffs
from .common import add_command, add_format, add_output, check_out, emit


def add_parser(subparsers) -> None:
    a = add_command(subparsers, "audit", "how much the NDCG conventions can disagree on a dataset",
                    """
        Counts what the conventions treat differently: queries without a relevant document,
        queries shorter than each cutoff, labels, repeated docids and tied feature vectors.
    """)
    a.add_argument("data", metavar="DATA", nargs="+",
                   help="one or more LETOR files (together: distinct query ids)")
    a.add_argument("--cutoffs", metavar="K", default="1-10",
                   help="cutoffs, e.g. 1-10 or 1,5,10 (default: 1-10)")
    add_format(a)
    add_output(a)
    a.set_defaults(func=run)


def run(args: argparse.Namespace) -> None:
    from ..data.audit import audit, format_audit

    check_out(args.output, *args.data)
    for i, path in enumerate(args.data):
        for earlier in args.data[:i]:
            with contextlib.suppress(OSError):
                if os.path.samefile(path, earlier):
                    what = (f"{printable(path)} is given twice" if path == earlier else
                            f"{printable(earlier)} and {printable(path)} are the same file")
                    raise LtrconvError(f"{what}; audit it once")
    datasets = [Dataset.load(p) for p in args.data]
    if len(datasets) == 1:
        data = datasets[0]
    else:
        for i, later in enumerate(datasets):
            for j, earlier in enumerate(datasets[:i]):
                shared = np.intersect1d(earlier.query_ids, later.query_ids)
                if shared.size:
                    raise LtrconvError(
                        f"{printable(args.data[j])} and {printable(args.data[i])} share "
                        f"{shared.size} query id(s) (e.g. {', '.join(map(str, shared[:3]))}); "
                        "audit them one at a time")
        data = Dataset.concat(datasets, source=",".join(args.data))
    report = audit(data, parse_cutoffs(args.cutoffs).tolist())
    if args.format == "json":
        emit(json.dumps(report, indent=1) + "\n", args.output)
    else:
        emit(format_audit(report) + "\n", args.output)
