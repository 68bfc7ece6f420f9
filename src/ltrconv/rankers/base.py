"""The base class shared by the six rankers (:mod:`ltrconv.rankers.sklearn` makes each a
scikit-learn estimator).

``fit(X, y, qid, *, X_val, y_val, qid_val, docid=None, docid_val=None)`` then ``predict(X)``.
Hyperparameters are keyword-only constructor arguments, ``metric`` first; ``metric`` is an
:class:`~ltrconv.evaluation.spec.MetricSpec` string such as ``"ndcg@10:letor"``, used for every NDCG the
algorithm looks at: its objective where it has one, early stopping, model selection.

:meth:`Ranker.fit` checks the hyperparameters against the class's ``_parameter_constraints``
(:mod:`ltrconv.rankers.params`), the data (:meth:`Ranker._prepare`), then calls the algorithm's
``_fit``; ``n_features_in_`` is set when that returns. Rules shared by all six:

* Validation data: every ranker selects a model on it (rounds, restart, C, architecture or
  trees). Without it (``X_val``, ``y_val``, ``qid_val`` all omitted) the selection runs on the
  training data, with a :class:`TrainingSelectionWarning`.
* Degenerate data: training data, and validation data when given, must hold a query with two
  different labels; without one (in particular with every label 0) every ranking scores the
  same NDCG and there is no pair to order, and :class:`DegenerateDataError` is raised.
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from ..errors import InputError, LtrconvError
from ..evaluation.queries import MAX_LABEL, offsets_from_qid
from ..evaluation.spec import MetricSpec
from .estimator import NotFittedError, PlainEstimator
from .params import ParamError, unknown_message, validate
from .progress import SILENT, Progress

if TYPE_CHECKING:  # the scorer loads numba: fit needs it, predict and load do not
    from ..evaluation.scorer import NDCGScorer


class NotFittedModelError(LtrconvError, NotFittedError):
    """``predict`` before ``fit`` (a ValueError and an AttributeError, as scikit-learn's
    ``NotFittedError``)."""


def check_random_state(seed) -> np.random.RandomState:
    """scikit-learn's ``check_random_state``: NumPy's global generator for None, a new one
    seeded with an integer, a RandomState itself."""
    if seed is None or seed is np.random:
        return np.random.mtrand._rand
    if isinstance(seed, (int, np.integer)):
        return np.random.RandomState(seed)
    if isinstance(seed, np.random.RandomState):
        return seed
    raise ValueError(f"{seed!r} cannot be used to seed a numpy.random.RandomState instance")


class DegenerateDataError(InputError):
    """Training or validation data in which every ranking scores the same; ``split`` says which."""

    def __init__(self, message: str, split: str):
        super().__init__(message)
        self.split = split


class TrainingSelectionWarning(UserWarning):
    """A model was selected on the training data because no validation data was given."""


@dataclass(frozen=True)
class TrainingData:
    """Checked arrays (X float64, y int64, query offsets) and their NDCG scorers under the
    ranker's metric; ``held_out`` is False when the validation fields repeat the training data."""

    X: np.ndarray
    y: np.ndarray
    offsets: np.ndarray
    X_val: np.ndarray
    y_val: np.ndarray
    offsets_val: np.ndarray
    scorer: NDCGScorer
    val_scorer: NDCGScorer
    held_out: bool
    docid: Any = None
    docid_val: Any = None
    progress: Progress = SILENT

    def under(self, spec: MetricSpec) -> "TrainingData":
        """The same arrays with the scorers of metric ``spec``."""
        from ..evaluation.scorer import NDCGScorer

        top = int(max(self.y.max(), self.y_val.max()))
        return replace(self,
                       scorer=NDCGScorer(self.y, self.offsets, spec.convention, spec.k,
                                         docid=self.docid, max_label=top),
                       val_scorer=NDCGScorer(self.y_val, self.offsets_val, spec.convention,
                                             spec.k, docid=self.docid_val, max_label=top))


