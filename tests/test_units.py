"""Independent units (Coordinate Ascent's restarts, RankNet's architectures) fitted apart and
gathered: the same model as the single fit, to the last bit."""

import pickle
import warnings

import numpy as np
import pytest

from ltrconv.data.synthetic import make_letor, split
from ltrconv.errors import InputError
from ltrconv.rankers import load, make
from ltrconv.rankers.coordinate_ascent import CoordinateAscent
from ltrconv.rankers.ranknet import RankNet
from ltrconv.rankers.units import GatherError

CASES = {
    "coordinate_ascent": dict(n_restarts=5, n_steps=20, max_sweeps=6, init="random"),
    "ranknet": dict(architectures=((4,), (6, 3), (3,), (4, 4, 2)), max_epochs=6, patience=2,
                    learning_rate=0.01),
}
SEEDS = (0, 1, 2, 3)


@pytest.fixture(scope="module")
def parts():
    d = make_letor(n_queries=80, n_features=7, min_docs=4, max_docs=20, seed=11)
    idx = np.arange(d.n_queries)
    return split(d, idx[:45]), split(d, idx[45:65]), split(d, idx[65:])


def fit(parts, name, seed, units=None, **extra):
    tr, va, _ = parts
    return make(name, random_state=seed, **{**CASES[name], **extra}).fit(
        tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid, docid=tr.docid,
        docid_val=va.docid, units=units)


def chosen(model):
    return model.best_restart_ if isinstance(model, CoordinateAscent) else model.architecture_


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("seed", SEEDS)
def test_scatter_gather_equals_single_fit(parts, name, seed, tmp_path):
    """One partial per unit, each saved and loaded as a model file, then gathered in shuffled
    order: the same selection, bit-equal test scores, the same pickled model."""
    te = parts[2]
    single = fit(parts, name, seed)
    n = single.n_units()
    paths = []
    for u in range(n):
        part = fit(parts, name, seed, units=[u])
        part.save(tmp_path / f"unit{u}.model")
        paths.append(tmp_path / f"unit{u}.model")
    order = np.random.default_rng(seed).permutation(n)
    gathered = type(single).gather(load(paths[i]) for i in order)
    assert chosen(gathered) == chosen(single)
    assert gathered.val_score_ == single.val_score_
    assert np.array_equal(gathered.predict(te.X), single.predict(te.X))
    assert pickle.dumps(gathered, protocol=5) == pickle.dumps(single, protocol=5)


@pytest.mark.parametrize("name", CASES)
def test_uneven_partials_and_thread_counts(parts, name):
    """Partials of several units each (for Coordinate Ascent one on two threads) gather to the
    single fit, whatever their order."""
    single = fit(parts, name, 7)
    threads = {"n_jobs": 2} if name == "coordinate_ascent" else {}
    groups = [[3, 0], [1, 2]] + ([[4]] if name == "coordinate_ascent" else [])
    partials = [fit(parts, name, 7, units=g, **(threads if i == 0 else {}))
                for i, g in enumerate(groups)]
    assert sorted(partials[0].partial_["units"]) == [0, 3]
    gathered = type(single).gather(partials[::-1])
    assert np.array_equal(gathered.predict(parts[2].X), single.predict(parts[2].X))
    assert not hasattr(gathered, "partial_")


def test_partial_is_the_fit_over_its_units(parts):
    """A partial of every unit is the single fit plus partial_; a partial of one restart selects
    that restart."""
    single = fit(parts, "coordinate_ascent", 4)
    whole = fit(parts, "coordinate_ascent", 4, units=range(5))
    assert np.array_equal(whole.coef_, single.coef_) and whole.history_ == single.history_
    one = fit(parts, "coordinate_ascent", 4, units=[2])
    assert one.best_restart_ == 2 and one.history_ == [single.history_[2]]
    assert np.array_equal(one.coef_, one.partial_["units"][2]["coef"])


