"""A :class:`~ltrconv.study.compare.Comparison` written out: a terminal table, TSV (one row per
convention, metric and pair), JSON, Markdown, LaTeX (significance markers, the best mean of each
column in bold) and a figure of each convention's means with their intervals, flips marked."""

from __future__ import annotations

import json
import math
from typing import Any

from .compare import COLUMNS, Comparison

FORMATS = ("text", "tsv", "json", "markdown", "latex")

TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "randomization": "paired randomization test"}
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg"}


def format_comparison(c: Comparison, fmt: str) -> str:
    """The comparison as ``fmt`` (:data:`FORMATS`)."""
    return {"text": as_text, "tsv": as_tsv, "json": as_json_text, "markdown": as_markdown,
            "latex": as_latex}[fmt](c)


# ---------------------------------------------------------------------------------------------
# Sentences shared by the formats


def _num(x: float, digits: int = 4) -> str:
    return "nan" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def _p(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.3g}"


def _signed(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:+.4f}"


def test_sentence(c: Comparison) -> str:
    s = c.settings
    test = TEST_NAMES[s["test"]]
    if s["test"] == "randomization":
        test += (f" ({s['permutations']:,} seeded sign flips, seed {s['seed']}; every flip "
                 "where they outnumber all 2^n)")
    return test


def family_sentence(c: Comparison) -> str:
    """What the correction ran over: the family's size and make-up, and what was left out."""
    n_pairs = len(c.pairs)
    total = n_pairs * len(c.conventions) * len(c.metrics)
    text = (f"{CORRECTION_NAMES[c.settings['correction']]} over a family of {c.family_size} "
            f"tests ({n_pairs} pair{'s' * (n_pairs != 1)} x {len(c.conventions)} "
            f"convention{'s' * (len(c.conventions) != 1)} x {len(c.metrics)} "
            f"metric{'s' * (len(c.metrics) != 1)}")
    if c.left_out:
        text += (f" = {total}, less {len(c.left_out)} without a p-value, left out: "
                 + "; ".join(f"{r['a']} vs {r['b']} under {r['convention']} {r['metric']} "
                             f"({r['why']})" for r in c.left_out[:5])
                 + (f"; and {len(c.left_out) - 5} more" if len(c.left_out) > 5 else ""))
    return text + ")"


def interval_sentence(c: Comparison) -> str:
    s = c.settings
    return (f"{s['level'] * 100:g}% intervals: percentile, paired bootstrap over queries, "
            f"{s['bootstrap']:,} resamples, seed {s['seed']}")


def header_lines(c: Comparison) -> list[str]:
    inputs = c.inputs
    source = inputs.get("data") or inputs.get("qrels")
    queries = sorted(set(c.queries.values()))
    q = str(queries[0]) if len(queries) == 1 else f"{queries[0]}-{queries[-1]}"
    return [(f"{len(c.systems)} systems on {source}, {q} queries; "
             f"{', '.join(c.metrics)} under {', '.join(c.conventions)}"),
            (f"test: {test_sentence(c)}; correction: {family_sentence(c)}; verdicts at alpha "
             f"{c.settings['alpha']:g}"),
            interval_sentence(c)]


def flip_line(s) -> str:
    """One line per pair: its verdict under every convention, or which conventions flip it and
    the causes that move its mean difference."""
    head = f"{s.a} vs {s.b}, {s.metric}: "
    if s.holds:
        return head + f"{_verdict_word(s, s.verdicts[s.reference])} under every convention"
    groups: dict[str, list[str]] = {}
    for label, v in s.verdicts.items():
        groups.setdefault(v, []).append(label)
    parts = [f"{_verdict_word(s, v)} under {', '.join(labels)}" for v, labels in groups.items()]
    flips = []
    for f in s.flips:
        text = (f"{f.convention} flips it: difference {_signed(f.diff_from)} -> "
                f"{_signed(f.diff_to)}")
        if f.causes is None:
            text += " (no split for this metric)"
        else:
            moved = [(a, v) for a, v in f.causes if v != 0]
            text += (" (" + ", ".join(f"{a} {v:+.4f}" for a, v in moved) + ")" if moved
                     else " (no cause moves it)")
        text += f", effect {_num(f.effect_from, 3)} -> {_num(f.effect_to, 3)}"
        flips.append(text)
    return head + "; ".join(parts) + ". " + "; ".join(flips)


def _verdict_word(s, v: str) -> str:
    """A verdict in words: the better system's name, or 'tie'."""
    return {"a": f"{s.a} better", "b": f"{s.b} better", "tie": "tie"}[v]


# ---------------------------------------------------------------------------------------------
# Text and Markdown


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> list[str]:
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return out + ["| " + " | ".join(r) + " |" for r in rows]
    widths = [max(len(x) for x in col) for col in zip(header, *rows)]
    fmt = [lambda x, w=w: x.ljust(w) for w in widths]
    return ["  ".join(f(x) for f, x in zip(fmt, r)).rstrip() for r in [header, *rows]]


