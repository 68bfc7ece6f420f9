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

# Everything else is imported on first use: the ``ltrconv`` command starts from this package,
# and a Ctrl-C during the imports of numpy, numba or pandas is then its own to report.
_LAZY = {
    "Comparison": (".study.compare", "Comparison"),
    "Convention": (".evaluation.conventions", "Convention"),
    "ConventionSet": (".evaluation.convention_set", "ConventionSet"),
    "Dataset": (".data.letor", "Dataset"),
    "Evaluation": (".evaluation.metrics", "Evaluation"),
    "MetricSpec": (".evaluation.spec", "MetricSpec"),
    "NDCGScorer": (".evaluation.scorer", "NDCGScorer"),  # numba (a second of start-up)
    "compare": (".study.compare", "compare"),  # scipy, for the tests
    "evaluate": (".evaluation.metrics", "evaluate"),
    "evaluate_dataset": (".evaluation.metrics", "evaluate_dataset"),
    "evaluate_run": (".data.trec", "evaluate_run"),  # pyarrow and pandas
    "get_convention": (".evaluation.conventions", "get"),
    "identify": (".data.identify", "identify"),
    "load_conventions": (".data.conventions_file", "load_conventions"),
    "read_letor": (".data.letor", "read_letor"),
}

__all__ = sorted([*_LAZY, "__version__", "rankers"])


def __getattr__(name: str):
    import importlib

    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module, __name__), attr)
    if name == "rankers":
        return importlib.import_module(".rankers", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
