"""``ltrconv eval --qrels QRELS --run RUN``: a run with its qrels in place of DATA and SCORES,
with the same options and output as LETOR input (``-c``, ``--cutoffs``, ``--metrics``,
``--per-query``, ``--format``, ``-o``)."""

from __future__ import annotations

import argparse

from ..errors import LtrconvError
from ..evaluation import conventions as conv_mod
from ..evaluation.per_query import format_per_query
from .common import check_out, emit, load_conventions_file


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --qrels/--run to the eval parser; DATA and SCORES become optional."""
    for action in parser._actions:
        if action.dest in ("data", "scores"):
            action.nargs = "?"
    parser.add_argument("--qrels", metavar="FILE",
                        help="TREC qrels (qid iter docno grade; .gz, .tsv or .parquet too), "
                             "with --run in place of DATA and SCORES")
    parser.add_argument("--run", metavar="FILE",
                        help="TREC run (qid Q0 docno rank score tag; rank ignored)")


def wants(args: argparse.Namespace) -> bool:
    """Whether ``eval`` is to read a run (or is missing its inputs, which this explains)."""
    return (getattr(args, "qrels", None) is not None or getattr(args, "run", None) is not None
            or args.data is None or args.scores is None)


def cmd_eval(args: argparse.Namespace) -> None:
    from ..data.trec import evaluate_run

    if args.qrels is None and args.run is None:
        raise LtrconvError("eval needs DATA and SCORES, or --qrels and --run")
    if args.qrels is None or args.run is None:
        raise LtrconvError("eval needs both --qrels and --run")
    if args.data is not None or args.scores is not None:
        raise LtrconvError("give DATA and SCORES, or --qrels and --run, not both")
    if args.rankdcg:
        raise LtrconvError("--rankdcg is not available on runs (it ranks the whole list by "
                           "labels it does not have for unjudged documents)")
    check_out(args.output, args.qrels, args.run, args.conventions_file)
    convention_set = load_conventions_file(args.conventions_file)
    names = args.convention or ["trec_eval"]
    own = {c.name for c in convention_set.defined}  # a file's, handed over as definitions
    names = [convention_set.get(m) if m in own else m for n in names
             for m in (conv_mod.builtin_names() if n == conv_mod.ALL else [n])]
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    results = evaluate_run(args.qrels, args.run, conventions=names, cutoffs=args.cutoffs,
                           metrics=metrics)  # ranx:ndcg@10 too (evaluate_run reads it)
    report(args, results)


def report(args: argparse.Namespace, results: dict) -> None:
    """``eval``'s report as on LETOR input, but naming the qrels and the run, and with each
    convention's count of queries in the JSON."""
    emit(format_per_query(results, args.format, queries=args.per_query, counts=True,
                          inputs={"qrels": str(args.qrels), "run": str(args.run)}), args.output)
