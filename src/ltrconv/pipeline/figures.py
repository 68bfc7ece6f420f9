"""The figures the workflow draws for each dataset, one declaration each.

A :class:`Figure` gives its file under RESULTS/DATASET/figures/ (NAME.png and NAME.pdf), its page
in the report (title; caption workflow/report/CAPTION.rst), the rule that draws it and how: the
dataset's tables it reads and the drawing function, with its keyword arguments taken from the
plan. Everything else follows from :data:`FIGURES`: the figures a plan makes
(:attr:`ltrconv.pipeline.plan.Plan.figures`), the workflow's targets
(:func:`ltrconv.pipeline.paths.all_targets`), the report's pages
(:func:`ltrconv.pipeline.report.report_pages`) and a rule per drawn figure
(workflow/rules/figures.smk, running workflow/scripts/figure.py). A new figure is an entry here,
its drawing function and its caption.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

ALGORITHM = "{algorithm}"
"""In a name and title: one figure per algorithm of the plan (the rule's wildcard)."""


def _always(plan: Any) -> bool:
    return True


def _no_params(plan: Any) -> dict:
    return {}


@dataclass(frozen=True)
class Figure:
    """One figure of each dataset.

    ``name``: the file stem under figures/ (with :data:`ALGORITHM`, one figure per algorithm,
    drawn by one job with ``algorithm=`` each);
    ``title``: the report page's title; ``rule``: the rule that draws it; ``draw``: the drawing
    function as "module:function", called as ``function(*tables, out_stem, **params(plan))``,
    with ``algorithm=A`` too for a figure per algorithm; ``tables``: the names of the
    dataset's tables it reads (RESULTS/DATASET/tables/NAME.tsv, the rule's inputs);
    ``params``: the function's keyword arguments from the plan (the rule's params);
    ``caption``: workflow/report/CAPTION.rst (default the name); ``when``: whether a plan makes
    it.
    """

    name: str
    title: str
    rule: str
    draw: str
    tables: tuple[str, ...] = ()
    params: Callable[[Any], dict] = _no_params
    caption: str = ""
    when: Callable[[Any], bool] = _always

    @property
    def page_caption(self) -> str:
        return self.caption or self.name

    @property
    def per_algorithm(self) -> bool:
        return ALGORITHM in self.name

    def instances(self, plan) -> list[tuple[str, str]]:
        """``(file stem, title)`` of each figure it stands for under ``plan``."""
        if not self.per_algorithm:
            return [(self.name, self.title)]
        return [(self.name.replace(ALGORITHM, a), self.title.replace(ALGORITHM, a))
                for a in plan.algorithms]

    def rule_params(self, plan) -> dict:
        """The params of the rule drawing it: :attr:`params`, and for a figure per algorithm
        the plan's algorithms (one rule job draws each one's figure, in the order of its
        outputs)."""
        extra = {"algorithms": list(plan.algorithms)} if self.per_algorithm else {}
        return {**self.params(plan), **extra}

    def function(self) -> Callable:
        module, name = self.draw.split(":")
        return getattr(importlib.import_module(module), name)


FIGURES: tuple[Figure, ...] = (
    Figure("figure1", "Figure 1", "figure1", "ltrconv.study.figures:figure1", ("summary",),
           lambda plan: dict(algorithms=list(plan.figure1_algorithms),
                             eval_conventions=list(plan.figure1_eval_conventions),
                             train_conventions=list(plan.train_conventions))),
    Figure("figure2", "Figure 2", "figure2", "ltrconv.study.figures:figure2", ("summary",),
           lambda plan: dict(algorithms=plan.base_algorithms,
                             eval_conventions=list(plan.figure2_eval_conventions),
                             train_convention=plan.official)),
    Figure("runtime", "Training time", "runtime_figure", "ltrconv.study.figures:runtime_figure",
           ("runtime",)),
    Figure("implementation", "Implementation variants", "implementation_figure",
           "ltrconv.study.figures:implementation_figure", ("summary",),
           lambda plan: dict(pairs=[[v, b, plan.variant_labels[v]]
                                    for v, b in plan.variant_bases.items()],
                             eval_conventions=list(plan.figure1_eval_conventions),
                             train_convention=plan.official),
           when=lambda plan: bool(plan.variants)),
    Figure(f"ties/{ALGORITHM}", f"Tie orders: {ALGORITHM}", "ties_figure",
           "ltrconv.study.figures:ties_figure", ("summary",),
           lambda plan: dict(train_conventions=list(plan.train_conventions)), caption="ties",
           when=lambda plan: plan.extensions["ties"]),
    Figure("libraries", "Today's libraries", "library_figure",
           "ltrconv.study.library_figures:libraries_figure", ("summary",),
           lambda plan: dict(algorithms=plan.base_algorithms,
                             conventions=plan.library_eval_conventions,
                             reference=plan.reference, train_convention=plan.official),
           when=lambda plan: plan.extensions["libraries"]),
)
"""Every figure of a dataset, in the order of the targets and of the report's pages."""


def by_rule(rule: str) -> Figure:
    """The figure that ``rule`` draws."""
    return next(f for f in FIGURES if f.rule == rule)
