"""Significance tests and error combination used to compare trained rankers.

* paired t-test on differences d_i = a_i - b_i: ``t = mean(d) / (sd(d) / sqrt(n))`` with
  ``sd`` the sample standard deviation (ddof = 1), two-sided ``p = 2 P(T_{n-1} > |t|)``;
* Wilcoxon's signed-rank test and the paired randomization (sign-flip) test on the same
  differences, and the paired standardised difference ``mean(d) / sd(d)``;
* percentile intervals of means from a paired bootstrap over queries;
* Holm's, Bonferroni's and Benjamini-Hochberg's adjustments of a family of m p-values;
* per-fold standard errors combined in quadrature.
"""

from __future__ import annotations

import numpy as np


def t_from_moments(n, mean, sd, constant=None) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised paired t statistic and two-sided p from n, mean(d) and sd(d) (ddof = 1).

    ``constant`` marks groups whose differences are all equal (sd = 0 exactly): all zero
    gives t = 0, p = 1; a non-zero constant gives t = ±inf, p = 0. Fewer than two pairs give
    NaN whatever ``constant`` says (one difference is trivially constant but carries no
    information about its spread).
    """
    n = np.asarray(n, dtype=np.float64)
    mean = np.asarray(mean, dtype=np.float64)
    sd = np.asarray(sd, dtype=np.float64)
    constant = (sd == 0) if constant is None else np.asarray(constant, dtype=bool)
    t = np.full(np.broadcast(n, mean, sd).shape, np.nan)
    p = np.full(t.shape, np.nan)
    ok = (n >= 2) & ~constant & (sd > 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # t = +-inf
        t = np.where(ok, mean / (sd / np.sqrt(n)), t)
    # Student's t survival function as scipy.stats.t.sf computes it (scipy 1.17:
    # ``t_gen._sf(x, df) = special.stdtr(df, -x)``), without importing scipy.stats: its import
    # is about a second of CPU in every job that computes a test
    from scipy.special import stdtr

    p = np.where(ok, 2.0 * stdtr(np.maximum(n - 1.0, 1.0), -np.abs(t)), p)
    zero = constant & (mean == 0) & (n >= 2)
    t = np.where(zero, 0.0, t)
    p = np.where(zero, 1.0, p)
    step = constant & (mean != 0) & (n >= 2)
    t = np.where(step, np.copysign(np.inf, mean), t)
    p = np.where(step, 0.0, p)
    return t, p


def paired_ttest(a, b) -> tuple[float, float]:
    """Two-sided paired t-test of ``a`` against ``b`` (as ``scipy.stats.ttest_rel``).

    Returns ``(t, p)``; identical vectors give ``(0.0, 1.0)`` and a constant non-zero
    difference ``(±inf, 0.0)`` instead of NaN. Fewer than two pairs give NaN.
    """
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired_ttest needs equal lengths, got {a.size} and {b.size}")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("paired_ttest: NaN in the inputs")
    table = paired_table(a, b)
    return float(table["t"][0]), float(table["p"][0])


PAIRED_COLUMNS = ("n", "mean_a", "mean_b", "diff", "t", "p")


def paired_table(a, b, groups=None) -> dict[str, np.ndarray]:
    """Paired t-tests of ``a`` against ``b`` within each group of pairs.

    ``a[i]`` and ``b[i]`` are the two runs' values of pair i (NaN-free); ``groups[i]`` is pair
    i's group as an integer code 0..G-1 (None: one group). Returns :data:`PAIRED_COLUMNS` as
    arrays indexed by group code: ``n`` pairs, ``mean_a``, ``mean_b``, ``diff = mean(d)`` with
    ``d = a - b``, and ``t``/``p`` from :func:`t_from_moments` with ``sd(d)`` (ddof = 1); a
    group without pairs gets ``n = 0`` and NaN. The ``ltrconv ttest`` command and the study's
    training-convention and implementation tables are built with it.

    The sums' last bits follow two conventions: with ``groups``, pandas' grouped ``mean`` and
    ``std`` (compensated sums; the study's reference tables), pandas imported on the first
    call; without, NumPy's ``mean`` and ``std`` (pairwise sums; what ``ltrconv ttest`` has
    always printed), without pandas.
    """
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired_table needs equal lengths, got {a.size} and {b.size}")
    codes = (np.zeros(a.size, dtype=np.int64) if groups is None
             else np.asarray(groups, dtype=np.int64).ravel())
    if codes.shape != a.shape:
        raise ValueError(f"paired_table: {codes.size} group codes for {a.size} pairs")
    if codes.size and codes.min() < 0:
        raise ValueError("paired_table: group codes must be >= 0")
    if groups is None:
        d = a - b
        n = np.array([a.size])
        sd = d.std(ddof=1) if a.size > 1 else np.nan
        constant = bool(a.size) and d.min() == d.max()
        means = [np.array([v.mean() if v.size else np.nan]) for v in (a, b, d)]
        t, p = t_from_moments(n, means[2], sd, constant)
        return dict(zip(PAIRED_COLUMNS, (n, *means, t, p)))
    import pandas as pd

    n_groups = int(codes.max()) + 1 if codes.size else 0
    frame = pd.DataFrame({"a": a, "b": b, "d": a - b})
    agg = frame.groupby(codes, sort=True).agg(
        n=("d", "size"), mean_a=("a", "mean"), mean_b=("b", "mean"), diff=("d", "mean"),
        sd=("d", "std"), dmin=("d", "min"), dmax=("d", "max")).reindex(range(n_groups))
    n = agg["n"].fillna(0).to_numpy(dtype=np.int64)
    t, p = t_from_moments(n, agg["diff"], agg["sd"], (agg["dmin"] == agg["dmax"]).to_numpy())
    return {"n": n, "mean_a": agg["mean_a"].to_numpy(dtype=np.float64),
            "mean_b": agg["mean_b"].to_numpy(dtype=np.float64),
            "diff": agg["diff"].to_numpy(dtype=np.float64), "t": t, "p": p}


def holm(pvalues) -> np.ndarray:
    """Holm step-down adjusted p-values, same shape as the input.

    With the m non-NaN p-values sorted ascending p_(1) <= ... <= p_(m):
    ``p~_(i) = min(1, max_{j <= i} (m - j + 1) p_(j))``. NaN entries stay NaN and do not
    count in m.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    flat = p.ravel()
    idx = np.flatnonzero(~np.isnan(flat))
    if idx.size == 0:
        return out
    if (flat[idx] < 0).any() or (flat[idx] > 1).any():
        raise ValueError("holm: p-values must lie in [0, 1]")
    order = idx[np.argsort(flat[idx], kind="stable")]
    m = order.size
    scaled = (m - np.arange(m)) * flat[order]
    adjusted = np.minimum(np.maximum.accumulate(scaled), 1.0)
    res = out.ravel()
    res[order] = adjusted
    return res.reshape(p.shape)


