"""The rankers' base class, ``get_params`` / ``set_params`` as scikit-learn's ``BaseEstimator``
has them, and their two error bases, with nothing of scikit-learn imported.

Importing scikit-learn takes about a second of CPU (1.9 loads SciPy's statistics and pandas),
more than a LambdaMART fit on an MQ2008 fold, and fitting, predicting and saving a ranker never
needs it. :mod:`ltrconv.rankers.sklearn` subclasses each ranker with scikit-learn's
``BaseEstimator`` for scikit-learn's tools (cloning, grid search, its estimator checks); both read
and write the same model files (:mod:`ltrconv.rankers.modelfile`).
"""

from __future__ import annotations

import inspect


class PlainEstimator:
    """``get_params`` / ``set_params`` of scikit-learn's ``BaseEstimator``: the parameters are
    the keyword-only arguments of ``__init__``."""

    @classmethod
    def _get_param_names(cls) -> list[str]:
        params = inspect.signature(cls.__init__).parameters.values()
        return sorted(p.name for p in params if p.name != "self" and p.kind == p.KEYWORD_ONLY)

    def get_params(self, deep: bool = True) -> dict:
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params) -> "PlainEstimator":
        for name, value in params.items():
            setattr(self, name, value)
        return self

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        """The parameters that differ from their defaults, as scikit-learn prints them."""
        defaults = inspect.signature(type(self).__init__).parameters
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items()
                         if repr(v) != repr(defaults[k].default))
        return f"{type(self).__name__}({args})"


class NotFittedError(ValueError, AttributeError):
    """Using a model before ``fit``: a ValueError and an AttributeError, as scikit-learn's
    ``NotFittedError`` is (:mod:`ltrconv.rankers.sklearn` raises one that is also that)."""


class InvalidParameterError(ValueError, TypeError):
    """A bad hyperparameter: a ValueError and a TypeError, as scikit-learn's
    ``InvalidParameterError`` is (:mod:`ltrconv.rankers.sklearn` raises one that is also that)."""
