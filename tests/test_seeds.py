"""Seed variance: per-seed tables and the claims re-tested with seeds (ltrconv.study.seeds)."""

import numpy as np
import pandas as pd
import pytest

from ltrconv.study import seeds, tables as study
from ltrconv.study.stats import holm
from planted import planted_per_query

ALGS = ("coordinate_ascent", "lambdamart", "adarank", "ranksvm")


@pytest.fixture(scope="module")
def two_seeds():
    """Seed 0 and seed 1 of the random algorithm (Coordinate Ascent); the others seed 0 only."""
    a = planted_per_query(n_queries=60, n_folds=3, algorithms=ALGS,
                          eval_conventions=("ranklib",), cutoffs=[10], seed=0)
    b = planted_per_query(n_queries=60, n_folds=3, algorithms=ALGS,
                          eval_conventions=("ranklib",), cutoffs=[10], seed=0)
    b = b[b["algorithm"] == "coordinate_ascent"].copy()
    rng = np.random.default_rng(5)
    b["value"] = np.clip(b["value"] + 0.05 * rng.standard_normal(len(b)), 0, 1)
    b["seed"] = 1
    return pd.concat([a, b], ignore_index=True)


def test_seed_fold_means_keep_each_seed(two_seeds):
    fm = seeds.seed_fold_means(two_seeds)
    ca = fm[fm["algorithm"] == "coordinate_ascent"]
    assert set(ca["seed"]) == {0, 1} and set(fm["algorithm"]) == {"coordinate_ascent"}
    assert set(fm["metric"]) == {"NDCG"}
    one = ca[(ca["seed"] == 1) & (ca["fold"] == 2) & (ca["train_convention"] == "letor")
             & (ca["metric"] == "NDCG")]["mean"].iloc[0]
    pq = two_seeds
    want = pq[(pq["algorithm"] == "coordinate_ascent") & (pq["seed"] == 1) & (pq["fold"] == 2)
              & (pq["train_convention"] == "letor") & (pq["metric"] == "NDCG")]["value"].mean()
    assert one == pytest.approx(want)
    # the study's fold means are the mean over seeds of each query
    avg = study.fold_means(pq)
    got = avg[(avg["algorithm"] == "coordinate_ascent") & (avg["fold"] == 2)
              & (avg["train_convention"] == "letor") & (avg["metric"] == "NDCG")]["mean"].iloc[0]
    both = ca[(ca["fold"] == 2) & (ca["train_convention"] == "letor") & (ca["metric"] == "NDCG")]
    assert got == pytest.approx(both["mean"].mean())


def test_claim_family_holm_and_seed_spread(two_seeds):
    tests = study.ttests(two_seeds)
    st = seeds.seed_ttests(two_seeds)
    assert set(st.loc[st["algorithm"] == "coordinate_ascent", "seed"]) == {0, 1}
    fam = seeds.claim_family(tests, st, ["adarank", "lambdamart", "coordinate_ascent"],
                             "ranklib", "letor")
    assert list(fam["algorithm"]) == ["adarank", "lambdamart", "coordinate_ascent"]
    np.testing.assert_allclose(fam["p_holm"], holm(fam["p"].to_numpy()))  # family = the claim
    ca = fam.set_index("algorithm").loc["coordinate_ascent"]
    d = [float(st[(st["algorithm"] == "coordinate_ascent") & (st["seed"] == s)
                  & (st["eval_convention"] == "ranklib") & (st["metric"] == "NDCG")
                  & (st["k"] == 10) & (st["conv_a"] == "ranklib") & (st["conv_b"] == "letor")]
                  ["diff"].iloc[0]) for s in (0, 1)]
    assert ca["n_seeds"] == 2 and ca["seed_sd"] == pytest.approx(np.std(d, ddof=1))
    assert np.isnan(fam.set_index("algorithm").loc["adarank", "seed_sd"])
    text = seeds.seeds_section(tests, st, [0, 1], "synthetic")
    assert "### Claim 3: training with letor is significantly worse" in text
    assert "against the first seed alone (same test, same family), the verdict" in text
    assert text.count("| Coordinate Ascent |") == 2  # claims 3 and 4
