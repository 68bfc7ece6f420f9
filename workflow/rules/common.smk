"""Configuration: validated against the schema, then one plan (ltrconv.pipeline.plan), checked
once. The rule files read the plan, ``PLAN``; the functions here are the input functions and
file patterns they share, each a function of the plan.

The only file that reads ``config``; the job scripts get what they need through their rule's
``params``."""

import os
import re
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

min_version("8.20")

REPO = Path(workflow.basedir)
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"

# The jobs and this process import the installed ltrconv (pip install -e .): it must be this
# checkout's, whose rules these are.
try:
    import ltrconv
except ImportError as exc:
    raise WorkflowError(f"cannot import ltrconv ({exc}): install this checkout "
                        f"(pip install -e {REPO})") from None
if Path(ltrconv.__file__).resolve().parent != (REPO / "src" / "ltrconv").resolve():
    raise WorkflowError(f"ltrconv is imported from {Path(ltrconv.__file__).parent}, not from "
                        f"this workflow's checkout {REPO / 'src'}: install the checkout "
                        f"(pip install -e {REPO}) or put {REPO / 'src'} first on PYTHONPATH")
from ltrconv.pipeline import build_plan, ConfigError, config as _config  # noqa: E402
from ltrconv.pipeline import datasets as _datasets, paths as _paths, report as _report  # noqa: E402
from ltrconv.pipeline import environment as _environment, repair as _repair  # noqa: E402
from ltrconv.pipeline import scheduler as _scheduler  # noqa: E402
from ltrconv.pipeline import resources as _resources  # noqa: E402
from ltrconv.pipeline import provenance as _provenance  # noqa: E402
from ltrconv.pipeline.checks import STUDY  # noqa: E402
from ltrconv.pipeline.figures import FIGURES  # noqa: E402
from ltrconv.pipeline.paths import LIBRARY_TABLES, SPLITS, TABLES  # noqa: E402
from ltrconv.pipeline.untracked import Untracked  # noqa: E402

try:  # a key given twice in a config file: Snakemake would keep the last value silently
    _config.check_files(workflow.configfiles)
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None
_errors = _config.schema_errors(config, _config.load_schema(REPO))
if _errors:
    raise WorkflowError("Invalid configuration:\n  " + "\n  ".join(_errors))
validate(config, str(SCHEMA))  # fills in the schema defaults
try:
    PLAN = build_plan(config)
    _datasets.check_reachable(PLAN, REPO)
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None

# Datasets without validation files: rule prepare_drawn draws them from the training files.
DRAWN_VALI = _datasets.drawn_vali(PLAN)
# The report's pages (ltrconv.pipeline.report): each dataset's, and those over all datasets.
REPORT_PAGES = _report.report_pages(PLAN)
STUDY_PAGES = _report.study_pages(PLAN)
# The conventions file's digest is a param of every rule whose results depend on the
# definitions; the path goes to the jobs untracked, for them to check the file still has it.
CONVENTIONS_PARAMS = ({"conventions_sha256": PLAN.conventions_sha256,
                       "conventions_file": Untracked(PLAN.conventions_file)}
                      if PLAN.conventions_sha256 else {})
# One software environment for every job: the runtime dependencies of environment.yml.
CONDA_ENV = "../envs/ltrconv.yml"


wildcard_constraints:
    dataset="[^/]+",
    algorithm="|".join(PLAN.algorithms),
    train_convention="[^/]+",
    fold=r"\d+",
    seed=r"\d+",


def one_of(names):
    """A wildcard constraint that matches exactly ``names`` (none: a pattern matching nothing)."""
    return "|".join(re.escape(n) for n in names) or "(?!)"


def dataset_identity(name):
    return _datasets.identity(PLAN, name)


def dataset_vali_split(wc):
    return _datasets.vali_split(PLAN, wc.dataset)


def acquire_settings(wc):
    """Where to look, whether to download and how: untracked (changing them redoes nothing)."""
    return Untracked(dict(locations=_datasets.locations(PLAN, wc.dataset, REPO),
                          offline=config["offline"], download=dict(config["download"])))


def dataset_labels(wc):
    return list(PLAN.datasets[wc.dataset].labels)


def dataset_max_label(wc):
    return max(PLAN.datasets[wc.dataset].labels)


def dataset_n_features(wc):
    return PLAN.datasets[wc.dataset].n_features