def bonferroni(pvalues) -> np.ndarray:
    """Bonferroni-adjusted p-values ``min(1, m p)``, m the number of non-NaN p-values; NaN
    entries stay NaN."""
    p = np.asarray(pvalues, dtype=np.float64)
    _check_unit(p, "bonferroni")
    return np.minimum(p * np.count_nonzero(~np.isnan(p)), 1.0)


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini-Hochberg step-up adjusted p-values (the false discovery rate).

    With the m non-NaN p-values sorted ascending p_(1) <= ... <= p_(m):
    ``p~_(i) = min(1, min_{j >= i} m p_(j) / j)``. NaN entries stay NaN and do not count in m.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    _check_unit(p, "benjamini_hochberg")
    out = np.full(p.shape, np.nan)
    flat = p.ravel()
    idx = np.flatnonzero(~np.isnan(flat))
    if idx.size == 0:
        return out
    order = idx[np.argsort(flat[idx], kind="stable")]
    m = order.size
    scaled = flat[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    res = out.ravel()
    res[order] = adjusted
    return res.reshape(p.shape)


def _check_unit(p: np.ndarray, what: str) -> None:
    valued = p[~np.isnan(p)]
    if (valued < 0).any() or (valued > 1).any():
        raise ValueError(f"{what}: p-values must lie in [0, 1]")


CORRECTIONS = {"holm": holm, "bonferroni": bonferroni, "bh": benjamini_hochberg}
"""Multiple-testing adjustments by name: Holm's step-down (the family-wise error rate, never
less powerful than Bonferroni's), Bonferroni's, Benjamini-Hochberg's (the false discovery
rate)."""


def effect_size(d) -> float:
    """The paired standardised difference ``mean(d) / sd(d)`` (ddof = 1; Cohen's d_z): NaN
    for fewer than two differences or all of them zero, +-inf for a constant non-zero one."""
    d = np.asarray(d, dtype=np.float64).ravel()
    if d.size < 2 or not d.any():
        return float("nan")
    sd = d.std(ddof=1)
    if d.min() == d.max():
        return float(np.copysign(np.inf, d[0]))
    return float(d.mean() / sd)


WILCOXON_EXACT_MAX = 50
"""Wilcoxon's exact null distribution is used up to this many differences when none is zero
and no two have the same magnitude; otherwise the normal approximation (scipy.stats.wilcoxon's
``method="auto"`` draws the same line at 50)."""


def wilcoxon(d) -> tuple[float, float, str]:
    """Two-sided Wilcoxon signed-rank test of the paired differences ``d``: ``(W+, p, how)``.

    Zero differences are dropped (Wilcoxon's own rule); the others are ranked by magnitude,
    tied magnitudes taking their average rank, and ``W+`` is the sum of the ranks of the
    positive ones. With n <= :data:`WILCOXON_EXACT_MAX` differences, none zero and no tie,
    ``p = min(1, 2 min(P(W <= W+), P(W >= W+)))`` under the exact null distribution of W (each
    rank's sign a fair coin; ``how = "exact"``); otherwise ``z = (W+ - n(n+1)/4) / s`` with
    ``s^2 = n(n+1)(2n+1)/24 - sum_t (t^3 - t)/48`` over the groups of t tied magnitudes,
    ``p = 2 P(Z > |z|)`` without continuity correction (``how = "normal"``). All differences
    zero (or none) give NaN."""
    import math

    d = np.asarray(d, dtype=np.float64).ravel()
    nz = d[d != 0]
    n = nz.size
    if n == 0:
        return float("nan"), float("nan"), "none"
    mag = np.abs(nz)
    uniq, inverse, counts = np.unique(mag, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    ranks = (ends - (counts - 1) / 2.0)[inverse]
    w_plus = float(ranks[nz > 0].sum())
    if d.size <= WILCOXON_EXACT_MAX and n == d.size and uniq.size == n:
        ways = np.zeros(n * (n + 1) // 2 + 1, dtype=np.float64)  # exact: at most 2^50
        ways[0] = 1.0
        for r in range(1, n + 1):
            ways[r:] = ways[r:] + ways[:-r].copy()
        w = int(round(w_plus))
        below, above = ways[:w + 1].sum(), ways[w:].sum()
        return w_plus, float(min(1.0, 2.0 * min(below, above) / 2.0 ** n)), "exact"
    var = n * (n + 1) * (2 * n + 1) / 24.0 - float(((counts ** 3) - counts).sum()) / 48.0
    if var <= 0:
        return w_plus, float("nan"), "normal"
    z = (w_plus - n * (n + 1) / 4.0) / math.sqrt(var)
    return w_plus, float(math.erfc(abs(z) / math.sqrt(2.0))), "normal"


EXACT_FLIPS_MAX = 20
"""Most differences whose 2^n sign flips :func:`randomization` enumerates (a million)."""


def randomization(d, permutations: int, seed: int) -> tuple[np.ndarray, bool]:
    """Two-sided paired randomization tests, one per column of ``d`` (n pairs x m comparisons):
    ``(p, exact)``.

    Under the null hypothesis each pair's two values are exchangeable, so each difference's
    sign is a fair coin. The statistic is ``|sum(d)|`` (equivalently ``|mean(d)|``). When
    ``2^n <= permutations`` (and n <= :data:`EXACT_FLIPS_MAX`) every sign vector is enumerated
    and ``p`` is the share whose statistic reaches the observed one (``exact`` True); otherwise
    ``permutations`` sign vectors are drawn with ``numpy.random.default_rng(seed)``, the same
    ones for every column, and ``p = (1 + #reaching) / (1 + permutations)``, which never
    understates p (Phipson & Smyth 2010). "Reaching" allows for rounding: a flipped sum counts
    when it is within ``1e-9 sum|d|`` of the observed one."""
    d = np.asarray(d, dtype=np.float64)
    if d.ndim == 1:
        d = d[:, None]
    n, m = d.shape
    observed = np.abs(d.sum(axis=0))
    bar = observed - 1e-9 * np.abs(d).sum(axis=0)
    reaching = np.zeros(m, dtype=np.int64)
    exact = n <= EXACT_FLIPS_MAX and 2 ** n <= permutations
    if exact:
        total = 2 ** n
        bits = np.arange(n, dtype=np.int64)
        for lo in range(0, total, 1 << 16):
            codes = np.arange(lo, min(total, lo + (1 << 16)), dtype=np.int64)
            signs = 1.0 - 2.0 * ((codes[:, None] >> bits) & 1)
            reaching += (np.abs(signs @ d) >= bar).sum(axis=0)
        return reaching / total, True
    rng = np.random.default_rng(seed)
    chunk = max(1, min(permutations, 4_000_000 // max(n, 1)))
    done = 0
    while done < permutations:
        size = min(chunk, permutations - done)
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(size, n), dtype=np.int8)
        reaching += (np.abs(signs @ d) >= bar).sum(axis=0)
        done += size
    return (1.0 + reaching) / (1.0 + permutations), False


def bootstrap_intervals(values, resamples: int, seed: int, level: float = 0.95
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals of the means of the columns of ``values`` (n queries x m series)
    over ``resamples`` bootstrap resamples of the queries: ``(low, high)``, each of length m.

    Each resample draws n queries with replacement (``numpy.random.default_rng(seed)``) and
    every column is averaged over the same draw, so that the columns stay paired (the means of
    two systems and of their difference come from the same resampled queries). The interval is
    the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the resampled means (numpy's
    linear interpolation)."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    n, m = values.shape
    if n == 0:
        return np.full(m, np.nan), np.full(m, np.nan)
    rng = np.random.default_rng(seed)
    chunk = max(1, min(resamples, 4_000_000 // n))
    means = np.empty((resamples, m))
    done = 0
    while done < resamples:
        size = min(chunk, resamples - done)
        draw = rng.integers(0, n, size=(size, n)) + n * np.arange(size)[:, None]
        counts = np.bincount(draw.ravel(), minlength=size * n).reshape(size, n)
        means[done:done + size] = counts @ values / n
        done += size
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return low, high


def quadrature_stderr(per_fold_stderrs, how: str = "mean") -> float:
    """Combine per-fold standard errors se_1..se_F in quadrature.

    ``how="mean"`` (default): standard error of the mean of the F fold means,
    ``sqrt(sum_f se_f^2) / F``. ``how="rms"``: the root mean square ``sqrt(sum_f se_f^2 / F)``,
    a typical single-fold standard error (sqrt(F) times larger).
    """
    se = np.asarray(per_fold_stderrs, dtype=np.float64).ravel()
    if se.size == 0:
        return float("nan")
    total = float(np.sqrt(np.sum(se**2)))
    if how == "mean":
        return total / se.size
    if how == "rms":
        return total / np.sqrt(se.size)
    raise ValueError(f"quadrature_stderr: how must be 'mean' or 'rms', got {how!r}")
