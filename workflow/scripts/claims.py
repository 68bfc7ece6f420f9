"""The paper's claims checked against this run, as Markdown (rule claims)."""

from ltrconv.pipeline.job import read_tsv, run
from ltrconv.data.audit import audit_from_table
from ltrconv.study import audit_predictions, libraries, per_query_store, seeds, variants, winning
from ltrconv.rankers.registry import display_name
from ltrconv.outputs import atomic_path
from ltrconv.study.paper import busa_fekete_2012 as paper


def main(smk, log):
    summary, ttests = read_tsv(smk.input.summary), read_tsv(smk.input.ttests)
    p = smk.params
    setting = paper.Setting(k=p.cutoff, train=p.official)
    family = paper.paper_family(ttests, setting)  # claims 3 and 4: the paper's Holm family
    text = paper.claims_markdown(summary[summary["algorithm"].isin(p.algorithms)],
                                 family[family["algorithm"].isin(p.algorithms)],
                                 read_tsv(smk.input.order),
                                 audit_from_table(read_tsv(smk.input.audit)),
                                 smk.wildcards.dataset, setting)
    dataset = smk.wildcards.dataset
    if p.variants:
        text += variants.implementation_section(
            summary[summary["dataset"] == dataset],
            read_tsv(smk.input.implementation), dict(p.variants), dict(p.labels),
            train_convention=p.official, k=p.cutoff, rankers=dict(p.get("rankers", {})))
    # beyond the paper, each as configured (config key extensions, seeds)
    if "seed_ttests" in smk.input.keys():
        text += seeds.seeds_section(ttests[ttests["algorithm"].isin(p.algorithms)],
                                    read_tsv(smk.input.seed_ttests), p.seeds, dataset, setting)
    if "per_query" in smk.input.keys():
        zeros = per_query_store.zero_shares(smk.input.per_query, p.official, p.algorithms)
        text += audit_predictions.predictions_markdown(
            audit_from_table(read_tsv(smk.input.audit)),
            summary[summary["algorithm"].isin(p.algorithms) & (summary["dataset"] == dataset)],
            zeros, p.official,
            collapse_cutoffs=setting.collapse_cutoffs)
    if "winning" in smk.input.keys():
        text += winning.flips_markdown(read_tsv(smk.input.winning), setting.reference,
                                       train_convention=p.official, k=p.cutoff,
                                       display=display_name)
    if "libraries" in smk.input.keys():
        units = read_tsv(smk.input.library_winning)["n_units"]
        text += libraries.libraries_section(
            read_tsv(smk.input.libraries), read_tsv(smk.input.library_spread),
            read_tsv(smk.input.library_ttests), dataset, flips=read_tsv(smk.input.library_flips),
            reference=setting.reference, k=p.cutoff,
            n_units=int(units.max()) if len(units) else None)
    with atomic_path(smk.output[0]) as tmp:
        tmp.write_text(text)


run(snakemake, main)  # noqa: F821