def test_ties_keep_the_first_unit(parts):
    """Identical restarts (uniform start, one feature order cannot differ on one feature): the
    first is kept, by the single fit and by gather alike."""
    tr, va, _ = parts
    X, Xv = tr.X[:, :1], va.X[:, :1]
    kw = dict(n_restarts=3, n_steps=5, max_sweeps=2, random_state=0)
    single = CoordinateAscent(**kw).fit(X, tr.y, tr.qid, X_val=Xv, y_val=va.y, qid_val=va.qid)
    assert len(set(single.history_)) == 1 and single.best_restart_ == 0
    parts_ = [CoordinateAscent(**kw).fit(X, tr.y, tr.qid, X_val=Xv, y_val=va.y, qid_val=va.qid,
                                         units=[u]) for u in (2, 1, 0)]
    assert CoordinateAscent.gather(parts_).best_restart_ == 0


def test_gather_refuses_what_is_not_one_fit(parts):
    tr, va, _ = parts
    p0 = fit(parts, "ranknet", 0, units=[0, 1])
    p1 = fit(parts, "ranknet", 0, units=[2, 3])
    with pytest.raises(GatherError, match=r"architectures \[2, 3\]"):
        RankNet.gather([p0])
    with pytest.raises(GatherError, match="architecture 1 is in partial 0 and partial 1"):
        RankNet.gather([p0, fit(parts, "ranknet", 0, units=[1, 2, 3])])
    with pytest.raises(GatherError, match="differs from partial 0 in random_state"):
        RankNet.gather([p0, fit(parts, "ranknet", 1, units=[2, 3])])
    with pytest.raises(GatherError, match="differs from partial 0 in learning_rate"):
        RankNet.gather([p0, fit(parts, "ranknet", 0, units=[2, 3], learning_rate=0.02)])
    other = RankNet(random_state=0, **CASES["ranknet"]).fit(
        tr.X[::-1], tr.y[::-1], tr.qid[::-1], X_val=va.X, y_val=va.y, qid_val=va.qid,
        docid=tr.docid[::-1], docid_val=va.docid, units=[2, 3])
    with pytest.raises(GatherError, match="fitted on other data"):
        RankNet.gather([p0, other])
    with pytest.raises(GatherError, match="not a partial fit"):
        RankNet.gather([p0, fit(parts, "ranknet", 0)])
    with pytest.raises(GatherError, match="is a CoordinateAscent"):
        RankNet.gather([p0, fit(parts, "coordinate_ascent", 0, units=[0])])
    with pytest.raises(GatherError, match="no partial fits"):
        RankNet.gather([])
    assert np.array_equal(RankNet.gather([p1, p0]).predict(va.X),
                          fit(parts, "ranknet", 0).predict(va.X))


@pytest.mark.parametrize("units", [[], [5], [-1], [0, 0], [1.5], ["a"], [True]])
def test_bad_units(parts, units):
    with pytest.raises(InputError, match=r"distinct restart indices in 0\.\.4"):
        fit(parts, "coordinate_ascent", 0, units=units)


def test_partial_needs_an_integer_seed(parts):
    with pytest.raises(InputError, match="integer random_state"):
        fit(parts, "coordinate_ascent", np.random.RandomState(0), units=[0])
    with pytest.raises(InputError, match="integer random_state"):
        fit(parts, "ranknet", None, units=[0])


