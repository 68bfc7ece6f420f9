"""Significance tests and error combination used to compare trained rankers.

* paired t-test on differences d_i = a_i - b_i: ``t = mean(d) / (sd(d) / sqrt(n))`` with
  ``sd`` the sample standard deviation (ddof = 1), two-sided ``p = 2 P(T_{n-1} > |t|)``;
* Holm's step-down adjustment of a family of m p-values;
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
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(ok, mean / (sd / np.sqrt(n)), t)
    from scipy import stats as _st  # imported here: a second of start-up for every job

    p = np.where(ok, 2.0 * _st.t.sf(np.abs(t), np.maximum(n - 1.0, 1.0)), p)
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
