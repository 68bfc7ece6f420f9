"""Parse each fold's files once into binary caches; the whole dataset for the audit (rule prepare).

The files are re-verified against the acquire step's manifest first (they may be links to a
directory edited since), and again after parsing. A file without qids is read with the query
sizes file beside it (FILE.query or FILE.group), which the manifest lists too.
"""

from pathlib import Path

from ltrconv.pipeline.job import run
from ltrconv.data.split import after, check_disjoint, check_labels
from ltrconv.data.verify import Layout, check_unchanged, with_sizes
from ltrconv.data.letor import Dataset, read_letor

SPLITS = ("train", "vali", "test")


def main(smk, log):
    layout = Layout(**smk.params.layout)
    root = Path(smk.params.data_dir)
    n_features = smk.params.n_features
    outputs = iter(smk.output.splits)
    files = with_sizes(root, [layout.fold_file(k, split) for k in smk.params.folds
                              for split in SPLITS])
    check_unchanged(root, smk.input.manifest, files)
    first_fold = None
    for k in smk.params.folds:
        fold, paths = {}, {}
        for split in SPLITS:
            paths[split] = path = root / layout.fold_file(k, split)
            data = read_letor(path, n_features=n_features)
            check_labels(data, path, smk.params.labels)
            fold[split] = data
        for note in check_disjoint(fold, paths):
            log.info(f"fold {k}: {note}")
        for split in SPLITS:
            data = fold[split]
            data.save(next(outputs))
            log.info(f"fold {k} {split}: {data.n_queries} queries, {data.n_docs} rows, {data.X.shape[1]} features")
        first_fold = first_fold or fold
    check_unchanged(root, smk.input.manifest, files)  # nothing changed while parsing
    parts = []
    for split in SPLITS:
        parts.append(after(first_fold[split], parts))
    full = Dataset.concat(parts)
    full.save(smk.output.full)
    log.info(f"all: {full.n_queries} queries, {full.n_docs} rows")


run(snakemake, main)  # noqa: F821
