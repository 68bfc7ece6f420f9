"""``ltrconv predict MODEL DATA``: score a data file with a trained model."""

from __future__ import annotations

import argparse

from ..data.letor import Dataset, write_scores
from ..outputs import write_stdout
from .common import add_command, add_output, check_out, library_output_to_stderr


def add_parser(subparsers) -> None:
    pr = add_command(subparsers, "predict", "score a data file with a trained model", """
        Writes one score per line, in the order of the documents of DATA (the SCORES of 'ltrconv
        eval').
    """)
    pr.add_argument("model", metavar="MODEL", help="model saved by 'ltrconv train'")
    pr.add_argument("data", metavar="DATA", help="LETOR file to score")
    add_output(pr)
    pr.set_defaults(func=run)


def run(args: argparse.Namespace) -> None:
    from .. import rankers

    check_out(args.output, args.model, args.data)
    with library_output_to_stderr():
        model = rankers.load(args.model)
        width = getattr(model, "n_features_in_", None)
        data = Dataset.load(args.data, n_features=width,  # scoring reads no docid
                            what=f"the model {args.model} was fitted on", docid_warning=False)
        scores = model.predict(data.X)
    if args.output and args.output != "-":
        write_scores(args.output, scores)
    else:
        write_stdout("".join(f"{float(s)!r}\n" for s in scores))
