"""study.stats.paired_table: the paired t-test table of 'ltrconv ttest', the study's
training-convention table and the implementation table."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sst

from ltrconv.study.stats import PAIRED_COLUMNS, paired_table, paired_ttest


def test_one_group_is_scipys_paired_test():
    rng = np.random.default_rng(0)
    a, b = rng.random(40), rng.random(40)
    r = paired_table(a, b)
    ref = sst.ttest_rel(a, b)
    assert r["n"].tolist() == [40]
    assert r["mean_a"][0] == a.mean() and r["mean_b"][0] == b.mean()  # NumPy's sums
    assert r["diff"][0] == (a - b).mean()
    assert r["t"][0] == pytest.approx(ref.statistic, rel=1e-12)
    assert r["p"][0] == pytest.approx(ref.pvalue, rel=1e-10)
    assert paired_ttest(a, b) == (r["t"][0], r["p"][0])


def test_groups_are_tested_apart_with_pandas_sums():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 4, 300)
    codes[codes == 2] = 3  # group 2 gets no pair
    a, b = rng.random(300).round(6), rng.random(300).round(6)
    r = paired_table(a, b, codes)
    assert set(r) == set(PAIRED_COLUMNS)
    assert r["n"].tolist() == [int((codes == g).sum()) for g in range(4)]
    assert np.isnan([r[c][2] for c in PAIRED_COLUMNS[1:]]).all()
    frame = pd.DataFrame({"a": a, "b": b, "d": a - b}).groupby(codes)
    for g in (0, 1, 3):
        assert r["mean_a"][g] == frame["a"].mean()[g] and r["diff"][g] == frame["d"].mean()[g]
        ref = sst.ttest_rel(a[codes == g], b[codes == g])
        assert r["t"][g] == pytest.approx(ref.statistic, rel=1e-10)
        assert r["p"][g] == pytest.approx(ref.pvalue, rel=1e-9)


def test_constant_differences_and_single_pairs():
    r = paired_table([1, 2, 3, 5, 7], [1, 2, 3, 4, 6], [0, 0, 0, 1, 1])
    assert (r["t"][0], r["p"][0]) == (0.0, 1.0)  # identical runs
    assert (r["t"][1], r["p"][1]) == (np.inf, 0.0)  # a constant non-zero difference
    one = paired_table([1.0], [0.0])
    assert one["n"][0] == 1 and np.isnan(one["t"][0]) and np.isnan(one["p"][0])


def test_bad_input():
    with pytest.raises(ValueError, match="equal lengths"):
        paired_table([1, 2], [1])
    with pytest.raises(ValueError, match="group codes"):
        paired_table([1, 2], [1, 2], [0])
    with pytest.raises(ValueError, match=">= 0"):
        paired_table([1, 2], [1, 2], [0, -1])
