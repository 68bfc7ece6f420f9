"""How often the intervals and tests of ``ltrconv compare`` hold what they claim, on synthetic
per-query values whose truth is known.

* coverage: per seed, ``--queries`` per-query values of two systems, a ~ Beta(2, 5) (mean
  2/7) and b = a - ``--shift`` + noise, noise ~ N(0, 0.1), so that the true mean of a - b is
  ``--shift``; the share of seeds whose bootstrap interval (``--resamples``, level 0.95) holds
  a's mean, and the share whose interval of the mean difference holds ``--shift``;
* false positives: with ``--shift 0`` the share of seeds whose paired test (t, Wilcoxon,
  randomization) has p < 0.05.

    python benchmarks/compare_coverage.py --seeds 1000 --queries 157 --resamples 2000
"""

from __future__ import annotations

import argparse

import numpy as np

from ltrconv.study import stats


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=1000)
    p.add_argument("--queries", type=int, default=157)
    p.add_argument("--resamples", type=int, default=2000)
    p.add_argument("--shift", type=float, default=0.0, help="true mean of a - b")
    p.add_argument("--permutations", type=int, default=2000)
    args = p.parse_args()

    mean_a = 2 / 7
    held = np.zeros(2, dtype=int)
    rejected = {"t": 0, "wilcoxon": 0, "randomization": 0}
    for seed in range(args.seeds):
        rng = np.random.default_rng(10_000 + seed)
        a = rng.beta(2, 5, args.queries)
        noise = rng.normal(0, 0.1, args.queries)
        b = a - args.shift + noise  # a - b = shift - noise: mean shift exactly
        low, high = stats.bootstrap_intervals(np.column_stack([a, a - b]), args.resamples, seed)
        held += (low <= [mean_a, args.shift]) & ([mean_a, args.shift] <= high)
        d = a - b
        rejected["t"] += stats.paired_table(a, b)["p"][0] < 0.05
        rejected["wilcoxon"] += stats.wilcoxon(d)[1] < 0.05
        rejected["randomization"] += stats.randomization(d, args.permutations, seed)[0][0] < 0.05
    print(f"{args.seeds} seeds, {args.queries} queries, {args.resamples} resamples, "
          f"true difference {args.shift:g}")
    print(f"95% interval holds the mean of a: {held[0]} of {args.seeds} "
          f"({held[0] / args.seeds:.1%}); the mean difference: {held[1]} ({held[1] / args.seeds:.1%})")
    for test, n in rejected.items():
        print(f"{test}: p < 0.05 in {n} of {args.seeds} ({n / args.seeds:.1%})")


if __name__ == "__main__":
    main()
