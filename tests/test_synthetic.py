"""The MSLR-shaped generator: shape, label shares, empty queries, determinism, bad arguments."""

import numpy as np
import pytest

from ltrconv.errors import InputError
from ltrconv.data.synthetic import MSLR_LABEL_SHARES, make_mslr_like


@pytest.fixture(scope="module")
def data():
    return make_mslr_like(60_000, seed=3)


def test_shape_and_types(data):
    assert data.X.shape == (60_000, 136)
    assert data.X.dtype == np.float32
    assert data.offsets[0] == 0 and data.offsets[-1] == 60_000
    sizes = np.diff(data.offsets)
    assert sizes.min() >= 1
    assert 100 <= sizes.mean() <= 140  # about 120 documents per query
    # qid is contiguous per query and matches the offsets
    assert np.all(data.qid[data.offsets[:-1]] == np.arange(1, data.n_queries + 1))
    assert np.all(np.isfinite(data.X))
    assert set(np.unique(data.y)) == {0, 1, 2, 3, 4}


def test_label_shares(data):
    shares = np.bincount(data.y, minlength=5) / data.n_docs
    assert np.allclose(shares, MSLR_LABEL_SHARES, atol=0.01)


@pytest.mark.parametrize("empty", [0.0, 0.03, 0.25])
def test_empty_query_share(empty):
    d = make_mslr_like(30_000, empty_share=empty, seed=1)
    top = np.maximum.reduceat(d.y, d.offsets[:-1])
    assert (top == 0).mean() == pytest.approx(empty, abs=0.5 / d.n_queries + 1e-12)
    shares = np.bincount(d.y, minlength=5) / d.n_docs
    assert shares[0] == pytest.approx(MSLR_LABEL_SHARES[0], abs=0.03)


def test_labels_carry_signal(data):
    # an informative feature separates relevant from irrelevant documents
    corr = [abs(np.corrcoef(data.X[:, j], data.y)[0, 1]) for j in range(data.X.shape[1])]
    assert max(corr) > 0.2
    assert np.median(corr) < 0.1


def test_deterministic_and_seeded():
    a = make_mslr_like(150_000, seed=7)  # more than one generation block
    b = make_mslr_like(150_000, seed=7)
    c = make_mslr_like(150_000, seed=8)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert np.array_equal(a.offsets, b.offsets)
    assert not np.array_equal(a.y, c.y)


def test_custom_shape():
    d = make_mslr_like(500, n_features=5, label_shares=(0.5, 0.5), mean_docs=10, seed=0)
    assert d.X.shape == (500, 5) and d.y.max() == 1


@pytest.mark.parametrize("kwargs, word", [
    ({"n_docs": 0}, "n_docs"),
    ({"label_shares": (0.5, 0.4)}, "label_shares"),
    ({"empty_share": 0.6}, "empty_share"),
    ({"mean_docs": 0}, "mean_docs"),
])
def test_bad_arguments(kwargs, word):
    args = {"n_docs": 100, **kwargs}
    with pytest.raises(InputError, match=word):
        make_mslr_like(**args)
