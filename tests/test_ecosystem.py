"""The ecosystem's habits: ir_measures' measure objects and ranx's metric names read as the
conventions they are (checked against ir_measures and ranx themselves), a library's LETOR-list
convention on a run, the tidy frame, LightGBM's .query files (checked against LightGBM's own
reading) and RankLib's -score output (checked against RankLib's printed NDCG@10)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import ltrconv
from ltrconv.cli import main
from ltrconv.data.letor import read_letor, read_scores
from ltrconv.data.synthetic import make_letor
from ltrconv.errors import InputError
from ltrconv.evaluation import conventions as C
from ltrconv.evaluation.axes import ConventionError
from ltrconv.evaluation.runs import RunFormWarning
from ltrconv.study.library_check import doc_name


@pytest.fixture(scope="module")
def dicts():
    """Qrels and a run as dicts of dicts: graded judgments, unjudged documents retrieved,
    judged queries the run lacks, and no tied scores. Documents named by ``doc_name``, as
    every ranx test names them: one name width, one compiled ranx."""
    d = make_letor(n_queries=25, min_docs=4, max_docs=30, seed=4)
    rng = np.random.default_rng(2)
    qrels: dict = {}
    run: dict = {}
    scores = rng.permutation(len(d.y)) / len(d.y)
    for i, (q, label) in enumerate(zip(d.qid, d.y)):
        q = f"q{q}"
        if rng.random() < 0.75:
            qrels.setdefault(q, {})[doc_name(i)] = int(label)
        if q not in ("q2", "q5"):
            run.setdefault(q, {})[doc_name(i)] = float(scores[i])
    return qrels, run


# --- ir_measures measure objects -----------------------------------------------------------
def test_ir_measures_objects_are_their_conventions(dicts):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = dicts
    measures = [ir_measures.nDCG @ 10, ir_measures.nDCG(judged_only=True) @ 5]
    res = ltrconv.evaluate_run(qrels, run, conventions=measures)
    assert list(res) == ["ir_measures", "ir_measures-judged"]
    assert res["ir_measures"].columns[:2] == ("NDCG@5", "NDCG@10")  # their cutoffs only
    for measure, name, k in [(measures[0], "ir_measures", 10), (measures[1], "ir_measures-judged", 5)]:
        want = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        got = dict(zip(res[name].qids.tolist(), res[name][f"NDCG@{k}"].tolist()))
        assert set(got) == set(want)
        for q in want:
            assert got[q] == pytest.approx(want[q], abs=1e-12), (name, q)
    # judged_only changes the values here: the mapping is not the same convention twice
    plain = ltrconv.evaluate_run(qrels, run, conventions=["ir_measures"], cutoffs=[5])
    assert not np.allclose(plain["ir_measures"]["NDCG@5"], res["ir_measures-judged"]["NDCG@5"])


def test_ir_measures_tidy_frame_matches_its_own(dicts):
    ir_measures = pytest.importorskip("ir_measures")
    import pandas as pd

    qrels, run = dicts
    res = ltrconv.evaluate_run(qrels, run, conventions=[ir_measures.nDCG @ 10])
    frame = res["ir_measures"].to_frame()
    assert list(frame.columns) == ["query", "convention", "metric", "cutoff", "value"]
    assert str(frame["cutoff"].dtype) == "Int64"
    assert frame["cutoff"].isna().sum() == 2 * len(res["ir_measures"].qids)  # MAP and RR
    ours = frame[(frame.metric == "NDCG") & (frame.cutoff == 10)].set_index("query")["value"]
    theirs = pd.DataFrame(ir_measures.iter_calc([ir_measures.nDCG @ 10], qrels, run))
    theirs = theirs.set_index("query_id")["value"]
    assert sorted(ours.index) == sorted(theirs.index)
    assert np.allclose(ours.loc[theirs.index].to_numpy(), theirs.to_numpy(), atol=1e-12, rtol=0)
    # a group's mean is Evaluation.mean's
    means = frame.groupby(["metric", "cutoff"])["value"].mean()
    assert means[("NDCG", 10)] == pytest.approx(res["ir_measures"].mean()["NDCG@10"], abs=1e-15)
    assert frame[frame.metric == "MAP"]["value"].mean() == \
        pytest.approx(res["ir_measures"].mean()["MAP"], abs=1e-15)


def test_skipped_queries_are_nan_in_the_frame(worked_example):
    y, s, qid, _ = worked_example
    ev = ltrconv.evaluate(y, s, qid, conventions=["ndcg(empty=skip)"], cutoffs=[10])
    [e] = ev.values()
    frame = e.to_frame()
    assert frame[frame["query"] == 3]["value"].isna().all()  # q3 has no relevant document
    assert frame["query"].tolist()[:len(e.columns)] == [1] * len(e.columns)
    got = frame[frame.metric == "NDCG"]["value"].mean()
    assert got == pytest.approx((0.8111 + 0.4934) / 2, abs=1e-4)  # the hand-checked table


def test_compare_takes_the_tools_metrics(dicts):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = dicts
    rng = np.random.default_rng(5)
    other = {q: {d: float(rng.random()) for d in docs} for q, docs in run.items()}
    res = ltrconv.compare({"a": run, "b": other}, qrels=qrels,
                          conventions=[ir_measures.nDCG @ 10, "ranx:ndcg@5"], bootstrap=200)
    assert res.conventions == ("ir_measures", "ranx-run")
    assert set(res.metrics) == {"NDCG@10", "NDCG@5"}
    for name, system in (("a", run), ("b", other)):
        want = ir_measures.calc_aggregate([ir_measures.nDCG @ 10], qrels, system)
        assert res.means["ir_measures", "NDCG@10", name][0] == \
            pytest.approx(want[ir_measures.nDCG @ 10], abs=1e-12)


# --- ranx metric names -----------------------------------------------------------------------
@pytest.mark.parametrize("metric", ["ndcg@10", "ndcg_burges@10", "ndcg@3"])
def test_ranx_names_are_their_conventions(dicts, metric):
    ranx = pytest.importorskip("ranx")
    qrels, run = dicts
    want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metric, make_comparable=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RunFormWarning)  # a metric name is the run's own form
        res = ltrconv.evaluate_run(qrels, run, conventions=[f"ranx:{metric}"])
    [(name, ev)] = res.items()
    k = int(metric.split("@")[1])
    assert ev.columns[0] == f"NDCG@{k}"
    assert ev.mean()[f"NDCG@{k}"] == pytest.approx(want, abs=1e-12)
    if metric.startswith("ndcg@"):
        assert name == "ranx-run"
    else:  # ranx's ndcg_burges on a run: ranx-run with gain 2^l - 1
        assert C.get(name) == C.get("ranx-run").with_(gain="exp")


def test_ranx_names_on_letor_lists(tmp_path, capsys):
    ranx = pytest.importorskip("ranx")
    d = make_letor(n_queries=15, seed=8)
    rng = np.random.default_rng(3)
    s = rng.permutation(d.n_docs) / d.n_docs
    from ltrconv.data.writer import write_letor

    write_letor(d, tmp_path / "d.txt")
    np.savetxt(tmp_path / "s.txt", s, fmt="%.17g")
    qrels = {f"q{q}": {doc_name(i): int(d.y[i]) for i in range(a, b)}
             for q, a, b in zip(d.query_ids, d.offsets[:-1], d.offsets[1:])}
    run = {f"q{q}": {doc_name(i): float(s[i]) for i in range(a, b)}
           for q, a, b in zip(d.query_ids, d.offsets[:-1], d.offsets[1:])}
    assert main(["eval", str(tmp_path / "d.txt"), str(tmp_path / "s.txt"), "-c", "ranx:ndcg@5",
                 "-c", "ranx:ndcg_burges@5", "--metrics", "NDCG", "--format", "tsv"]) == 0
    rows = {r.split("\t")[0]: r.split("\t") for r in capsys.readouterr().out.splitlines()}
    assert rows["convention"] == ["convention", "qid", "NDCG@5"]
    for name, metric in [("ranx", "ndcg@5"), ("ranx-burges", "ndcg_burges@5")]:
        want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metric)
        assert float(rows[name][2]) == pytest.approx(want, abs=1e-6)


@pytest.mark.parametrize("item, message", [
    ("ranx:ndcg", "no cutoff; give one, e.g. ranx:ndcg@10"),
    ("ranx:map@10", "ranx metric 'map' is not a mapped NDCG"),
    ("ranx:ndgc@10", "did you mean ranx:ndcg?"),
    ("pyterrier:ndcg@10", "no metric of tool 'pyterrier' is mapped"),
    ("ndcg@10", "a metric name needs its tool"),
    ("ir_measures:nDCG(dcg='exp-log2')@10", "dcg='exp-log2' map to no built-in convention"),
    ("ir_measures:nDCG(judged_only=1 2)@10", "is not KEY=VALUE with a literal value"),
])
def test_unmapped_names_are_refused(dicts, item, message):
    qrels, run = dicts
    with pytest.raises(ConventionError, match=re.escape(message)):
        ltrconv.evaluate_run(qrels, run, conventions=[item])


def test_unmapped_ir_measures_objects_are_refused(dicts):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = dicts
    for measure, message in [(ir_measures.nDCG, "no cutoff"),
                             (ir_measures.nDCG(dcg="exp-log2") @ 10, "dcg='exp-log2'"),
                             (ir_measures.nDCG(gains={0: 0, 1: 1}) @ 10, "gains="),
                             (ir_measures.P @ 10, "ir_measures metric 'P' is not a mapped NDCG")]:
        with pytest.raises(ConventionError, match=re.escape(message)):
            ltrconv.evaluate_run(qrels, run, conventions=[measure])


def test_eval_command_takes_metric_names(dicts, tmp_path, capsys):
    qrels, run = dicts
    (tmp_path / "q").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                                        for d, g in docs.items()))
    (tmp_path / "r").write_text("".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in run.items()
                                        for d, s in docs.items()))
    assert main(["eval", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"), "-c",
                 "ir_measures:nDCG(judged_only=True)@3", "-c", "ranx:ndcg@7", "--metrics", "NDCG",
                 "--format", "tsv"]) == 0
    rows = [r.split("\t") for r in capsys.readouterr().out.splitlines()]
    assert rows[0] == ["convention", "qid", "NDCG@3", "NDCG@7"]
    assert [r[0] for r in rows[1:]] == ["ir_measures-judged", "ranx-run"]


# --- a library's list convention on a run ------------------------------------------------------
def test_run_forms_come_from_the_registry():
    # every library convention whose package has an IR-tool convention has a run form, which
    # keeps the library's list axes
    for name, lib in C.LIBRARIES.items():
        form = C.run_form(C.get(name))
        has_tool = any(t.package == lib.package for t in C.IR_TOOLS.values())
        assert (form is not None) == has_tool, name
        if form is not None:
            assert C.on_runs(form) and C.list_form(form) == C.get(name)
    assert str(C.run_form(C.get("ranx"))) == "ranx-run"
    assert str(C.run_form(C.get("trec-raw"))) == "pytrec_eval"
    for name in ("ranklib", "trec", "yahoo", "lightgbm", "ranx-run"):
        assert C.run_form(C.get(name)) is None


def test_a_list_convention_on_a_run_warns_once_naming_its_run_form(dicts, capsys, tmp_path):
    qrels, run = dicts
    with pytest.warns(RunFormWarning) as record:
        res = ltrconv.evaluate_run(qrels, run, conventions=["ranx", "ranklib", "ranx"],
                                   cutoffs=[10])
    assert len(record) == 1
    assert "ranx-run" in str(record[0].message) and "ideal=qrels" in str(record[0].message)
    assert set(res) == {"ranx", "ranklib"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ltrconv.evaluate_run(qrels, run, conventions=["ranx", "ranx-run", "ranklib"], cutoffs=[10])
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.5 t\n")
    assert main(["eval", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"), "-c",
                 "ranx", "--cutoffs", "1"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ranx-run" in err[0] and err[0].startswith("ltrconv: warning: ")


# --- LightGBM's .query files -------------------------------------------------------------------
def write_lightgbm(path, y, X) -> None:
    path.write_text("".join(f"{int(label)} " + " ".join(f"{j + 1}:{float(x)!r}"
                                                         for j, x in enumerate(row)) + "\n"
                            for label, row in zip(y, X)))


def test_query_files_read_as_lightgbm_reads_them(tmp_path):
    lgb = pytest.importorskip("lightgbm")
    d = make_letor(n_queries=12, min_docs=2, max_docs=9, seed=6)
    sizes = np.diff(d.offsets)
    path = tmp_path / "train.txt"
    write_lightgbm(path, d.y, d.X)
    (tmp_path / "train.txt.query").write_text("".join(f"{n}\n" for n in sizes))
    theirs = lgb.Dataset(str(path), params={"verbose": -1}).construct()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no docids
        ours = read_letor(path)
    assert np.array_equal(np.diff(ours.offsets), theirs.get_group())
    assert np.array_equal(ours.y, theirs.get_label())
    assert np.array_equal(ours.X, d.X)
    assert ours.qid.tolist() == np.repeat(np.arange(1, len(sizes) + 1), sizes).tolist()
    # XGBoost's name for the same file
    (tmp_path / "train.txt.query").rename(tmp_path / "train.txt.group")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.array_equal(read_letor(path).offsets, ours.offsets)


@pytest.mark.parametrize("sizes, message", [
    ("3\n4\n", "the 2 query sizes add up to 7 rows, but"),
    ("3\nx\n5\n", "train.txt.query:2: expected one query size"),
    ("3\n0\n", "train.txt.query:2: expected one query size (an integer >= 1)"),
    ("", "train.txt.query: no query sizes"),
])
def test_query_sizes_that_do_not_fit_are_refused(tmp_path, capsys, sizes, message):
    from cli_helpers import fails

    rng = np.random.default_rng(0)
    write_lightgbm(tmp_path / "train.txt", rng.integers(0, 3, 10), rng.random((10, 2)))
    (tmp_path / "train.txt.query").write_text(sizes)
    np.savetxt(tmp_path / "s.txt", rng.random(10))
    err = fails(capsys, ["eval", tmp_path / "train.txt", tmp_path / "s.txt"], message)
    assert "train.txt.query" in err


def test_query_sizes_beside_a_file_with_qids_must_agree(tmp_path, capsys):
    from cli_helpers import fails

    (tmp_path / "d.txt").write_text("1 qid:4 1:1\n0 qid:4 1:2\n2 qid:9 1:3\n")
    np.savetxt(tmp_path / "s.txt", [0.1, 0.2, 0.3])
    (tmp_path / "d.txt.query").write_text("1\n2\n")
    fails(capsys, ["eval", tmp_path / "d.txt", tmp_path / "s.txt"],
          "d.txt.query: the query sizes disagree with the qids of")
    (tmp_path / "d.txt.query").write_text("2\n1\n")
    assert main(["eval", str(tmp_path / "d.txt"), str(tmp_path / "s.txt")]) == 0


def test_a_file_without_qids_and_without_sizes_says_where_they_go(tmp_path, capsys):
    from cli_helpers import fails

    (tmp_path / "d.txt").write_text("1 1:1\n0 1:2\n")
    np.savetxt(tmp_path / "s.txt", [0.1, 0.2])
    fails(capsys, ["eval", tmp_path / "d.txt", tmp_path / "s.txt"], "d.txt:1: missing qid")
    err = fails(capsys, ["eval", tmp_path / "d.txt", tmp_path / "s.txt"], "in d.txt.query or")
    assert "d.txt.group)" in err


# --- RankLib's -score output ---------------------------------------------------------------------
def test_ranklib_score_output_gives_ranklibs_printed_ndcg(mq2008_dir, ranklib_fold1, capsys):
    test = mq2008_dir / "Fold1" / "test.txt"
    for algorithm in ("adarank", "rankboost", "lambdamart"):
        path = ranklib_fold1 / f"{algorithm}.test-scores.txt"
        printed = re.search(r"^NDCG@10 on test data: ([0-9.]+)$",
                            (ranklib_fold1 / f"{algorithm}.log").read_text(), flags=re.M).group(1)
        assert main(["eval", str(test), str(path), "-c", "ranklib", "--cutoffs", "10",
                     "--metrics", "NDCG", "--format", "tsv"]) == 0
        row = capsys.readouterr().out.splitlines()[1].split("\t")
        assert row[:2] == ["ranklib", "all"] and f"{float(row[2]):.4f}" == printed
        # the lines are RankLib's file order: the third column, as it stands
        data = read_letor(test)
        assert np.array_equal(read_scores(path, data=data), np.loadtxt(path, usecols=2))


def test_ranklib_score_lines_placed_by_qid_and_index(tmp_path):
    (tmp_path / "d.txt").write_text("1 qid:07 1:1\n0 qid:07 1:2\n2 qid:3 1:3\n0 qid:3 1:1\n"
                                    "1 qid:3 1:0\n")
    data = read_letor(tmp_path / "d.txt", docid_warning=False)
    # any order; qids by their number, as the data reader groups them
    (tmp_path / "s.txt").write_text("3\t2\t0.5\n07\t1\t-1\n3\t0\t2e-1\n7\t0\t4\n3\t1\t9\n")
    assert read_scores(tmp_path / "s.txt", data=data).tolist() == [4, -1, 0.2, 9, 0.5]


@pytest.mark.parametrize("text, message", [
    ("7\t0\t1\n7\t1\t1\n3\t0\t1\n3\t1\t1\n8\t0\t1\n", "s.txt:5: query '8' is not in"),
    ("7\t0\t1\n7\t2\t1\n", "s.txt:2: document '2' of query 7: the query has 2 documents (0..1)"),
    ("7\t0\t1\n7\t0\t2\n", "s.txt:2: document 0 of query 7 is scored again (first on line 1)"),
    ("7\t0\t1\n7\t1\t1\n3\t0\t1\n3\t2\t1\n",
     "s.txt: no score for document 1 of query 3, line 4 of"),
    ("7\t0\t1\n7\t1\tnan\n", "s.txt:2: score 'nan' is not a finite number"),
    ("7\t0\t1\n7\t1\n", "s.txt:2: expected 'QID<TAB>INDEX<TAB>SCORE'"),
    ("x\t0\t1\n", "s.txt:1: query 'x' is not in"),
])
def test_ranklib_score_mismatches_name_the_line(tmp_path, capsys, text, message):
    from cli_helpers import fails

    (tmp_path / "d.txt").write_text("1 qid:7 1:1\n0 qid:7 1:2\n2 qid:3 1:3\n0 qid:3 1:1\n"
                                    "1 qid:3 1:0\n")
    (tmp_path / "s.txt").write_text(text)
    fails(capsys, ["eval", tmp_path / "d.txt", tmp_path / "s.txt", "-c", "ranklib"], message)
    with pytest.raises(InputError, match="needs its data file"):
        read_scores(tmp_path / "s.txt", 5)
