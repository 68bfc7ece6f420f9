"""The evaluation engine: NDCG conventions, tie policies, the metric grammar, the kernels,
:func:`evaluate`, and the scorer that training optimises and selects with.

Arrays in, numbers out: nothing here reads a file or imports another package of ltrconv.
Modules: ``conventions`` (the conventions, the built-in ones fixed at import),
``convention_set`` (sets of named conventions, the built-in ones plus a conventions file's,
given to whatever reads a name), ``libraries`` (today's libraries' NDCG: tool, version checked,
parameters), ``ties`` (tie policies), ``artefacts`` (the sort-artefact tie orders), ``labels``
(the labels a convention accepts, and how it reads them), ``queries`` (query boundaries, docid
tie keys), ``spec`` (``ndcg@K:CONVENTION``), ``metrics`` (:func:`evaluate`), ``scorer``
(:class:`NDCGScorer` and the numba functions training uses), ``letor_tool`` (the reports of the
LETOR evaluation scripts); ``_kernels``, ``_numpy_kernel`` and ``_artefact_kernels`` are the
engine's own.
"""

from .convention_set import BUILTINS, ConventionSet
from .conventions import Convention, ConventionError, get, parse
from .metrics import Evaluation, evaluate, evaluate_dataset, parse_cutoffs
from .queries import docid_ranks, offsets_from_qid
from .spec import MetricSpec

__all__ = ["BUILTINS", "Convention", "ConventionError", "ConventionSet", "Evaluation",
           "MetricSpec", "NDCGScorer", "docid_ranks", "evaluate", "evaluate_dataset", "get",
           "offsets_from_qid", "parse", "parse_cutoffs"]


def __getattr__(name: str):
    if name == "NDCGScorer":  # loads numba
        from .scorer import NDCGScorer

        return NDCGScorer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
