"""NDCG@k over the orders of tied scores, per model (ltrconv.study.tie_ranges)."""

import numpy as np
import pandas as pd
import pytest

from ltrconv.study import tables as study, tie_ranges
from ltrconv.errors import LtrconvError
from ltrconv.evaluation.metrics import evaluate_dataset
from ltrconv.data.synthetic import make_letor

CONVENTIONS = ["ranklib", "ranklib-tiepess", "ranklib-tieavg", "ranklib-tieopt"]


def per_query(scores_by_algorithm, data):
    frames = [study.per_query_frame(evaluate_dataset(data, s, conventions=CONVENTIONS,
                                                     cutoffs=[5, 10]),
                                    dataset="D", fold=1, algorithm=a, train_convention="ranklib",
                                    seed=seed)
              for (a, seed), s in scores_by_algorithm.items()]
    return pd.concat(frames, ignore_index=True)


def test_coarse_scores_have_wide_ranges_continuous_none():
    data = make_letor(n_queries=20, n_features=4, min_docs=8, max_docs=20, seed=3)
    rng = np.random.default_rng(0)
    fine = data.X[:, 0] + rng.standard_normal(data.n_docs)
    coarse = np.round(data.X[:, 0])  # few distinct values: many ties
    table = tie_ranges.tie_table(per_query({("fine", 0): fine, ("coarse", 0): coarse,
                                      ("coarse", 1): coarse}, data), k=10)
    assert list(table.columns) == tie_ranges.TIE_COLUMNS and len(table) == 3
    by = table.set_index(["algorithm", "seed"])
    assert by.loc[("fine", 0), "width"] == 0 and by.loc[("fine", 0), "tied_share"] == 0
    assert by.loc[("coarse", 0), "width"] > 0.05 and by.loc[("coarse", 0), "tied_share"] > 0
    row = by.loc[("coarse", 0)]
    assert row["tiepess"] <= row["tieavg"] <= row["tieopt"]
    assert row["tiepess"] <= row["ranklib"] <= row["tieopt"]
    assert row["width"] == pytest.approx(row["tieopt"] - row["tiepess"])
    assert row["n_queries"] == data.n_queries


def test_missing_tie_convention_is_named():
    data = make_letor(n_queries=5, n_features=3, seed=1)
    pq = per_query({("a", 0): data.X[:, 0]}, data)
    with pytest.raises(LtrconvError, match=r"no NDCG@10 under \['ranklib-tieopt'\]"):
        tie_ranges.tie_table(pq[pq["eval_convention"] != "ranklib-tieopt"], k=10)
