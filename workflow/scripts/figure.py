"""A figure declared with its drawing function in ltrconv.pipeline.figures.FIGURES, drawn from
the rule's tables: ``function(*tables, out_stem, **params)``; a figure per algorithm is drawn for
each algorithm of the rule's ``algorithms`` param, ``algorithm=`` it, into the outputs in that
order (rules figure1, figure2, runtime_figure, implementation_figure, ties_figure,
library_figure)."""

from ltrconv.pipeline import figures
from ltrconv.pipeline.job import read_tsv, run


def main(smk, log):
    figure = figures.by_rule(smk.rule)
    tables = [read_tsv(getattr(smk.input, t)) for t in figure.tables]
    params = dict(smk.params.items())
    draw = figure.function()
    if not figure.per_algorithm:
        draw(*tables, str(smk.output.png)[: -len(".png")], **params)
        return
    algorithms = params.pop("algorithms")
    for algorithm, png in zip(algorithms, smk.output.png, strict=True):
        draw(*tables, str(png)[: -len(".png")], algorithm=algorithm, **params)
    log.info(f"{len(algorithms)} figures drawn")


run(snakemake, main)  # noqa: F821
