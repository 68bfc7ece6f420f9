"""Print the table "Which NDCG is my library computing?" (docs/libraries.md) from the registry.

    python scripts/convention_table.py

One row per library convention (``ltrconv.evaluation.libraries``): the tool, the version its
behaviour was checked on, and the convention's parameters in words. tests/test_axes.py checks
that docs/libraries.md holds exactly this output between its ``convention-table`` markers.
"""

from __future__ import annotations

from ltrconv.evaluation import axes
from ltrconv.evaluation import conventions as C

HEADER = ("tool", "version checked", "gain", "discount", "no relevant doc", "n < k", "ties",
          "float32", "ltrconv")

DISCOUNTS = axes.BY_NAME["disc"].words
TIES = axes.BY_NAME["ties"].words


def gain(conv: C.Convention) -> str:
    """The gain formula on the label as read, then the labels accepted."""
    x = {"trunc": "trunc(l)"}.get(conv.labels, "l")
    if conv.negative == "zero":
        x = f"max({x}, 0)"
    formula = {"linear": x, "exp": f"2^{x} − 1"}.get(conv.gain) if isinstance(conv.gain, str) \
        else "table " + ", ".join(f"{k}→{v:g}" for k, v in conv.gain)
    kind = "integer" if conv.labels == "int" else "real"
    if conv.negative == "refuse":
        accepted = f"{kind} 0 ≤ l ≤ {conv.max_label}" if conv.max_label is not None \
            else f"{kind} l ≥ 0"
    else:
        accepted = f"{kind} l ≤ {conv.max_label}" if conv.max_label is not None else f"{kind} l"
    return f"{formula} ({accepted})"


def empty(conv: C.Convention) -> str:
    value = "skipped" if conv.skips else f"{conv.empty:g}"
    if conv.negative == "keep":
        return f"{value} (IDCG ≤ 0)"
    if conv.negative == "keep-divide":
        return f"{value} (IDCG = 0; IDCG < 0 divides)"
    return value


def float32(name: str, conv: C.Convention) -> str:
    notes = ["scores compared as float32"] if conv.float32_scores else []
    lib = C.library(name)
    if lib is not None and lib.float32:
        notes.append(lib.float32)
    return "; ".join(notes) or "—"


def table() -> str:
    rows = [HEADER, ("---",) * len(HEADER)]
    for name, lib in C.LIBRARIES.items():
        conv = C.get(name)
        rows.append((lib.tool.replace("|", "\\|"), lib.checked, gain(conv), DISCOUNTS[conv.disc],
                     empty(conv), "NDCG@n" if conv.short == "truncate" else "0", TIES[conv.ties],
                     float32(name, conv), f"`{name}`"))
    return "\n".join("| " + " | ".join(row) + " |" for row in rows) + "\n"


if __name__ == "__main__":
    print(table(), end="")
