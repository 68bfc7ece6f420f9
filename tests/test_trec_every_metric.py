"""Every default metric of a run (NDCG, P and ERR at 1-10, MAP, RR) against the tools' own
output, on random runs built to hit what the ranking and the judgments can get wrong: scores
tied as written, scores that differ as written but tie as float32 (trec_eval reads them into a
C float), docids that are prefixes of one another (ties go by docno descending, in byte order),
unjudged documents, judged ones the run misses, queries on one side only, negative grades and
docids retrieved twice; and one ranking of the run per tie policy, however many conventions,
cutoffs and selections of rows share it.

trec_eval 9.0.8 (LTRCONV_TREC_EVAL) gives NDCG@k (``ndcg_cut``), P@k (``P``), MAP (``map``) and
RR (``recip_rank``) per query and their means, printed to 4 decimals; it has no ERR, which is
checked against the formula written out below; pytrec_eval gives the same measures on a run
whose docids repeat (a dict keeps the last score).
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

import ltrconv
from ltrconv.cli import main
from ltrconv.errors import InputError
from ltrconv.evaluation import get
from cli_helpers import trec_eval_binary

KS = list(range(1, 11))
TREC_NAMES = {**{f"NDCG@{k}": f"ndcg_cut_{k}" for k in KS}, **{f"P@{k}": f"P_{k}" for k in KS},
              "MAP": "map", "RR": "recip_rank"}
PRINTED = 5e-5 + 1e-9
"""Half a unit of trec_eval's fourth decimal, and the rounding of a sum beside it."""
MEASURES = ["-m", "ndcg_cut." + ",".join(map(str, KS)), "-m", "P." + ",".join(map(str, KS)),
            "-m", "map", "-m", "recip_rank"]


