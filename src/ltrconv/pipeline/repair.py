"""Outputs whose bytes changed since their job wrote them (:mod:`ltrconv.pipeline.records`),
among those the configured workflow makes: removed when the workflow starts, so that Snakemake
makes each again as it makes a missing output (a truncated model or table is redone instead of
being taken as done)."""

from __future__ import annotations

import os
from typing import Callable, Iterable

from ltrconv.pipeline import records
from ltrconv.pipeline.plan import Plan


def made_here(plan: Plan, damage: records.Damage, outputs: Callable[[str], Iterable]) -> bool:
    """Whether the configured workflow makes ``damage.path`` by the recorded job: its rule,
    wildcard values and output pattern are still configured (not a leftover of another
    configuration, which is left alone). ``outputs(rule)`` gives a rule's output patterns
    (raises AttributeError for a rule that is not defined)."""
    wc = damage.wildcards
    configured = {"dataset": plan.datasets, "algorithm": plan.algorithms,
                  "train_convention": plan.all_train_conventions}
    if any(key in wc and wc[key] not in values for key, values in configured.items()):
        return False
    if ("train_convention" in wc and "algorithm" in wc
            and wc["train_convention"] not in plan.algorithms[wc["algorithm"]].train_conventions):
        return False
    if "seed" in wc and not (plan.seed_dir
                             and int(wc["seed"]) in plan.algorithms[wc["algorithm"]].seeds):
        return False
    try:
        return damage.path in {str(p).format(**wc) for p in outputs(damage.rule)}
    except (AttributeError, KeyError, IndexError, ValueError):
        return False


def remake_damaged(plan: Plan, outputs: Callable[[str], Iterable], dry_run: bool,
                   warn: Callable[[str], None]) -> list[str]:
    """Remove each output of the configured workflow whose bytes are no longer those its job
    recorded (a dry run only says which); the paths."""
    found = []
    for d in records.damaged(plan.logs):
        if not made_here(plan, d, outputs):
            continue
        if not dry_run:
            os.remove(d.path)
        done = "a run removes it and" if dry_run else "removed:"
        warn(f"{d.path}: {d.why}; {done} rule {d.rule} makes it again")
        found.append(d.path)
    return found
