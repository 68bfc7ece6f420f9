"""Write what rule train writes from a scattered dataset's parts (rule gather): per fold, the
model and test scores (a whole fit's copied; Coordinate Ascent's restarts or RankNet's
architectures gathered, ltrconv.rankers.units, and the test split scored with the result), and
fits.tsv: per fold, the parts' fit times summed (with the gather's scoring) and their largest
peak memory."""

import shutil
import time

import numpy as np

from ltrconv.pipeline.job import read_tsv, run
from ltrconv import rankers
from ltrconv.data.letor import Dataset
from ltrconv.outputs import atomic_path


def copy(src, dst) -> None:
    with atomic_path(dst) as tmp:
        shutil.copyfile(src, tmp)


def main(smk, log):
    folds, units = smk.params.folds, smk.params.units
    per_fold = len(smk.input.parts) // len(folds)
    records = ["fold\ts\tmax_rss"]
    for i, fold in enumerate(folds):
        parts = smk.input.parts[i * per_fold:(i + 1) * per_fold]
        fits = [read_tsv(p) for p in smk.input.fits[i * per_fold:(i + 1) * per_fold]]
        seconds = float(sum(f["s"].sum() for f in fits))
        peak = float(max(f["max_rss"].max() for f in fits))
        if units:
            start = time.perf_counter()
            cls = rankers.get_class(smk.params.ranker)
            model = cls.gather(rankers.load(p) for p in parts)
            test = Dataset.load(smk.input.tests[i])
            scores = np.asarray(model.predict(test.X), dtype=np.float64)
            if scores.shape != (test.n_docs,) or not np.all(np.isfinite(scores)):
                raise ValueError(f"fold {fold}: predict returned shape {scores.shape} or "
                                 "non-finite scores")
            seconds += time.perf_counter() - start
            model.save(smk.output.models[i])
            with atomic_path(smk.output.scores[i]) as tmp, open(tmp, "wb") as fh:
                np.save(fh, scores)
            log.info(f"fold {fold}: {len(parts)} {cls.unit}s gathered, {rankers.selected(model)}")
        else:
            copy(parts[0], smk.output.models[i])
            copy(smk.input.scores[i], smk.output.scores[i])
            log.info(f"fold {fold}: the whole fit's model and test scores")
        records.append(f"{fold}\t{seconds:.4f}\t{peak:.2f}")
    with atomic_path(smk.output.fits) as tmp, open(tmp, "w") as fh:
        fh.write("\n".join(records) + "\n")


run(snakemake, main)  # noqa: F821
