"""Where the workflow's files live, from a :class:`~ltrconv.pipeline.plan.Plan`: pure
functions of the plan returning paths, or Snakemake patterns where a wildcard is left as
``{name}`` (the defaults)."""

from __future__ import annotations

from ltrconv.pipeline.checks import STUDY
from ltrconv.pipeline.plan import Plan

SPLITS = ("train", "vali", "test")
TABLES = ("summary", "fold_means", "ttests", "algorithm_order")
LIBRARY_TABLES = ("libraries", "library_spread", "library_ttests")


def cache(plan: Plan, dataset, fold, split) -> str:
    """One split's binary cache."""
    return f"{plan.resources}/{dataset}/cache/fold{fold}/{split}.npz"


def convention_stem(plan: Plan, kind, root=None, dataset="{dataset}", algorithm="{algorithm}",
                    train_convention="{train_convention}", seed="{seed}") -> str:
    """ROOT/DATASET/KIND/ALGORITHM/CONVENTION/[seedS/]: the directory of one training
    convention's models (a train job's log, benchmark and fit records; as a pattern with the
    defaults); ROOT is the results directory unless given."""
    return (f"{root or plan.results}/{dataset}/{kind}/{algorithm}/{train_convention}/"
            f"{plan.seed_dir.format(seed=seed)}")


def model_stem(plan: Plan, kind, root=None, dataset="{dataset}", algorithm="{algorithm}",
               train_convention="{train_convention}", fold="{fold}", seed="{seed}") -> str:
    """CONVENTION_STEM/foldK: the stem of one model's files (as a pattern with the defaults)."""
    return (f"{convention_stem(plan, kind, root, dataset, algorithm, train_convention, seed)}"
            f"fold{fold}")


def part_stem(plan: Plan, kind, root=None, train_convention="{train_convention}") -> str:
    """ROOT/{dataset}/KIND/{algorithm}/{train_convention}/[seed{seed}/]fold{fold}/: the directory
    of one fold's parts of a scattered fit (their files, logs or benchmarks)."""
    return f"{model_stem(plan, kind, root, train_convention=train_convention)}/"


def shared_parts(plan: Plan, name, conventions) -> list[str]:
    """The part ``name`` (``whole.pkl``, ``unit{unit}.tsv``, ...) of one fold under each of
    ``conventions``: what a shared training job of a scattered dataset writes."""
    return [part_stem(plan, "parts", train_convention=c) + name for c in conventions]


def convention_files(plan: Plan, kind, name, conventions) -> list[str]:
    """The file ``name`` of one algorithm under each of ``conventions`` (a shared training
    job's fits.tsv)."""
    return [convention_stem(plan, kind, train_convention=c) + name for c in conventions]


def algorithm_stem(plan: Plan, kind, root=None) -> str:
    """ROOT/{dataset}/KIND/{algorithm}/[seed{seed}/]: the directory of one algorithm's files
    (an evaluate job's log and benchmark); ROOT is the results directory unless given."""
    return f"{root or plan.results}/{{dataset}}/{kind}/{{algorithm}}/{plan.seed_dir}"


def fold_models(plan: Plan, kind, suffix) -> list[str]:
    """One file per fold of an algorithm under one training convention: a train job's."""
    return [model_stem(plan, kind, fold=f) + suffix for f in plan.folds]


def algorithm_models(plan: Plan, kind, suffix, conventions=None) -> list[str]:
    """One file per training convention (``conventions``, default train_conventions) and fold
    of an algorithm: an evaluate job's."""
    convs = plan.train_conventions if conventions is None else conventions
    return [model_stem(plan, kind, train_convention=t, fold=f) + suffix
            for t in convs for f in plan.folds]


def gather_inputs(plan: Plan, dataset, algorithm, train_convention, seed="") -> dict:
    """A gather job's inputs, fold by fold: each part's file (a whole fit's model, or every
    unit's partial model) and fit record; a whole fit's test scores, or the test splits the
    gathered models score."""
    n = plan.algorithms[algorithm].units
    names = [f"unit{u}" for u in range(n)] if n else ["whole"]
    out = {"parts": [], "fits": []}
    out.update({"tests": [cache(plan, dataset, f, "test") for f in plan.folds]} if n
               else {"scores": []})
    for f in plan.folds:
        stem = model_stem(plan, "parts", None, dataset, algorithm, train_convention, f, seed)
        out["parts"] += [f"{stem}/{name}.pkl" for name in names]
        out["fits"] += [f"{stem}/{name}.tsv" for name in names]
        if not n:
            out["scores"].append(f"{stem}/whole.test_scores.npy")
    return out