def _require_two_labels(y: np.ndarray, offsets: np.ndarray, split: str) -> None:
    """Refuse data in which no query has two different labels (see the module docstring)."""
    purpose = ("nothing to learn" if split == "training" else
               "nothing to select a model with (give validation data with relevant documents, "
               "or none to select on the training data)")
    if len(y) == 1:
        raise DegenerateDataError(
            f"{split} data has 1 sample: one document has one ranking and no pair to order, so "
            f"there is {purpose}", split)
    if y.max() == 0:
        raise DegenerateDataError(
            f"{split} data has no relevant document (every label is 0): every ranking of it has "
            f"the same NDCG and no pair of documents is ordered, so there is {purpose}", split)
    lo = np.minimum.reduceat(y, offsets[:-1])
    hi = np.maximum.reduceat(y, offsets[:-1])
    if not np.any(hi > lo):
        raise DegenerateDataError(
            f"{split} data has no query with two different labels: every ranking of it has the "
            f"same NDCG and no pair of documents is ordered, so there is {purpose}", split)


def _feature_matrix(X, what: str) -> np.ndarray:
    """``X`` as a 2-D, C-ordered, writable float64 array of finite values with at least one
    feature; ``what`` names it in the one error (an :class:`InputError`, a ``ValueError``)
    raised otherwise. C-ordered and writable whatever the caller's (a DataFrame's values are
    often Fortran-ordered, a memory map read-only; copied then): BLAS sums a row's products in
    an order that depends on the layout, so a ranker's scores would differ in the last bits
    between the two, and numba compiles each kernel anew for another array type."""
    if X is None:
        raise InputError(f"{what} is None; expected a 2-D array of features")
    sparse = sys.modules.get("scipy.sparse")  # a sparse matrix implies scipy is loaded
    if sparse is not None and sparse.issparse(X):
        raise InputError(f"{what} is a sparse {type(X).__name__}: sparse input is not supported; "
                         "pass a dense array (X.toarray())")
    X = np.asarray(X)
    if np.iscomplexobj(X):
        raise InputError(f"Complex data not supported: {what} has dtype {X.dtype}")
    X = np.require(X, np.float64, ["C", "W"])
    if X.ndim != 2:
        raise InputError(f"{what} must be 2-D, got shape {X.shape}. Reshape your data: "
                         "X.reshape(1, -1) if it is one row, X.reshape(-1, 1) if one feature")
    if X.shape[1] == 0:
        raise InputError(f"{what} has 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
                         "required.")
    bad = ~np.isfinite(X)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise InputError(f"{what} has non-finite values (NaN or inf), the first "
                         f"X[{row}, {col}] = {X[row, col]}")
    return X


