"""Training time and peak memory of every model, from the benchmark files (rule runtime_table)."""

from pathlib import Path

import pandas as pd

from _job import run
from ltrconv.data import atomic_path


def main(smk, log):
    root = Path(smk.params.bench_root)
    rows = []
    for path in smk.input:
        rel = Path(path).relative_to(root)
        algorithm, convention, fold = rel.parts[0], rel.parts[1], rel.stem
        bench = pd.read_csv(path, sep="\t")
        rows.append({"algorithm": algorithm, "train_convention": convention,
                     "fold": int(fold.removeprefix("fold")), "s": float(bench["s"].iloc[0]),
                     "max_rss": float(pd.to_numeric(bench["max_rss"], errors="coerce").iloc[0])})
    table = pd.DataFrame(rows).sort_values(["algorithm", "train_convention", "fold"], ignore_index=True)
    with atomic_path(smk.output[0]) as tmp:
        table.to_csv(tmp, sep="\t", index=False, float_format="%.4f")
    log.info(f"{len(table)} training jobs")


run(snakemake, main)  # noqa: F821
