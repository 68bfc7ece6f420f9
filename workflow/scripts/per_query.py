"""Concatenate the per-model tables into the study's per-query table (rule per_query)."""

import pandas as pd

from ltrconv.pipeline.job import read_parquet, run
from ltrconv.outputs import atomic_path
from ltrconv.study.tables import PER_QUERY_COLUMNS

# sorted by everything but the query: queries stay in the order evaluate wrote them
KEYS = [c for c in PER_QUERY_COLUMNS if c not in ("qid", "value")]


def main(smk, log):
    frame = pd.concat([read_parquet(p) for p in smk.input], ignore_index=True)
    frame = frame.sort_values(KEYS, kind="stable", ignore_index=True)
    with atomic_path(smk.output[0]) as tmp:
        frame.to_parquet(tmp, index=False)
    log.info(f"{len(frame)} rows from {len(smk.input)} models")


run(snakemake, main)  # noqa: F821
