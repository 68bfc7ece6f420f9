"""Gather the per-model tables into the study's per-query table (rule per_query): names
dictionary-encoded, one row group per algorithm, evaluation convention and metric type
(ltrconv.study.per_query_store)."""

from ltrconv.pipeline.job import DamagedInput, run
from ltrconv.outputs import atomic_path
from ltrconv.study import per_query_store


def main(smk, log):
    try:
        with atomic_path(smk.output[0]) as tmp:
            rows = per_query_store.write(list(smk.input), tmp)
    except per_query_store.UnreadableTable as exc:
        raise DamagedInput(exc.path, exc.why) from None
    log.info(f"{rows} rows from {len(smk.input)} models")


run(snakemake, main)  # noqa: F821
