"""The figure of :mod:`ltrconv.study.libraries`: NDCG@k of the same models as each library
reports it, one panel per algorithm (the conventions of :mod:`ltrconv.study.figures`: 300 dpi
PNG and PDF without timestamps, Okabe–Ito colours, a marker and line style per series)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.figure import Figure

from ..rankers import registry
from ..rankers.registry import display_name as name
from .figures import (OKABE_ITO, RC, WIDTH, _SPARE, _cutoff_axis, _dodge, _empty, _handle,
                      _save, _ylim)
from .libraries import library_conventions
from .tables import ordered

# One colour per library (its conventions differ by marker and line style); the reference is
# black. torchmetrics is scikit-learn's convention in float32: scikit-learn's colour.
LIBRARY_STYLE = {
    "ranklib": dict(color=OKABE_ITO["black"], marker="o", linestyle="-"),
    "sklearn": dict(color=OKABE_ITO["blue"], marker="s", linestyle="-"),
    "sklearn-ignore-ties": dict(color=OKABE_ITO["blue"], marker="D", linestyle="--"),
    "torchmetrics": dict(color=OKABE_ITO["blue"], marker="x", linestyle=":"),
    "lightgbm": dict(color=OKABE_ITO["green"], marker="v", linestyle="-"),
    "xgboost": dict(color=OKABE_ITO["orange"], marker="^", linestyle="-"),
    "xgboost-minus": dict(color=OKABE_ITO["orange"], marker="<", linestyle="--"),
    "catboost": dict(color=OKABE_ITO["vermillion"], marker="o", linestyle="-"),
    "catboost-exp": dict(color=OKABE_ITO["vermillion"], marker="P", linestyle="--"),
    "catboost-position": dict(color=OKABE_ITO["vermillion"], marker="X", linestyle=":"),
    "ranx": dict(color=OKABE_ITO["purple"], marker="*", linestyle="-"),
    "ranx-burges": dict(color=OKABE_ITO["purple"], marker="h", linestyle="--"),
    "trec-raw": dict(color=OKABE_ITO["sky"], marker="d", linestyle="-."),
}


def libraries_figure(summary: pd.DataFrame, out_stem, algorithms=registry.ORDER,
                     conventions=None, reference: str = "ranklib",
                     train_convention: str = "ranklib", metric: str = "NDCG") -> Figure:
    """One panel per algorithm (models trained with ``train_convention``): mean ``metric@k``
    over k, one curve per library convention (``conventions``: default every library
    convention in the summary) and the ``reference``. The curves score the same models, so
    their differences carry no sampling error: no error bars (the summary has the stderr).
    Curves are shifted a little along k so that equal values stay visible; panels share y."""
    s = summary[(summary["metric"] == metric) & (summary["train_convention"] == train_convention)]
    s = s.assign(k=s["k"].astype(int))
    s = s[s["k"] >= 1]
    libs = library_conventions(s["eval_convention"]) if conventions is None else list(conventions)
    series = [c for c in [reference] + libs if c in set(s["eval_convention"])]
    algs = ordered([a for a in algorithms if a in set(s["algorithm"])], registry.ORDER)
    if not (algs and libs):
        return _empty(out_stem, f"Libraries: no {metric} results of models trained with "
                                f"{train_convention} under a library convention")
    ks = sorted(s["k"].unique())
    cols = min(len(algs), 3)
    rows = int(np.ceil(len(algs) / cols))
    style = {c: LIBRARY_STYLE.get(c, _SPARE[i % len(_SPARE)]) for i, c in enumerate(series)}
    with rc_context(RC):
        fig = Figure(figsize=(WIDTH, 1.3 + 2.2 * rows), layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
        dx = _dodge(len(series), 0.5)
        bounds = []
        for idx, alg in enumerate(algs):
            ax = axes.flat[idx]
            for i, c in enumerate(series):
                cur = s[(s["algorithm"] == alg) & (s["eval_convention"] == c)].sort_values("k")
                if cur.empty:
                    continue
                mean = cur["mean"].to_numpy(dtype=float)
                ax.plot(cur["k"].to_numpy() + dx[i], mean, lw=1.0, ms=3.5,
                        markerfacecolor="white" if style[c]["marker"] != "x" else None,
                        **style[c])
                bounds.append(mean)
            _cutoff_axis(ax, ks)
            ax.set_title(name(alg))
            ax.set_xlabel("cutoff k")
            if idx % cols == 0:
                ax.set_ylabel(f"{metric}@k")
        lim = _ylim(bounds)
        if lim:
            axes.flat[0].set_ylim(*lim)
        for ax in list(axes.flat)[len(algs):]:
            ax.axis("off")
        handles = [_handle(style[c], f"{c} (reference)" if c == reference else c)
                   for c in series]
        fig.legend(handles=handles, loc="outside upper center", ncol=5, frameon=False,
                   title=f"{metric}@k as each library computes it (ltrconv conventions), of "
                         f"the same models trained with {train_convention}")
        return _save(fig, out_stem)
