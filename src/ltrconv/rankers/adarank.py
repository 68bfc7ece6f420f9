"""AdaRank (Xu & Li 2007) with single-feature weak rankers, boosting NDCG@k under a convention.

Round t picks the feature ``h_t`` maximising ``sum_q P_q m_q(h_t)``, where ``m_q(h)`` is the
training NDCG@k of query q ranked by feature value (a table computed once: it does not depend
on ``P``), adds it to the ensemble ``f_t = f_{t-1} + alpha_t h_t`` with

    alpha_t = 0.5 ln( sum_q P_q (1 + m_q(h_t)) / sum_q P_q (1 - m_q(h_t)) ),

and re-weights the queries, with ``weighting``:

* ``"cumulative"`` (RankLib 2.x, the implementation the study used):
  ``P_q <- P_q exp(-alpha_t m_q(f_t)) / Z``;
* ``"ensemble"`` (the formula of Xu & Li): ``P_q = exp(-m_q(f_t)) / Z``.

Queries whose NDCG the convention fixes (no relevant document, or fewer than k documents under
``letor``) have a constant ``m_q``: they never change which feature wins and enter ``alpha_t``
only through their share of ``P``.

Stopping follows RankLib 2.x: at most ``n_rounds`` rounds; stop (dropping the round) when the
mean training NDCG falls by ``tolerance`` or more. With ``enqueue`` (RankLib's default), a
first phase forbids repeats: a feature chosen twice in a row has its previous round undone and
is benched; benched features then return one at a time (last benched first), each followed by
boosting under the second rule. Second rule: a feature chosen ``max_consecutive`` times in a
row sits out until another feature is chosen. The kept ensemble is that of the round with the
best validation NDCG (same metric; earliest round on ties) among the rounds after the last
undo: as in RankLib, an undo forgets the validation record, so neither the undone round nor
those before it are selected unless no round follows. ``history_`` holds the validation NDCG
after every round, undone ones included (their 1-based numbers are in ``undone_``);
``best_iteration_`` indexes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .base import ParamError, Ranker
from .linear_objective import LinearObjective, linear_scores

_MIN_DENOM = 1e-12
WEIGHTINGS = ("cumulative", "ensemble")


@dataclass
class _State:
    w: np.ndarray
    P: np.ndarray
    train: float = 0.0
    last: int = -1
    run: int = 0
    undo: tuple | None = None
    benched: list = field(default_factory=list)


class AdaRank(Ranker):
    """Listwise boosting of single features; the ensemble is a linear model ``coef_``."""

    name = "adarank"

    def __init__(self, metric: str = "ndcg@10:ranklib", n_rounds: int = 500,
                 tolerance: float = 0.002, max_consecutive: int = 5, enqueue: bool = True,
                 weighting: str = "cumulative", random_state: int = 0):
        self.metric = metric
        self.n_rounds = n_rounds
        self.tolerance = tolerance
        self.max_consecutive = max_consecutive
        self.enqueue = enqueue
        self.weighting = weighting
        self.random_state = random_state

    def _check_params(self) -> None:
        for name in ("n_rounds", "max_consecutive"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ParamError(f"{self.name}: {name} must be an integer >= 1, got {v!r}")
        t = self.tolerance
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not np.isfinite(t) or t < 0:
            raise ParamError(f"{self.name}: tolerance must be a finite number >= 0, got {t!r}")
        if not isinstance(self.enqueue, bool):
            raise ParamError(f"{self.name}: enqueue must be True or False, got {self.enqueue!r}")
        if self.weighting not in WEIGHTINGS:
            raise ParamError(f"{self.name}: weighting must be one of {WEIGHTINGS}, got {self.weighting!r}")
        rs = self.random_state
        if isinstance(rs, bool) or not isinstance(rs, (int, np.integer)) or rs < 0:
            raise ParamError(f"{self.name}: random_state must be an integer >= 0, got {rs!r}")

    def fit(self, X, y, qid, *, X_val=None, y_val=None, qid_val=None, docid=None, docid_val=None):
        self._check_params()
        X, y, off, Xv, yv, offv, train_scorer, val_scorer = self._prepare(
            X, y, qid, X_val, y_val, qid_val, docid, docid_val)
        self._obj, self._val_obj = LinearObjective(train_scorer), LinearObjective(val_scorer)
        self._X, self._Xv = np.ascontiguousarray(X), np.ascontiguousarray(Xv)
        n_features = X.shape[1]
        # m[f, q]: NDCG of query q ranked by feature f alone.
        self._m = np.array([self._obj.per_query(np.ascontiguousarray(X[:, f]))
                            for f in range(n_features)])
        nq = self._obj.n_queries
        st = _State(w=np.zeros(n_features), P=np.full(nq, 1.0 / nq))
        self._best, self._floor = (st.w.copy(), -np.inf, 0), -np.inf
        self.history_, self.train_history_, self.features_, self.alphas_ = [], [], [], []
        self.undone_ = []
        t = self._boost(st, 0, self.enqueue)
        while st.benched:
            st.benched.pop()
            t = self._boost(st, t, False)
        self.coef_, self.val_score_, self.best_iteration_ = self._best
        self.n_rounds_ = t
        for attr in ("_obj", "_val_obj", "_X", "_Xv", "_m", "_best", "_floor"):
            delattr(self, attr)
        self.fitted_ = True
        return self

    def _boost(self, st: _State, t: int, enqueue: bool) -> int:
        """Boosting from round t + 1 until a stop rule fires; returns the rounds used so far."""
        m = self._m
        while t < self.n_rounds:
            t += 1
            weighted = m @ st.P
            weighted[st.benched] = -np.inf
            if st.run >= self.max_consecutive:
                weighted[st.last] = -np.inf
            f = int(np.argmax(weighted))
            if not np.isfinite(weighted[f]):
                break
            if enqueue and f == st.last:
                st.benched.append(f)
                st.w, st.P, st.train = st.undo
                st.last, st.run = -1, 0
                self.undone_.append(len(self.history_))
                self._floor = -np.inf
                continue
            num = st.P @ (1.0 + m[f])
            den = max(st.P @ (1.0 - m[f]), _MIN_DENOM)
            alpha = 0.5 * np.log(num / den)
            w = st.w.copy()
            w[f] += alpha
            per_q = self._obj.per_query(linear_scores(self._X, w))
            train = float(per_q.mean())
            if train + self.tolerance - st.train <= 0.0:
                break
            st.undo = (st.w, st.P, st.train)
            st.run = st.run + 1 if f == st.last else 1
            st.w, st.train, st.last = w, train, f
            if self.weighting == "cumulative":
                P = st.P * np.exp(-alpha * per_q)
            else:
                P = np.exp(-per_q)
            st.P = P / P.sum()
            val = self._val_obj.mean(linear_scores(self._Xv, w))
            self.history_.append(val)
            self.train_history_.append(train)
            self.features_.append(f)
            self.alphas_.append(float(alpha))
            if val > self._floor:
                self._best, self._floor = (w.copy(), val, len(self.history_)), val
        return t

    def predict(self, X) -> np.ndarray:
        X = self._check_fitted(X)
        return linear_scores(np.ascontiguousarray(X), self.coef_)
