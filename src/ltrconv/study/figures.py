"""The study's figures, drawn from the summary and runtime tables.

Each function writes ``out_stem.png`` (300 dpi) and ``out_stem.pdf`` without timestamps and
returns the :class:`matplotlib.figure.Figure`. Combinations absent from the tables are
skipped; with nothing to draw a figure saying so is written. Error bars are the summary's
``stderr`` (per-fold standard errors combined in quadrature). Colours are Okabe–Ito and
every series also has its own marker and line style.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from ..rankers import registry as registry
from ..rankers.registry import display_name as name
from .tables import TRAIN_ORDER, ordered

OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7"}
TRAIN_STYLE = {
    "yahoo": dict(color=OKABE_ITO["blue"], marker="s", linestyle="--"),
    "ranklib": dict(color=OKABE_ITO["black"], marker="o", linestyle="-"),
    "letor": dict(color=OKABE_ITO["vermillion"], marker="^", linestyle=":"),
    "trec": dict(color=OKABE_ITO["orange"], marker="D", linestyle="-."),
}
ALGORITHM_STYLE = {a.name: a.style for a in registry.REGISTRY.values()}
_SPARE = [dict(color=OKABE_ITO[c], marker=m, linestyle=ls) for c, m, ls in
          (("green", "v", "-"), ("purple", "P", "--"), ("sky", "*", "-."), ("orange", "X", ":"))]
HATCH = {"yahoo": "", "ranklib": "///", "letor": "..", "trec": "xx"}
RC = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 8,
      "ytick.labelsize": 8, "legend.fontsize": 8, "legend.title_fontsize": 8,
      "axes.linewidth": 0.6, "xtick.major.width": 0.6, "ytick.major.width": 0.6,
      "pdf.fonttype": 42, "svg.hashsalt": "ltrconv"}
WIDTH = 7.0  # inches, the width of a two-column paper figure
DPI = 300


def _style(table: dict, key: str, index: int) -> dict:
    return table.get(key, _SPARE[index % len(_SPARE)])


def _save(fig: Figure, out_stem) -> Figure:
    """Write ``out_stem.png`` and ``out_stem.pdf`` with no date or version metadata."""
    stem = Path(out_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(f"{stem}.png", dpi=DPI, metadata={"Software": None})
    fig.savefig(f"{stem}.pdf", metadata={"Creator": None, "Producer": None, "CreationDate": None})
    return fig


def _empty(out_stem, message: str) -> Figure:
    with rc_context(RC):
        fig = Figure(figsize=(WIDTH, 1.5), layout="constrained")
        ax = fig.add_subplot()
        ax.axis("off")
        ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes)
        return _save(fig, out_stem)


def _ylim(values: list[np.ndarray], min_span: float = 0.05) -> tuple[float, float] | None:
    """Limits around all finite values with 6% padding, at least ``min_span`` wide."""
    v = np.concatenate([np.ravel(x) for x in values]) if values else np.array([])
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    lo, hi = float(v.min()), float(v.max())
    if hi - lo < min_span:
        mid = (lo + hi) / 2
        lo, hi = mid - min_span / 2, mid + min_span / 2
    pad = 0.06 * (hi - lo)
    return max(lo - pad, -0.02), min(hi + pad, 1.02)


def _curves(summary: pd.DataFrame, metric: str, where: dict) -> pd.DataFrame:
    s = summary[summary["metric"] == metric]
    for col, val in where.items():
        s = s[s[col] == val]
    s = s.assign(k=s["k"].astype(int))
    return s[s["k"] >= 1].sort_values("k")


def _errorbar(ax, k, mean, se, dx: float, style: dict):
    return ax.errorbar(k + dx, mean, yerr=np.nan_to_num(se, nan=0.0), capsize=1.5, lw=1.0,
                       ms=3.5, elinewidth=0.7, markerfacecolor="white" if style.get("marker") not in
                       ("x", "+") else None, **style)


def _dodge(n: int, width: float = 0.24) -> np.ndarray:
    return np.linspace(-width / 2, width / 2, n) if n > 1 else np.zeros(1)


def _handle(style: dict, label: str) -> Line2D:
    return Line2D([], [], lw=1.0, ms=4, markerfacecolor="white"
                  if style.get("marker") not in ("x", "+") else None, label=label, **style)


def _cutoff_axis(ax, ks) -> None:
    ax.set_xticks(ks)
    ax.set_xlim(min(ks) - 0.5, max(ks) + 0.5)
    ax.grid(axis="y", lw=0.4, color="#cccccc")
    ax.set_axisbelow(True)


def _errorbar_panel(ax, s: pd.DataFrame, metric: str, series, dx) -> list[np.ndarray]:
    """One error-bar curve per ``(where, style)`` of ``series`` on ``ax``, the i-th shifted by
    ``dx[i]``; returns mean ± stderr of the drawn curves (for shared y-limits)."""
    bounds = []
    for i, (where, style) in enumerate(series):
        c = _curves(s, metric, where)
        if c.empty:
            continue
        mean, se = c["mean"].to_numpy(dtype=float), c["stderr"].to_numpy(dtype=float)
        _errorbar(ax, c["k"].to_numpy(), mean, se, dx[i], style)
        bounds += [mean - np.nan_to_num(se), mean + np.nan_to_num(se)]
    return bounds


def figure1(summary: pd.DataFrame, out_stem,
            algorithms=("adarank", "lambdamart", "ranknet", "coordinate_ascent"),
            eval_conventions=("ranklib", "yahoo", "letor"),
            train_conventions=("yahoo", "ranklib", "letor"), metric: str = "NDCG") -> Figure:
    """Rows = algorithms, columns = evaluation conventions, one curve per training convention."""
    s = summary[summary["metric"] == metric]
    algs = [a for a in algorithms if a in set(s["algorithm"])]
    evs = [e for e in eval_conventions if e in set(s["eval_convention"])]
    trains = [t for t in train_conventions if t in set(s["train_convention"])]
    if not (algs and evs and trains):
        return _empty(out_stem, f"Figure 1: no {metric} results for the requested "
                                "algorithms and conventions")
    ks = sorted(int(k) for k in s["k"].unique() if int(k) >= 1)
    with rc_context(RC):
        fig = Figure(figsize=(WIDTH, 0.9 + 1.65 * len(algs)), layout="constrained")
        axes = fig.subplots(len(algs), len(evs), sharex=True, squeeze=False)
        dx = _dodge(len(trains))
        for j, ev in enumerate(evs):
            bounds = []
            for i, alg in enumerate(algs):
                ax = axes[i, j]
                series = [({"algorithm": alg, "eval_convention": ev, "train_convention": tc},
                           _style(TRAIN_STYLE, tc, t_i)) for t_i, tc in enumerate(trains)]
                bounds += _errorbar_panel(ax, s, metric, series, dx)
                _cutoff_axis(ax, ks)
                if i == 0:
                    ax.set_title(f"evaluated with {ev}")
                if j == 0:
                    ax.set_ylabel(f"{name(alg)}\n{metric}@k")
                if i == len(algs) - 1:
                    ax.set_xlabel("cutoff k")
            lim = _ylim(bounds)
            if lim:
                for i in range(len(algs)):
                    axes[i, j].set_ylim(*lim)
        handles = [_handle(_style(TRAIN_STYLE, tc, i), f"trained with {tc}")
                   for i, tc in enumerate(trains)]
        fig.legend(handles=handles, loc="outside upper center", ncol=len(handles), frameon=False)
        return _save(fig, out_stem)


def _grid(n: int) -> tuple[int, int]:
    if n == 4:
        return 2, 2
    cols = min(n, 3)
    return int(np.ceil(n / cols)), cols


def _trained_with(table: pd.DataFrame, metric: str, train_convention: str, algorithms,
                  eval_conventions) -> tuple[pd.DataFrame, list, list, list]:
    """Rows of ``metric`` for models trained with ``train_convention``, and the algorithms
    (registry order), evaluation conventions and cutoffs >= 1 they hold."""
    t = table[(table["metric"] == metric) & (table["train_convention"] == train_convention)]
    algs = ordered([a for a in algorithms if a in set(t["algorithm"])], registry.ORDER)
    evs = [e for e in eval_conventions if e in set(t["eval_convention"])]
    ks = sorted(int(k) for k in t["k"].unique() if int(k) >= 1)
    return t, algs, evs, ks


def figure2(summary: pd.DataFrame, out_stem,
            eval_conventions=("ranklib", "trec", "yahoo", "letor"),
            algorithms=registry.ORDER, train_convention: str = "ranklib",
            metric: str = "NDCG") -> Figure:
    """All algorithms trained with ``train_convention``, one panel per evaluation convention.

    ``algorithms`` selects; the legend follows the registry order (:data:`algorithms.ORDER`).
    """
    s, algs, evs, ks = _trained_with(summary, metric, train_convention, algorithms,
                                     eval_conventions)
    if not (algs and evs):
        return _empty(out_stem, f"Figure 2: no {metric} results of models trained with "
                                f"{train_convention}")
    rows, cols = _grid(len(evs))
    with rc_context(RC):
        fig = Figure(figsize=(WIDTH, 0.9 + 2.4 * rows), layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False)
        dx = _dodge(len(algs), 0.3)
        for idx, ev in enumerate(evs):
            ax = axes.flat[idx]
            series = [({"algorithm": alg, "eval_convention": ev}, _style(ALGORITHM_STYLE, alg, a_i))
                      for a_i, alg in enumerate(algs)]
            bounds = _errorbar_panel(ax, s, metric, series, dx)
            _cutoff_axis(ax, ks)
            lim = _ylim(bounds)
            if lim:
                ax.set_ylim(*lim)
            ax.set_title(f"evaluated with {ev}")
            ax.set_xlabel("cutoff k")
            ax.set_ylabel(f"{metric}@k")
        for ax in list(axes.flat)[len(evs):]:
            ax.axis("off")
        handles = [_handle(_style(ALGORITHM_STYLE, a, i), name(a)) for i, a in enumerate(algs)]
        fig.legend(handles=handles, loc="outside upper center", ncol=min(len(handles), 6),
                   frameon=False, title=f"trained with {train_convention}")
        return _save(fig, out_stem)


IMPLEMENTATION_STYLE = {
    "base": dict(color=OKABE_ITO["black"], marker="o", linestyle="-"),
    "variant": dict(color=OKABE_ITO["vermillion"], marker="^", linestyle="--"),
}


def implementation_figure(summary: pd.DataFrame, out_stem, pairs,
                          eval_conventions=("ranklib", "yahoo", "letor"),
                          train_convention: str = "ranklib", metric: str = "NDCG") -> Figure:
    """Rows = (variant, base, label) pairs, columns = evaluation conventions; two curves per
    panel: the base algorithm (RankLib 2.x's implementation) and the variant."""
    s = summary[(summary["metric"] == metric) & (summary["train_convention"] == train_convention)]
    present = set(s["algorithm"])
    rows = [(v, b, lab) for v, b, lab in pairs if v in present and b in present]
    evs = [e for e in eval_conventions if e in set(s["eval_convention"])]
    if not (rows and evs):
        return _empty(out_stem, f"Implementation: no {metric} results of a variant and its base "
                                f"trained with {train_convention}")
    ks = sorted(int(k) for k in s["k"].unique() if int(k) >= 1)
    with rc_context(RC):
        fig = Figure(figsize=(WIDTH, 0.9 + 1.9 * len(rows)), layout="constrained")
        subs = fig.subfigures(len(rows), 1, squeeze=False)[:, 0]
        axes = np.array([sub.subplots(1, len(evs), sharex=True, squeeze=False)[0] for sub in subs])
        for sub, (v, b, lab) in zip(subs, rows):
            sub.suptitle(f"{name(b)}; variant: {lab}", x=0.01, ha="left", fontsize=8)
        dx = _dodge(2)
        for j, ev in enumerate(evs):
            bounds = []
            for i, (v, b, lab) in enumerate(rows):
                ax = axes[i, j]
                series = [({"algorithm": alg, "eval_convention": ev}, IMPLEMENTATION_STYLE[key])
                          for alg, key in ((b, "base"), (v, "variant"))]
                bounds += _errorbar_panel(ax, s, metric, series, dx)
                _cutoff_axis(ax, ks)
                ax.set_title(f"evaluated with {ev}")
                if j == 0:
                    ax.set_ylabel(f"{metric}@k")
                if i == len(rows) - 1:
                    ax.set_xlabel("cutoff k")
            lim = _ylim(bounds)
            if lim:
                for i in range(len(rows)):
                    axes[i, j].set_ylim(*lim)
        handles = [_handle(IMPLEMENTATION_STYLE["base"], "as RankLib 2.x implements it"),
                   _handle(IMPLEMENTATION_STYLE["variant"], "variant (named above each row)")]
        fig.legend(handles=handles, loc="outside upper center", ncol=2, frameon=False,
                   title=f"trained with {train_convention}")
        return _save(fig, out_stem)


def _bars(ax, table: pd.DataFrame, column: str, algs, trains, log: bool) -> bool:
    """Grouped bars of the fold mean of ``column`` with each fold as a dot; False if no data."""
    if column not in table.columns:
        return False
    t = table.dropna(subset=[column])
    if log:
        t = t[t[column] > 0]
    if t.empty:
        return False
    width = 0.8 / len(trains)
    for t_i, tc in enumerate(trains):
        style = _style(TRAIN_STYLE, tc, t_i)
        for a_i, alg in enumerate(algs):
            v = t[(t["algorithm"] == alg) & (t["train_convention"] == tc)][column].to_numpy(float)
            if v.size == 0:
                continue
            x = a_i - 0.4 + width * (t_i + 0.5)
            ax.bar(x, v.mean(), width * 0.9, color=style["color"], alpha=0.35,
                   edgecolor=style["color"], hatch=HATCH.get(tc, ""), lw=0.6)
            spread = np.linspace(-0.25, 0.25, v.size) * width if v.size > 1 else np.zeros(1)
            ax.plot(x + spread, v, linestyle="none", marker=style["marker"], ms=3,
                    color=style["color"], markerfacecolor="white")
    if log:
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(range(len(algs)), [name(a) for a in algs], rotation=30, ha="right")
    ax.set_xlim(-0.6, len(algs) - 0.4)
    ax.grid(axis="y", lw=0.4, color="#cccccc", which="major")
    ax.set_axisbelow(True)
    return True


def runtime_figure(runtime_table: pd.DataFrame, out_stem) -> Figure:
    """Seconds per fit (log scale) and peak memory per algorithm, grouped by training convention.

    ``runtime_table`` has columns algorithm, train_convention, fold, s (seconds) and max_rss
    (MB); bars are means over folds, dots the single folds.
    """
    t = runtime_table
    if t is None or len(t) == 0 or not {"algorithm", "train_convention"} <= set(t.columns):
        return _empty(out_stem, "Runtime: no runtime records")
    algs = ordered(t["algorithm"].unique(), registry.ORDER)
    trains = ordered(t["train_convention"].unique(), TRAIN_ORDER)
    with rc_context(RC):
        fig = Figure(figsize=(WIDTH, 3.0), layout="constrained")
        ax_s, ax_m = fig.subplots(1, 2)
        for ax, col, log, label, title in (
                (ax_s, "s", True, "seconds per fit", "training time"),
                (ax_m, "max_rss", False, "peak memory (MB)", "peak memory")):
            if _bars(ax, t, col, algs, trains, log):
                ax.set_ylabel(label)
            else:
                ax.axis("off")
                ax.text(0.5, 0.5, f"no {title} data", ha="center", va="center",
                        transform=ax.transAxes)
            ax.set_title(title)
        handles = [Patch(facecolor=_style(TRAIN_STYLE, tc, i)["color"], alpha=0.5,
                         edgecolor=_style(TRAIN_STYLE, tc, i)["color"], hatch=HATCH.get(tc, ""),
                         label=f"trained with {tc}") for i, tc in enumerate(trains)]
        fig.legend(handles=handles, loc="outside upper center", ncol=len(handles), frameon=False)
        return _save(fig, out_stem)


TIE_STYLE = {
    "band": dict(color=OKABE_ITO["sky"], alpha=0.45, lw=0),
    "tieavg": dict(color=OKABE_ITO["black"], marker="o", linestyle="-"),
    "ranklib": dict(color=OKABE_ITO["vermillion"], marker="x", linestyle="none"),
}


def ties_figure(summary: pd.DataFrame, out_stem, algorithm: str,
                train_conventions=("yahoo", "ranklib", "letor"), metric: str = "NDCG") -> Figure:
    """One algorithm, one panel per training convention: the band of mean ``metric@k`` from
    worst-first (``ranklib-tiepess``) to best-first (``ranklib-tieopt``) tie order, the
    tie-averaged value (``ranklib-tieavg``) and the input order RankLib reports (``ranklib``).
    Means over folds (and seeds) from the summary table."""
    s = summary[(summary["metric"] == metric) & (summary["algorithm"] == algorithm)]
    trains = [t for t in train_conventions if t in set(s["train_convention"])]
    need = {"ranklib-tiepess", "ranklib-tieavg", "ranklib-tieopt", "ranklib"}
    if not trains or not need <= set(s["eval_convention"]):
        return _empty(out_stem, f"Ties: no {metric} results of {name(algorithm)} under "
                                "ranklib-tiepess, -tieavg, -tieopt and ranklib")
    ks = sorted(int(k) for k in s["k"].unique() if int(k) >= 1)
    with rc_context(RC):
        fig = Figure(figsize=(WIDTH, 2.9), layout="constrained")
        axes = fig.subplots(1, len(trains), sharey=True, squeeze=False)[0]
        for ax, tc in zip(axes, trains):
            c = {ev: _curves(s, metric, {"train_convention": tc, "eval_convention": ev})
                 .set_index("k")["mean"].reindex(ks) for ev in need}
            ax.fill_between(ks, c["ranklib-tiepess"], c["ranklib-tieopt"], **TIE_STYLE["band"])
            ax.plot(ks, c["ranklib-tieavg"], lw=1.0, ms=3, markerfacecolor="white",
                    **TIE_STYLE["tieavg"])
            ax.plot(ks, c["ranklib"], ms=4, **TIE_STYLE["ranklib"])
            _cutoff_axis(ax, ks)
            ax.set_title(f"trained with {tc}")
            ax.set_xlabel("cutoff k")
        axes[0].set_ylabel(f"{name(algorithm)}\n{metric}@k")
        handles = [Patch(facecolor=TIE_STYLE["band"]["color"], alpha=0.45,
                         label="worst-first to best-first tie order"),
                   _handle(TIE_STYLE["tieavg"], "tie-averaged (expected over orders)"),
                   Line2D([], [], ms=4, label="input order (RankLib)", **TIE_STYLE["ranklib"])]
        fig.legend(handles=handles, loc="outside upper center", ncol=3, frameon=False)
        return _save(fig, out_stem)


def winning_figure(winning: pd.DataFrame, out_stem, eval_conventions=("ranklib", "trec", "yahoo",
                   "letor"), train_convention: str = "ranklib", metric: str = "NDCG",
                   algorithms=registry.ORDER) -> Figure:
    """Normalized Winning Number of each algorithm over the cutoffs, one panel per evaluation
    convention; models trained with ``train_convention`` (a :func:`ltrconv.study.winning
    .winning_numbers` table with columns train_convention, eval_convention, metric, k)."""
    w, algs, evs, ks = _trained_with(winning, metric, train_convention, algorithms,
                                     eval_conventions)
    if not (algs and evs):
        return _empty(out_stem, f"Winning numbers: no {metric} results of models trained with "
                                f"{train_convention}")
    rows, cols = _grid(len(evs))
    with rc_context(RC):
        fig = Figure(figsize=(WIDTH, 0.9 + 2.4 * rows), layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
        dx = _dodge(len(algs), 0.3)
        for idx, ev in enumerate(evs):
            ax = axes.flat[idx]
            for a_i, alg in enumerate(algs):
                c = w[(w["eval_convention"] == ev) & (w["algorithm"] == alg)]
                c = c.assign(k=c["k"].astype(int)).sort_values("k")
                c = c[c["k"] >= 1]
                if c.empty:
                    continue
                style = _style(ALGORITHM_STYLE, alg, a_i)
                ax.plot(c["k"].to_numpy() + dx[a_i], c["NWN"].to_numpy(dtype=float), lw=1.0, ms=3.5,
                        markerfacecolor="white" if style.get("marker") not in ("x", "+") else None,
                        **style)
            _cutoff_axis(ax, ks)
            ax.set_ylim(-0.04, 1.04)
            ax.set_title(f"evaluated with {ev}")
            ax.set_xlabel("cutoff k")
            ax.set_ylabel("NWN")
        for ax in list(axes.flat)[len(evs):]:
            ax.axis("off")
        handles = [_handle(_style(ALGORITHM_STYLE, a, i), name(a)) for i, a in enumerate(algs)]
        fig.legend(handles=handles, loc="outside upper center", ncol=min(len(handles), 6),
                   frameon=False, title=f"trained with {train_convention}")
        return _save(fig, out_stem)
