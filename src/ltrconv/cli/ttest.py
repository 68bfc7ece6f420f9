"""``ltrconv ttest A B``: paired t-tests between two runs' per-query results."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ..errors import InputError, LtrconvError, shown
from ..data.fileio import read_text
from ..evaluation.per_query import PerQuery, parse_definitions, parse_per_query
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


def read_per_query(path: str) -> tuple[PerQuery, dict[str, str]]:
    """The per-query results in the file ``path`` (:func:`parse_per_query`) and the definition
    of each convention where the file gives it (JSON)."""
    text = read_text(path)
    results = parse_per_query(text, path)
    return results, parse_definitions(text)


def _same_definition(name: str, defs_a: dict, defs_b: dict, path_a: str, path_b: str) -> None:
    """Refuse to pair two runs whose convention ``name`` is defined differently: a name is not
    a definition (a conventions file may give it any meaning)."""
    da, db = defs_a.get(name), defs_b.get(name)
    if da is not None and db is not None and da != db:
        raise LtrconvError(f"convention {shown(name)} is defined differently in {path_a} ({da}) "
                           f"and in {path_b} ({db}): the runs measure different things")


def run(args: argparse.Namespace) -> None:
    from ..study.stats import paired_table

    check_out(args.output, args.a, args.b)
    (a, defs_a), (b, defs_b) = read_per_query(args.a), read_per_query(args.b)
    convs = args.convention or [c for c in a if c in b]
    if not convs:
        raise LtrconvError(
            f"{args.a} ({', '.join(a)}) and {args.b} ({', '.join(b)}) have no convention in common"
        )
    rows = ["\t".join(["convention", "metric", "n", "mean_a", "mean_b", "diff", "t", "p"])]
    single, left_out = [], {}
    for name in convs:
        if name not in a or name not in b:
            raise LtrconvError(f"convention {shown(name)} is not in both {args.a} and {args.b}")
        _same_definition(name, defs_a, defs_b, args.a, args.b)
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
            valued = ~(np.isnan(va) | np.isnan(vb))
            if not valued.any():
                continue
            if not valued.all():  # e.g. empty=skip: null for the queries it leaves out
                left_out.setdefault(name, set()).update(np.flatnonzero(~valued).tolist())
                va, vb = va[valued], vb[valued]
            r = {k: v[0] for k, v in paired_table(va, vb).items()}
            # diff printed as mean_a - mean_b, as this command always has
            rows.append(
                f"{name}\t{m}\t{r['n']}\t{r['mean_a']:.6f}\t{r['mean_b']:.6f}\t"
                f"{r['mean_a'] - r['mean_b']:+.6f}\t{r['t']:.4f}\t{r['p']:.4g}"
            )
    if len(rows) == 1:
        raise LtrconvError(f"nothing to test: every metric common to {args.a} and {args.b} has "
                           "missing (null) values")
    for name, rows_out in left_out.items():
        print(f"ltrconv: warning: under {name}, {len(rows_out)} "
              f"quer{'y' if len(rows_out) == 1 else 'ies'} without a value (null) in one run or "
              "both left out of the pairs (n counts the pairs tested)", file=sys.stderr)
    if single:
        print(f"ltrconv: warning: one query only under {', '.join(single)}; a paired t-test "
              "needs two or more, so t and p are nan", file=sys.stderr)
    emit("\n".join(rows) + "\n", args.output)
