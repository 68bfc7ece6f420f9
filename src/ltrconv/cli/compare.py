"""``ltrconv compare DATA SCORES SCORES...`` (or ``--qrels QRELS RUN RUN...``): several systems
under several conventions, with intervals, paired tests corrected over the whole family, and
the verdicts that change with the convention (:mod:`ltrconv.study.compare`)."""

from __future__ import annotations

import argparse

from ..errors import LtrconvError
from .common import (
    add_command,
    add_conventions_file,
    add_format,
    add_output,
    check_out,
    check_plot,
    emit,
    load_conventions_file,
    plot_format,
)

SUMMARY = "compare systems under every convention: intervals, tests, verdicts that flip"


def add_parser(subparsers) -> None:
    p = add_command(subparsers, "compare", SUMMARY, """
        INPUTS are a LETOR file and two or more score files (one score per line, row for row
        with it), or, with --qrels, two or more TREC runs. Under each convention and metric:
        each system's mean with a bootstrap interval (queries resampled together for every
        system), each pair's mean difference a - b with its interval, the paired standardised
        difference mean(d)/sd(d), and a paired test; the p-values of every pair, convention
        and metric form one family, corrected together. A pair is 'a' or 'b' (significantly
        better) or 'tie' under each convention; a convention that changes the first
        convention's verdict is named, with the change of the pair's mean difference split
        into causes as 'ltrconv explain' splits it. A pair whose per-query values are all
        equal has no p-value and is left out of the family, which says so.
    """)
    p.add_argument("inputs", metavar="INPUTS", nargs="+",
                   help="DATA SCORES SCORES..., or RUN RUN... with --qrels")
    p.add_argument("--qrels", metavar="FILE",
                   help="TREC qrels (.gz, .tsv, .csv or .parquet too): INPUTS are runs")
    p.add_argument("--name", metavar="NAME", action="append",
                   help="a system's name, one per system in order (default: the file's stem)")
    p.add_argument("--convention", "-c", metavar="NAME", action="append",
                   help="convention name or definition string, or 'all'; repeatable; the "
                        "first is the reference the verdicts are read against (default: "
                        "ranklib, trec, yahoo, letor; on runs trec_eval, ir_measures, "
                        "ranx-run, pytrec_eval)")
    add_conventions_file(p)
    p.add_argument("--metric", "-m", metavar="METRIC", action="append",
                   help="NDCG@k, DCG@k, P@k, ERR@k, MAP or RR; repeatable (default: NDCG@10)")
    p.add_argument("--baseline", metavar="NAME",
                   help="compare every system with this one only (a: the system, b: the "
                        "baseline); default: every pair")
    p.add_argument("--test", choices=("t", "wilcoxon", "randomization"), default="t",
                   help="paired test: t-test, Wilcoxon signed-rank or randomization (sign "
                        "flips) (default: t)")
    p.add_argument("--permutations", metavar="N", type=int, default=10_000,
                   help="sign flips drawn by the randomization test; all 2^n of them when "
                        "that is fewer (default: 10000)")
    p.add_argument("--correction", choices=("holm", "bonferroni", "bh"), default="holm",
                   help="multiple-testing correction over the family (default: holm)")
    p.add_argument("--alpha", metavar="A", type=float, default=0.05,
                   help="significance level of the verdicts, on corrected p (default: 0.05)")
    p.add_argument("--level", metavar="L", type=float, default=0.95,
                   help="coverage of the bootstrap intervals (default: 0.95)")
    p.add_argument("--bootstrap", metavar="N", type=int, default=10_000,
                   help="bootstrap resamples of the queries (default: 10000)")
    p.add_argument("--seed", metavar="S", type=int, default=0,
                   help="seed of the resamples and of the sign flips (default: 0)")
    add_format(p, ("text", "tsv", "json", "markdown", "latex"))
    p.add_argument("--plot", metavar="FILE",
                   help="draw each convention's means with intervals, flips marked (PNG, PDF, "
                        "SVG)")
    add_output(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> None:
    from ..study.compare import compare
    from ..study.compare_report import format_comparison, plot

    if args.qrels is None:
        if len(args.inputs) < 3:
            raise LtrconvError("compare needs DATA and two score files or more (or --qrels "
                               "and two runs or more)")
        data, systems = args.inputs[0], args.inputs[1:]
    else:
        if len(args.inputs) < 2:
            raise LtrconvError("compare --qrels needs two runs or more")
        data, systems = None, args.inputs
    inputs = [*args.inputs, args.qrels, args.conventions_file]
    check_out(args.output, *inputs)
    check_plot(args.plot, args.output, inputs)
    result = compare(systems, data=data, qrels=args.qrels, names=args.name,
                     conventions=args.convention, metrics=args.metric or ["NDCG@10"],
                     baseline=args.baseline, test=args.test, correction=args.correction,
                     alpha=args.alpha, level=args.level, bootstrap=args.bootstrap,
                     permutations=args.permutations, seed=args.seed,
                     convention_set=load_conventions_file(args.conventions_file))
    text = format_comparison(result, args.format)
    if args.plot:
        plot(result, args.plot, plot_format(args.plot))
    emit(text, args.output)
