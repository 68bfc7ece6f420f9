"""The estimator interface shared by the six rankers.

``fit(X, y, qid, *, X_val, y_val, qid_val, docid=None, docid_val=None)`` then ``predict(X)``.
Hyperparameters are constructor keyword arguments (scikit-learn style); ``metric`` is an
:class:`~ltrconv.metrics.MetricSpec` string such as ``"ndcg@10:letor"``, used for every
NDCG the algorithm looks at: its objective where it has one, early stopping, model selection.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import numpy as np

from ..data import offsets_from_qid
from ..errors import InputError, LtrconvError
from ..metrics import MetricSpec, NDCGScorer


class ParamError(LtrconvError):
    """A bad hyperparameter value."""


class Ranker:
    """Base class: parameter handling, input checks, persistence."""

    name: str = "ranker"

    # --- scikit-learn style parameters ------------------------------------------------
    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p for p in sig.parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {p: getattr(self, p) for p in self._param_names()}

    def set_params(self, **params: Any) -> "Ranker":
        valid = self._param_names()
        for key, value in params.items():
            if key not in valid:
                raise ParamError(f"{self.name}: unknown parameter {key!r}; valid: {', '.join(valid)}")
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # --- shared checks ------------------------------------------------------------------
    @property
    def metric_spec(self) -> MetricSpec:
        try:
            return MetricSpec.parse(self.metric)
        except LtrconvError as exc:
            raise ParamError(f"{self.name}: {exc}") from None

    @staticmethod
    def check_xyq(X, y, qid, what: str = "training") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Validate and return (X float64 2-D, y int64, query offsets)."""
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        qid = np.asarray(qid)
        if X.ndim != 2:
            raise InputError(f"{what} X must be 2-D, got shape {X.shape}")
        if y.ndim != 1 or len(y) != X.shape[0]:
            raise InputError(f"{what} y has {len(y)} labels for {X.shape[0]} rows of X")
        if qid.ndim != 1 or len(qid) != X.shape[0]:
            raise InputError(f"{what} qid has {len(qid)} entries for {X.shape[0]} rows of X")
        if X.shape[0] == 0:
            raise InputError(f"{what} data is empty")
        if not np.all(np.isfinite(X)):
            raise InputError(f"{what} X has non-finite values")
        if not np.all(np.mod(y, 1) == 0) or y.min() < 0:
            raise InputError(f"{what} y must hold non-negative integer labels")
        return X, y.astype(np.int64), offsets_from_qid(qid)

    def _check_fitted(self, X) -> np.ndarray:
        if not getattr(self, "fitted_", False):
            raise LtrconvError(f"{self.name}: predict called before fit")
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features_:
            raise InputError(
                f"{self.name}: X has shape {X.shape}, the model was fitted on {self.n_features_} features"
            )
        return X

    def _prepare(self, X, y, qid, X_val, y_val, qid_val, docid=None, docid_val=None):
        """Checked arrays and scorers for training and validation data."""
        spec = self.metric_spec
        X, y, off = self.check_xyq(X, y, qid, "training")
        if X_val is None:
            X_val, y_val, qid_val, docid_val = X, y, qid, docid
        Xv, yv, offv = self.check_xyq(X_val, y_val, qid_val, "validation")
        if Xv.shape[1] != X.shape[1]:
            raise InputError(f"validation X has {Xv.shape[1]} features, training X {X.shape[1]}")
        top = int(max(y.max(), yv.max()))
        self.n_features_ = X.shape[1]
        train_scorer = NDCGScorer(y, off, spec.convention, spec.k, docid=docid, max_label=top)
        val_scorer = NDCGScorer(yv, offv, spec.convention, spec.k, docid=docid_val, max_label=top)
        return X, y, off, Xv, yv, offv, train_scorer, val_scorer

    # --- persistence ----------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the fitted model to ``path`` as a checked model file (:mod:`ltrconv.modelfile`)."""
        from ..modelfile import write_model

        write_model(path, self)

    def __getstate__(self):
        return self.__dict__.copy()


def load(path: str | Path) -> Ranker:
    """Read a model written by :meth:`Ranker.save`; damaged files are refused unread."""
    from ..modelfile import read_model

    return read_model(path)
