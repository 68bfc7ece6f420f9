"""Training time and peak memory of every model, from the train jobs' fits.tsv (rule
runtime_table)."""

from pathlib import Path

import pandas as pd

from ltrconv.pipeline.job import read_tsv, run, write_tsv


def main(smk, log):
    seeded = smk.params.get("seeded")
    frames = []
    for path in smk.input:
        # RESULTS/DATASET/models/ALGORITHM/CONVENTION/[seedS/]fits.tsv
        parts = Path(path).parent.parts
        algorithm, convention = parts[-3:-1] if seeded else parts[-2:]
        fits = read_tsv(path).assign(algorithm=algorithm, train_convention=convention)
        if seeded:
            fits["seed"] = int(parts[-1].removeprefix("seed"))
        frames.append(fits)
    keys = ["algorithm", "train_convention", "fold"] + (["seed"] if seeded else [])
    table = pd.concat(frames, ignore_index=True)[keys + ["s", "max_rss"]]
    table = table.sort_values(keys, ignore_index=True)
    write_tsv(table, smk.output[0], float_format="%.4f")
    log.info(f"{len(table)} models")


run(snakemake, main)  # noqa: F821