def _body(c: Comparison, markdown: bool) -> list[str]:
    out = []
    h = "### " if markdown else ""
    pct = f"{c.settings['level'] * 100:g}%"
    for metric in c.metrics:
        out += ["", f"{h}{metric}: mean [{pct} interval]", ""]
        rows = [[s] + [f"{_num(m)} [{_num(lo)}, {_num(hi)}]"
                       for m, lo, hi in (c.means[conv, metric, s] for conv in c.conventions)]
                for s in c.systems]
        out += _table(["system", *c.conventions], rows, markdown)
    corr = c.settings["correction"]
    for conv in c.conventions:
        for metric in c.metrics:
            rows = [r for r in c.rows if r["convention"] == conv and r["metric"] == metric]
            out += ["", f"{h}{metric} under {conv} ({c.queries[conv, metric]} queries)", ""]
            out += _table(["a", "b", "diff", f"{pct} interval", "effect", "p",
                           f"p {corr}", "verdict"],
                          [[r["a"], r["b"], _signed(r["diff"]),
                            f"[{_signed(r['diff_low'])}, {_signed(r['diff_high'])}]",
                            _num(r["effect"], 3), _p(r["p"]), _p(r["p_adjusted"]), r["verdict"]]
                           for r in rows], markdown)
    for metric in c.metrics:
        out += ["", (f"{h}Verdicts, {metric} (a or b: significantly better; tie: no "
                     "significant difference)"), ""]
        rows = [[s.a, s.b, *(s.verdicts[conv] for conv in c.conventions),
                 "holds" if s.holds else "flips"] for s in c.summaries if s.metric == metric]
        out += _table(["a", "b", *c.conventions, "across conventions"], rows, markdown)
    out += [""]
    lines = [flip_line(s) for s in c.summaries]
    out += [f"- {x}" for x in lines] if markdown else lines
    return out


def as_text(c: Comparison) -> str:
    return "\n".join(header_lines(c) + _body(c, False)) + "\n"


def as_markdown(c: Comparison) -> str:
    return "\n".join([f"{x}  " for x in header_lines(c)] + _body(c, True)) + "\n"


# ---------------------------------------------------------------------------------------------
# TSV and JSON


def _cell(key: str, value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.6g}" if key in ("p", "p_adjusted", "statistic") else f"{value:.6f}"
    return str(value)


def as_tsv(c: Comparison) -> str:
    lines = ["\t".join(COLUMNS)]
    lines += ["\t".join(_cell(k, r[k]) for k in COLUMNS) for r in c.rows]
    return "\n".join(lines) + "\n"


def _clean(x: Any) -> Any:
    if isinstance(x, float):
        return None if math.isnan(x) else (x if math.isfinite(x) else str(x))
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def as_json(c: Comparison) -> dict:
    """``inputs``, ``settings``, ``family`` (size, correction, tests left out and why),
    ``systems`` (convention -> metric -> system -> mean, low, high, queries), ``pairs`` (the
    TSV rows) and ``verdicts`` (per pair and metric: the verdict under each convention, whether
    it holds, and each flip with the causes of the change of the mean difference)."""
    return _clean({
        "inputs": c.inputs,
        "settings": c.settings,
        "family": {"size": c.family_size, "correction": c.settings["correction"],
                   "pairs": len(c.pairs), "conventions": len(c.conventions),
                   "metrics": len(c.metrics), "left_out": list(c.left_out)},
        "systems": {conv: {metric: {s: dict(zip(("mean", "low", "high"),
                                                  c.means[conv, metric, s]))
                                    | {"queries": c.queries[conv, metric]} for s in c.systems}
                           for metric in c.metrics} for conv in c.conventions},
        "pairs": [dict(r) for r in c.rows],
        "verdicts": [{"a": s.a, "b": s.b, "metric": s.metric, "reference": s.reference,
                      "verdicts": s.verdicts, "holds": s.holds,
                      "flips": [{"convention": f.convention, "verdict": f.verdict,
                                 "diff_reference": f.diff_from, "diff": f.diff_to,
                                 "causes": None if f.causes is None else
                                 [{"axis": a, "contribution": v} for a, v in f.causes]}
                                for f in s.flips]} for s in c.summaries],
    })


def as_json_text(c: Comparison) -> str:
    return json.dumps(as_json(c), indent=1) + "\n"


# ---------------------------------------------------------------------------------------------
# LaTeX


def _tex(text: str) -> str:
    out = []
    for ch in str(text):
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "\\":
            out.append(r"\textbackslash{}")
        elif ch == "~":
            out.append(r"\textasciitilde{}")
        elif ch == "^":
            out.append(r"\textasciicircum{}")
        else:
            out.append(ch)
    return "".join(out)


def _letter(i: int) -> str:
    """a, b, ..., z, aa, ab, ...: a marker per system."""
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