def job_resources(rule_name):
    return _resources.job_resources(PLAN, rule_name)


def job_priority(rule_name):
    return _resources.job_priority(PLAN, rule_name)


def train_hyperparams(wc):
    return PLAN.train_params(wc.algorithm, wc.get("seed"))


def job_seed(wc):
    return int(wc.get("seed", PLAN.seeds[0]))


def train_metric(convention):
    return f"ndcg@{PLAN.train_cutoff}:{convention}"


def cache(dataset, fold, split):
    return _paths.cache(PLAN, dataset, fold, split)


def convention_stem(kind, root=None, *args):
    return _paths.convention_stem(PLAN, kind, root, *args)


def part_stem(kind, root=None):
    return _paths.part_stem(PLAN, kind, root)


def algorithm_stem(kind, root=None):
    return _paths.algorithm_stem(PLAN, kind, root)


def fold_models(kind, suffix):
    return _paths.fold_models(PLAN, kind, suffix)


def algorithm_models(kind, suffix, conventions=None):
    return _paths.algorithm_models(PLAN, kind, suffix, conventions)


def shared_parts(name, conventions):
    return _paths.shared_parts(PLAN, name, conventions)


def convention_files(kind, name, conventions):
    return _paths.convention_files(PLAN, kind, name, conventions)


def gather_inputs(wc):
    return _paths.gather_inputs(PLAN, wc.dataset, wc.algorithm, wc.train_convention,
                                wc.get("seed", ""))


def eval_pieces(dataset):
    return _paths.model_files(PLAN, dataset, "eval", ".parquet")


def fit_records(dataset):
    return _paths.fit_records(PLAN, dataset)


def figure_output(name):
    return _paths.figure_output(PLAN, name)


def figure_log(figure):
    return _paths.figure_log(PLAN, figure)


def claims_extra_inputs(dataset):
    return _paths.claims_extra_inputs(PLAN, dataset)


def caption_facts():
    return _report.caption_facts(PLAN)


def provenance_file(dataset):
    return _paths.provenance(PLAN, dataset)


def provenance_inputs(dataset):
    return _paths.provenance_inputs(PLAN, dataset, REPORT_PAGES)


# What the run adds to each provenance record: the configuration's digest, seeds, folds.
PROVENANCE_PARAMS = _provenance.run_params(PLAN)


def all_targets():
    return _paths.all_targets(PLAN, REPORT_PAGES, STUDY_PAGES)


def set_job_environment():
    """OpenBLAS's kernels and OMP_WAIT_POLICY for the jobs (ltrconv.pipeline.environment):
    read when a job loads numpy, before any of its code runs, so set in this process, which
    starts them (Snakefile onstart). Jobs in workflow/envs/ltrconv.yml (--sdm conda), which
    does not install ltrconv, find this checkout's on PYTHONPATH."""
    from snakemake.logging import logger
    from snakemake_interface_executor_plugins.settings import DeploymentMethod

    use_conda = DeploymentMethod.CONDA in workflow.deployment_settings.deployment_method
    env = _environment.for_jobs(os.environ, str(REPO / "src") if use_conda else None)
    logger.info(f"jobs run with {env}")


def cancel_scheduler_wakeups():
    """Cancel the scheduler's pending wake-up, so that Snakemake exits without waiting up to
    a timespan of max-jobs-per-timespan for it (ltrconv.pipeline.scheduler)."""
    _scheduler.cancel_wakeups()


def prune_empty_dirs(*tops):
    """Remove the empty directories under each of ``tops``, and ``tops`` left empty: those
    Snakemake made for the outputs and benchmark of a job that then failed. Files (the failed
    job's log among them) stay."""
    for top in tops:
        if not os.path.isdir(top):
            continue
        for root, _, _ in os.walk(top, topdown=False):
            try:
                os.rmdir(root)
            except OSError:
                pass


def remake_damaged_outputs():
    """Remove each output whose bytes are no longer those its job recorded, so that Snakemake
    makes it again (ltrconv.pipeline.repair); a dry run only says which. Only the main
    Snakemake process checks. Called once every rule is defined."""
    from snakemake.logging import logger

    if workflow.is_main_process:
        _repair.remake_damaged(PLAN, lambda rule: getattr(rules, rule).output,
                               workflow.output_settings.dryrun, logger.warning)
