"""``ltrconv train``: a ranker trained with an NDCG convention as its metric."""

from __future__ import annotations

import argparse
import textwrap
import warnings
from typing import Sequence

from ..data.letor import Dataset
from ..errors import InputError, LtrconvError, printable, shown
from .common import (OUTPUT_RULES, add_command, add_conventions_file, check_out,
                     load_conventions_file, say)


def add_parser(subparsers) -> None:
    from ..rankers import ALGORITHMS

    tr = add_command(subparsers, "train", "train a ranker with an NDCG convention as its metric",
                     """
        The metric drives training and the selection on the validation file; the fitted model is
        saved to --out for 'ltrconv predict'.
    """)
    tr.add_argument("--algorithm", metavar="NAME", required=True,
                    help=f"one of {', '.join(ALGORITHMS)}")
    tr.add_argument("--metric", default="ndcg@10:ranklib",
                    help="training metric ndcg@K:CONVENTION (default: ndcg@10:ranklib)")
    tr.add_argument("--train", metavar="FILE", required=True, help="training data (LETOR file)")
    tr.add_argument("--vali", metavar="FILE", help="validation data (LETOR file)")
    tr.add_argument("--out", metavar="FILE", required=True, help="where to save the model")
    tr.add_argument("--param", metavar="KEY=VALUE", action="append", default=[],
                    help="algorithm parameter, VALUE read as YAML; repeatable")
    tr.add_argument("--quiet", action="store_true",
                    help="no progress lines on stderr (a fit longer than a few seconds prints "
                         "one every ten seconds or so)")
    add_conventions_file(tr)
    tr.set_defaults(func=run)
    plain_help = tr.format_help

    def train_help() -> str:  # the rankers (scikit-learn) load only when this help is asked for
        tr.epilog = algorithm_parameters() + "\n\n" + OUTPUT_RULES
        return plain_help()

    tr.format_help = train_help


def as_yaml(value) -> str:
    """``value`` as --param reads it back (YAML 1.1: a float needs its decimal point)."""
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(map(as_yaml, value)) + "]"
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, float):
        text = repr(value)
        return text.replace("e", ".0e", 1) if "e" in text and "." not in text else text
    return str(value)


def algorithm_parameters() -> str:
    """Each algorithm's parameters with their defaults and allowed values, for train's help."""
    from .. import rankers

    out = ["algorithm parameters (--param KEY=VALUE; the default after '='):"]
    for name in rankers.ALGORITHMS:
        out.append(f"  {name} (validation data selects {rankers.selects(name)}):")
        for param, default, allowed in rankers.param_help(name):
            if param == "metric":
                continue
            out.append(textwrap.fill(f"{param}={as_yaml(default)}: {allowed}", 78,
                                     initial_indent="    ", subsequent_indent="        "))
    return "\n".join(out)


def parse_params(items: Sequence[str]) -> dict:
    """``--param KEY=VALUE`` options as {KEY: VALUE read as YAML}; a KEY given twice is
    refused."""
    if not items:
        return {}
    import yaml

    from ..evaluation import safe_yaml

    params, given = {}, {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise LtrconvError(f"--param {shown(item)}: expected KEY=VALUE")
        if key in given:  # the last would win silently
            raise LtrconvError(f"--param {shown(key)} is given twice ({shown(given[key])} and "
                               f"{shown(item)}); give each parameter once")
        given[key] = item
        try:
            params[key] = safe_yaml.load(value)
        except yaml.YAMLError as exc:
            raise LtrconvError(f"--param {shown(item)}: cannot parse the value: "
                               f"{safe_yaml.reason(exc)}") from None
    return params


def check_params(algorithm: str, params: dict) -> None:
    """``params`` for ``algorithm`` (:func:`ltrconv.rankers.check_params`), refused in terms of
    --param."""
    from .. import rankers

    try:
        rankers.check_params(algorithm, params)
    except rankers.ParamError as exc:
        if exc.param is None:  # an unknown algorithm
            raise
        if exc.param == "metric":
            raise LtrconvError(f"--param metric={params['metric']}: the training metric is set "
                               f"with --metric (e.g. --metric {params['metric']}), not --param"
                               ) from None
        if exc.unknown:
            unknown = sorted(exc.unknown)
            why = "".join(f"; {p}: {exc.removed[p]}" for p in unknown if p in exc.removed)
            raise LtrconvError(f"--param: {algorithm} has no parameter(s) {unknown}{why}; "
                               f"valid: {', '.join(exc.valid)}") from None
        raise LtrconvError(f"--param {exc.param}: {exc}") from None


def run(args: argparse.Namespace) -> None:
    from .. import rankers

    check_out(args.out, args.train, args.vali, args.conventions_file)
    convention_set = load_conventions_file(args.conventions_file)
    metric = convention_set.ranker_metric(args.metric)
    params = parse_params(args.param)
    check_params(args.algorithm, params)
    try:
        model = rankers.make(args.algorithm, **params, metric=metric)
    except rankers.ParamError as exc:
        raise LtrconvError(f"--param {exc.param}: {exc}") from None
    # docids matter to training only where the metric breaks ties by them
    by_docid = convention_set.metric(args.metric).convention.ties == "docid-desc"
    # every ranker's fit loads numba (for the scorer); loaded first, it also reads the files
    from ..evaluation import scorer  # noqa: F401
    train = Dataset.load(args.train, docid_warning=by_docid)
    vali = Dataset.load(args.vali, docid_warning=by_docid) if args.vali else None
    for data in (train, vali):  # the metric's labels, refused at their file and line
        if data is not None:
            data.check_labels([convention_set.metric(args.metric).convention])
    if vali is not None:  # a file may omit features that are zero throughout it
        width = max(train.X.shape[1], vali.X.shape[1])
        train, vali = train.with_width(width), vali.with_width(width)
    kwargs = {}
    if vali is not None:
        kwargs = dict(X_val=vali.X, y_val=vali.y, qid_val=vali.qid, docid_val=vali.docid)
    if vali is None:
        warnings.warn(f"no --vali file: model selection ({rankers.selects(args.algorithm)}) runs "
                      f"on the training data {args.train}", rankers.TrainingSelectionWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankers.TrainingSelectionWarning)  # said above
        try:
            model.fit(train.X, train.y, train.qid, docid=train.docid, verbose=not args.quiet,
                      **kwargs)
        except rankers.DegenerateDataError as exc:
            raise InputError(str(exc), args.train if exc.split == "training" else args.vali) from None
    model.save(args.out)
    on = (f"the validation data {printable(args.vali)}" if vali is not None
          else f"the training data {printable(args.train)}")
    say(f"ltrconv: {args.algorithm} selected {rankers.selected(model)} on {on}: "
        f"{model.metric_spec} = {model.val_score_:.4f}; model saved to {printable(args.out)}")
