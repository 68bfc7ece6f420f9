"""Progress of a long fit: silent unless asked; when asked, lines saying where training is,
the best validation score so far and the time left; the model the same either way."""

import pickle

import numpy as np
import pytest

from ltrconv.cli import main
from ltrconv.data.synthetic import make_letor, split, write_letor
from ltrconv.rankers import make, progress

CASES = {
    "ranknet": (dict(architectures=((3,), (4,)), max_epochs=3, random_state=0),
                ["architecture 1 of 2 (3,), epoch 1 of 3", "architecture 2 of 2 (4,), epoch 3 of 3"]),
    "ranknet_adam": (dict(architectures=((3,),), max_epochs=3, patience=5, random_state=0),
                     ["architecture 1 of 1 (3,), epoch 2 of 3"]),
    "rankboost": (dict(n_rounds=4), ["round 1 of 4", "round 4 of 4"]),
    "ranksvm": (dict(C_grid=[0.1, 10.0]), ["C = 0.1 (1 of 2)", "C = 10 (2 of 2)"]),
    "lambdamart": (dict(n_estimators=3, early_stopping_rounds=5), ["tree 3 of at most 3"]),
    "coordinate_ascent": (dict(n_restarts=2, n_steps=3, max_sweeps=1), ["restart 2 of 2"]),
}


@pytest.fixture(scope="module")
def parts():
    data = make_letor(n_queries=30, n_features=5, min_docs=3, max_docs=10, seed=2)
    idx = np.arange(data.n_queries)
    return split(data, idx[:20]), split(data, idx[20:])


@pytest.fixture
def at_once(monkeypatch):
    """Every step reports (no wait before the first line or between lines)."""
    monkeypatch.setattr(progress, "FIRST", 0.0)
    monkeypatch.setattr(progress, "EVERY", 0.0)


def fit(parts, name, **kw):
    tr, va = parts
    return make(name, metric="ndcg@5:yahoo", **CASES[name][0]).fit(
        tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid, **kw)


@pytest.mark.parametrize("name", CASES)
def test_lines_say_where_training_is(parts, name, at_once):
    lines = []
    model = fit(parts, name, verbose=lines.append)
    for where in CASES[name][1]:
        assert any(line.startswith(f"{name}: {where}") for line in lines), (where, lines)
    best = [line for line in lines if "best validation ndcg@5:yahoo " in line]
    assert best, lines
    last = float(best[-1].split("best validation ndcg@5:yahoo ")[1].split(";")[0])
    # the best so far at the last step is the selected model's score (LambdaMART's stops at a
    # float32 mean; RankSVM's and the others' at the float64 the fit keeps)
    assert last == pytest.approx(model.val_score_, abs=5e-5), (last, model.val_score_)
    assert all(" elapsed" in line for line in lines)
    assert any(" left" in line for line in lines[:-1]) or len(lines) == 1, lines
    assert pickle.dumps(model) == pickle.dumps(fit(parts, name)), "verbose changed the model"


@pytest.mark.parametrize("name", CASES)
def test_a_library_fit_is_silent_unless_asked(parts, name, at_once, capsys):
    fit(parts, name)
    fit(parts, name, verbose=False)
    assert capsys.readouterr() == ("", "")
    fit(parts, name, verbose=True)
    err = capsys.readouterr().err
    assert err.startswith(f"{name}: ") and "elapsed" in err, err


def test_fit_many_names_each_metric(parts, at_once):
    tr, va = parts
    lines = []
    make("rankboost", n_rounds=3).fit_many(
        ["ndcg@5:yahoo", "ndcg@3:letor"], tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y,
        qid_val=va.qid, verbose=lines.append)
    assert lines and all("best validation ndcg@5:yahoo " in line and ", ndcg@3:letor " in line
                         for line in lines), lines


def test_time_left_is_the_rate_so_far():
    now = [0.0]
    lines = []
    p = progress.Progress("x", lines.append, clock=lambda: now[0])
    now[0] = 1.0
    p.step(1, 10, lambda: "step 1")
    assert lines == []  # before FIRST seconds
    now[0] = 6.0
    p.step(2, 10, lambda: "step 2", 0.5)
    now[0] = 7.0
    p.step(3, 10, lambda: "step 3")  # within EVERY seconds of the last line
    now[0] = 130.0
    p.step(5, 10, lambda: "step 5")
    assert lines == ["x: step 2; best validation 0.5000; 6 s elapsed, at most 24 s left",
                     "x: step 5; 2 min 10 s elapsed, at most 2 min 10 s left"]


def test_cli_train_progress_and_quiet(tmp_path, capsys, at_once):
    data = make_letor(n_queries=30, n_features=5, seed=4)
    write_letor(data, tmp_path / "train.txt")
    args = ["train", "--algorithm", "rankboost", "--train", tmp_path / "train.txt",
            "--vali", tmp_path / "train.txt", "--param", "n_rounds=3"]
    assert main([str(a) for a in args + ["--out", tmp_path / "a.model"]]) == 0
    err = capsys.readouterr().err
    assert "rankboost: round 3 of 3; best validation ndcg@10:ranklib" in err, err
    assert main([str(a) for a in args + ["--out", tmp_path / "b.model", "--quiet"]]) == 0
    assert "rankboost: round" not in capsys.readouterr().err
    assert (tmp_path / "a.model").read_bytes() == (tmp_path / "b.model").read_bytes()
