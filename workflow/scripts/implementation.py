"""Each implementation variant against its base algorithm: table and figure (rule implementation)."""

from ltrconv.pipeline.job import read_tsv, run, write_tsv
from ltrconv.study import figures, per_query_store


def main(smk, log):
    p = smk.params
    table = per_query_store.implementation_table(smk.input.per_query, dict(p.variants))
    write_tsv(table, smk.output.table)
    pairs = [(v, b, p.labels[v]) for v, b in p.variants.items()]
    figures.implementation_figure(read_tsv(smk.input.summary),
                                  str(smk.output.png)[: -len(".png")], pairs,
                                  eval_conventions=p.eval_conventions,
                                  train_convention=p.train_convention)
    log.info(f"{len(table)} comparisons of {len(pairs)} variant(s)")


run(snakemake, main)  # noqa: F821
