"""The rankers as scikit-learn estimators, for scikit-learn's tools (``clone``, grid search,
``check_is_fitted``, its estimator checks).

One class per ranker, named as it: ``ltrconv.rankers.sklearn.LambdaMART`` subclasses
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
from .adarank import AdaRank as _AdaRank
from .coordinate_ascent import CoordinateAscent as _CoordinateAscent
from .lambdamart import LambdaMART as _LambdaMART
from .lambdamart_lightgbm import LambdaMARTLightGBM as _LambdaMARTLightGBM
from .rankboost import RankBoost as _RankBoost
from .ranknet import RankNet as _RankNet
from .ranknet_adam import RankNetAdam as _RankNetAdam
from .ranksvm import RankSVM as _RankSVM


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


class AdaRank(RankerEstimator, _AdaRank, BaseEstimator):
    __doc__ = _AdaRank.__doc__


class CoordinateAscent(RankerEstimator, _CoordinateAscent, BaseEstimator):
    __doc__ = _CoordinateAscent.__doc__


class LambdaMART(RankerEstimator, _LambdaMART, BaseEstimator):
    __doc__ = _LambdaMART.__doc__


class LambdaMARTLightGBM(RankerEstimator, _LambdaMARTLightGBM, BaseEstimator):
    __doc__ = _LambdaMARTLightGBM.__doc__


class RankBoost(RankerEstimator, _RankBoost, BaseEstimator):
    __doc__ = _RankBoost.__doc__


class RankNet(RankerEstimator, _RankNet, BaseEstimator):
    __doc__ = _RankNet.__doc__


class RankNetAdam(RankerEstimator, _RankNetAdam, BaseEstimator):
    __doc__ = _RankNetAdam.__doc__


class RankSVM(RankerEstimator, _RankSVM, BaseEstimator):
    __doc__ = _RankSVM.__doc__


ESTIMATORS: dict[str, type] = {c.name: c for c in (
    CoordinateAscent, LambdaMART, RankBoost, RankSVM, RankNet, AdaRank, LambdaMARTLightGBM,
    RankNetAdam)}
"""The estimator class of each algorithm a model file can hold, by registry name."""
assert set(ESTIMATORS) == set(registry.KNOWN)


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


__all__ = ["ESTIMATORS", "AdaRank", "CoordinateAscent", "LambdaMART", "LambdaMARTLightGBM",
           "NotFittedModelError", "ParamError", "RankBoost", "RankNet", "RankSVM",
           "RankerEstimator", "as_estimator", "get_class", "load", "make"]
