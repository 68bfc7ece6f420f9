"""Winning numbers of the algorithms under each library convention over every (dataset, fold)
unit, and the pairs of algorithms whose order flips between library conventions (rule
library_order)."""

import pandas as pd

from ltrconv.pipeline.job import read_tsv, run, write_tsv
from ltrconv.study import libraries, tables as study, winning

BY = ["train_convention", "eval_convention", "metric", "k"]


def main(smk, log):
    p = smk.params
    folds = pd.concat([read_tsv(f) for f in smk.input], ignore_index=True)
    folds = folds[folds["algorithm"].isin(p.algorithms) & (folds["train_convention"] == p.official)
                  & folds["eval_convention"].isin([p.reference, *p.libraries])
                  & (folds["metric"] == "NDCG")]
    table = study.sort_rows(winning.winning_numbers(folds, by=BY), BY)
    write_tsv(table, smk.output.winning)
    flips = libraries.order_flips(table, p.libraries)
    write_tsv(flips, smk.output.flips)
    units = folds[["dataset", "fold"]].drop_duplicates().shape[0]
    log.info(f"{len(table)} rows over {units} units; {len(flips)} flipping pairs (all k)")


run(snakemake, main)  # noqa: F821
