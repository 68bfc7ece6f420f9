"""What the acquire and prepare jobs get about a dataset of a plan, and the check, before any
job runs, that each enabled dataset has a possible source."""

from __future__ import annotations

from pathlib import Path

from ltrconv.pipeline.checks import SPLITS
from ltrconv.pipeline.config import ConfigError
from ltrconv.pipeline.plan import Plan


def identity(plan: Plan, name: str) -> dict:
    """What config says a dataset is (acquire's params: changing any of it re-runs the study).

    Where the data comes from (local, search, urls, archive details) is not part of it: the
    files are verified by their digests whichever copy or mirror they come from."""
    spec = plan.datasets[name].spec
    layout = spec["layout"]
    return dict(
        name=name,
        layout=dict(n_folds=layout["n_folds"], fold_dir=layout["fold_dir"],
                    splits={s: layout[s] for s in SPLITS}),
        sha256=dict(spec["sha256"]),
        content_sha256=dict(spec["content_sha256"]),
        expect=dict(spec["expect"]),
        link=spec["link"],
        config_key=f"datasets.{name}",
    )


def vali_split(plan: Plan, name: str) -> dict | None:
    """How the prepare job draws a dataset's validation queries from its training file
    (config keys vali_fraction and vali_seed): None when layout.vali names a file."""
    spec = plan.datasets[name].spec
    if spec["layout"]["vali"] is not None:
        return None
    return dict(fraction=spec["vali_fraction"], seed=spec["vali_seed"])


def drawn_vali(plan: Plan) -> list[str]:
    """The enabled datasets whose validation queries are drawn from the training file."""
    return [d for d in plan.datasets if vali_split(plan, d) is not None]


def locations(plan: Plan, name: str, repo) -> dict:
    """Where to look for dataset ``name`` (ltrconv.data.acquire.locations)."""
    from ltrconv.data.acquire import locations as where

    return where(plan.datasets[name].spec, name, repo)


def source(plan: Plan, name: str, repo) -> dict:
    """Keyword arguments of ltrconv.data.acquire.Source: the identity plus where to look."""
    return {**identity(plan, name), **locations(plan, name, repo)}


def check_reachable(plan: Plan, repo) -> None:
    """:class:`ConfigError` when an enabled dataset has no possible source: no local copy, no
    search path that exists, no URL to download from (or offline), no earlier acquisition."""
    from ltrconv.data.acquire import Source, no_data_message

    offline = plan.config["offline"]
    for name in plan.datasets:
        src = source(plan, name, repo)
        if src["local"] or any(Path(p).exists() for p in src["search"]):
            continue
        if src["urls"] and not offline:
            continue
        if Path(plan.resources, name, "manifest.tsv").exists():
            continue
        looked = [(p, "absent") for p in src["search"]]
        raise ConfigError(no_data_message(Source.from_dict(src), looked, [], offline))