def random_collection(seed: int, duplicates: bool = False):
    """(qrels lines, run lines) as (qid, docid, grade) and (qid, docid, score)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(int(rng.integers(20, 40))):
        qid = f"q{q}" if q % 3 else str(100 + q)
        n = int(rng.integers(1, 120))
        names = rng.choice(4000, size=n + 30, replace=False)
        docs = [f"d{x}" if x % 7 else f"d{x}x" for x in names]  # d1 < d12 < d12x
        ranked, extra = docs[:n], docs[n:]
        kind = q % 4
        if kind == 0:  # written with few decimals: ties as written
            scores = np.round(rng.random(n), 1)
        elif kind == 1:  # distinct as written, tied as float32
            scores = 0.5 + rng.integers(0, 3, n) * 2.0 ** -30 + rng.integers(0, 4, n) * 0.25
        elif kind == 2:
            scores = rng.normal(size=n)
        else:  # listed by score, as runs are written
            scores = -np.sort(-np.round(rng.normal(size=n) * 3, 2))
        if q % 9 != 8:  # else a run-only query
            judged = [d for d in ranked if rng.random() < 0.6] + extra[:int(rng.integers(0, 5))]
            grades = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
            qrels += [(qid, d, int(g)) for d, g in zip(judged, grades)]
        if q % 11 != 10:  # else a qrels-only query
            run += [(qid, d, float(s)) for d, s in zip(ranked, scores)]
        if duplicates and q % 5 == 0 and run and run[-1][0] == qid:
            again = [r for r in run if r[0] == qid][:3]
            run += [(qid, d, float(rng.random())) for _, d, _ in again]
    order = rng.permutation(len(run)) if seed % 2 else np.arange(len(run))  # not grouped too
    return qrels, [run[i] for i in order]


def write(tmp_path, qrels, run):
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} {i} {s!r} t\n"
                                          for i, (q, d, s) in enumerate(run)))
    return tmp_path / "qrels", tmp_path / "run"


def trec_eval(*args) -> dict[tuple[str, str], float]:
    out = subprocess.run([str(trec_eval_binary()), "-q", *MEASURES, *map(str, args)],
                         check=True, capture_output=True, text=True).stdout
    return {(m, q): float(v) for m, q, v in (ln.split() for ln in out.splitlines())}


def err_formula(qrels, run, qids) -> dict[str, list[float]]:
    """ERR@1..10 (Chapelle et al. 2009) of each query, ranked as trec_eval ranks (float32 score
    descending, then docno descending by its bytes): ERR@k = sum_{r <= k} R_r / r
    prod_{i < r} (1 - R_i), R = (2^g - 1) / 2^top, g the grade (negative and unjudged ones 0),
    top the largest such grade among the documents ranked."""
    grade = {(q, d): max(g, 0) for q, d, g in qrels}
    lists = {}
    for q, d, s in run:
        if q in qids:
            lists.setdefault(q, []).append((float(np.float32(s)), d.encode(), d))
    top = max((grade.get((q, d), 0) for q in lists for _, _, d in lists[q]), default=0)
    out = {}
    for q, docs in lists.items():
        docs.sort(reverse=True)  # score, then docno bytes, both descending
        value, cont, per_k = 0.0, 1.0, []
        for r in range(1, 11):
            if r <= len(docs):
                p = (2.0 ** grade.get((q, docs[r - 1][2]), 0) - 1) / 2.0 ** max(top, 1)
                value += cont * p / r
                cont *= 1 - p
            per_k.append(value)
        out[q] = per_k
    return out


@pytest.mark.parametrize("seed", range(4))
def test_every_metric_against_trec_eval(tmp_path, seed):
    qrels, run = random_collection(seed)
    qf, rf = write(tmp_path, qrels, run)
    tools = {"trec_eval": [], "trec_eval-c": ["-c"], "ir_measures": ["-c"],
             "ir_measures-judged": ["-c", "-J"]}  # evaluated together: one ranking
    got = ltrconv.evaluate_run(qf, rf, conventions=list(tools), cutoffs=KS)
    judged_queries = {q for q, _, _ in qrels}
    for name, extra in tools.items():
        want = trec_eval(*extra, qf, rf)
        ev = got[name]
        listed = {q for _, q in want} - {"all"}
        assert listed == {q for q, _, _ in run} & judged_queries
        for col, measure in TREC_NAMES.items():
            for q, v in zip(ev.qids.tolist(), ev[col].tolist()):
                # trec_eval -c lists no line for a qrels query without results: 0 in "all"
                assert v == pytest.approx(want.get((measure, q), 0.0), abs=PRINTED), (col, q)
            assert ev.mean()[col] == pytest.approx(want[(measure, "all")], abs=PRINTED), col
        if "-J" in extra:
            continue  # ERR of the judged documents alone: the formula below ranks them all
        errs = err_formula(qrels, run, judged_queries)
        for q, row in zip(ev.qids.tolist(), ev.values):
            for k in KS:
                assert row[ev.columns.index(f"ERR@{k}")] == pytest.approx(
                    errs.get(q, [0.0] * 10)[k - 1], abs=1e-12), (k, q)


def test_the_command_prints_trec_evals_means(tmp_path, capsys):
    qrels, run = random_collection(11)
    qf, rf = write(tmp_path, qrels, run)
    assert main(["eval", "--qrels", str(qf), "--run", str(rf), "--format", "tsv"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    means = dict(zip(header.split("\t"), row.split("\t")))
    assert means["convention"] == "trec_eval" and means["qid"] == "all"
    want = trec_eval(qf, rf)
    for col, measure in TREC_NAMES.items():
        assert float(means[col]) == pytest.approx(want[(measure, "all")], abs=PRINTED), col


def test_duplicates_refused_as_trec_eval_refuses_them(tmp_path):
    qrels, run = random_collection(5, duplicates=True)
    qf, rf = write(tmp_path, qrels, run)
    proc = subprocess.run([str(trec_eval_binary()), "-m", "map", str(qf), str(rf)],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "duplicate docs" in proc.stderr
    with pytest.raises(InputError, match="is retrieved again"):
        ltrconv.evaluate_run(qf, rf, conventions=["trec_eval"])


@pytest.mark.parametrize("seed", [5, 6])
def test_duplicates_against_pytrec_eval(tmp_path, seed):
    """A docid retrieved twice: pytrec_eval's dict keeps its last score."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = random_collection(seed, duplicates=True)
    qd, rd = {}, {}
    for q, d, g in qrels:
        qd.setdefault(q, {})[d] = g
    for q, d, s in run:
        rd.setdefault(q, {})[d] = s
    measures = {"ndcg_cut." + ",".join(map(str, KS)), "P." + ",".join(map(str, KS)), "map",
                "recip_rank"}
    want = pytrec_eval.RelevanceEvaluator(qd, measures).evaluate(rd)
    qf, rf = write(tmp_path, qrels, run)
    ev = ltrconv.evaluate_run(qf, rf, conventions=["pytrec_eval"], cutoffs=KS)["pytrec_eval"]
    assert sorted(ev.qids.tolist()) == sorted(want)
    for col, measure in TREC_NAMES.items():
        for q, v in zip(ev.qids.tolist(), ev[col].tolist()):
            assert v == pytest.approx(want[q][measure], abs=1e-12), (col, q)


def test_one_sort_per_tie_policy(tmp_path, monkeypatch):
    """Four conventions (two of them selecting other rows: every qrels query, unjudged
    documents dropped) and five cutoffs rank the run once; a second tie policy once more
    (their values: test_every_metric_against_trec_eval)."""
    from ltrconv.evaluation import _numpy_kernel, runs

    qrels, run = random_collection(3)
    qf, rf = write(tmp_path, qrels, run)
    sorts = []
    score_order = runs.score_order

    def counted(qpos, offsets, scores, **kw):
        sorts.append(len(scores))
        return score_order(qpos, offsets, scores, **kw)

    def no_sort(*args, **kwargs):
        raise AssertionError("the kernel sorted a ranking it was given")

    monkeypatch.setattr(runs, "score_order", counted)
    monkeypatch.setattr(_numpy_kernel, "rank_order", no_sort)
    four = ["trec_eval", "trec_eval-c", "ir_measures", "ir_measures-judged"]
    cutoffs = [1, 3, 5, 10, 20]
    ltrconv.evaluate_run(qf, rf, conventions=four, cutoffs=cutoffs)
    assert sorts == [len(run)]  # every row of the run, once
    sorts.clear()
    by_input = get("trec_eval").with_(ties="input-order", scores="float32")
    ltrconv.evaluate_run(qf, rf, conventions=four + [by_input], cutoffs=cutoffs)
    assert sorts == [len(run)] * 2
