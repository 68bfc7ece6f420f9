"""Tables and figures beyond the paper (rules seed_tables, ties_table, ties_figure, winning)."""

import pandas as pd

from _job import run
from ltrconv.study import figures, seeds, tables as study, tie_ranges, winning
from ltrconv.outputs import atomic_path


def write_tsv(frame: pd.DataFrame, path) -> None:
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, sep="\t", index=False, float_format="%.10g")


def main(smk, log):
    p = smk.params
    if smk.rule == "seed_tables":
        per_query = pd.read_parquet(smk.input[0])
        write_tsv(seeds.seed_fold_means(per_query), smk.output.fold_means)
        write_tsv(seeds.seed_ttests(per_query), smk.output.ttests)
    elif smk.rule == "ties_table":
        table = tie_ranges.tie_table(pd.read_parquet(smk.input[0]), k=p.cutoff)
        write_tsv(table, smk.output[0])
        log.info(f"{len(table)} models")
    elif smk.rule == "ties_figure":
        summary = pd.read_csv(smk.input.summary, sep="\t")
        figures.ties_figure(summary, str(smk.output.png)[: -len(".png")], smk.wildcards.algorithm,
                            train_conventions=p.train_conventions)
    elif smk.rule == "winning":
        folds = pd.concat([pd.read_csv(f, sep="\t") for f in smk.input], ignore_index=True)
        folds = folds[folds["algorithm"].isin(p.algorithms)]
        table = study.sort_rows(winning.winning_numbers(folds, by=["train_convention",
                                "eval_convention", "metric", "k"]),
                                ["train_convention", "eval_convention", "metric", "k"])
        write_tsv(table, smk.output.table)
        figures.winning_figure(table, str(smk.output.png)[: -len(".png")],
                               eval_conventions=p.eval_conventions,
                               train_convention=p.train_convention, algorithms=p.algorithms)
        log.info(f"{len(table)} rows over {folds[['dataset', 'fold']].drop_duplicates().shape[0]} units")


run(snakemake, main)  # noqa: F821
