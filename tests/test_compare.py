"""ltrconv compare: systems compared under several conventions, each statistic held to an
independent truth (scipy.stats, statsmodels' multipletests, enumeration of every sign flip,
a bootstrap's coverage of a known mean), and the verdicts that flip explained."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
import scipy.stats as st

import ltrconv
import ltrconv.errors
from ltrconv.cli import main
from ltrconv.data.letor import Dataset
from ltrconv.data.synthetic import make_letor, write_letor
from ltrconv.evaluation import conventions as C
from ltrconv.evaluation.explain import explain
from ltrconv.evaluation.metrics import evaluate_dataset
from ltrconv.study import stats
from ltrconv.study.compare import COLUMNS

from cli_helpers import fails

multipletests = pytest.importorskip(
    "statsmodels.stats.multitest", reason='statsmodels is not installed: pip install -e ".[test]"'
).multipletests


# --- the statistics against their references ------------------------------------------------


@pytest.mark.parametrize("n", [6, 13, 30, 50])
def test_wilcoxon_exact_matches_scipy(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        d = rng.normal(0.3, 1.0, n)  # no zero, no tied magnitude: the exact distribution
        w_plus, p, how = stats.wilcoxon(d)
        ref = st.wilcoxon(d, method="exact")
        assert how == "exact"
        assert min(w_plus, n * (n + 1) / 2 - w_plus) == ref.statistic
        assert p == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("n", [20, 51, 157, 600])
def test_wilcoxon_normal_approximation_matches_scipy(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        d = np.round(rng.normal(0.1, 1.0, n), 1)  # tied magnitudes
        d[::7] = 0.0  # and zeros, which the test drops
        w_plus, p, how = stats.wilcoxon(d)
        ref = st.wilcoxon(d, method="asymptotic", correction=False, zero_method="wilcox")
        assert how == "normal"
        nz = np.count_nonzero(d)
        assert min(w_plus, nz * (nz + 1) / 2 - w_plus) == pytest.approx(ref.statistic)
        assert p == pytest.approx(ref.pvalue, rel=1e-9)


def test_wilcoxon_of_no_difference_is_nan():
    assert all(math.isnan(x) for x in stats.wilcoxon(np.zeros(9))[:2])


def _random_pvalues(seed: int, m: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, m) ** 3  # many small ones
    p[rng.integers(0, m, m // 5)] = p[0]  # ties
    return p


@pytest.mark.parametrize("ours, theirs", [("holm", "holm"), ("bonferroni", "bonferroni"),
                                          ("bh", "fdr_bh")])
@pytest.mark.parametrize("seed, m", [(0, 1), (1, 7), (2, 60), (3, 500)])
def test_corrections_match_statsmodels(ours, theirs, seed, m):
    p = _random_pvalues(seed, m)
    got = stats.CORRECTIONS[ours](p)
    assert got == pytest.approx(multipletests(p, method=theirs)[1], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("ours, theirs", [("holm", "holm"), ("bonferroni", "bonferroni"),
                                          ("bh", "fdr_bh")])
def test_a_nan_p_stays_out_of_the_family(ours, theirs):
    p = _random_pvalues(4, 20)
    with_nan = p.copy()
    with_nan[[3, 11]] = np.nan
    got = stats.CORRECTIONS[ours](with_nan)
    assert np.isnan(got[[3, 11]]).all()
    keep = ~np.isnan(with_nan)
    assert got[keep] == pytest.approx(multipletests(with_nan[keep], method=theirs)[1], rel=1e-12)


def _enumerated(d: np.ndarray) -> float:
    """The two-sided randomization p over every one of the 2^n sign vectors."""
    obs = abs(d.sum())
    hits = sum(abs(np.dot(s, d)) >= obs - 1e-12 for s in itertools.product((1, -1), repeat=len(d)))
    return hits / 2 ** len(d)


@pytest.mark.parametrize("seed", range(4))
def test_randomization_enumerates_every_flip_when_they_are_few(seed):
    rng = np.random.default_rng(seed)
    d = np.round(rng.normal(0.2, 1, (11, 3)), 2)  # ties among |sum|s: the >= must hold
    d[0, 2] = 0.0
    p, exact = stats.randomization(d, permutations=2 ** 11, seed=0)
    assert exact
    assert p.tolist() == [_enumerated(d[:, j]) for j in range(3)]


@pytest.mark.parametrize("seed", range(3))
def test_randomization_drawn_flips_approach_the_enumeration(seed):
    rng = np.random.default_rng(10 + seed)
    d = rng.normal(0.4, 1, (15, 2))
    B = 20_000
    p, exact = stats.randomization(d, permutations=B, seed=seed)
    assert not exact
    for j in range(2):
        truth = _enumerated(d[:, j])
        tol = 4 * math.sqrt(truth * (1 - truth) / B) + 2 / B
        assert abs(p[j] - truth) <= tol, (p[j], truth)
        assert p[j] >= 1 / (B + 1)
    again, _ = stats.randomization(d, permutations=B, seed=seed)
    assert again.tolist() == p.tolist()  # seeded


def test_bootstrap_intervals_cover_a_known_mean():
    """100 data sets of 157 per-query values (MQ2008's fold size) from Beta(2, 5), whose mean
    is 2/7: at least 93 of the 100 nominal-95% intervals hold it."""
    truth = 2 / 7
    covered = 0
    for seed in range(100):
        values = np.random.default_rng(1000 + seed).beta(2, 5, 157)
        low, high = stats.bootstrap_intervals(values, resamples=2000, seed=seed)
        covered += bool(low[0] <= truth <= high[0])
    assert covered >= 93, covered


def test_bootstrap_resamples_every_column_alike():
    """The columns are resampled together: a column that is another plus a constant has its
    interval moved by the constant, and a difference column's interval is that of the
    difference, not of two separate draws."""
    v = np.random.default_rng(0).random(80)
    low, high = stats.bootstrap_intervals(np.column_stack([v, v + 0.5, 2 * v]), 500, 3)
    assert low[1] == pytest.approx(low[0] + 0.5) and high[1] == pytest.approx(high[0] + 0.5)
    assert low[2] == pytest.approx(2 * low[0]) and high[2] == pytest.approx(2 * high[0])


# --- compare on a LETOR file -----------------------------------------------------------------


@pytest.fixture(scope="module")
def letor(tmp_path_factory):
    d = tmp_path_factory.mktemp("compare")
    data = make_letor(n_queries=60, seed=5)
    write_letor(data, d / "data.txt")
    rng = np.random.default_rng(1)
    good = data.X[:, :3].sum(axis=1)
    scores = {"good": good, "noisy": good + rng.normal(0, 0.6, data.n_docs),
              "random": rng.random(data.n_docs)}
    for name, s in scores.items():
        np.savetxt(d / f"{name}.txt", s)
    return d, Dataset.load(d / "data.txt", features=False, docid_warning=False), scores


def _values(data, scores, conv, metric="NDCG@10"):
    ev = evaluate_dataset(data, scores, conventions=[conv], cutoffs=[10])[conv]
    keep = np.ones(len(ev.qids), bool) if ev.skipped is None else ~ev.skipped
    return np.asarray(ev[metric])[keep]


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_rows_match_scipy_and_statsmodels(letor, test):
    d, data, scores = letor
    res = ltrconv.compare({n: d / f"{n}.txt" for n in scores}, data=d / "data.txt", test=test,
                          bootstrap=200)
    assert res.conventions == C.PAPER_TOOLS and len(res.rows) == 3 * 4
    ps = []
    for r in res.rows:
        a = _values(data, scores[r["a"]], r["convention"])
        b = _values(data, scores[r["b"]], r["convention"])
        assert r["n"] == len(a) and r["mean_a"] == pytest.approx(a.mean())
        assert r["diff"] == pytest.approx((a - b).mean())
        assert r["effect"] == pytest.approx((a - b).mean() / (a - b).std(ddof=1))
        ref = st.ttest_rel(a, b) if test == "t" else st.wilcoxon(a, b, method="asymptotic",
                                                                  correction=False)
        assert r["p"] == pytest.approx(ref.pvalue, rel=1e-9)
        ps.append(r["p"])
    adjusted = multipletests(ps, method="holm")[1]
    assert [r["p_adjusted"] for r in res.rows] == pytest.approx(adjusted, rel=1e-12)
    assert {r["family_size"] for r in res.rows} == {12}
    for r in res.rows:
        want = "tie" if r["p_adjusted"] >= 0.05 else ("a" if r["diff"] > 0 else "b")
        assert r["verdict"] == want
    assert res.row("ranklib", "NDCG@10", "good", "random")["verdict"] == "a"


def test_baseline_and_wilcoxon_and_bh(letor):
    d, _, scores = letor
    res = ltrconv.compare([d / f"{n}.txt" for n in scores], data=d / "data.txt",
                          baseline="random", correction="bh", conventions=["ranklib"],
                          metrics=["NDCG@10", "map"], bootstrap=100)
    assert res.pairs == (("good", "random"), ("noisy", "random"))
    assert res.metrics == ("NDCG@10", "MAP")
    ps = [r["p"] for r in res.rows]
    assert [r["p_adjusted"] for r in res.rows] == pytest.approx(
        multipletests(ps, method="fdr_bh")[1], rel=1e-12)


@pytest.fixture(scope="module")
def short_queries(tmp_path_factory):
    """Forty queries of 5 documents, where 'a' ranks perfectly and 'b' badly, and ten of 12
    documents, where both rank alike: under ranklib 'a' is far better; under letor, whose
    NDCG@10 of a query with fewer than 10 documents is 0, the two are identical."""
    rng = np.random.default_rng(7)
    rows, a, b = [], [], []
    for q in range(50):
        n = 5 if q < 40 else 12
        labels = rng.integers(0, 3, n)
        labels[0] = 2
        rows += [(int(lab), q + 1, f"d{q}-{i}") for i, lab in enumerate(labels)]
        good = labels + rng.random(n) * 0.1
        a += good.tolist()
        b += (good if n == 12 else -good).tolist()
    d = tmp_path_factory.mktemp("short")
    (d / "data.txt").write_text("".join(f"{y} qid:{q} 1:0.5 #docid = {doc}\n"
                                        for y, q, doc in rows))
    np.savetxt(d / "a.txt", a)
    np.savetxt(d / "b.txt", b)
    return d


def test_a_flip_is_named_and_split_into_its_causes(short_queries):
    d = short_queries
    res = ltrconv.compare([d / "a.txt", d / "b.txt"], data=d / "data.txt",
                          conventions=["ranklib", "letor", "yahoo"], bootstrap=200)
    assert res.row("ranklib", "NDCG@10", "a", "b")["verdict"] == "a"
    letor_row = res.row("letor", "NDCG@10", "a", "b")
    # identical per-query values: no p-value, out of the family, said so
    assert math.isnan(letor_row["p"]) and letor_row["verdict"] == "tie"
    assert res.family_size == 2 and {r["family_size"] for r in res.rows} == {2}
    assert [(x["convention"], x["why"]) for x in res.left_out] == \
        [("letor", "identical per-query values")]
    (summary,) = res.summaries
    assert summary.verdicts == {"ranklib": "a", "letor": "tie", "yahoo": "a"}
    (flip,) = summary.flips
    assert flip.convention == "letor"
    # the split of the pair's difference is the difference of each system's explain split
    data = Dataset.load(d / "data.txt", features=False)
    parts = []
    for name in ("a", "b"):
        scores = np.loadtxt(d / f"{name}.txt")
        (e,) = explain(C.get("ranklib"), C.get("letor"), lambda conv, s=scores: next(iter(
            evaluate_dataset(data, s, conventions=[conv], cutoffs=[10]).values())), [10])
        parts.append({c.axis: c.contribution for c in e.causes})
    assert dict(flip.causes) == pytest.approx({k: parts[0][k] - parts[1][k] for k in parts[0]})
    assert sum(v for _, v in flip.causes) == pytest.approx(flip.diff_to - flip.diff_from)
    assert flip.diff_to == 0.0 and dict(flip.causes)["short"] < 0


def test_cli_formats(short_queries, tmp_path, capsys):
    d = short_queries
    args = ["compare", d / "data.txt", d / "a.txt", d / "b.txt", "-c", "ranklib", "-c", "letor",
            "--bootstrap", "100", "--name", "first", "--name", "second"]
    capsys.readouterr()
    assert main([str(a) for a in args + ["--format", "tsv"]]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert tuple(lines[0].split("\t")) == COLUMNS
    rows = [dict(zip(COLUMNS, line.split("\t"))) for line in lines[1:]]
    assert [(r["convention"], r["a"], r["b"], r["verdict"]) for r in rows] == \
        [("ranklib", "first", "second", "a"), ("letor", "first", "second", "tie")]
    assert rows[1]["p"] == "nan" and rows[0]["family_size"] == "1"
    assert main([str(a) for a in args + ["--format", "json"]]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["family"]["size"] == 1 and out["family"]["left_out"][0]["convention"] == "letor"
    (v,) = out["verdicts"]
    assert not v["holds"] and v["flips"][0]["convention"] == "letor"
    assert {c["axis"] for c in v["flips"][0]["causes"]} >= {"short"}
    assert main([str(a) for a in args + ["--format", "latex"]]) == 0
    tex = capsys.readouterr().out
    assert r"\textbf{" in tex and r"(a) first" in tex and "$^{\\mathrm{b}}$" in tex
    assert main([str(a) for a in args + ["--format", "markdown"]]) == 0
    assert "| first | second | a | tie | flips |" in capsys.readouterr().out
    plot = tmp_path / "cmp.png"
    assert main([str(a) for a in args + ["--plot", plot, "-o", tmp_path / "out.txt"]]) == 0
    assert plot.read_bytes()[:4] == b"\x89PNG"
    text = (tmp_path / "out.txt").read_text()
    assert "first vs second, NDCG@10: first better under ranklib; tie under letor. letor flips " \
        "it" in text
    assert "less 1 without a p-value" in text and "1,00" not in text  # 100 resamples
    assert "100 resamples, seed 0" in text


def test_randomization_says_when_it_enumerates(short_queries, capsys):
    d = short_queries
    args = ["compare", d / "data.txt", d / "a.txt", d / "b.txt", "-c", "ranklib", "--format",
            "tsv", "--test", "randomization", "--bootstrap", "50"]
    assert main([str(a) for a in args]) == 0
    row = dict(zip(COLUMNS, capsys.readouterr().out.splitlines()[1].split("\t")))
    assert row["test"] == "randomization(10000)" and float(row["p"]) == pytest.approx(1 / 10001)


def test_seeded_output_is_the_same_twice(letor, capsys):
    d, _, scores = letor
    args = [str(x) for x in ["compare", d / "data.txt", *(d / f"{n}.txt" for n in scores),
                             "--bootstrap", "300", "--format", "tsv", "--seed", "9"]]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out == first


# --- coverage and bad input ------------------------------------------------------------------


def test_score_file_that_misses_rows_names_system_and_query(letor, tmp_path, capsys):
    d, data, _ = letor
    short = tmp_path / "short.txt"
    lines = (d / "good.txt").read_text().splitlines()
    cut = int(data.offsets[7]) + 1
    short.write_text("\n".join(lines[:cut]) + "\n")
    out = tmp_path / "out.tsv"
    q = data.qid[data.offsets[7]]
    fails(capsys, ["compare", d / "data.txt", d / "good.txt", short, "-o", out],
          f"system short ({short}): {cut} scores for the {data.n_docs} documents of "
          f"{d / 'data.txt'}: query {q} (documents {cut}-{data.offsets[8]}) is scored in part",
          out=out)
    long = tmp_path / "long.txt"
    long.write_text((d / "good.txt").read_text() + "0.5\n")
    fails(capsys, ["compare", d / "data.txt", d / "good.txt", long],
          "1 more than the documents, after the last query")


@pytest.mark.parametrize("extra, message", [
    (["--baseline", "nobody"], "baseline 'nobody' is not one of the systems (good, noisy)"),
    (["--name", "x"], "1 names for 2 systems"),
    (["--name", "x", "--name", "x"], "two systems are named 'x'"),
    (["-m", "NDCG@0"], "cutoff k >= 1"),
    (["-m", "MAP@3"], "MAP takes no cutoff"),
    (["-c", "ranklib", "-c", "ndcg()"], "are the same definition"),
    (["--bootstrap", "0"], "bootstrap 0: expected a whole number from 1"),
    (["--alpha", "1.5"], "alpha 1.5: expected a number between 0 and 1"),
    (["--plot", "x.nope"], "cannot draw a .nope file"),
])
def test_bad_options(letor, capsys, extra, message):
    d, _, _ = letor
    fails(capsys, ["compare", d / "data.txt", d / "good.txt", d / "noisy.txt", *extra], message)


def test_score_vectors_name_the_system(letor):
    _, data, scores = letor
    bad = scores["good"].copy()
    bad[data.offsets[4] + 1] = np.nan
    with pytest.raises(ltrconv.errors.InputError,
                       match=f"system 'bad': the score of document {data.offsets[4] + 2} "
                             f"\\(query {data.qid[data.offsets[4]]}\\) is nan"):
        ltrconv.compare({"good": scores["good"], "bad": bad}, data=data)
    res = ltrconv.compare({"good": scores["good"], "same": scores["good"].copy()}, data=data,
                          conventions=["ranklib"], bootstrap=50)
    assert res.family_size == 0 and res.rows[0]["verdict"] == "tie"
    assert math.isnan(res.rows[0]["p_adjusted"]) and math.isnan(res.rows[0]["effect"])


def test_one_system_or_same_stems_are_refused(letor, tmp_path, capsys):
    d, _, _ = letor
    fails(capsys, ["compare", d / "data.txt", d / "good.txt"], "two score files or more")
    (tmp_path / "good.txt").write_text((d / "good.txt").read_text())
    fails(capsys, ["compare", d / "data.txt", d / "good.txt", tmp_path / "good.txt"],
          "two systems are named 'good'")


# --- runs against qrels ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("runs")
    rng = np.random.default_rng(3)
    qrels = [(q, f"d{i}", int(rng.integers(0, 3))) for q in range(1, 21) for i in range(8)]
    (d / "qrels.txt").write_text("".join(f"{q} 0 {doc} {g}\n" for q, doc, g in qrels))
    for name, lacks in (("one", None), ("two", 20)):
        lines = [f"{q} Q0 {doc} 0 {g + rng.normal(0, 1.0):.6f} {name}\n" for q, doc, g in qrels
                 if q != lacks]
        (d / f"{name}.txt").write_text("".join(lines))
    return d


def test_a_run_missing_a_query_follows_the_missing_axis(runs, capsys):
    d = runs
    fails(capsys, ["compare", "--qrels", d / "qrels.txt", d / "one.txt", d / "two.txt"],
          "system 'two': no value for query '20' under trec_eval, which system 'one' has: the "
          "run has no result for it and trec_eval leaves such a query out (missing=skip)")
    capsys.readouterr()
    assert main([str(x) for x in ["compare", "--qrels", d / "qrels.txt", d / "one.txt",
                                  d / "two.txt", "-c", "ir_measures", "-c", "trec_eval-c",
                                  "--format", "tsv", "--bootstrap", "100"]]) == 0
    rows = [dict(zip(COLUMNS, x.split("\t"))) for x in capsys.readouterr().out.splitlines()[1:]]
    assert {r["n"] for r in rows} == {"20"}  # the missing query scored 0 under missing=zero
    ev = ltrconv.evaluate_run(d / "qrels.txt", d / "two.txt", conventions=["ir_measures"],
                              cutoffs=[10])["ir_measures"]
    assert float(rows[0]["mean_b"]) == pytest.approx(ev.mean()["NDCG@10"], abs=1e-6)


def test_runs_as_dataframes_use_the_run_conventions(runs):
    pd = pytest.importorskip("pandas")
    d = runs
    frames = {}
    for name in ("one", "two"):
        cols = [line.split() for line in (d / f"{name}.txt").read_text().splitlines()]
        frames[name] = pd.DataFrame({"query_id": [c[0] for c in cols],
                                     "doc_id": [c[2] for c in cols],
                                     "score": [float(c[4]) for c in cols]})
    frames["one"] = frames["one"][frames["one"]["query_id"] != "20"]  # both lack query 20
    res = ltrconv.compare({"two": frames["two"], "one": frames["one"]}, qrels=d / "qrels.txt",
                          bootstrap=100)
    assert res.conventions == ("trec_eval", "ir_measures", "ranx-run", "pytrec_eval")
    # trec_eval and pytrec_eval leave query 20 out; ir_measures and ranx score it 0
    assert {k[0]: n for k, n in res.queries.items()} == \
        {"trec_eval": 19, "pytrec_eval": 19, "ir_measures": 20, "ranx-run": 20}
    assert res.inputs["systems"] == {"two": "run two (DataFrame)", "one": "run one (DataFrame)"}
    bad = frames["one"].copy()
    bad.loc[bad.index[3], "score"] = float("nan")
    with pytest.raises(ltrconv.errors.InputError, match=r"run one \(DataFrame\):4: score nan"):
        ltrconv.compare({"two": frames["two"], "one": bad}, qrels=d / "qrels.txt")


# --- MQ2008 ----------------------------------------------------------------------------------


def test_mq2008_yahoo_moves_means_not_differences(mq2008_dir):
    """On MQ2008 Fold1 test, yahoo adds the same 1.0 to every system on each query without a
    relevant document: its means are ranklib's plus the share of such queries, its differences,
    tests and verdicts ranklib's."""
    test = mq2008_dir / "Fold1" / "test.txt"
    data = Dataset.load(test, features=True, docid_warning=False)
    systems = {f"feature{j + 1}": data.X[:, j] for j in (0, 4, 38)}
    res = ltrconv.compare(systems, data=test, conventions=["ranklib", "yahoo"], bootstrap=500)
    empty = np.mean([data.y[a:b].max() == 0 for a, b in zip(data.offsets[:-1], data.offsets[1:])])
    for s in systems:
        assert res.means["yahoo", "NDCG@10", s][0] == pytest.approx(
            res.means["ranklib", "NDCG@10", s][0] + empty)
    for a, b in res.pairs:
        r, y = res.row("ranklib", "NDCG@10", a, b), res.row("yahoo", "NDCG@10", a, b)
        assert y["diff"] == pytest.approx(r["diff"]) and y["p"] == pytest.approx(r["p"])
        assert y["verdict"] == r["verdict"]


def test_ranklib_score_files_are_systems_as_eval_reads_them(tmp_path, capsys):
    """RankLib's -score output (qid, index within the query, score) is placed on the data file's
    rows, as `ltrconv eval` places it: the comparison equals the one of the same scores one per
    line."""
    data = make_letor(n_queries=12, min_docs=2, max_docs=9, seed=4)
    write_letor(data, tmp_path / "test.txt")
    ds = Dataset.load(tmp_path / "test.txt", features=False)
    rng = np.random.default_rng(3)
    plain, ranklib = [], []
    for name in ("a", "b"):
        s = np.round(rng.random(len(ds.y)), 2)
        (tmp_path / f"{name}.txt").write_text("".join(f"{float(v)!r}\n" for v in s))
        lines = [f"{ds.qid[ds.offsets[q]]}\t{i}\t{float(s[ds.offsets[q] + i])!r}\n"
                 for q in range(len(ds.offsets) - 1)
                 for i in range(ds.offsets[q + 1] - ds.offsets[q])]
        (tmp_path / f"{name}.score").write_text("".join(reversed(lines)))  # any order
        plain.append(str(tmp_path / f"{name}.txt"))
        ranklib.append(str(tmp_path / f"{name}.score"))
    outs = []
    for files in (plain, ranklib):
        capsys.readouterr()
        assert main(["compare", str(tmp_path / "test.txt"), *files, "--name", "a", "--name", "b",
                     "--format", "tsv", "--bootstrap", "200"]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and outs[0].count("\n") == 5  # header + 4 conventions
