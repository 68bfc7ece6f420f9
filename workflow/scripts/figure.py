"""A figure declared with its drawing function in ltrconv.pipeline.figures.FIGURES, drawn from
the rule's tables: ``function(*tables, out_stem, **params, **wildcards)``, the dataset's
wildcard left out (rules figure1, figure2, runtime_figure, ties_figure, library_figure)."""

from ltrconv.pipeline import figures
from ltrconv.pipeline.job import read_tsv, run


def main(smk, log):
    figure = figures.by_rule(smk.rule)
    tables = [read_tsv(getattr(smk.input, t)) for t in figure.tables]
    wildcards = {k: v for k, v in smk.wildcards.items() if k != "dataset"}
    figure.function()(*tables, str(smk.output.png)[: -len(".png")], **dict(smk.params.items()),
                      **wildcards)


run(snakemake, main)  # noqa: F821
