"""Training time and peak memory of every model, from the benchmark files (rule runtime_table)."""

from pathlib import Path

import pandas as pd

from _job import run
from ltrconv.data import atomic_path


def main(smk, log):
    root = Path(smk.params.bench_root)
    rows = []
    for path in smk.input:
        rel = Path(path).relative_to(root)  # ALGORITHM/CONVENTION/[seedS/]foldK.tsv
        algorithm, convention, fold = rel.parts[0], rel.parts[1], rel.stem
        row = {"algorithm": algorithm, "train_convention": convention,
               "fold": int(fold.removeprefix("fold"))}
        if smk.params.get("seeded"):
            row["seed"] = int(rel.parts[2].removeprefix("seed"))
        bench = pd.read_csv(path, sep="\t")
        rows.append({**row, "s": float(bench["s"].iloc[0]),
                     "max_rss": float(pd.to_numeric(bench["max_rss"], errors="coerce").iloc[0])})
    keys = ["algorithm", "train_convention", "fold"] + (["seed"] if smk.params.get("seeded") else [])
    table = pd.DataFrame(rows).sort_values(keys, ignore_index=True)
    with atomic_path(smk.output[0]) as tmp:
        table.to_csv(tmp, sep="\t", index=False, float_format="%.4f")
    log.info(f"{len(table)} training jobs")


run(snakemake, main)  # noqa: F821
