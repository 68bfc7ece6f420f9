"""What the rankers take from scikit-learn: ``BaseEstimator``, ``NotFittedError`` and
``InvalidParameterError``, or plain stand-ins for them in the ``ltrconv`` command.

Importing scikit-learn takes about a second of CPU (1.9 loads SciPy's statistics and pandas),
more than a LambdaMART fit on an MQ2008 fold. The ``ltrconv`` command never hands a ranker to
scikit-learn, so before it imports any ranker it calls
:func:`ltrconv.rankers.use_plain_estimators`, and its rankers are built on
:class:`PlainEstimator`, which has the same ``get_params`` / ``set_params`` and pickles to the
same bytes (scikit-learn adds nothing to the state of an estimator outside its own package).
The pipeline does the same, in Snakemake's process (which checks the config) and in its jobs.
Everywhere else (``import ltrconv.rankers`` in Python) they are scikit-learn estimators.

The choice is made once per process, when this module is first imported;
``use_plain_estimators`` after that changes nothing and returns False.
"""

from __future__ import annotations

import inspect

from . import _plain


class PlainEstimator:
    """``get_params`` / ``set_params`` of scikit-learn's ``BaseEstimator``, nothing imported:
    the parameters are the keyword arguments of ``__init__``."""

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


class PlainNotFittedError(ValueError, AttributeError):
    """scikit-learn's ``NotFittedError`` (a ValueError and an AttributeError) without it."""


class PlainInvalidParameterError(ValueError, TypeError):
    """scikit-learn's ``InvalidParameterError`` (a ValueError and a TypeError) without it."""


def _bases():
    if _plain.requested:
        return PlainEstimator, PlainNotFittedError, PlainInvalidParameterError
    from sklearn.base import BaseEstimator
    from sklearn.exceptions import NotFittedError
    from sklearn.utils._param_validation import InvalidParameterError

    return BaseEstimator, NotFittedError, InvalidParameterError


BaseEstimator, NotFittedError, InvalidParameterError = _bases()
