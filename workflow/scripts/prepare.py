"""Parse each fold's files once into binary caches; the whole dataset for the audit (rule prepare).

The files are re-verified against the acquire step's manifest first (they may be links to a
directory edited since), and again after parsing.
"""

from pathlib import Path

import numpy as np

from ltrconv.pipeline.job import run
from ltrconv.data.verify import Layout, check_unchanged
from ltrconv.data.letor import Dataset, read_letor
from ltrconv.errors import InputError

SPLITS = ("train", "vali", "test")


def check(data: Dataset, path: Path, labels) -> None:
    extra = sorted(set(np.unique(data.y).tolist()) - set(labels))
    if extra:
        raise InputError(f"labels {extra} are outside the configured label scale {labels}", str(path))


def main(smk, log):
    layout = Layout(**smk.params.layout)
    root = Path(smk.params.data_dir)
    n_features = smk.params.n_features
    outputs = iter(smk.output.splits)
    files = [layout.fold_file(k, split) for k in smk.params.folds for split in SPLITS]
    check_unchanged(root, smk.input.manifest, files)
    first_fold = None
    for k in smk.params.folds:
        fold = {}
        for split in SPLITS:
            path = root / layout.fold_file(k, split)
            data = read_letor(path, n_features=n_features)
            check(data, path, smk.params.labels)
            data.save(next(outputs))
            fold[split] = data
            log.info(f"fold {k} {split}: {data.n_queries} queries, {data.n_docs} rows, {data.X.shape[1]} features")
        first_fold = first_fold or fold
    check_unchanged(root, smk.input.manifest, files)  # nothing changed while parsing
    full = Dataset.concat([first_fold[s] for s in SPLITS])
    full.save(smk.output.full)
    log.info(f"all: {full.n_queries} queries, {full.n_docs} rows")


run(snakemake, main)  # noqa: F821
