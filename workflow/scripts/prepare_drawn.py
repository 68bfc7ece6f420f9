"""Rule prepare for a dataset without validation files (rule prepare_drawn): parse each fold's
training and test files once into binary caches, each fold's validation queries drawn from its
training file (ltrconv.data.split.draw_validation, ``params.vali_split``: fraction and seed);
the whole dataset for the audit.

The drawn qids go to the log, to ``output.drawn`` (one TSV per fold, beside the caches) and to
``output.table`` (every fold's, in the dataset's tables). The files are re-verified against the
acquire step's manifest before parsing and again after. A file without qids is read with the
query sizes file beside it (FILE.query or FILE.group), which the manifest lists too; its
queries are numbered 1, 2, ... and drawn by these numbers.
"""

from pathlib import Path

from ltrconv.pipeline.job import run
from ltrconv.data.verify import Layout, check_unchanged, with_sizes
from ltrconv.data.letor import Dataset, read_letor
from ltrconv.data.split import after, check_disjoint, check_labels, draw_validation
from ltrconv.outputs import atomic_path

SPLITS = ("train", "vali", "test")


def write_drawn(path, rows, fraction, seed) -> None:
    """The drawn qids (fold, qid in drawn order) under a line naming the fraction and seed."""
    with atomic_path(path) as tmp, open(tmp, "w") as fh:
        fh.write(f"# validation queries drawn from the training file: vali_fraction {fraction}, "
                 f"vali_seed {seed}\nfold\tqid\n")
        fh.writelines(f"{k}\t{q}\n" for k, q in rows)


def main(smk, log):
    layout = Layout(**smk.params.layout)
    root = Path(smk.params.data_dir)
    fraction, seed = smk.params.vali_split["fraction"], smk.params.vali_split["seed"]
    outputs = iter(smk.output.splits)
    files = with_sizes(root, [layout.fold_file(k, split) for k in smk.params.folds
                              for split in layout.splits])
    check_unchanged(root, smk.input.manifest, files)
    first_fold, draws = None, []
    for i, k in enumerate(smk.params.folds):
        fold, paths = {}, {}
        for split in layout.splits:
            paths[split] = path = root / layout.fold_file(k, split)
            fold[split] = read_letor(path, n_features=smk.params.n_features)
            check_labels(fold[split], path, smk.params.labels)
        fold["train"], fold["vali"], qids = draw_validation(fold["train"], fraction, seed)
        paths["vali"] = f"the validation queries drawn from {paths['train']}"
        log.info(f"fold {k}: {len(qids)} validation queries drawn from {paths['train']} "
                 f"(vali_fraction {fraction}, vali_seed {seed}): qids "
                 f"{' '.join(str(q) for q in qids)}")
        for note in check_disjoint(fold, paths):
            log.info(f"fold {k}: {note}")
        rows = [(k, q) for q in qids]
        write_drawn(smk.output.drawn[i], rows, fraction, seed)
        draws += rows
        for split in SPLITS:
            data = fold[split]
            data.save(next(outputs))
            log.info(f"fold {k} {split}: {data.n_queries} queries, {data.n_docs} rows, "
                     f"{data.X.shape[1]} features")
        first_fold = first_fold or fold
    check_unchanged(root, smk.input.manifest, files)  # nothing changed while parsing
    write_drawn(smk.output.table, draws, fraction, seed)
    parts = [first_fold["train"], first_fold["vali"]]  # vali: queries of the training file
    full = Dataset.concat(parts + [after(first_fold["test"], parts)])
    full.save(smk.output.full)
    log.info(f"all: {full.n_queries} queries, {full.n_docs} rows")


run(snakemake, main)  # noqa: F821
