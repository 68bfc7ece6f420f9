"""``ltrconv eval DATA SCORES``: a score file under NDCG conventions."""

from __future__ import annotations

import argparse

from ..data.letor import Dataset, read_scores
from ..evaluation import conventions as conv_mod
from ..evaluation.measures import resolve, with_cutoffs
from ..evaluation.metrics import evaluate_dataset
from ..evaluation.per_query import format_per_query
from .common import add_command, add_conventions_file, add_format, add_output, check_out, emit
from .common import load_conventions_file
from . import runs


def add_parser(subparsers) -> None:
    e = add_command(subparsers, "eval", "evaluate a score file under NDCG conventions", """
        SCORES holds one score per line, in the order of the documents of DATA, as for LETOR's
        Eval-Score-4.0.pl (use -c letor for its numbers). Reports NDCG@k, P@k, ERR@k, MAP and
        RR, the mean over queries and, with --per-query, each query's values.
    """)
    e.add_argument("data", metavar="DATA", help="LETOR/SVMlight file, or its .npz cache")
    e.add_argument("scores", metavar="SCORES", help="one score per line, aligned with DATA")
    e.add_argument("--convention", "-c", metavar="NAME", action="append",
                   help="convention name (see 'ltrconv conventions') or definition string "
                        "such as 'ndcg(empty=0.5)', or 'all' for every built-in one, or a "
                        "tool's metric such as ranx:ndcg@10 or "
                        "'ir_measures:nDCG(judged_only=True)@10' (its convention, its cutoff "
                        "added); repeatable (default: ranklib, trec, yahoo, letor)")
    add_conventions_file(e)
    e.add_argument("--cutoffs", metavar="K",
                   help="cutoffs, e.g. 1-10 or 1,5,10 (default: 1-10, or those of the tools' "
                        "metrics given with -c)")
    e.add_argument("--metrics", metavar="LIST", default="NDCG,P,ERR,MAP,RR",
                   help="metrics to report, of NDCG, DCG, P, ERR, MAP, RR (default: all but "
                        "DCG); "
                        "without MAP and RR each query is ranked only to the last cutoff")
    e.add_argument("--rankdcg", action="store_true",
                   help="also report RankDCG (Katerenchuk & Rosenberg), ties per convention")
    e.add_argument("--per-query", action="store_true", help="also report each query's values")
    add_format(e, ("json", "tsv"))
    add_output(e)
    e.set_defaults(func=run)
    runs.add_arguments(e)  # --qrels/--run in place of DATA and SCORES


def run(args: argparse.Namespace) -> None:
    if runs.wants(args):
        return runs.cmd_eval(args)
    check_out(args.output, args.data, args.scores, args.conventions_file)
    convention_set = load_conventions_file(args.conventions_file)
    names = args.convention or list(conv_mod.PAPER_TOOLS)
    names = [m for n in names for m in (conv_mod.builtin_names() if n == conv_mod.ALL else [n])]
    names, ks = resolve(names, "list")  # ranx:ndcg@10: its convention, at its cutoff
    by_docid = any(convention_set.get(n).ties == "docid-desc" for n in names)
    data = Dataset.load(args.data, features=False, docid_warning=by_docid)
    data.check_labels([convention_set.get(n) for n in names])  # refused at the file's line
    scores = read_scores(args.scores, data=data)
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    results = evaluate_dataset(data, scores, conventions=names,
                               cutoffs=with_cutoffs(args.cutoffs, ks),
                               rankdcg=args.rankdcg, metrics=metrics, convention_set=convention_set)
    emit(format_per_query(results, args.format, queries=args.per_query, data=str(args.data),
                          scores=str(args.scores)), args.output)