def model_files(plan: Plan, dataset, kind, suffix) -> list[str]:
    """Every model's file of ``kind`` (models, eval) on ``dataset``."""
    return [model_stem(plan, kind, None, dataset, a, t, f, s) + suffix
            for a, p in plan.algorithms.items() for t in p.train_conventions
            for f in plan.folds for s in p.seeds]


def fit_records(plan: Plan, dataset) -> list[str]:
    """Every train job's fits.tsv (fit time and peak memory of each fold's model)."""
    return [convention_stem(plan, "models", None, dataset, a, t, s) + "fits.tsv"
            for a, p in plan.algorithms.items() for t in p.train_conventions for s in p.seeds]


def figure_output(plan: Plan, name) -> dict:
    """A figure's files (a pattern: the dataset as wildcard); for a figure per algorithm, the
    files of every algorithm of the plan, in its order: one job draws them all (each such job
    would otherwise spend most of its time starting Python and matplotlib)."""
    from ltrconv.pipeline.figures import ALGORITHM

    def file(stem, ext):
        return f"{plan.results}/{{dataset}}/figures/{stem}.{ext}"

    if ALGORITHM not in name:
        return {ext: file(name, ext) for ext in ("png", "pdf")}
    return {ext: [file(name.replace(ALGORITHM, a), ext) for a in plan.algorithms]
            for ext in ("png", "pdf")}


def figure_log(plan: Plan, figure) -> str:
    """The log of the rule drawing ``figure`` (a :class:`~ltrconv.pipeline.figures.Figure`; a
    pattern): LOGS/{dataset}/RULE.log."""
    return f"{plan.logs}/{{dataset}}/{figure.rule}.log"


def claims_extra_inputs(plan: Plan, dataset) -> dict:
    """Inputs of claims.md beyond the paper's tables, as configured."""
    res, ext, out = plan.results, plan.extensions, {}
    if plan.variants:
        out["implementation"] = f"{res}/{dataset}/tables/implementation.tsv"
    if plan.multi_seed:
        out["seed_ttests"] = f"{res}/{dataset}/tables/seed_ttests.tsv"
    if ext["audit"]:
        out["per_query"] = f"{res}/{dataset}/per_query.parquet"
    if ext["winning"]:
        out["winning"] = f"{res}/{STUDY}/tables/winning.tsv"
    if ext["libraries"]:
        out |= {t: f"{res}/{dataset}/tables/{t}.tsv" for t in LIBRARY_TABLES}
        out |= {t: f"{res}/{STUDY}/tables/{t}.tsv" for t in ("library_winning", "library_flips")}
    return out


def provenance(plan: Plan, dataset="{dataset}") -> str:
    """RESULTS/DATASET/provenance.json: what the dataset's results were made with."""
    from ltrconv.study.provenance import FILE

    return f"{plan.results}/{dataset}/{FILE}"


def provenance_inputs(plan: Plan, dataset, report_pages: dict) -> list[str]:
    """What the provenance record of ``dataset`` waits for: every report page's source (claims,
    tables, figures' PNG) and every figure's PDF, so that it records the environment that
    made the last of them."""
    res = plan.results
    return ([f"{res}/{dataset}/{page['source']}" for page in report_pages.values()]
            + [f"{res}/{dataset}/figures/{stem}.pdf" for figure in plan.figures
               for stem, _ in figure.instances(plan)])


def all_targets(plan: Plan, report_pages: dict, study_pages: dict) -> list[str]:
    """What a run makes: every model, every report page and its source, every figure's PDF,
    each dataset's provenance record."""
    res, ext, out = plan.results, plan.extensions, []
    for d in plan.datasets:
        out.append(provenance(plan, d))
        out += model_files(plan, d, "models", ".pkl")
        out += [f"{res}/{d}/{page['source']}" for page in report_pages.values()]
        out += [f"{res}/{d}/report/{key}.html" for key in report_pages]
        out += [f"{res}/{d}/figures/{stem}.pdf" for figure in plan.figures
                for stem, _ in figure.instances(plan)]
    out += [f"{res}/{STUDY}/{page['source']}" for page in study_pages.values()]
    out += [f"{res}/{STUDY}/report/{key}.html" for key in study_pages]
    if ext["winning"]:
        out.append(f"{res}/{STUDY}/figures/winning.pdf")
    return out
