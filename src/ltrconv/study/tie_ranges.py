"""How much a reported NDCG@k depends on the order of tied scores.

A ranker whose scores take few distinct values (RankBoost's sums of threshold stumps, AdaRank's
few weighted features) leaves many documents tied, and a tool ranks tied documents in whatever
order it happens to use. Over all orders of the tied documents, NDCG@k lies between the
worst-first order (``ranklib-tiepess``) and the best-first order (``ranklib-tieopt``); its
expected value over uniformly random orders is ``ranklib-tieavg`` (McSherry & Najork 2008), and
``ranklib`` reports one of those orders (the input order). :func:`tie_table` gives, per model,
``width = tieopt - tiepess``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import LtrconvError
from .names import AVG, INPUT, OPT, PESS
from .tables import check_per_query, sort_rows

TIE_COLUMNS = ["dataset", "algorithm", "train_convention", "fold", "seed", "k", "n_queries",
               "tiepess", "tieavg", "tieopt", "ranklib", "width", "tied_share"]


def tie_table(per_query: pd.DataFrame, k: int = 10, metric: str = "NDCG") -> pd.DataFrame:
    """Per model (dataset, algorithm, training convention, fold, seed): mean ``metric@k`` under
    worst-first, tie-averaged, best-first and input-order ties; ``width = tieopt - tiepess``
    (the range of the reported mean over tie orders) and ``tied_share``, the share of queries
    whose own range is not zero (their score depends on the tie order)."""
    pq = check_per_query(per_query)
    pq = pq[(pq["metric"] == metric) & (pq["k"] == int(k))
            & pq["eval_convention"].isin([PESS, AVG, OPT, INPUT])]
    missing = {PESS, AVG, OPT, INPUT} - set(pq["eval_convention"].unique())
    if missing:
        raise LtrconvError(f"the per-query table has no {metric}@{k} under {sorted(missing)}")
    model = ["dataset", "algorithm", "train_convention", "fold", "seed"]
    wide = pq.pivot(index=model + ["qid"], columns="eval_convention", values="value")
    wide = wide[[PESS, AVG, OPT, INPUT]].dropna()
    wide["tied"] = (wide[OPT] - wide[PESS]) > 1e-12
    out = wide.groupby(level=model, sort=False).agg(
        n_queries=(PESS, "size"), tiepess=(PESS, "mean"), tieavg=(AVG, "mean"),
        tieopt=(OPT, "mean"), ranklib=(INPUT, "mean"), tied_share=("tied", "mean")).reset_index()
    out["k"] = np.int64(k)
    out["width"] = out["tieopt"] - out["tiepess"]
    out["n_queries"] = out["n_queries"].astype(np.int64)
    return sort_rows(out[TIE_COLUMNS], model)
