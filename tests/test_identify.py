"""identify: which conventions reproduce a printed NDCG@k, checked on values the tools printed
themselves (RankLib 2.x's log, trec_eval, LightGBM's evaluation) and on the hand-checked worked
example."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ltrconv
from ltrconv.cli import main
from ltrconv.data.synthetic import make_letor
from ltrconv.errors import LtrconvError
from ltrconv.evaluation import axes
from ltrconv.evaluation.identify import SEARCHED, Facts, Reported, changed, space
from cli_helpers import trec_eval_binary


def named(result) -> list[str]:
    return [str(m.convention) for m in result.named]


def write_letor_text(path: Path, y, qid, s=None, docid=None) -> None:
    lines = [f"{int(l)} qid:{q} 1:{i % 7}" + (f" #docid = {docid[i]}" if docid is not None else "")
             for i, (l, q) in enumerate(zip(y, qid))]
    path.write_text("\n".join(lines) + "\n")


# --- the printed value ------------------------------------------------------------------------
@pytest.mark.parametrize("text, value, tolerance", [
    ("0.4812", 0.4812, 5e-5), ("4.812e-1", 0.4812, 5e-5), ("48.12%", 0.4812, 5e-5),
    ("0.48", 0.48, 5e-3), ("1", 1.0, 0.5), (".5", 0.5, 0.05), ("0.481200", 0.4812, 5e-7)])
def test_the_printed_digits_set_the_tolerance(text, value, tolerance):
    r = Reported.parse(text)
    assert r.value == pytest.approx(value, abs=1e-15)
    assert r.tolerance == pytest.approx(tolerance, rel=1e-12)
    assert r.matches(value + tolerance) and r.matches(value - tolerance)  # the bound counts
    assert not r.matches(value + 1.001 * tolerance)


@pytest.mark.parametrize("text, message", [("abc", "expected a number as printed"),
                                           ("-0.1", "expected a number"),
                                           ("48.12", "at most 1; for a percentage"),
                                           ("nan", "expected a number")])
def test_a_value_that_is_no_printed_ndcg_is_refused(text, message):
    with pytest.raises(LtrconvError, match=message):
        Reported.parse(text)


def test_every_declared_axis_has_its_searched_values():
    assert set(SEARCHED) == set(axes.NAMES)
    for facts in (Facts("list"), Facts("run", True, True, True)):
        for name, values in SEARCHED.items():
            for v in values(facts):  # each value is one the axis accepts
                axes.check({name: v})


def test_the_space_runs_from_the_defaults_outwards():
    pts = space(Facts("list"))
    assert len(pts) == len(set(pts))
    assert changed(pts[0]) == ()  # ranklib
    counts = [len(changed(p)) for p in pts]
    assert counts == sorted(counts)
    # on LETOR lists no run axis moves; on a run each of them does somewhere
    assert not any(set(changed(p)) & {"ideal", "unjudged", "missing", "duplicates"} for p in pts)
    run = space(Facts("run"))
    assert {a for p in run for a in changed(p)} >= {"ideal", "unjudged", "missing"}
    # gain x disc x empty x short x (ties x scores, less docid-desc with float64) x ideal ...
    ties = len(axes.BY_NAME["ties"].choices)
    assert len(pts) == 2 * 3 * 4 * 2 * (2 * ties - 1)
    assert len(run) == len(pts) * 8


# --- the worked example (docs/STUDY: q1, q2, q3 by hand) ----------------------------------------
@pytest.fixture
def example(worked_example, tmp_path):
    y, s, qid, docid = worked_example
    write_letor_text(tmp_path / "d.txt", y, qid, docid=docid)
    np.savetxt(tmp_path / "s.txt", s)
    return tmp_path / "d.txt", tmp_path / "s.txt"


@pytest.mark.parametrize("printed, want, not_want", [
    # NDCG@10 of the hand-checked table: ranklib (0.8111 + 0.4934 + 0) / 3, yahoo with q3 = 1,
    # letor (0.6901 + 0 + 0) / 3
    (f"{(0.8111 + 0.4934) / 3:.3f}", {"ranklib"}, {"yahoo", "letor", "trec"}),
    (f"{(0.8111 + 0.4934 + 1) / 3:.3f}", {"yahoo", "lightgbm"}, {"ranklib", "letor"}),
    (f"{0.6901 / 3:.3f}", {"letor"}, {"ranklib", "yahoo"}),
    (f"{(0.8450 + 0.4934) / 3:.3f}", {"trec"}, {"ranklib", "yahoo", "letor"}),
])
def test_the_worked_example(example, printed, want, not_want):
    res = ltrconv.identify(printed, *example, metric="ndcg@10")
    assert want <= set(named(res)), (printed, named(res))
    assert not (not_want & set(named(res))), (printed, named(res))
    assert abs(res.closest.difference) <= res.reported.tolerance


def test_a_point_of_the_space_is_listed_only_where_each_of_its_axes_matters(example):
    # yahoo-half (empty 0.5) is named; the same NDCG@10 with docid ties is a point, the trec tie
    # order being the only one that changes q1 at k = 10
    d, s = example
    value = (0.8450 + 0.4934 + 0.5) / 3
    res = ltrconv.identify(f"{value:.4f}", d, s)
    changes = [m.changes for m in res.points]
    assert {"empty": "0.5", "ties": "docid-desc"} in changes, changes
    for m in res.points:
        for a in changed(m.convention):  # put back, the axis changes some query
            back = m.convention.with_(**{a: axes.DEFAULTS[a]})
            ev = ltrconv.evaluate_dataset(ltrconv.read_letor(d), np.loadtxt(s),
                                          conventions=[m.convention, back], cutoffs=[10],
                                          metrics=["NDCG"])
            first, second = (e["NDCG@10"] for e in ev.values())
            assert not np.array_equal(first, second, equal_nan=True), (m.changes, a)


def test_nothing_matches(example, capsys):
    d, s = example
    res = ltrconv.identify("0.0123", d, s)
    assert not res.matches and res.closest is not None
    assert main(["identify", "0.0123", str(d), str(s)]) == 1
    out = capsys.readouterr().out
    assert "no convention reproduces it" in out and "closest:" in out
    assert main(["identify", "0.0123", str(d), str(s), "--format", "json"]) == 1
    j = json.loads(capsys.readouterr().out)
    assert j["matches"] == [] and j["closest"]["convention"]
    assert j["closest"]["value"] == pytest.approx(res.closest.value)


@pytest.mark.parametrize("args, message", [
    (["0.5"], "needs VALUE with DATA and SCORES"),
    (["0.5", "D"], "needs VALUE with DATA and SCORES"),
    (["0.5", "D", "S", "--qrels", "Q", "--run", "R"], "needs VALUE with DATA and SCORES"),
    (["0.5", "D", "S", "--metric", "P@10"], "identify reads NDCG@k"),
    (["2.5", "D", "S"], "NDCG is at most 1"),
    (["0.5", "D", "S", "--limit", "-1"], "--limit -1"),
])
def test_identify_errors(example, capsys, args, message):
    from cli_helpers import fails

    d, s = example
    fails(capsys, ["identify", *[{"D": d, "S": s}.get(a, a) for a in args]], message)


# --- RankLib 2.x's own printed NDCG@10 -----------------------------------------------------------
def ranklib_printed(log: Path) -> str:
    return re.search(r"^NDCG@10 on test data: ([0-9.]+)$", log.read_text(), flags=re.M).group(1)


@pytest.mark.parametrize("algorithm", ["adarank", "rankboost", "lambdamart"])
def test_ranklib_printed_value_is_ranklib_not_yahoo(mq2008_dir, ranklib_fold1, algorithm,
                                                    capsys):
    scores = ranklib_fold1 / f"{algorithm}.test-scores.txt"  # RankLib's -score output
    printed = ranklib_printed(ranklib_fold1 / f"{algorithm}.log")
    test = mq2008_dir / "Fold1" / "test.txt"
    res = ltrconv.identify(printed, test, scores)
    names = named(res)
    assert "ranklib" in names and "yahoo" not in names and "letor" not in names
    # trec breaks ties by docid: the same NDCG@10 as ranklib on AdaRank's scores, but not on
    # LambdaMART's and RankBoost's, where tied scores meet relevance differences
    assert ("trec" in names) == (algorithm == "adarank"), names
    assert main(["identify", printed, str(test), str(scores), "--format", "json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert [m["convention"] for m in j["matches"]][:len(names)] == names


# --- trec_eval's printed value -----------------------------------------------------------------
@pytest.fixture(scope="module")
def trec_files(tmp_path_factory):
    """Qrels and a run with tied scores, unjudged documents and judged queries the run lacks."""
    d = make_letor(n_queries=30, min_docs=4, max_docs=25, seed=5)
    rng = np.random.default_rng(11)
    tmp = tmp_path_factory.mktemp("identify-trec")
    qrels, run = [], []
    for i, (q, label) in enumerate(zip(d.qid, d.y)):
        judged = rng.random() < 0.8
        if judged:
            qrels.append(f"{q} 0 D{i:05d} {int(label)}\n")
        if int(q) % 7 != 3:  # queries 3, 10, ... are in the qrels only
            run.append(f"{q} Q0 D{i:05d} 0 {round(float(d.X[i, 0]), 1)!r} t\n")
    (tmp / "qrels").write_text("".join(qrels))
    (tmp / "run").write_text("".join(run))
    return tmp / "qrels", tmp / "run"


def trec_eval_all(files, *extra) -> str:
    out = subprocess.run([str(trec_eval_binary()), *extra, "-m", "ndcg_cut.10", *map(str, files)],
                         check=True, capture_output=True, text=True).stdout
    return next(ln.split()[2] for ln in out.splitlines() if ln.split()[:2] == ["ndcg_cut_10", "all"])


def test_trec_eval_printed_value(trec_files):
    plain, counted = trec_eval_all(trec_files), trec_eval_all(trec_files, "-c")
    assert abs(float(plain) - float(counted)) > 1e-3  # -c counts the queries the run lacks
    res = ltrconv.identify(plain, qrels=trec_files[0], run=trec_files[1])
    names = named(res)
    assert {"trec_eval", "pytrec_eval"} <= set(names)
    assert not {"trec_eval-c", "ir_measures", "ranx-run"} & set(names), names
    names_c = named(ltrconv.identify(counted, qrels=trec_files[0], run=trec_files[1]))
    assert {"trec_eval-c", "ir_measures"} <= set(names_c)
    assert "trec_eval" not in names_c


def test_a_run_that_some_conventions_refuse(tmp_path):
    # a negative grade (refused by the default reading) and a docid retrieved twice (refused
    # by trec_eval): the space reads them as the tools do, and the refusals are said
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b -1\n1 0 c 1\n2 0 x 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.2 t\n1 Q0 b 2 0.9 t\n1 Q0 a 3 0.95 t\n2 Q0 x 1 1 t\n")
    value = ltrconv.evaluate_run(tmp_path / "q", tmp_path / "r", conventions=["ir_measures"],
                                 cutoffs=[3])["ir_measures"].mean()["NDCG@3"]
    res = ltrconv.identify(f"{value:.4f}", qrels=tmp_path / "q", run=tmp_path / "r",
                           metric="ndcg@3")
    assert "ir_measures" in named(res)
    assert "ranklib" in res.refused and "trec_eval" in res.refused
    assert all(m.convention.duplicates != "refuse" and m.convention.negative != "refuse"
               for m in res.points)


# --- LightGBM's own evaluation -------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::ltrconv.data.letor.DocidWarning")  # LightGBM's has no docids
def test_lightgbm_printed_value_in_its_own_file_format(tmp_path, capsys):
    lgb = pytest.importorskip("lightgbm")
    d = make_letor(n_queries=40, min_docs=3, max_docs=15, empty_share=0.3, seed=9)
    train = lgb.Dataset(d.X, d.y, group=np.diff(d.offsets), params={"verbose": -1})
    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": [10], "verbose": -1,
              "num_threads": 1, "seed": 0, "deterministic": True, "min_data_in_leaf": 5}
    booster = lgb.train(params, train, num_boost_round=5, keep_training_booster=True)
    [(_, metric, value, _)] = booster.eval_train()
    assert metric == "ndcg@10"
    printed = f"{value:g}"  # as lightgbm.log_evaluation prints it
    # the data as LightGBM keeps it: svmlight lines without qid, the query sizes in .query
    path = tmp_path / "train.txt"
    path.write_text("".join(f"{int(l)} " + " ".join(f"{j + 1}:{float(x)!r}" for j, x in enumerate(row))
                            + "\n" for l, row in zip(d.y, d.X)))
    (tmp_path / "train.txt.query").write_text("".join(f"{n}\n" for n in np.diff(d.offsets)))
    np.savetxt(tmp_path / "s.txt", booster.predict(d.X), fmt="%.17g")
    res = ltrconv.identify(printed, path, tmp_path / "s.txt")
    names = named(res)
    assert "lightgbm" in names and "ranklib" not in names, (printed, names)
    assert main(["identify", printed, str(path), str(tmp_path / "s.txt")]) == 0
    assert "lightgbm" in capsys.readouterr().out
