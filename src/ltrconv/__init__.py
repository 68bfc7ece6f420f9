"""ltrconv: the NDCG conventions of the public learning-to-rank tools, made explicit.

Five packages, each importing only those listed before it (and ``errors``, ``outputs``):

- :mod:`ltrconv.evaluation`: conventions, tie policies, the metric grammar, the kernels,
  :func:`evaluate` and the scorer training uses; reads no file.
- :mod:`ltrconv.data`: the LETOR reader and cache, conventions files, synthetic data, the
  dataset audit, and acquisition (download, archives, verification).
- :mod:`ltrconv.rankers`: the algorithm registry, model files and the six rankers.
- :mod:`ltrconv.study`: per-query tables, statistics, figures, report pages, the paper's claims.
- :mod:`ltrconv.pipeline`: the Snakemake workflow's logic: the configuration as one checked plan,
  paths, cluster requests, report pages, the jobs' plumbing.
"""

from ._version import __version__
from .data.conventions_file import load_conventions
from .data.letor import Dataset, read_letor
from .evaluation.convention_set import ConventionSet
from .evaluation.conventions import Convention, get as get_convention
from .evaluation.metrics import Evaluation, evaluate, evaluate_dataset
from .evaluation.spec import MetricSpec

__all__ = [
    "Convention", "ConventionSet", "Dataset", "Evaluation", "MetricSpec", "NDCGScorer",
    "__version__", "evaluate", "evaluate_dataset", "evaluate_run", "get_convention",
    "load_conventions", "rankers", "read_letor",
]


def __getattr__(name: str):
    # numba (a second of start-up) loads with the scorer and the rankers
    if name == "NDCGScorer":
        from .evaluation.scorer import NDCGScorer

        return NDCGScorer
    if name == "evaluate_run":  # pandas loads with the run readers
        from .data.trec import evaluate_run

        return evaluate_run
    if name == "rankers":
        import importlib

        return importlib.import_module(".rankers", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