def test_refit_without_units_drops_the_partial(parts):
    tr = parts[0]
    m = fit(parts, "coordinate_ascent", 0, units=[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(tr.X, tr.y, tr.qid)
    assert not hasattr(m, "partial_") and len(m.history_) == 5


def test_unit_count_by_name():
    from ltrconv.rankers import unit_count
    from ltrconv.rankers.ranknet import PAPER_GRID

    assert unit_count("coordinate_ascent") == 30
    assert unit_count("coordinate_ascent", {"n_restarts": 4}) == 4
    assert unit_count("ranknet") == len(PAPER_GRID) == 12
    assert unit_count("ranknet", {"architectures": [[5], [3, 3]]}) == 2
    assert unit_count("adarank") == unit_count("rankboost", {"n_rounds": 3}) == 0


@pytest.mark.parametrize("name, params", [
    ("ranknet", CASES["ranknet"]),
    ("ranknet_adam", dict(architectures=((4,), (6, 3), (3,), (2,)), max_epochs=6, patience=2)),
])
def test_architectures_in_threads_make_the_same_model_and_file(parts, name, params, tmp_path):
    """RankNet's and ranknet_adam's architectures trained on 1 or 3 threads: every fitted
    attribute equal (weights to the last bit), and the model files the same bytes (a file
    holds n_jobs's default)."""
    tr, va, te = parts
    models = []
    for jobs in (1, 3):
        m = make(name, random_state=5, n_jobs=jobs, **params).fit(
            tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
        m.save(tmp_path / f"{jobs}.model")
        models.append(m)
    one, three = models
    assert three.n_jobs == 3 and one.search_ == three.search_
    assert np.array_equal(one.params_, three.params_)
    assert np.array_equal(one.predict(te.X), three.predict(te.X))
    assert (tmp_path / "1.model").read_bytes() == (tmp_path / "3.model").read_bytes()
    assert load(tmp_path / "3.model").n_jobs == -1


def test_one_failing_architecture_stops_the_others():
    """An error in one architecture's thread reaches the caller, and the architectures running
    beside it stop at their next epoch instead of running to their end."""
    import time

    from ltrconv.rankers import progress
    from ltrconv.rankers.ranknet import UnitTicks, train_architectures

    epochs, ran = 10_000, {}

    def train_one(index, tick):
        for epoch in range(1, epochs + 1):
            if index == 1 and epoch == 3:
                raise ValueError("architecture 1 failed")
            time.sleep(0.001)
            tick(epoch, [])
            ran[index] = epoch
        return [(None, epochs, 0.0, [])]

    units = (0, 1, 2)
    tick = UnitTicks(progress.Progress("test", None), {u: (4,) for u in units}, units, epochs, 0)
    with pytest.raises(ValueError, match="architecture 1 failed"):
        train_architectures(train_one, units, {u: (3, 4, 1) for u in units}, 3, tick)
    # (a thread not started yet when the failure came stops at its first tick)
    assert ran[1] == 2 and max(ran.get(0, 0), ran.get(2, 0)) < epochs, ran


def test_a_model_file_holds_the_default_threads(parts, tmp_path):
    """Coordinate Ascent fitted with n_jobs 1 and 2 writes one file, n_jobs at its default."""
    tr, va, _ = parts
    for jobs in (1, 2):
        make("coordinate_ascent", n_jobs=jobs, **CASES["coordinate_ascent"]).fit(
            tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid).save(
            tmp_path / f"{jobs}.model")
    assert (tmp_path / "1.model").read_bytes() == (tmp_path / "2.model").read_bytes()
    assert load(tmp_path / "1.model").n_jobs == CoordinateAscent().n_jobs


def test_a_ranknet_model_file_written_before_n_jobs_loads(parts, tmp_path, monkeypatch):
    """A RankNet model file of an ltrconv whose RankNet had no n_jobs (the attribute absent
    from the pickle) loads with n_jobs at its default, and predicts as it did."""
    import pickle as pk

    from ltrconv.rankers import modelfile

    tr, va, te = parts
    model = make("ranknet", **CASES["ranknet"]).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y,
                                                    qid_val=va.qid)
    old = RankNet.__new__(RankNet)
    old.__dict__.update({k: v for k, v in model.__dict__.items() if k != "n_jobs"})
    with monkeypatch.context() as m:
        m.setattr(modelfile, "_as_ranker", lambda model: model)  # written without n_jobs
        old.save(tmp_path / "old.model")
    assert b"n_jobs" not in pk.dumps(old)
    loaded = load(tmp_path / "old.model")
    assert loaded.n_jobs == -1 and loaded.get_params()["n_jobs"] == -1
    assert np.array_equal(loaded.predict(te.X), model.predict(te.X))
