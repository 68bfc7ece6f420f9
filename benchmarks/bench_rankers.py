"""Time, peak memory and test NDCG@10 of each ranker on one MQ2008 fold.

Each fit (hyperparameter search and model selection included, default hyperparameters) runs
in a fresh process so that its peak RSS is its own. The peer in the same run is LightGBM's
built-in ``lambdarank`` (the same tree learner with its own objective, 10 leaves,
learning rate 0.1, early stopping on its built-in NDCG@10).

    python benchmarks/bench_rankers.py [--fold 1] [--metric ndcg@10:ranklib] [--repeats 1]
        [--algorithms adarank,rankboost,...] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ltrconv.rankers.registry import ORDER, UnknownAlgorithm, get

HERE = Path(__file__).resolve()
DEFAULT_DATA = HERE.parents[2] / "shared" / "data" / "MQ2008"
TARGETS = {  # seconds per fit, test NDCG@10 (ranklib) on Fold1 trained with ndcg@10:ranklib
    "adarank": (2, 0.465), "rankboost": (5, 0.48), "lambdamart": (3, 0.48),
    "ranksvm": (15, 0.465), "ranknet": (60, 0.465), "coordinate_ascent": (60, 0.48),
}


def run_one(name: str, data: Path, fold: int, metric: str) -> dict:
    """Fit one model in this process; return timing, peak memory and test scores."""
    import numpy as np

    from ltrconv import evaluate_dataset, rankers
    from ltrconv.data.letor import read_letor

    tr, va, te = (read_letor(data / f"Fold{fold}" / f"{s}.txt") for s in ("train", "vali", "test"))
    # warm the numba kernels on a tiny slice so that compile/cache load is not timed
    evaluate_dataset(va, np.zeros(va.n_docs), conventions=["ranklib"])
    t0 = time.perf_counter()
    if name == "lightgbm-lambdarank":
        import lightgbm as lgb

        sizes = lambda d: np.diff(d.offsets)  # noqa: E731
        dtr = lgb.Dataset(tr.X, tr.y, group=sizes(tr))
        dva = lgb.Dataset(va.X, va.y, group=sizes(va), reference=dtr)
        params = dict(objective="lambdarank", num_leaves=10, learning_rate=0.1, metric="ndcg",
                      ndcg_eval_at=[10], verbose=-1, seed=0, deterministic=True, num_threads=1,
                      force_row_wise=True)
        booster = lgb.train(params, dtr, 1000, valid_sets=[dva],
                            callbacks=[lgb.early_stopping(100, verbose=False)])
        predict = lambda X: booster.predict(X, num_iteration=booster.best_iteration)  # noqa: E731
    else:
        model = rankers.make(name, metric=metric).fit(
            tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid,
            docid=tr.docid, docid_val=va.docid)
        predict = model.predict
    seconds = time.perf_counter() - t0
    res = evaluate_dataset(te, predict(te.X), conventions=["ranklib", "yahoo", "letor"])
    return {
        "algorithm": name,
        "seconds": seconds,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        **{f"test_{c}": res[c].mean()["NDCG@10"] for c in res},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--fold", type=int, default=1)
    ap.add_argument("--metric", default="ndcg@10:ranklib")
    ap.add_argument("--repeats", type=int, default=1, help="fits per algorithm (median reported)")
    ap.add_argument("--algorithms", default=",".join(ORDER))
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.data, args.fold, args.metric)))
        return
    if not (args.data / f"Fold{args.fold}").is_dir():
        sys.exit(f"bench_rankers: no MQ2008 fold at {args.data / f'Fold{args.fold}'} (set --data)")
    try:
        names = [get(n).name for n in args.algorithms.split(",")] + ["lightgbm-lambdarank"]
    except UnknownAlgorithm as exc:
        sys.exit(f"bench_rankers: --algorithms: {exc}")
    print(f"MQ2008 Fold{args.fold}, training metric {args.metric}, {args.repeats} fit(s) each, "
          "one process per fit")
    print(f"{'algorithm':22s} {'median s':>9s} {'target s':>9s} {'peak MB':>8s} "
          f"{'ranklib@10':>10s} {'target':>7s} {'yahoo@10':>9s} {'letor@10':>9s}")
    rows = {}
    for name in names:
        runs = []
        for _ in range(args.repeats):
            out = subprocess.run(
                [sys.executable, str(HERE), "--one", name, "--data", str(args.data),
                 "--fold", str(args.fold), "--metric", args.metric],
                capture_output=True, text=True, check=True)
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        r = dict(runs[0], seconds=statistics.median(x["seconds"] for x in runs))
        rows[name] = r
        t_s, t_q = TARGETS.get(name, (float("nan"), float("nan")))
        print(f"{name:22s} {r['seconds']:9.2f} {t_s:9.0f} {r['peak_mb']:8.0f} "
              f"{r['test_ranklib']:10.4f} {t_q:7.3f} {r['test_yahoo']:9.4f} {r['test_letor']:9.4f}")
    if "lambdamart" in rows:
        ratio = rows["lambdamart"]["seconds"] / rows["lightgbm-lambdarank"]["seconds"]
        print(f"lambdamart (RankLib 2.x's algorithm, numba) / lightgbm built-in lambdarank: "
              f"{ratio:.2f}x time")


if __name__ == "__main__":
    main()
