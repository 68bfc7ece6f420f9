"""Sensitivity profile of a dataset as a tidy table (rule audit)."""

from ltrconv.pipeline.job import run, write_tsv
from ltrconv.data.audit import audit_frame
from ltrconv.data.letor import Dataset


def main(smk, log):
    frame = audit_frame(Dataset.load(smk.input.full))
    write_tsv(frame, smk.output.table)
    log.info(f"{len(frame)} audit rows")


run(snakemake, main)  # noqa: F821
