"""The Snakemake workflow's logic as plain Python, testable without Snakemake.

- :mod:`~ltrconv.pipeline.config`: merging config files, the schema's errors and defaults.
- :mod:`~ltrconv.pipeline.plan`: :func:`build_plan`, the configuration checked once
  (:mod:`~ltrconv.pipeline.checks`) as one frozen :class:`Plan`.
- :mod:`~ltrconv.pipeline.paths`, :mod:`~ltrconv.pipeline.datasets`,
  :mod:`~ltrconv.pipeline.resources`, :mod:`~ltrconv.pipeline.report`: file patterns, dataset
  sources, cluster requests and report pages, each a function of the plan.
- :mod:`~ltrconv.pipeline.records`, :mod:`~ltrconv.pipeline.repair`: what each job wrote, and
  the outputs changed since, made again.
- :mod:`~ltrconv.pipeline.job`, :mod:`~ltrconv.pipeline.environment`: the jobs' plumbing and
  the environment they start with.

workflow/rules/common.smk validates the configuration, builds the plan and reads it; the job
scripts import their helpers from :mod:`ltrconv.pipeline.job`.
"""

import importlib

# Where each name is defined; imported on first use, so that a job script importing
# ltrconv.pipeline.job does not load the configuration's schema checks (jsonschema).
_HOMES = {"ConfigError": "config", "AlgorithmPlan": "plan", "DatasetPlan": "plan", "Plan": "plan",
          "build_plan": "plan"}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
