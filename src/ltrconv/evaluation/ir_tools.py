"""The NDCG of the IR evaluation tools on a run with its qrels, as built-in conventions: the
tool, the version each was checked against per query (tests/test_trec.py repeats the
comparison), a one-line description and the convention's parameters.

All of them take the ideal ranking from the qrels (every judged document of the query), the
gain from the qrels' grade (negative grades as 0) and the discount 1/log2(r+1); they differ in
ties, unjudged documents, queries the run lacks and docids retrieved twice.
"""

from __future__ import annotations

from .libraries import Library

_TREC_EVAL = dict(gain="linear", ties="docid-desc", pk="k", negative="zero", ideal="qrels")
_RANX = dict(gain="linear", ties="numba-quicksort", labels="trunc", negative="zero",
             ideal="qrels", duplicates="last", missing="zero")

IR_TOOLS: dict[str, Library] = {lib.name: lib for lib in (
    Library("trec_eval", "trec_eval `ndcg_cut.k`, `ndcg`", "trec_eval", "9.0.8",
            "ideal from the qrels, unjudged documents non-relevant, queries without results "
            "skipped, duplicate docids refused, scores as float32 ties by docno descending",
            _TREC_EVAL),
    Library("trec_eval-c", "trec_eval -c `ndcg_cut.k`", "trec_eval", "9.0.8",
            "as trec_eval, but a qrels query without results counts 0",
            dict(_TREC_EVAL, missing="zero")),
    Library("pytrec_eval", "pytrec_eval `ndcg_cut.k`", "pytrec-eval-terrier", "0.5.11",
            "trec_eval on dicts: a docid given twice keeps its last score",
            dict(_TREC_EVAL, duplicates="last")),
    Library("ir_measures", "ir_measures `nDCG@k`", "ir-measures", "0.4.3",
            "trec_eval through pytrec_eval, every qrels query scored (0 without results), a "
            "docid given twice keeps its last score",
            dict(_TREC_EVAL, missing="zero", duplicates="last"), measure="ir_measures:nDCG"),
    Library("ir_measures-judged", "ir_measures `nDCG(judged_only=True)@k`", "ir-measures",
            "0.4.3", "as ir_measures, unjudged documents (and those graded below 0) dropped "
            "before ranking, as trec_eval -J",
            dict(_TREC_EVAL, missing="zero", duplicates="last", unjudged="drop"),
            measure="ir_measures:nDCG(judged_only=True)"),
    Library("ranx-run", "ranx `ndcg` on a Run and Qrels", "ranx", "0.3.21",
            "ideal from the qrels, grades truncated, below 1 gain 0; ties in numba's quicksort "
            "order of the run as ranx.Run receives it (a ranx Run object is already ranked: its "
            "tie order is not recoverable); a docid given twice keeps its last score at its "
            "first place; a qrels query the run lacks scores 0 (ranx with "
            "make_comparable=True; without it ranx refuses such a run)",
            _RANX, measure="ranx:ndcg"),
)}
"""The IR tools' conventions by name, listed after the libraries by ``ltrconv conventions``."""
