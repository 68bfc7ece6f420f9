"""Rankers whose fit is a set of independent units: fitted apart, gathered into one model.

Coordinate Ascent's restarts and RankNet's architectures each depend only on the data, the
hyperparameters and the seed, never on one another, and the fit keeps the unit with the best
validation score (the first on ties). So they can run as separate jobs:

* ``fit(..., units=[u, ...])`` fits only those units (indices into ``range(n_units())``). The
  result is the model the fit would select among them (it predicts), and it holds every unit's
  fitted state and validation score in ``partial_``, with a digest of the data and the seed.
* ``Class.gather(partials)`` takes partial fits that together hold every unit once, fitted on
  the same data with the same hyperparameters (``n_jobs`` aside: it changes no result), and
  selects exactly as the single fit does. The gathered model equals the single fit's, attribute
  for attribute, so its predictions are the same to the last bit.
"""

from __future__ import annotations

import hashlib
from typing import Iterable, Sequence

import numpy as np

from ..errors import InputError
from .base import Ranker, TrainingData
from .params import RESULT_FREE



class GatherError(InputError):
    """Partial fits that do not make up one fit."""


def _digest(data: TrainingData, docid, docid_val) -> str:
    """SHA-256 of the training and validation arrays a fit saw (with the docids, which order
    tied scores under some conventions)."""
    h = hashlib.sha256()
    arrays = [data.X, data.y, data.offsets, data.X_val, data.y_val, data.offsets_val]
    for ids in (docid, docid_val):
        arrays.append(np.array([], dtype=np.int8) if ids is None else np.asarray(ids).astype(str))
    for a in arrays:
        h.update(f"{a.dtype.str}{a.shape};".encode())
        h.update(np.ascontiguousarray(a).data)
    return h.hexdigest()


class UnitRanker(Ranker):
    """A ranker whose fit runs ``n_units()`` independent units and keeps the best on validation.

    Subclasses implement ``n_units()``, ``_fit_units(datas, units) -> (shared, records)``
    (``records[i]``: the records under ``datas[i]``'s scorers, one per unit in the order of
    ``units``; ``shared`` what every unit's model needs, e.g. the feature scaling; more than one
    ``datas`` only with :attr:`shared_training`) and ``_select(units, shared, records)``, which
    sets the fitted attributes from the records of ``units`` (ascending) as the single fit does.
    """

    unit: str = "unit"  # what one unit is, for messages: "restart", "architecture"

    def n_units(self) -> int:
        """How many units a fit with these hyperparameters runs."""
        raise NotImplementedError

    def fit(self, X, y, qid, *, X_val=None, y_val=None, qid_val=None, docid=None, docid_val=None,
            units: Sequence[int] | None = None, verbose=False):
        """As :meth:`Ranker.fit`; with ``units``, fit only those units (a partial fit, see the
        module docstring). A partial fit needs an integer ``random_state``: every unit must draw
        from the same seed."""
        self.__dict__.pop("n_features_in_", None)
        self.__dict__.pop("partial_", None)
        self._validate_params()
        chosen = None if units is None else self._check_units(units)
        data = self._prepare(X, y, qid, X_val, y_val, qid_val, docid, docid_val, verbose)
        self._fit_shared([self], [data], chosen)
        self.n_features_in_ = data.X.shape[1]
        return self

    def fit_many(self, metrics, X, y, qid, *, units: Sequence[int] | None = None, **kw):
        """:meth:`Ranker.fit_many`; with ``units``, partial fits of those units (see
        :meth:`fit`)."""
        return super().fit_many(metrics, X, y, qid, units=units, **kw)

    def _fit(self, data: TrainingData) -> None:
        self._fit_shared([self], [data])

    def _fit_shared(self, models, datas, units: Sequence[int] | None = None) -> None:
        """Fit ``units`` (all when None) once for ``models``, each selecting on its own
        ``datas[i]``; with ``units``, each model is a partial fit."""
        chosen = tuple(range(self.n_units())) if units is None else self._check_units(units)
        shared, per_model = self._fit_units(datas, chosen)
        seed = self._seed() if units is not None else None  # an integer: every unit's seed
        for model, data, records in zip(models, datas, per_model):
            model._select(chosen, shared, records)
            if units is not None:
                model.partial_ = {"units": dict(zip(chosen, records)), "shared": shared,
                                  "seed": seed,
                                  "data": _digest(data, data.docid, data.docid_val)}

    def _check_units(self, units) -> tuple[int, ...]:
        n = self.n_units()
        rs = self.random_state
        if not isinstance(rs, (int, np.integer)) or isinstance(rs, (bool, np.bool_)):
            raise InputError(f"{self.name}: a fit of some {self.unit}s (units=...) needs an "
                             f"integer random_state, got {rs!r}")
        try:
            chosen = [int(u) for u in units]
            ok = all(int(u) == u and not isinstance(u, (bool, np.bool_)) for u in units)
        except (TypeError, ValueError):
            ok = False
        if not ok or not chosen or len(set(chosen)) < len(chosen) \
                or not all(0 <= u < n for u in chosen):
            raise InputError(f"{self.name}: units must be distinct {self.unit} indices in "
                             f"0..{n - 1}, got {units!r}")
        return tuple(sorted(chosen))

    def _fit_units(self, datas: list[TrainingData],
                   units: tuple[int, ...]) -> tuple[dict, list[list[dict]]]:
        raise NotImplementedError

    def _select(self, units: tuple[int, ...], shared: dict, records: list[dict]) -> None:
        raise NotImplementedError

    @classmethod
    def gather(cls, partials: Iterable["UnitRanker"]) -> "UnitRanker":
        """The model of the single fit from partial fits that hold every unit once (see the
        module docstring); :class:`GatherError` says why partials do not make up one fit."""
        partials = list(partials)
        what = f"{cls.name}: gather"
        if not partials:
            raise GatherError(f"{what}: no partial fits given")
        for i, p in enumerate(partials):
            if type(p) is not cls:
                raise GatherError(f"{what}: partial {i} is a {type(p).__name__}, not a "
                                  f"{cls.__name__}")
            if not hasattr(p, "partial_"):
                raise GatherError(f"{what}: partial {i} is not a partial fit (fit with units=...)")
        first = partials[0]
        params = first.get_params(deep=False)
        for i, p in enumerate(partials[1:], start=1):
            other = p.get_params(deep=False)
            differ = [k for k in params if k not in RESULT_FREE and other[k] != params[k]]
            if differ:
                raise GatherError(f"{what}: partial {i} differs from partial 0 in "
                                  f"{', '.join(differ)}")
            for key, says in (("data", "was fitted on other data"),
                              ("seed", "drew from another seed")):
                if p.partial_[key] != first.partial_[key]:
                    raise GatherError(f"{what}: partial {i} {says} than partial 0")
        records, where = {}, {}
        for i, p in enumerate(partials):
            for u, record in p.partial_["units"].items():
                if u in records:
                    raise GatherError(f"{what}: {cls.unit} {u} is in partial {where[u]} and "
                                      f"partial {i}")
                records[u], where[u] = record, i
        n = first.n_units()
        missing = [u for u in range(n) if u not in records]
        if missing:
            raise GatherError(f"{what}: no partial holds {cls.unit}s {missing} (of 0..{n - 1})")
        model = cls(**params)
        units = tuple(range(n))
        model._select(units, first.partial_["shared"], [records[u] for u in units])
        model.n_features_in_ = first.n_features_in_
        return model
