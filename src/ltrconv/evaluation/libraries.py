"""The NDCG of today's libraries, as built-in conventions: for each, the tool, the version its
behaviour was measured on, a one-line description and the convention's parameters.

Every fact was measured by calling the library on fixed scores, per query, on hand-made edge
cases (a query without relevant document, n < k, one document, ties, scores equal only as
float32, real, negative and large labels) and on MQ2008 Fold1 (tests/test_libraries.py repeats
the comparison). ``float32`` is set where the library's values agree with the convention's to
float32 precision only, and says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Library:
    """A library's NDCG: ``axes`` are the convention's parameters (see
    :class:`ltrconv.evaluation.conventions.Convention`); ``also`` names other packages checked
    to give the same values."""

    name: str
    tool: str
    package: str
    version: str
    description: str
    axes: dict[str, Any] = field(hash=False)
    float32: str | None = None
    also: str | None = None
    measure: str | None = None
    """The tool's own name for this NDCG, ``TOOL:NAME`` with its parameters, as
    :mod:`ltrconv.evaluation.measures` reads it (``ranx:ndcg``, so that ``ranx:ndcg@10`` names
    this convention at cutoff 10); None where the tool's name is not mapped."""

    @property
    def checked(self) -> str:
        """``package version``, as the table and ``ltrconv conventions`` show it."""
        return f"{self.package} {self.version}" + (f", {self.also}" if self.also else "")


_SKLEARN = dict(gain="linear", ties="average", labels="real")
_LIGHTGBM = dict(empty=1, max_label=30)
_XGBOOST = dict(empty=1, scores="float32", max_label=31)
_CATBOOST = dict(gain="linear", empty=1, ties="pessimistic", labels="real", negative="keep")
_CATBOOST_F32 = ("real labels are rounded to float32: the convention's values on the rounded "
                 "labels (to 1e-15); on the labels as given up to 6e-8 apart (measured; at "
                 "most 1.2e-7)")
_CATBOOST_EXP_F32 = ("real labels are rounded to float32: the convention's values on the rounded "
                     "labels (to 1e-15); on the labels as given up to 6e-7 apart for labels "
                     "below 30 (measured; at most 2.5e-6)")
_RANX = dict(gain="linear", ties="numba-quicksort", labels="trunc", negative="zero")

LIBRARIES: dict[str, Library] = {lib.name: lib for lib in (
    Library("sklearn", "scikit-learn `ndcg_score`", "scikit-learn", "1.9.1",
            "linear gain, tied scores averaged (McSherry & Najork), real labels >= 0",
            _SKLEARN),
    Library("sklearn-ignore-ties", "scikit-learn `ndcg_score(ignore_ties=True)`", "scikit-learn",
            "1.9.1",
            "ties as numpy's argsort(scores)[::-1] leaves them, which depends on numpy's build "
            "and CPU: exact where ltrconv runs on the same; a stable argsort instead changes 40 "
            "of MQ2008 Fold1's 156 test queries ranked by feature 4 (by up to 1.0)",
            dict(_SKLEARN, ties="numpy-argsort-reversed")),
    Library("lightgbm", 'LightGBM `metric="ndcg"`', "lightgbm", "4.7.0",
            "default label_gain 2^l - 1, a query without relevant document scores 1, ties in "
            "input order, integer labels 0..30",
            _LIGHTGBM),
    Library("xgboost", 'XGBoost `eval_metric="ndcg@k"`', "xgboost-cpu", "3.2.0",
            "exponential gain, a query without relevant document scores 1, scores compared as "
            "float32, ties in input order, integer labels 0..31",
            _XGBOOST),
    Library("xgboost-minus", 'XGBoost `eval_metric="ndcg@k-"`', "xgboost-cpu", "3.2.0",
            "as xgboost, but a query without relevant document scores 0",
            dict(_XGBOOST, empty=0)),
    Library("catboost", "CatBoost `NDCG`", "catboost", "1.2.10",
            "linear gain, IDCG <= 0 scores 1, ties worst label first, any real label",
            _CATBOOST, float32=_CATBOOST_F32),
    Library("catboost-exp", "CatBoost `NDCG:type=Exp`", "catboost", "1.2.10",
            "as catboost with gain 2^l - 1",
            dict(_CATBOOST, gain="exp"), float32=_CATBOOST_EXP_F32),
    Library("catboost-position", "CatBoost `NDCG:denominator=Position`", "catboost", "1.2.10",
            "as catboost with discount 1/r",
            dict(_CATBOOST, disc="position"), float32=_CATBOOST_F32),
    Library("ranx", "ranx `ndcg`", "ranx", "0.3.21",
            "labels truncated to integers, below 1 gain 0; ties in numba's quicksort order "
            "(input order up to 15 documents)",
            _RANX, measure="ranx:ndcg"),
    Library("ranx-burges", "ranx `ndcg_burges`", "ranx", "0.3.21",
            "as ranx with gain 2^l - 1",
            dict(_RANX, gain="exp"), measure="ranx:ndcg_burges"),
    Library("trec-raw", "trec_eval `ndcg_cut` (pytrec_eval), ir_measures `nDCG@k`",
            "pytrec-eval-terrier", "0.5.11",
            "trec_eval on the dataset's own labels: linear gain, negative labels count 0, "
            "integer labels, scores as float32, ties by docid descending",
            dict(gain="linear", ties="docid-desc", pk="k", negative="zero"),
            also="ir-measures 0.4.3"),
    Library("torchmetrics", "torchmetrics `retrieval_normalized_dcg`", "torchmetrics", "1.9.0",
            "scikit-learn's tie averaging in torch: scores compared as float32, negative labels "
            "kept (IDCG < 0 divides)",
            dict(gain="linear", ties="average", scores="float32", labels="real",
                 negative="keep-divide"),
            float32="arithmetic in float32 (agree to 5e-7)", also="torch 2.13.0"),
)}
"""The library conventions by name, in the order ``ltrconv conventions`` lists them."""
