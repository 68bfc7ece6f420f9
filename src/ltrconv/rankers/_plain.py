"""Whether this process builds its rankers on plain base classes instead of scikit-learn's
(set by :func:`ltrconv.rankers.use_plain_estimators`, read once by :mod:`ltrconv.rankers.estimator`)."""

requested = False
