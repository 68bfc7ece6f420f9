"""What the Snakemake report shows of a plan: its pages (source file, caption, category,
title) and the facts its captions (workflow/report/*.rst, Jinja) state about the
configuration."""

from __future__ import annotations

import re

from ltrconv.pipeline.paths import LIBRARY_TABLES, TABLES
from ltrconv.pipeline.plan import Plan


def extended_tables(plan: Plan) -> tuple[str, ...]:
    """Tables beyond the paper, as configured: each seed's results, the tie-order ranges,
    today's libraries."""
    return ((("seed_fold_means", "seed_ttests") if plan.multi_seed else ())
            + (("ties",) if plan.extensions["ties"] else ())
            + (LIBRARY_TABLES if plan.extensions["libraries"] else ()))


def report_pages(plan: Plan) -> dict[str, dict]:
    """Key -> what the report shows: source file, caption (workflow/report/CAPTION.rst),
    category and title. Each becomes RESULTS/DATASET/report/KEY.html (rule report_pages). The
    figures' pages are those of :attr:`Plan.figures`."""
    extra = ("implementation",) if plan.variants else ()
    table_captions = {"runtime": "runtime_table", "implementation": "implementation_table",
                      "ties": "ties_table", "libraries": "libraries_table"}
    pages = {"claims": dict(source="claims.md", caption="claims", category="Claims",
                            title="Claims of the paper checked on this run")}
    for t in TABLES + ("audit", "runtime") + extra + extended_tables(plan):
        pages[f"table_{t}"] = dict(source=f"tables/{t}.tsv", caption=table_captions.get(t, t),
                                   category="Tables", title=f"Table {t}")
    for figure in plan.figures:
        for stem, title in figure.instances(plan):
            pages[f"figure_{stem.replace('/', '_')}"] = dict(
                source=f"figures/{stem}.png", caption=figure.page_caption, category="Figures",
                title=title)
    return pages


def study_pages(plan: Plan) -> dict[str, dict]:
    """The report pages of results over all datasets (rule study_report_pages)."""
    pages = {}
    if plan.extensions["winning"]:
        pages = {"table_winning": dict(source="tables/winning.tsv", caption="winning_table",
                                       category="Tables", title="Table winning"),
                 "figure_winning": dict(source="figures/winning.png", caption="winning",
                                        category="Figures", title="Winning numbers")}
    if plan.extensions["libraries"]:
        for t in ("library_winning", "library_flips"):
            pages[f"table_{t}"] = dict(source=f"tables/{t}.tsv", caption=t, category="Tables",
                                       title=f"Table {t}")
    return pages


def rst(text) -> str:
    """``text`` with reStructuredText markup characters escaped (captions are rst)."""
    return re.sub(r"([\\`*_|@<>\[\]])", r"\\\1", str(text))


def caption_facts(plan: Plan) -> dict:
    """What the captions say about this configuration."""
    from ltrconv.rankers.registry import display_name as name

    def names(items):
        return [rst(name(a)) for a in items]

    base = plan.base_algorithms
    library_train = plan.library_train_conventions
    return dict(
        cutoffs=rst(plan.cutoffs),
        train_cutoff=plan.train_cutoff,
        train_conventions=names(plan.train_conventions),
        official=rst(plan.official),
        figure1_algorithms=names(plan.figure1_algorithms),
        figure1_eval_conventions=names(plan.figure1_eval_conventions),
        figure2_algorithms=names(base),
        figure2_eval_conventions=names(plan.figure2_eval_conventions),
        variants=[rst(f"{v} ({name(plan.algorithms[v].base)}: {plan.algorithms[v].label})")
                  for v in plan.variants],
        seeds=[str(s) for s in plan.seeds],
        random_algorithms=names(a for a in base if plan.algorithms[a].random),
        deterministic_algorithms=names(a for a in base if not plan.algorithms[a].random),
        few_scores=names(plan.few_scores),
        datasets=[rst(d) for d in plan.datasets],
        folds=[str(f) for f in plan.folds],
        reference=rst(plan.reference),
        library_eval_conventions=[rst(c) for c in plan.library_eval_conventions],
        library_train_conventions=[rst(c) for c in library_train],
        library_trained_algorithms=names(
            a for a in base if set(plan.algorithms[a].train_conventions) & set(library_train)),
    )