class Ranker(PlainEstimator):
    """Base class: parameter validation, input checks, fitted state, persistence.

    Subclasses declare ``_parameter_constraints`` (one entry per ``__init__`` argument),
    ``_selects`` (what validation data chooses) and implement ``_fit(data)`` and
    ``_predict(X)``.
    """

    name: str = "ranker"
    _parameter_constraints: dict[str, list] = {}
    _removed_params: dict[str, str] = {}
    _selects: str = "the model"

    # --- parameters -------------------------------------------------------------------
    @classmethod
    def _param_names(cls) -> list[str]:
        """Hyperparameter names in declaration order."""
        return list(cls._parameter_constraints)

    @classmethod
    def validate_params(cls, params: Mapping[str, Any]) -> None:
        """Raise :class:`ParamError` naming the first unknown or invalid entry of ``params``."""
        validate(cls.name, cls._parameter_constraints, params, cls._removed_params)

    def _validate_params(self) -> None:
        self.validate_params(self.get_params(deep=False))

    def set_params(self, **params: Any) -> "Ranker":
        unknown = [p for p in params if p not in self._parameter_constraints]
        if unknown:
            raise ParamError(unknown_message(self.name, unknown, self._param_names(),
                                               self._removed_params), param=sorted(unknown)[0])
        return super().set_params(**params)

    @property
    def metric_spec(self) -> MetricSpec:
        try:
            return MetricSpec.parse(self.metric)
        except LtrconvError as exc:
            raise ParamError(f"{self.name}: {exc}", param="metric") from None

    def _seed(self) -> int:
        """The integer seed of this fit: ``random_state`` itself when it is an integer, else one
        drawn from ``check_random_state(random_state)`` (None: NumPy's global generator)."""
        rs = self.random_state
        if isinstance(rs, (int, np.integer)) and not isinstance(rs, (bool, np.bool_)):
            return int(rs)
        return int(check_random_state(rs).randint(np.iinfo(np.int32).max))

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "n_features_in_")

    # --- data ---------------------------------------------------------------------------
    @staticmethod
    def check_xyq(X, y, qid, what: str = "training") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Validate and return (X float64 2-D, y int64, query offsets). Each problem is one
        :class:`InputError` (a ``ValueError``) naming it: a missing, sparse, complex, non-2-D,
        featureless or non-finite ``X``, lengths that disagree, labels that are not non-negative
        integers, queries that are not contiguous."""
        if y is None:
            raise InputError(f"{what} data: the ranker requires y to be passed, but the target y "
                             "is None")
        if qid is None:
            raise InputError(f"{what} data: qid is None; the ranker needs the query of each row")
        X = _feature_matrix(X, f"{what} X")
        y = np.asarray(y)
        qid = np.asarray(qid)
        if np.iscomplexobj(y):
            raise InputError(f"Complex data not supported: {what} y has dtype {y.dtype}")
        if y.ndim != 1 or len(y) != X.shape[0]:
            raise InputError(f"{what} y has {y.size} labels for {X.shape[0]} rows of X")
        if qid.ndim != 1 or len(qid) != X.shape[0]:
            raise InputError(f"{what} qid has {qid.size} entries for {X.shape[0]} rows of X")
        if X.shape[0] == 0:
            raise InputError(f"{what} data is empty")
        if y.dtype == object:  # numbers held as Python objects are numbers
            try:
                y = y.astype(np.float64)
            except (TypeError, ValueError):
                pass
        if y.dtype.kind not in "biuf" or not np.all(np.mod(y, 1) == 0) or y.min() < 0:
            raise InputError(f"{what} y must hold non-negative integer labels (dtype {y.dtype})")
        if y.max() > MAX_LABEL:
            raise InputError(f"{what} y holds label {y.max()}, above {MAX_LABEL}, the largest "
                             "accepted (the gain 2^l - 1 overflows beyond it)")
        return X, y.astype(np.int64), offsets_from_qid(qid)

    def _prepare(self, X, y, qid, X_val, y_val, qid_val, docid=None, docid_val=None,
                 verbose=False, metrics=None) -> TrainingData:
        """Checked training and validation data with their scorers (the rules of the module
        docstring); validation falls back to the training data, with a warning. ``verbose``:
        the fit's progress (:mod:`ltrconv.rankers.progress`), naming ``metrics`` (default the
        ranker's)."""
        spec = self.metric_spec
        X, y, off = self.check_xyq(X, y, qid, "training")
        _require_two_labels(y, off, "training")
        given = {"X_val": X_val is not None, "y_val": y_val is not None,
                 "qid_val": qid_val is not None}
        held_out = all(given.values())
        if any(given.values()) and not held_out:
            raise InputError("validation data needs X_val, y_val and qid_val together; got only "
                             + ", ".join(k for k, v in given.items() if v))
        if not held_out:
            if docid_val is not None:
                raise InputError("docid_val given without validation data (X_val, y_val, qid_val)")
            warnings.warn(f"{self.name}: no validation data (X_val, y_val, qid_val): model "
                          f"selection ({self._selects}) runs on the training data",
                          TrainingSelectionWarning, stacklevel=3)
            X_val, y_val, qid_val, docid_val = X, y, qid, docid
        Xv, yv, offv = self.check_xyq(X_val, y_val, qid_val, "validation")
        if Xv.shape[1] != X.shape[1]:
            raise InputError(f"validation X has {Xv.shape[1]} features, training X {X.shape[1]}")
        if held_out:
            _require_two_labels(yv, offv, "validation")
        progress = Progress.of(verbose, self.name, metrics or [str(spec)])
        return TrainingData(X, y, off, Xv, yv, offv, None, None, held_out, docid,
                            docid_val, progress).under(spec)

    # --- estimator API ------------------------------------------------------------------
    def fit(self, X, y, qid, *, X_val=None, y_val=None, qid_val=None, docid=None, docid_val=None,
            verbose=False):
        """Fit on rows ``X`` with labels ``y`` grouped by ``qid`` (each query's rows contiguous);
        select on ``(X_val, y_val, qid_val)``. ``docid`` / ``docid_val`` order tied scores for
        conventions that break ties by document id (``trec``). ``verbose``: True prints the
        progress of a long fit to stderr, a callable gets each line (silent by default;
        :mod:`ltrconv.rankers.progress`)."""
        self.__dict__.pop("n_features_in_", None)
        self._validate_params()
        data = self._prepare(X, y, qid, X_val, y_val, qid_val, docid, docid_val, verbose)
        self._fit(data)
        self.n_features_in_ = data.X.shape[1]
        return self

    def _fit(self, data: TrainingData) -> None:
        raise NotImplementedError

    # --- one training, several metrics --------------------------------------------------
    @property
    def shared_training(self) -> bool:
        """True when the metric does not steer training, only chooses among what training
        makes (epochs, rounds, C, architectures): the registry's ``selection`` rankers
        (:mod:`ltrconv.rankers.registry`), each saying why in its docstring. :meth:`fit_many`
        then trains once for every metric."""
        from .registry import KNOWN, SELECTION

        entry = KNOWN.get(self.name)
        return entry is not None and entry.convention == SELECTION

    def fit_many(self, metrics, X, y, qid, *, X_val=None, y_val=None, qid_val=None, docid=None,
                 docid_val=None, verbose=False, **fit_params) -> dict[str, "Ranker"]:
        """One fitted model per metric of ``metrics`` (MetricSpec strings), keyed by it: each the
        model a copy of this ranker with that ``metric`` fits on the same data, to the last bit
        of its model file. A ranker with :attr:`shared_training` trains once and selects under
        every metric; the others fit once per metric. With a ``random_state`` other than an
        integer, a shared training draws one seed for all its models (and each other fit its
        own), so the models equal single fits only for an integer ``random_state``."""
        names = list(metrics) if not isinstance(metrics, str) else [metrics]
        if not names or len(set(names)) < len(names):
            raise InputError(f"{self.name}: fit_many needs distinct metrics, got {metrics!r}")
        models = [type(self)(**{**self.get_params(deep=False), "metric": m}) for m in names]
        kw = dict(X_val=X_val, y_val=y_val, qid_val=qid_val, docid=docid, docid_val=docid_val,
                  verbose=verbose)
        if not self.shared_training or len(models) == 1:
            return {m: model.fit(X, y, qid, **kw, **fit_params) for m, model in zip(names, models)}
        for model in models:
            model._validate_params()
        data = models[0]._prepare(X, y, qid, X_val, y_val, qid_val, docid, docid_val, verbose,
                                  names)
        datas = [data] + [data.under(model.metric_spec) for model in models[1:]]
        models[0]._fit_shared(models, datas, **fit_params)
        for model in models:
            model.n_features_in_ = data.X.shape[1]
        return dict(zip(names, models))

    def _fit_shared(self, models: list["Ranker"], datas: list[TrainingData]) -> None:
        """Train once on ``datas[0]``'s arrays and set each model's fitted state as its own fit
        on ``datas[i]`` (the same arrays, that model's scorers) would: rankers with
        :attr:`shared_training` implement it."""
        raise NotImplementedError

    def _selected(self) -> str:
        """What the fit's model selection chose, in a few words (``C = 10``, ``412 trees``)."""
        return self._selects

    def predict(self, X) -> np.ndarray:
        """Scores of the rows of ``X`` (higher ranks first), float64."""
        if not self.__sklearn_is_fitted__():
            raise NotFittedModelError(f"{self.name}: predict called before fit")
        X = _feature_matrix(X, f"{self.name}: X")
        if X.shape[1] != self.n_features_in_:
            raise InputError(f"X has {X.shape[1]} features, but {self.name} is expecting "
                             f"{self.n_features_in_} features as input (the model was fitted on "
                             f"{self.n_features_in_} features)")
        return self._predict(X)

    def _predict(self, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # --- persistence ----------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the fitted model to ``path`` as a checked model file (:mod:`ltrconv.rankers.modelfile`)."""
        from .modelfile import write_model

        write_model(path, self)


def load(path: str | Path) -> Ranker:
    """Read a model written by :meth:`Ranker.save`; damaged files are refused unread."""
    from .modelfile import read_model

    return read_model(path)
