"""The convention axes that only a run with its qrels can show (TREC input).

A LETOR file gives a label to every document it lists and nothing else; a run and its qrels
can disagree on which documents and queries exist, so the IR tools need these rules too:

* ``ideal``: IDCG@k from the ``list`` (the ranked documents' labels; LETOR tools) or from the
  ``qrels`` (every judged document of the query, retrieved or not; trec_eval, ir_measures,
  ranx), so a judged document the run misses lowers NDCG;
* ``unjudged``: a retrieved document without judgment is ``nonrel`` (label 0, trec_eval) or
  ``drop``ped before ranking (ir_measures ``judged_only``, trec_eval ``-J``, which also drop
  documents with a negative grade, after the ``depth`` cut);
* ``missing``: a qrels query the run lacks is ``skip``ped (trec_eval) or counted with every
  metric 0 (``zero``: trec_eval ``-c``, ir_measures). Run-only queries are always ignored;
* ``duplicates``: a docid retrieved twice for one query is ``refuse``d (trec_eval stops:
  "duplicate docs"), or the ``first`` or ``last`` line kept (a dict-based reader keeps the last);
* ``depth``: only the top ``depth`` documents of each query's ranking count (trec_eval ``-M``),
  or ``none``.

Negative grades counted as 0 are ``negative=zero`` and the binary measures' relevance level is
``rel``, axes LETOR files have too. On LETOR input these axes change nothing: the list is the
qrels, every document is judged and listed once.
"""

from __future__ import annotations

from typing import Any

from ..errors import shown

IDEAL = ("list", "qrels")
UNJUDGED = ("nonrel", "drop")
MISSING = ("skip", "zero")
DUPLICATES = ("refuse", "first", "last")
CHOICES = {"ideal": IDEAL, "unjudged": UNJUDGED, "missing": MISSING, "duplicates": DUPLICATES}
DEFAULTS: dict[str, Any] = {"ideal": "list", "unjudged": "nonrel", "missing": "skip",
                            "duplicates": "refuse", "depth": None}
"""Each axis' default, which the canonical string leaves out."""

MAX_DEPTH = 10 ** 9


def parse_depth(value: Any) -> int | None:
    """None, ``"none"``, or an integer >= 1 (``"1000"`` allowed)."""
    if value is None or (isinstance(value, str) and value.strip() == "none"):
        return None
    hint = f"depth must be an integer >= 1 or none, got {shown(value)}"
    if isinstance(value, bool):
        raise ValueError(hint)
    if isinstance(value, str):
        value = value.strip()
        if not value.isdigit():
            raise ValueError(hint)
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    try:
        import numpy as np

        if isinstance(value, np.integer):
            value = int(value)
    except ImportError:  # pragma: no cover
        pass
    if not isinstance(value, int) or not 1 <= value <= MAX_DEPTH:
        raise ValueError(hint)
    return value


def check(values: dict[str, Any]) -> dict[str, Any]:
    """The axes' values checked (``depth`` parsed); ValueError naming the axis otherwise."""
    out = dict(values)
    for axis, allowed in CHOICES.items():
        if out[axis] not in allowed:
            raise ValueError(f"{axis} must be one of {', '.join(allowed)}; got {shown(out[axis])}")
    out["depth"] = parse_depth(out["depth"])
    return out


def canonical_extra(values: dict[str, Any]) -> str:
    """``,key=value`` for each axis away from its default, in :data:`DEFAULTS` order."""
    return "".join(f",{k}={values[k]}" for k, d in DEFAULTS.items() if values[k] != d)
