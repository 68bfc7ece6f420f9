"""``ltrconv eval-score TEST PREDICTION OUTPUT FLAG``: LETOR's evaluation scripts."""

from __future__ import annotations

import argparse

from ..data.letor import Dataset, read_scores
from ..errors import LtrconvError, shown
from .common import add_command, check_out, emit


def add_parser(subparsers) -> None:
    es = add_command(subparsers, "eval-score",
                     "the LETOR evaluation scripts: same arguments, same output", """
        Replaces 'perl Eval-Score-4.0.pl TEST PREDICTION OUTPUT FLAG' (--tool letor4, the
        default: P@1-10, MAP, NDCG@1-10 and MeanNDCG, NDCG under the letor convention),
        mslr-eval-score-mslr.pl (--tool mslr: the same with labels 0-4, relevant for P@k and
        MAP meaning label >= 2) or Eval-Score-3.0.pl (--tool letor3: P@k, MAP and NDCG@k for
        k up to 16, letor convention), in the Perl script's layout.
    """)
    es.add_argument("--tool", choices=("letor3", "letor4", "mslr"), default="letor4",
                    help="the script to replace (default: letor4)")
    es.add_argument("test", metavar="TEST", help="LETOR file (labels 0-2; 0-4 for mslr)")
    es.add_argument("prediction", metavar="PREDICTION",
                    help="one score per line, aligned with TEST")
    es.add_argument("output", metavar="OUTPUT", help="result file ('-' for stdout)")
    es.add_argument("flag", metavar="FLAG",
                    help="1: per-query results and averages; 0: averages only")
    es.set_defaults(func=run)


def run(args: argparse.Namespace) -> None:
    from ..evaluation.letor_tool import eval_score_report

    if args.flag not in ("0", "1"):
        raise LtrconvError(f"FLAG {shown(args.flag)}: 1 writes per-query results, 0 the "
                           "averages only")
    check_out(args.output, args.test, args.prediction)
    # the LETOR scripts order tied scores by file position, never by docid
    data = Dataset.load(args.test, features=False, docid_warning=False)
    scores = read_scores(args.prediction, data=data)
    emit(eval_score_report(data, scores, per_query=args.flag == "1", path=args.test,
                           tool=args.tool), args.output)
