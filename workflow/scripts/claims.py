"""The paper's claims checked against this run, as Markdown (rule claims)."""

import pandas as pd

from _job import run
from ltrconv import implementation, study
from ltrconv.data import atomic_path
from ltrconv.paper import busa_fekete_2012 as paper


def main(smk, log):
    read = lambda p: pd.read_csv(p, sep="\t")  # noqa: E731
    summary, ttests = read(smk.input.summary), read(smk.input.ttests)
    p = smk.params
    setting = paper.Setting(k=p.cutoff, train=p.official)
    text = paper.claims_markdown(summary[summary["algorithm"].isin(p.algorithms)],
                                 ttests[ttests["algorithm"].isin(p.algorithms)],
                                 read(smk.input.order), study.audit_from_table(read(smk.input.audit)),
                                 smk.wildcards.dataset, setting)
    if p.variants:
        text += implementation.implementation_section(
            summary[summary["dataset"] == smk.wildcards.dataset],
            read(smk.input.implementation), dict(p.variants), dict(p.labels),
            train_convention=p.official, k=p.cutoff)
    with atomic_path(smk.output[0]) as tmp:
        tmp.write_text(text)


run(snakemake, main)  # noqa: F821
