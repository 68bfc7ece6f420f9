import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sst

from ltrconv.study.stats import holm, paired_ttest, quadrature_stderr, t_from_moments


def test_ttest_closed_form():
    # d = 1, 2, 3, 4: mean 2.5, sd sqrt(5/3), t = 2.5 / (sd / 2) = sqrt(15)
    t, p = paired_ttest([1, 2, 3, 4], [0, 0, 0, 0])
    assert t == pytest.approx(math.sqrt(15), rel=1e-12)
    assert p == pytest.approx(2 * sst.t.sf(math.sqrt(15), 3), rel=1e-12)
    assert 0.03 < p < 0.031


def test_ttest_matches_scipy_and_is_antisymmetric():
    rng = np.random.default_rng(3)
    a, b = rng.random(50), rng.random(50) + 0.05
    ref = sst.ttest_rel(a, b)
    t, p = paired_ttest(a, b)
    assert t == pytest.approx(ref.statistic, rel=1e-10)
    assert p == pytest.approx(ref.pvalue, rel=1e-10)
    t2, p2 = paired_ttest(b, a)
    assert t2 == pytest.approx(-t) and p2 == pytest.approx(p)


def test_ttest_zero_variance():
    assert paired_ttest([0.3, 0.5, 0.5], [0.3, 0.5, 0.5]) == (0.0, 1.0)
    assert paired_ttest([0.4, 0.6], [0.3, 0.5 + 1e-17]) != (0.0, 1.0)
    t, p = paired_ttest([1.0, 2.0, 3.0], [0.0, 1.0, 2.0])
    assert t == math.inf and p == 0.0
    t, p = paired_ttest([0.0, 1.0], [1.0, 2.0])
    assert t == -math.inf and p == 0.0
    assert all(math.isnan(x) for x in paired_ttest([], []))


def test_ttest_one_pair_is_nan():
    # one difference is trivially "constant" but says nothing about its spread (docstring: NaN)
    for a, b in [([0.5], [0.7]), ([0.7], [0.5]), ([0.5], [0.5])]:
        t, p = paired_ttest(a, b)
        assert math.isnan(t) and math.isnan(p)
    t, p = t_from_moments([1, 1, 2], [-0.2, 0.0, -0.2], [np.nan, np.nan, 0.0], [True, True, True])
    assert np.isnan(t[:2]).all() and np.isnan(p[:2]).all()
    assert (t[2], p[2]) == (-math.inf, 0.0)


def test_ttest_rejects_bad_input():
    with pytest.raises(ValueError, match="equal lengths"):
        paired_ttest([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="NaN"):
        paired_ttest([1, np.nan], [1, 2])


def test_t_from_moments_vectorised():
    t, p = t_from_moments([4, 4, 1, 3], [2.5, 0.0, 0.7, 0.1], [math.sqrt(5 / 3), 0.0, np.nan, 0.0],
                          [False, True, False, True])
    assert t[0] == pytest.approx(math.sqrt(15))
    assert (t[1], p[1]) == (0.0, 1.0)
    assert math.isnan(t[2]) and math.isnan(p[2])
    assert (t[3], p[3]) == (math.inf, 0.0)


def test_t_from_moments_p_is_scipy_stats_bit_for_bit():
    # p comes from scipy.special.stdtr without importing scipy.stats: the same floats as
    # 2 * scipy.stats.t.sf(|t|, n - 1), from tiny to overflowing t, 2 to 10^6 pairs
    rng = np.random.default_rng(5)
    n = np.repeat([2, 3, 5, 30, 471, 1_000_000], 40).astype(float)
    sd = np.tile(np.concatenate([rng.uniform(1e-3, 2.0, 30), [1e-300, 1e-200, 1e-12, 1.0, 5.0,
                                                              1e10, 1e300, 0.5, 0.25, 3.0]]), 6)
    mean = np.tile(np.concatenate([rng.normal(0, 1, 30), [1e10, -1.0, 1e-9, 50.0, -80.0, 1.0,
                                                          1e300, -0.3, 2.0, 1e-300]]), 6)
    t, p = t_from_moments(n, mean, sd)
    with np.errstate(divide="ignore", over="ignore"):
        t_ref = mean / (sd / np.sqrt(n))
    np.testing.assert_array_equal(t, t_ref)
    p_ref = 2.0 * sst.t.sf(np.abs(t_ref), n - 1.0)
    assert np.isinf(t).any() and (p_ref == 0.0).any() and (p_ref > 0.9).any()
    np.testing.assert_array_equal(p, p_ref)


def test_holm_closed_form():
    # sorted 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running max 0.06
    adj = holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(adj, [0.03, 0.06, 0.06, 0.02])


def test_holm_caps_and_nan():
    np.testing.assert_array_equal(holm([0.5, 0.6]), [1.0, 1.0])
    adj = holm([0.01, np.nan, 0.02])
    assert math.isnan(adj[1])
    np.testing.assert_allclose(adj[[0, 2]], [0.02, 0.02])
    assert holm([]).shape == (0,)
    assert holm(np.array([[0.01, 0.04], [0.03, 0.005]])).shape == (2, 2)
    with pytest.raises(ValueError):
        holm([1.5])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_holm_properties(ps):
    p = np.array(ps)
    adj = holm(p)
    assert np.all(adj >= p - 1e-15) and np.all(adj <= 1.0)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adj[order]) >= -1e-15)
    assert adj.min() == pytest.approx(min(1.0, len(p) * p.min()))


def test_quadrature():
    assert quadrature_stderr([3.0, 4.0]) == pytest.approx(2.5)
    assert quadrature_stderr([3.0, 4.0], how="rms") == pytest.approx(5 / math.sqrt(2))
    assert quadrature_stderr([0.1] * 5) == pytest.approx(0.1 / math.sqrt(5))
    assert math.isnan(quadrature_stderr([]))
    assert math.isnan(quadrature_stderr([0.1, np.nan]))
    with pytest.raises(ValueError):
        quadrature_stderr([1.0], how="sum")
