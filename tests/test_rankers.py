"""Input checks every ranker shares (base.Ranker): one case table, run for all six algorithms."""

import re
import warnings

import numpy as np
import pytest
from ltrconv.errors import InputError, LtrconvError
from ltrconv.rankers import (ALGORITHMS, DegenerateDataError, NotFittedModelError, ParamError,
                             TrainingSelectionWarning, make)
from ltrconv.data.synthetic import make_letor, split

# Fits without validation data select on the training data on purpose here; the warning that
# says so is tested once, below.
pytestmark = pytest.mark.filterwarnings("ignore::ltrconv.rankers.TrainingSelectionWarning")

FAST = {
    "adarank": dict(n_rounds=5),
    "coordinate_ascent": dict(n_restarts=1, n_steps=10, max_sweeps=2),
    "lambdamart": dict(n_estimators=5, early_stopping_rounds=2, min_data_in_leaf=5),
    "ranknet": dict(architectures=((4,),), max_epochs=2, patience=1),
    "rankboost": dict(n_rounds=3),
    "ranksvm": dict(C_grid=(1.0,)),
}


@pytest.fixture(scope="module")
def parts():
    d = make_letor(n_queries=30, n_features=5, empty_share=0.1, seed=11)
    idx = np.arange(d.n_queries)
    return split(d, idx[:20]), split(d, idx[20:])


def _fit(name, tr, **overrides):
    args = dict(X=tr.X, y=tr.y, qid=tr.qid)
    args.update(overrides)
    return make(name, **FAST[name]).fit(args.pop("X"), args.pop("y"), args.pop("qid"), **args)


def test_fast_parameters_cover_the_registry():
    assert set(FAST) == set(ALGORITHMS)


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("case, error, match", [
    ("short_y", InputError, "training y has"),
    ("short_qid", InputError, "training qid has"),
    ("nan_X", InputError, "non-finite"),
    ("negative_label", InputError, "non-negative integer"),
    ("val_features", InputError, "validation X has 2 features"),
    ("val_short_y", InputError, "validation y has"),
    ("split_query", InputError, "not contiguous"),
    ("inf_X", InputError, r"non-finite values \(NaN or inf\), the first X\[2, 0\] = inf"),
    ("complex_X", InputError, "Complex data not supported: training X has dtype complex128"),
    ("complex_y", InputError, "Complex data not supported: training y has dtype complex128"),
    ("sparse_X", InputError, "training X is a sparse csr_matrix: sparse input is not supported"),
    ("no_features", InputError, r"training X has 0 feature\(s\) \(shape=\(\d+, 0\)\)"),
    ("vector_X", InputError, r"training X must be 2-D, got shape \(\d+,\)\. Reshape your data"),
    ("y_none", InputError, "requires y to be passed, but the target y is None"),
    ("y_scalar", InputError, r"training y has 1 labels for \d+ rows"),
    ("y_strings", InputError, "non-negative integer labels \\(dtype <U"),
    ("one_row", DegenerateDataError, "training data has 1 sample"),
])
def test_bad_training_inputs(parts, name, case, error, match):
    """One error, an InputError (a ValueError, as scikit-learn's checks expect), names what is
    wrong before any ranker code runs."""
    tr, va = parts
    X, y, qid = tr.X.copy(), tr.y.copy(), tr.qid.copy()
    kw = {}
    if case == "short_y":
        y = y[:-1]
    elif case == "short_qid":
        qid = qid[1:]
    elif case == "nan_X":
        X[3, 1] = np.nan
    elif case == "negative_label":
        y[0] = -1
    elif case == "val_features":
        kw = dict(X_val=va.X[:, :2], y_val=va.y, qid_val=va.qid)
    elif case == "val_short_y":
        kw = dict(X_val=va.X, y_val=va.y[:-1], qid_val=va.qid)
    elif case == "split_query":
        qid = np.concatenate([qid[-1:], qid[:-1]])
    elif case == "inf_X":
        X[2, 0] = np.inf
    elif case == "complex_X":
        X = X + 1j
    elif case == "complex_y":
        y = y + 1j
    elif case == "sparse_X":
        import scipy.sparse

        X = scipy.sparse.csr_matrix(X)
    elif case == "no_features":
        X = X[:, :0]
    elif case == "vector_X":
        X = X[:, 0]
    elif case == "y_none":
        y = None
    elif case == "y_scalar":
        y = np.int64(1)
    elif case == "y_strings":
        y = y.astype(str)
    elif case == "one_row":
        X, y, qid = X[:1], y[:1], qid[:1]
    with pytest.raises(error, match=match):
        _fit(name, tr, X=X, y=y, qid=qid, **kw)


