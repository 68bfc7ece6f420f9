"""Tie policies: the order given to documents with equal scores.

Each policy has a name (a convention's ``ties`` value) and an integer code for the numba
kernels, which compare ``tie == PESSIMISTIC`` against these module-level constants (numba
folds them into the compiled code):

* ``input-order`` (:data:`INPUT_ORDER`): tied documents keep their order in the input (a stable
  sort; RankLib 2.x, the Yahoo! LTR Challenge script, LETOR 4.0 ``Eval-Score-4.0.pl``);
* ``docid-desc`` (:data:`DOCID_DESC`): scores compared as float32, ties broken by the docid's
  byte-order rank, highest first (trec_eval 9.x);
* ``average`` (:data:`AVERAGE`): the expected value over all orders of the tied documents
  (McSherry & Najork 2008);
* ``pessimistic`` (:data:`PESSIMISTIC`): ties worst label first;
* ``optimistic`` (:data:`OPTIMISTIC`): ties best label first;
* ``numpy-argsort-reversed`` (:data:`NUMPY_ARGSORT_REVERSED`): the order of
  ``np.argsort(scores)[::-1]`` with numpy's default (unstable) sort, as scikit-learn's
  ``ndcg_score(ignore_ties=True)`` ranks; it depends on the numpy build and the CPU it
  dispatches to;
* ``numba-quicksort`` (:data:`NUMBA_QUICKSORT`): the order of numba's ``np.argsort(-scores)``
  (insertion sort up to 15 documents, so input order; quicksort beyond), as ranx ranks.

The last two are sort artefacts, not rules: :mod:`ltrconv.evaluation.artefacts` computes each
document's place in that order, and the kernels break ties by it (:data:`KEYED`).
"""

from __future__ import annotations

INPUT_ORDER = 0
DOCID_DESC = 1
AVERAGE = 2
PESSIMISTIC = 3
OPTIMISTIC = 4
NUMPY_ARGSORT_REVERSED = 5
NUMBA_QUICKSORT = 6

KEYED = NUMPY_ARGSORT_REVERSED
"""Codes from this one on break ties by a precomputed key, lowest first."""

CODES: dict[str, int] = {
    "input-order": INPUT_ORDER,
    "docid-desc": DOCID_DESC,
    "average": AVERAGE,
    "pessimistic": PESSIMISTIC,
    "optimistic": OPTIMISTIC,
    "numpy-argsort-reversed": NUMPY_ARGSORT_REVERSED,
    "numba-quicksort": NUMBA_QUICKSORT,
}
"""Kernel code of each tie policy, by name."""

POLICIES: tuple[str, ...] = tuple(CODES)
"""The tie policies' names, in code order."""
