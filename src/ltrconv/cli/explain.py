"""``ltrconv explain --from A --to B``: the difference of two conventions' mean NDCG@k split
into named causes (Shapley values, :mod:`ltrconv.evaluation.explain`), on a LETOR file with
scores or on a run with its qrels."""

from __future__ import annotations

import argparse
import json

from ..errors import LtrconvError, printable
from .common import add_format, check_out, check_plot, emit, load_conventions_file, plot_format

SUMMARY = "why two conventions give different NDCG: the difference split into causes"
MAX_WATERFALLS = 50
"""Most cutoffs --plot draws (one panel 2.6 inches high each, about 0.12 s of CPU: 300 made a
78,000-pixel-high image after minutes)."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "explain", help=SUMMARY, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=SUMMARY[0].upper() + SUMMARY[1:] + ".\n\nFor each cutoff: the mean "
        "NDCG@k under A and under B, their difference, and each cause's share of it (its "
        "Shapley value over the causes on which A and B differ: the shares add up to the "
        "difference whatever their order), with the number of queries the cause moves.")
    p.add_argument("data", metavar="DATA", nargs="?", help="LETOR file (with SCORES)")
    p.add_argument("scores", metavar="SCORES", nargs="?", help="one score per line")
    p.add_argument("--qrels", metavar="FILE", help="TREC qrels (with --run, instead of DATA)")
    p.add_argument("--run", metavar="FILE", help="TREC run")
    p.add_argument("--from", dest="a", metavar="A", required=True, help="convention A")
    p.add_argument("--to", dest="b", metavar="B", required=True, help="convention B")
    p.add_argument("--conventions-file", metavar="FILE", help="YAML file defining more conventions")
    p.add_argument("--cutoffs", metavar="K", default="10", help="cutoffs (default: 10)")
    add_format(p)
    p.add_argument("--plot", metavar="FILE", help="draw a waterfall per cutoff (PNG, PDF, SVG)")
    p.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> None:
    from ..evaluation.explain import as_json, as_text, explain
    from ..evaluation.metrics import parse_cutoffs

    letor = args.data is not None or args.scores is not None
    trec = args.qrels is not None or args.run is not None
    if letor == trec or (letor and args.scores is None) or (trec and None in (args.qrels,
                                                                               args.run)):
        raise LtrconvError("explain needs DATA and SCORES, or --qrels and --run")
    inputs = [args.data, args.scores, args.qrels, args.run, args.conventions_file]
    check_out(args.output, *inputs)
    check_plot(args.plot, args.output, inputs)
    convention_set = load_conventions_file(args.conventions_file)
    a, b = convention_set.get(args.a), convention_set.get(args.b)
    ks = parse_cutoffs(args.cutoffs).tolist()
    if args.plot and len(ks) > MAX_WATERFALLS:
        raise LtrconvError(f"--plot draws a waterfall per cutoff, at most {MAX_WATERFALLS}; "
                           f"--cutoffs {printable(args.cutoffs)} gives {len(ks)}")
    if trec:
        from ..data.trec import coerce
        from ..evaluation.runs import evaluate_run_arrays

        qrels, run_ = coerce(args.qrels, "qrels"), coerce(args.run, "run")

        def evaluate(conv):
            return next(iter(evaluate_run_arrays(qrels, run_, conventions=[conv], cutoffs=ks,
                                                 metrics=("NDCG",)).values()))
    else:
        from ..data.letor import Dataset, read_scores
        from ..evaluation.metrics import evaluate_dataset

        # docids matter only where a or b breaks ties by them
        data = Dataset.load(args.data, features=False,
                            docid_warning="docid-desc" in (a.ties, b.ties))
        data.check_labels([a, b])  # refused at the file's line
        scores = read_scores(args.scores, data=data)

        def evaluate(conv):
            return next(iter(evaluate_dataset(data, scores, conventions=[conv], cutoffs=ks,
                                              metrics=("NDCG",)).values()))

    result = explain(a, b, evaluate, ks)
    if args.plot:
        plot(result, args.a, args.b, args.plot)
    text = json.dumps(as_json(result), indent=1) + "\n" if args.format == "json" else \
        as_text(result, args.a, args.b)
    emit(text, args.output)


def plot(result, a: str, b: str, path: str) -> None:
    """A waterfall per cutoff: A's mean, each cause's step, B's mean; written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..outputs import atomic_path

    fig, axes = plt.subplots(len(result), 1, figsize=(7, 2.6 * len(result)), squeeze=False)
    for ax, e in zip(axes[:, 0], result):
        labels, level = [a], e.start
        ax.bar(0, e.start, color="0.6")
        for i, c in enumerate(e.causes, 1):
            ax.bar(i, c.contribution, bottom=level,
                   color="tab:green" if c.contribution >= 0 else "tab:red")
            level += c.contribution
            labels.append(f"{c.axis}\n({c.queries})")
        ax.bar(len(labels), e.end, color="0.3")
        labels.append(b)
        ax.set_xticks(range(len(labels)), labels, fontsize=8)
        ax.set_ylabel(f"NDCG@{e.cutoff}")
        lo = min(e.start, e.end, *(e.start + sum(c.contribution for c in e.causes[:i])
                                   for i in range(len(e.causes) + 1)))
        ax.set_ylim(max(0.0, lo - 0.05), None)
    fig.tight_layout()
    suffix = plot_format(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=suffix)
    plt.close(fig)
