"""``ltrconv ttest A B``: paired t-tests between two runs' per-query results."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from ..errors import InputError, LtrconvError, shown
from ..evaluation.per_query import PerQuery, parse_per_query
from .common import add_command, add_output, check_out, emit


def add_parser(subparsers) -> None:
    t = add_command(subparsers, "ttest", "paired t-test per metric between two runs", """
        A and B are outputs of 'ltrconv eval --per-query' (JSON or TSV) over the same queries;
        each convention and metric present in both gets a two-sided paired t-test across
        queries.
    """)
    t.add_argument("a", metavar="A", help="per-query results of the first run")
    t.add_argument("b", metavar="B", help="per-query results of the second run")
    t.add_argument("--convention", "-c", metavar="NAME", action="append",
                   help="test only this convention; repeatable (default: all in common)")
    add_output(t)
    t.set_defaults(func=run)


def read_per_query(path: str) -> PerQuery:
    """The per-query results in the file ``path`` (:func:`parse_per_query`)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path) from None
    return parse_per_query(text, path)


def run(args: argparse.Namespace) -> None:
    from ..study.stats import paired_table

    check_out(args.output, args.a, args.b)
    a, b = read_per_query(args.a), read_per_query(args.b)
    convs = args.convention or [c for c in a if c in b]
    if not convs:
        raise LtrconvError(
            f"{args.a} ({', '.join(a)}) and {args.b} ({', '.join(b)}) have no convention in common"
        )
    rows = ["\t".join(["convention", "metric", "n", "mean_a", "mean_b", "diff", "t", "p"])]
    single = []
    for name in convs:
        if name not in a or name not in b:
            raise LtrconvError(f"convention {shown(name)} is not in both {args.a} and {args.b}")
        qa, qb = a[name], b[name]
        if set(qa) != set(qb):
            only = sorted(set(qa) ^ set(qb))[:5]
            raise LtrconvError(
                f"{args.a} and {args.b} cover different queries under {name} (e.g. {only})"
            )
        qids = sorted(qa)
        if len(qids) < 2:
            single.append(name)
        metrics = [m for m in next(iter(qa.values())) if m in next(iter(qb.values()))]
        if not metrics:
            raise LtrconvError(f"{args.a} and {args.b} have no metric in common under {name}")
        for m in metrics:
            va = np.array([qa[q][m] for q in qids], dtype=float)
            vb = np.array([qb[q][m] for q in qids], dtype=float)
            if np.isnan(va).any() or np.isnan(vb).any():
                continue
            r = {k: v[0] for k, v in paired_table(va, vb).items()}
            # diff printed as mean_a - mean_b, as this command always has
            rows.append(
                f"{name}\t{m}\t{r['n']}\t{r['mean_a']:.6f}\t{r['mean_b']:.6f}\t"
                f"{r['mean_a'] - r['mean_b']:+.6f}\t{r['t']:.4f}\t{r['p']:.4g}"
            )
    if len(rows) == 1:
        raise LtrconvError(f"nothing to test: every metric common to {args.a} and {args.b} has "
                           "missing (null) values")
    if single:
        print(f"ltrconv: warning: one query only under {', '.join(single)}; a paired t-test "
              "needs two or more, so t and p are nan", file=sys.stderr)
    emit("\n".join(rows) + "\n", args.output)
