"""``ltrconv identify VALUE DATA SCORES``: the conventions that reproduce a reported NDCG@k
(:mod:`ltrconv.evaluation.identify`), on a LETOR file with its scores or on a run with its
qrels."""

from __future__ import annotations

import argparse
import json

from ..errors import LtrconvError, printable
from .common import add_command, add_conventions_file, add_format, add_output, check_out, emit
from .common import load_conventions_file

SUMMARY = "which conventions reproduce a reported NDCG@k on the data it was computed on"


def add_parser(subparsers) -> None:
    p = add_command(subparsers, "identify", SUMMARY, """
        VALUE is the number as it was printed (0.4812, or 48.12%): a convention reproduces it
        when its mean NDCG@k is within half a unit of the last printed digit. The named
        conventions are searched first (the built-in ones and those of --conventions-file), then
        the points of the axis space, simplest first (fewest axes away from the defaults, which
        are ranklib's); a point is listed only when each of its changed axes changes the
        values. The closest convention is reported whether anything matches or not. Exit
        status 1 when nothing matches.
    """)
    p.add_argument("value", metavar="VALUE", help="the reported value, as printed (0.4812, 48.12%%)")
    p.add_argument("data", metavar="DATA", nargs="?", help="LETOR/SVMlight file (with SCORES)")
    p.add_argument("scores", metavar="SCORES", nargs="?",
                   help="one score per line, aligned with DATA, or RankLib's -score output")
    p.add_argument("--qrels", metavar="FILE", help="TREC qrels (with --run, instead of DATA)")
    p.add_argument("--run", metavar="FILE", help="TREC run")
    p.add_argument("--metric", metavar="METRIC", default="ndcg@10",
                   help="the metric reported, ndcg@K (default: ndcg@10)")
    add_conventions_file(p)
    p.add_argument("--limit", metavar="N", default="20",
                   help="axis-space points listed at most (default: 20; 0: all)")
    add_format(p)
    add_output(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..data.identify import identify
    from ..evaluation.identify import as_json, as_text

    if not (args.limit.isascii() and args.limit.isdigit()):
        raise LtrconvError(f"--limit {printable(args.limit)}: expected a count >= 0 (0: all)")
    check_out(args.output, args.data, args.scores, args.qrels, args.run, args.conventions_file)
    letor = args.data is not None or args.scores is not None
    trec = args.qrels is not None or args.run is not None
    if letor == trec or (letor and args.scores is None) or (trec and None in (args.qrels,
                                                                               args.run)):
        raise LtrconvError("identify needs VALUE with DATA and SCORES, or with --qrels and --run")
    convention_set = load_conventions_file(args.conventions_file)
    result = identify(args.value, args.data, args.scores, qrels=args.qrels, run=args.run,
                      metric=args.metric, convention_set=convention_set)
    limit = int(args.limit) or None
    emit(json.dumps(as_json(result, limit), indent=1) + "\n" if args.format == "json"
         else as_text(result, limit), args.output)
    return 0 if result.matches else 1
