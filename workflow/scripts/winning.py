"""Winning numbers of the algorithms over every (dataset, fold) unit: table and figure (rule
winning)."""

import pandas as pd

from ltrconv.pipeline.job import read_tsv, run, write_tsv
from ltrconv.study import figures, tables as study, winning

BY = ["train_convention", "eval_convention", "metric", "k"]


def main(smk, log):
    p = smk.params
    folds = pd.concat([read_tsv(f) for f in smk.input], ignore_index=True)
    folds = folds[folds["algorithm"].isin(p.algorithms)]
    table = study.sort_rows(winning.winning_numbers(folds, by=BY), BY)
    write_tsv(table, smk.output.table)
    figures.winning_figure(table, str(smk.output.png)[: -len(".png")],
                           eval_conventions=p.eval_conventions,
                           train_convention=p.train_convention, algorithms=p.algorithms)
    log.info(f"{len(table)} rows over {folds[['dataset', 'fold']].drop_duplicates().shape[0]} units")


run(snakemake, main)  # noqa: F821