def constant_within_queries(d, value=None):
    """Labels of ``d`` with one label per query (``value``, else the query's first label)."""
    y = d.y.copy()
    for a, b in zip(d.offsets[:-1], d.offsets[1:]):
        y[a:b] = y[a] if value is None else value
    return y


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize("split, labels, message", [
    ("training", "zeros", "training data has no relevant document (every label is 0)"),
    ("training", "per_query", "training data has no query with two different labels"),
    ("validation", "zeros", "validation data has no relevant document (every label is 0)"),
    ("validation", "per_query", "validation data has no query with two different labels"),
])
def test_degenerate_data_is_refused(parts, name, split, labels, message):
    """One rule for all six: data in which every ranking has the same NDCG is refused."""
    tr, va = parts
    d = tr if split == "training" else va
    y = np.zeros_like(d.y) if labels == "zeros" else constant_within_queries(d, 1)
    if labels == "per_query":
        y[d.offsets[0]:d.offsets[1]] = 2  # a relevant document, still one label per query
        assert y.max() > 0
    y_tr, y_va = (y, va.y) if split == "training" else (tr.y, y)
    model = make(name, **FAST[name]).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
    with pytest.raises(DegenerateDataError, match=re.escape(message)) as err:
        model.fit(tr.X, y_tr, tr.qid, X_val=va.X, y_val=y_va, qid_val=va.qid)
    assert err.value.split == split and isinstance(err.value, LtrconvError)
    with pytest.raises(NotFittedModelError):  # a failed fit leaves no fitted model behind
        model.predict(va.X)


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_without_validation_data_selection_uses_training_data_and_warns(parts, name):
    tr, va = parts
    with pytest.warns(TrainingSelectionWarning, match=f"{name}: no validation data .* runs on "
                      "the training data"):
        alone = _fit(name, tr)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrainingSelectionWarning)
        explicit = _fit(name, tr, X_val=tr.X, y_val=tr.y, qid_val=tr.qid, docid_val=tr.docid,
                        docid=tr.docid)
    np.testing.assert_array_equal(alone.predict(va.X), explicit.predict(va.X))


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_validation_arrays_go_together(parts, name):
    tr, va = parts
    with pytest.raises(InputError, match="X_val, y_val and qid_val together; got only X_val, y_val"):
        _fit(name, tr, X_val=va.X, y_val=va.y)
    with pytest.raises(InputError, match="docid_val given without validation data"):
        _fit(name, tr, docid_val=va.docid)


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_bad_metric_and_unknown_parameter(parts, name):
    tr, _ = parts
    with pytest.raises(ParamError, match="nosuch"):
        make(name, **FAST[name], metric="ndcg@10:nosuch").fit(tr.X, tr.y, tr.qid)
    with pytest.raises(ParamError, match="unknown parameter"):
        make(name, no_such_parameter=1)


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_predict_checks(parts, name):
    tr, va = parts
    with pytest.raises(NotFittedModelError, match="before fit"):
        make(name).predict(va.X)
    model = _fit(name, tr)
    with pytest.raises(InputError, match=f"X has 3 features, but {name} is expecting 5 features "
                                         "as input \\(the model was fitted on 5 features\\)"):
        model.predict(va.X[:, :3])
    X = va.X.copy()
    X[1, 4] = -np.inf
    with pytest.raises(InputError, match=f"^{name}: X has non-finite values .* X\\[1, 4\\] = -inf"):
        model.predict(X)
    with pytest.raises(InputError, match=f"^{name}: X must be 2-D, got shape \\(5,\\)"):
        model.predict(va.X[0])
    with pytest.raises(InputError, match="Complex data not supported"):
        model.predict(va.X + 0j)
    assert model.predict(va.X).shape == (va.n_docs,)
