"""Sensitivity profile of a dataset as a tidy table (rule audit)."""

from _job import run
from ltrconv.data.audit import audit_frame
from ltrconv.data.letor import Dataset
from ltrconv.outputs import atomic_path


def main(smk, log):
    frame = audit_frame(Dataset.load(smk.input.full))
    with atomic_path(smk.output.table) as tmp:
        frame.to_csv(tmp, sep="\t", index=False, float_format="%.10g")
    log.info(f"{len(frame)} audit rows")


run(snakemake, main)  # noqa: F821
