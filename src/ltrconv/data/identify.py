"""``ltrconv.identify``: the conventions that reproduce a reported NDCG@k, on a LETOR file
with its scores or on a run with its qrels, read as ``ltrconv eval`` reads them (the search:
:mod:`ltrconv.evaluation.identify`)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import LtrconvError
from ..evaluation.identify import Facts, Identification, Reported, identify as search, parse_metric


def identify(reported: str | float, data: Any = None, scores: Any = None, *, qrels: Any = None,
             run: Any = None, metric: str = "ndcg@10", convention_set=None) -> Identification:
    """The conventions whose mean ``metric`` (``ndcg@K``) reproduces ``reported`` (``"0.4812"``,
    ``"48.12%"``: within half a unit of its last digit), on ``data`` (a LETOR file or a
    :class:`~ltrconv.data.letor.Dataset`) scored by ``scores`` (a score file, RankLib's
    ``-score`` output too, or an array), or on ``run`` against ``qrels`` (anything
    :func:`ltrconv.evaluate_run` takes). The named conventions are the built-in ones and
    those of ``convention_set`` (a conventions file's
    :class:`~ltrconv.evaluation.convention_set.ConventionSet`).

    Give ``reported`` as a string, as it was printed: its digits set the tolerance (a float
    is read through its ``repr``, ``0.48`` as two decimals)."""
    from ..evaluation.convention_set import BUILTINS

    cutoff = parse_metric(metric)
    rep = Reported.parse(reported)
    named = convention_set if convention_set is not None else BUILTINS
    letor = data is not None or scores is not None
    trec = qrels is not None or run is not None
    if letor == trec or None in ((data, scores) if letor else (qrels, run)):
        raise LtrconvError("identify needs data and scores, or qrels and run")
    if letor:
        evaluate, facts = _letor(data, scores, cutoff)
    else:
        evaluate, facts = _run(qrels, run, cutoff)
    return search(rep, evaluate, cutoff, facts, named)


def in_order(res: dict, convs) -> list:
    """The evaluations of ``convs`` in their order: the result's own order when it holds one
    per convention (keyed by name, in the order given), else looked up by name."""
    return list(res.values()) if len(res) == len(convs) else [res[str(c)] for c in convs]


def _letor(data, scores, cutoff: int):
    from ..evaluation.metrics import evaluate_dataset
    from .letor import Dataset, read_scores

    if isinstance(data, (str, Path)):
        data = Dataset.load(data, features=False)
    if isinstance(scores, (str, Path)):
        scores = read_scores(scores, data=data)
    scores = np.asarray(scores, dtype=np.float64)

    def evaluate(convs):
        res = evaluate_dataset(data, scores, conventions=list(convs), cutoffs=[cutoff],
                               metrics=("NDCG",))
        return in_order(res, convs)

    return evaluate, Facts("list")


def _run(qrels, run, cutoff: int):
    from ..evaluation.run_ids import run_ids
    from ..evaluation.runs import RunFormWarning, evaluate_run_arrays
    from .trec import coerce

    qrels, run = coerce(qrels, "qrels"), coerce(run, "run")
    grades = np.asarray(qrels.value, dtype=np.float64)
    facts = Facts("run", fractional=bool(np.any(grades != np.floor(grades))),
                  negative=bool(np.any(grades < 0)),
                  duplicates=run_ids(run, qrels).run_duplicate() is not None)

    def evaluate(convs):
        with warnings.catch_warnings():  # every convention is tried on purpose
            warnings.simplefilter("ignore", RunFormWarning)
            res = evaluate_run_arrays(qrels, run, conventions=list(convs), cutoffs=[cutoff],
                                      metrics=("NDCG",))
        return in_order(res, convs)

    return evaluate, facts
