"""What benchmarks/bench_scale.py measures with: the synthetic training data, one fit in a
child process (its wall and CPU seconds, peak and data RSS), crucial-pair counts, and the
log-log arithmetic that extrapolates the measured sizes to a fold of MSLR-WEB10K."""

from __future__ import annotations

import math
import os
import resource
import time

import numpy as np

from ltrconv.data.synthetic import make_mslr_like

FOLD_DOCS = 720_000  # training part of an MSLR-WEB10K fold: 3 of 5 parts of 1,200,192
TARGET_S, TARGET_GB = 15 * 60, 8.0
# work per round grows with pairs (RankSVM's Newton solver counts them per document: n log n)
PAIRWISE = ("rankboost", "ranknet", "lambdamart")
WARM = {"adarank": {"n_rounds": 2}, "rankboost": {"n_rounds": 2}, "lambdamart": {"n_estimators": 2},
        "ranksvm": {"C_grid": [1.0]}, "ranknet": {"architectures": [[10]], "max_epochs": 1},
        "coordinate_ascent": {"n_restarts": 1, "max_sweeps": 1},
        "lambdamart_lightgbm": {"n_estimators": 2}}


def rss_mb() -> float:
    """Current resident set size of this process (Linux /proc)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def crucial_pairs(y: np.ndarray, offsets: np.ndarray) -> int:
    """Number of pairs l_i > l_j within a query: sum_q (n_q^2 - sum_l c_ql^2) / 2."""
    q = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    counts = np.bincount(q * (int(y.max()) + 1) + y).astype(np.int64)
    sizes = np.diff(offsets).astype(np.int64)
    return int(((sizes ** 2).sum() - (counts ** 2).sum()) // 2)


def training_data(n: int, seed: int):
    return make_mslr_like(n, seed=seed), make_mslr_like(max(n // 4, 200), seed=seed + 1)


# --- one fit, in a child process -------------------------------------------------------------
def fit_one(name: str, n: int, params: dict, metric: str, seed: int, units=None) -> dict:
    from ltrconv import rankers

    # an untimed fit on tiny data loads or compiles the numba kernels this ranker uses
    wt, wv = make_mslr_like(400, seed=seed + 2), make_mslr_like(200, seed=seed + 3)
    rankers.make(name, metric=metric, **{**params, **WARM[name]}).fit(
        wt.X, wt.y, wt.qid, X_val=wv.X, y_val=wv.y, qid_val=wv.qid)
    start = rss_mb()  # libraries loaded: what follows grows with the data
    tr, va = training_data(n, seed)
    base = rss_mb()
    model = rankers.make(name, metric=metric, **params)
    w0, c0 = time.perf_counter(), time.process_time()
    model.fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid, **(
        {} if units is None else {"units": units}))
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    info = {}
    for attr in ("best_iteration_", "n_pairs_", "best_C_", "architecture_", "best_epoch_"):
        if hasattr(model, attr):
            info[attr.rstrip("_")] = getattr(model, attr)
    if hasattr(model, "n_sweeps_"):
        info["sweeps"] = model.n_sweeps_
    if hasattr(model, "rounds_"):
        info["rounds"] = len(model.rounds_)
    if hasattr(model, "search_"):
        info["epochs"] = [len(a["history"]) for a in model.search_]
    return {"wall": wall, "cpu": cpu, "peak_mb": peak_mb(), "data_mb": base, "start_mb": start,
            "val_ndcg": float(model.val_score_), "info": info}


def slope(xs, ys) -> float:
    """Least-squares slope of log y on log x."""
    if len(xs) < 2:
        return float("nan")
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def power_law(xs, ys, x) -> float:
    """y at x on the log-log line through the points (linear in x from a single point)."""
    if len(xs) == 1:
        return ys[0] * x / xs[0]
    b, a = np.polyfit(np.log(xs), np.log(ys), 1)
    return float(math.exp(a + b * math.log(x)))


def predict_mb(name: str, done, pairs, n) -> float:
    """Peak RSS at n: the process's start-up RSS plus what data and fit add, scaled on the
    log-log line of the measured sizes (in pairs for pairwise rankers, else documents)."""
    x = pairs if name in PAIRWISE else {m: m for m in pairs}
    grown = [max(r["peak_mb"] - r["start_mb"], 1.0) for _, r in done]
    return done[0][1]["start_mb"] + power_law([x[m] for m, _ in done], grown, x[n])


def nlogn_slope(n0: float, n1: float) -> float:
    """Log-log slope of n log n between n0 and n1."""
    return 1.0 + math.log(math.log(n1) / math.log(n0)) / math.log(n1 / n0)

def fold_estimate(done, unit) -> tuple[float, str]:
    """CPU seconds at the fold and how they were obtained: measured, a power law through two
    or more sizes, else the largest measured size scaled like the unit of work (same number
    of epochs/sweeps/trees assumed), else linear from one size."""
    ns = [n for n, _ in done]
    cpus = [r["cpu"] for _, r in done]
    if FOLD_DOCS in ns:
        return cpus[ns.index(FOLD_DOCS)], "measured"
    if len(ns) >= 2:
        return power_law(ns, cpus, FOLD_DOCS), ("interpolated" if max(ns) > FOLD_DOCS
                                                else "extrapolated")
    if unit and len(unit) >= 2:
        u_ns, u_c = [n for n, _ in unit], [r["cpu"] for _, r in unit]
        growth = power_law(u_ns, u_c, FOLD_DOCS) / power_law(u_ns, u_c, ns[-1])
        return cpus[-1] * growth, f"{ns[-1]:,} docs x the unit's growth {growth:.0f}x"
    return cpus[-1] * FOLD_DOCS / ns[-1], "linear from one size"