def as_latex(c: Comparison) -> str:
    """A booktabs table: a row per system, a column per metric and convention; a mean's
    superscript letters name the systems it is significantly better than (the adjusted p),
    and the best mean of each column (at the printed precision) is bold."""
    letters = {s: _letter(i) for i, s in enumerate(c.systems)}
    beats: dict[tuple, str] = {}
    for r in c.rows:
        if r["verdict"] == "a":
            winner, loser = r["a"], r["b"]
        elif r["verdict"] == "b":
            winner, loser = r["b"], r["a"]
        else:
            continue
        key = (r["convention"], r["metric"], winner)
        beats[key] = beats.get(key, "") + letters[loser]
    cols = [(m, conv) for m in c.metrics for conv in c.conventions]
    lines = [r"% \usepackage{booktabs}",
             r"\begin{table}", r"\centering",
             r"\begin{tabular}{l" + "r" * len(cols) + "}", r"\toprule"]
    if len(c.metrics) > 1:
        lines.append(" & " + " & ".join(
            rf"\multicolumn{{{len(c.conventions)}}}{{c}}{{{_tex(m)}}}" for m in c.metrics)
            + r" \\")
        spans = [f"\\cmidrule(lr){{{2 + i * len(c.conventions)}-"
                 f"{1 + (i + 1) * len(c.conventions)}}}" for i in range(len(c.metrics))]
        lines.append(" ".join(spans))
        lines.append("System & " + " & ".join(_tex(conv) for _, conv in cols) + r" \\")
    else:
        lines.append("System & " + " & ".join(_tex(conv) for _, conv in cols) + r" \\")
    lines.append(r"\midrule")
    best = {}
    for m, conv in cols:
        printed = {s: round(c.means[conv, m, s][0], 4) for s in c.systems}
        best[m, conv] = max(printed.values())
    for s in c.systems:
        cells = []
        for m, conv in cols:
            value = f"{c.means[conv, m, s][0]:.4f}"
            if round(c.means[conv, m, s][0], 4) == best[m, conv]:
                value = rf"\textbf{{{value}}}"
            marks = "".join(sorted(beats.get((conv, m, s), ""), key=lambda x: x))
            cells.append(value + (f"$^{{\\mathrm{{{marks}}}}}$" if marks else ""))
        lines.append(f"({letters[s]}) {_tex(s)} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    caption = (f"Mean {_tex(', '.join(c.metrics))} under each convention. A superscript names "
               f"the systems a mean is significantly better than ({_tex(test_sentence(c))}, "
               f"{_tex(CORRECTION_NAMES[c.settings['correction']])} over {c.family_size} tests, "
               f"$\\alpha = {c.settings['alpha']:g}$); bold: the best mean of each column.")
    lines += [rf"\caption{{{caption}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The figure


MAX_LISTED_FLIPS = 6


def plot(c: Comparison, path: str, suffix: str) -> None:
    """A panel per metric (rows) and convention (columns), each on its own scale: every
    system's mean with its interval. A convention under which a verdict differs from the
    reference convention's has its title in red, the flipped pairs listed under it, and the
    systems of those pairs drawn in red. Written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..outputs import atomic_path

    S, C, M = len(c.systems), len(c.conventions), len(c.metrics)
    fig, axes = plt.subplots(M, C, figsize=(max(3.0, 0.45 * S + 1.2) * C, 4.2 * M),
                             squeeze=False)
    for row, metric in enumerate(c.metrics):
        flipped: dict[str, list] = {}
        for summ in c.summaries:
            if summ.metric == metric:
                for f in summ.flips:
                    flipped.setdefault(f.convention, []).append((summ, f))
        for col, conv in enumerate(c.conventions):
            ax = axes[row, col]
            marked = {x for summ, _ in flipped.get(conv, []) for x in (summ.a, summ.b)}
            for j, s in enumerate(c.systems):
                m, low, high = c.means[conv, metric, s]
                ax.errorbar([j], [m], yerr=[[m - low], [high - m]], fmt="o", ms=4, capsize=3,
                            color="tab:red" if s in marked else "0.2")
            ax.set_xticks(range(S), c.systems, rotation=45, ha="right", fontsize=8)
            ax.set_xlim(-0.6, S - 0.4)
            if col == 0:
                ax.set_ylabel(f"{metric}, {c.settings['level'] * 100:g}% interval")
            listed = [f"{summ.a} vs {summ.b}: {summ.verdicts[summ.reference]} -> {f.verdict}"
                      for summ, f in flipped.get(conv, [])]
            if listed:
                more = len(listed) - MAX_LISTED_FLIPS
                text = "\n".join(listed[:MAX_LISTED_FLIPS]) + (f"\nand {more} more"
                                                               if more > 0 else "")
                ax.set_title(f"{conv}: {len(listed)} flip{'s' * (len(listed) != 1)}\n{text}",
                             fontsize=8, color="tab:red")
            else:
                ax.set_title(conv + (" (reference)" if conv == c.settings["reference"] else ""),
                             fontsize=9)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=suffix)
    plt.close(fig)
