"""The rankers as scikit-learn estimators, for scikit-learn's tools (``clone``, grid search,
``check_is_fitted``, its estimator checks).

One class per ranker of :data:`ltrconv.rankers.registry.KNOWN`, made from it and named as its
ranker class: ``ltrconv.rankers.sklearn.LambdaMART`` subclasses
:class:`ltrconv.rankers.lambdamart.LambdaMART` and scikit-learn's ``BaseEstimator``, and adds
nothing to the model: the same parameters, fit, scores and model file. A model file written by
either loads as either (:func:`ltrconv.rankers.load` gives the ranker, :func:`load` here the
estimator). Errors are scikit-learn's too: ``predict`` before ``fit`` raises a
:class:`NotFittedModelError` that is a ``sklearn.exceptions.NotFittedError``, a bad
hyperparameter a :class:`ParamError` that is an ``InvalidParameterError``.

Importing this module imports scikit-learn (about a second); the rankers themselves never do.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Mapping

from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError

from . import base, params, registry


class NotFittedModelError(base.NotFittedModelError, NotFittedError):
    """``predict`` before ``fit``, as scikit-learn's ``NotFittedError``."""


class ParamError(params.ParamError, InvalidParameterError):
    """A bad hyperparameter value or name, as scikit-learn's ``InvalidParameterError``."""


def _sklearn_errors(method):
    """``method`` raising the scikit-learn forms of the rankers' two errors."""

    @functools.wraps(method)
    def wrapped(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except (ParamError, NotFittedModelError):
            raise
        except params.ParamError as exc:
            raise ParamError(str(exc), param=exc.param) from None
        except base.NotFittedModelError as exc:
            raise NotFittedModelError(str(exc)) from None

    return wrapped


class RankerEstimator:
    """What the estimators add to their ranker: scikit-learn's tags and errors."""

    @_sklearn_errors
    def _validate_params(self) -> None:
        super()._validate_params()

    @classmethod
    @_sklearn_errors
    def validate_params(cls, params: Mapping[str, Any]) -> None:
        super().validate_params(params)

    @_sklearn_errors
    def set_params(self, **params: Any):
        return super().set_params(**params)

    @property
    @_sklearn_errors
    def metric_spec(self):
        return super().metric_spec

    @_sklearn_errors
    def predict(self, X):
        return super().predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


def _estimator(algorithm: registry.Algorithm) -> type:
    """The estimator class of a registry entry: its ranker class with :class:`RankerEstimator`
    and ``BaseEstimator``, under the ranker class's name in this module."""
    ranker = algorithm.load_class()
    name = ranker.__name__
    return type(name, (RankerEstimator, ranker, BaseEstimator),
                {"__doc__": ranker.__doc__, "__module__": __name__, "__qualname__": name})


ESTIMATORS: dict[str, type] = {a.name: _estimator(a) for a in registry.KNOWN.values()}
"""The estimator class of each algorithm a model file can hold, by registry name."""
globals().update({cls.__name__: cls for cls in ESTIMATORS.values()})


def get_class(name: str) -> type:
    """The estimator class of algorithm ``name``; an unknown name raises :class:`ParamError`."""
    try:
        return ESTIMATORS[registry.get(name).name]
    except registry.UnknownAlgorithm as exc:
        raise ParamError(str(exc)) from None


def make(name: str, **params: Any):
    """An unfitted estimator by registry name, its parameters validated."""
    cls = get_class(name)
    cls.validate_params(params)
    return cls(**params)


def as_estimator(model: base.Ranker):
    """The estimator holding the (fitted or not) ranker ``model``'s state; an estimator as is."""
    cls = get_class(model.name)
    if isinstance(model, cls):
        return model
    est = cls.__new__(cls)
    est.__dict__.update(model.__dict__)
    return est


def load(path: str | Path):
    """The estimator of a model file (:func:`ltrconv.rankers.load` gives the plain ranker)."""
    return as_estimator(base.load(path))


__all__ = ["ESTIMATORS", "NotFittedModelError", "ParamError", "RankerEstimator", "as_estimator",
           "get_class", "load", "make", *(cls.__name__ for cls in ESTIMATORS.values())]
