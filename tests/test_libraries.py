"""Each library convention against the library itself, query by query
(ltrconv.study.library_check, which ``ltrconv check-libraries`` runs).

The library computes NDCG@1..10 of fixed scores (no model is trained: the scores enter as
LightGBM's init_score, XGBoost's base_margin, CatBoost's approx, a ranx Run, a TREC run, a
tensor), on hand-made edge cases and on MQ2008 Fold1's test queries under continuous, heavily
tied and constant scores. The edge cases pin each behaviour a convention encodes (the empty
query, n < k, ties, float32, the labels accepted and refused), so a release that changes its
convention fails here. Each library is imported per test and skipped with the reason when it
is missing or older than the version the convention was checked on (the registry's).
"""

from __future__ import annotations

import importlib.metadata
import json

import numpy as np
import pytest

from ltrconv.cli import main
from ltrconv.evaluation import conventions as C
from ltrconv.evaluation.metrics import evaluate
from ltrconv.study import library_check as L

CALLERS = {f"{c.library}:{c.convention}": c for c in L.CALLERS}


def need(caller: L.Caller):
    """The library behind ``caller``, at least at the version its convention was checked on."""
    from packaging.version import Version

    for module in caller.modules:
        pytest.importorskip(module, reason=caller.needs)
    package, have = L.distribution(caller)
    checked = L.checked_version(caller)
    if Version(have) < Version(checked):
        pytest.skip(f"{package} {have} is older than {checked}, on which the "
                    f"{caller.convention} convention was checked")


@pytest.fixture(scope="module")
def fold1_test(mq2008_fold1):
    return mq2008_fold1[2]


@pytest.mark.parametrize("key", CALLERS)
def test_library_equals_its_convention_on_the_edge_cases(key):
    caller = CALLERS[key]
    need(caller)
    outcome = L.check(caller)
    assert outcome.equal is True, outcome.first_difference
    # every edge case compared (scikit-learn takes no one-document query)
    assert outcome.queries == len(L.CASES) - (2 if caller.library == "scikit-learn" else 0)


@pytest.mark.parametrize("key", CALLERS)
def test_library_equals_its_convention_on_mq2008(key, fold1_test):
    caller = CALLERS[key]
    need(caller)
    outcome = L.check(caller, fold1_test, "MQ2008 Fold1 test")
    assert outcome.equal is True, outcome.first_difference
    assert outcome.queries >= 3 * 156


def test_sklearn_takes_no_one_document_query():
    """scikit-learn refuses a query of one document whatever its labels (ltrconv gives it its
    natural value), and refuses negative labels, which the convention refuses too."""
    pytest.importorskip("sklearn")
    single, refused = [], []
    for name, (y, s) in L.CASES.items():
        try:
            L.sklearn_values([(y, s, L.DOCIDS[name])], L.KS)
        except L.NotApplicable:
            single.append(name)
        except ValueError as exc:
            assert "negative y_true" in str(exc), exc
            refused.append(name)
    assert single == ["one-relevant-document", "one-irrelevant-document"]
    assert refused == ["negative-label", "nonpositive-labels"]
    assert [n for n, v in zip(L.CASES, L.ours("sklearn", [(*L.CASES[n], L.DOCIDS[n])
                                                          for n in L.CASES], L.KS))
            if v is None] == refused


def test_a_library_that_departs_is_caught_at_its_first_difference():
    """scikit-learn's ignore_ties=True values held against the averaging convention: they
    differ first where scores tie, at the cutoff inside the tie."""
    pytest.importorskip("sklearn")
    wrong = L.Caller("scikit-learn", "scikit-learn", "sklearn",
                     lambda queries, ks: L.sklearn_values(queries, ks, ignore_ties=True),
                     ("sklearn",), L.CALLERS[0].refuses, slow=True)
    outcome = L.check(wrong)
    assert outcome.equal is False
    first = outcome.first_difference
    assert first["case"] == "edge case all-tied" and first["k"] == 1
    # the two values, from the definitions: labels 0,1,2,0,1, all tied; averaged gain at 1 is
    # the mean label 4/5 over the ideal 2; ignore_ties takes numpy's reversed argsort order
    assert first["ltrconv"] == pytest.approx(0.4, abs=1e-12)
    y = L.CASES["all-tied"][0]
    assert first["library"] == pytest.approx(y[np.argsort(np.ones(5))[::-1][0]] / 2, abs=1e-12)


def test_a_library_refusing_what_the_convention_takes_is_a_difference():
    """A LightGBM that refused labels above 3 (as with a label_gain of four entries) departs
    from the lightgbm convention at the first such query."""
    lgb = pytest.importorskip("lightgbm")

    def stricter(queries, ks):
        if any(y.max() > 3 for y, _, _ in queries):
            raise lgb.basic.LightGBMError("label above 3")
        return L.lightgbm_values(queries, ks)

    outcome = L.check(L.Caller("LightGBM", "lightgbm", "lightgbm", stricter, ("lightgbm",),
                               L.CALLERS[2].refuses))
    assert outcome.equal is False
    assert outcome.first_difference == {"case": "edge case label-4", "k": None,
                                        "library": "refused: label above 3",
                                        "ltrconv": outcome.first_difference["ltrconv"]}
    assert len(outcome.first_difference["ltrconv"]) == len(L.KS)


def test_a_library_not_installed_is_said_so():
    absent = L.Caller("ranx", "ranx", "ranx", L.ranx_values, ("ltrconv_surely_absent_module",))
    outcome = L.check(absent)
    assert outcome.equal is None and outcome.version is None
    assert "ltrconv_surely_absent_module is not installed" in outcome.reason
    assert outcome.as_dict()["equal"] is None and "first_difference" not in outcome.as_dict()


@pytest.fixture(scope="module")
def every_library():
    """ltrconv check-libraries --format json, on the built-in queries."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check-libraries", "--format", "json"])
    return code, json.loads(out.getvalue())


def test_check_libraries_reports_every_library(every_library):
    """One object per library and convention; an installed library at the version its
    distribution says and equal to its convention; the version each convention was checked on
    (the registry's, which docs/libraries.md's table prints) is the one installed here."""
    code, rows = every_library
    assert code == 0
    assert [(r["library"], r["convention"]) for r in rows] == [
        (c.library, c.convention) for c in L.CALLERS]
    seen = set()
    for r in rows:
        assert {"library", "version", "convention", "equal"} <= set(r)
        if r["equal"] is None:
            assert r["version"] is None and "not installed" in r["reason"]
            continue
        seen.add(r["library"])
        assert r["version"] == importlib.metadata.version(r["package"])
        assert r["equal"] is True and "first_difference" not in r
        assert r["version"] == L.checked_version(CALLERS[f"{r['library']}:{r['convention']}"]), (
            f"{r['package']} {r['version']} is installed, but {r['convention']} was checked "
            f"on {C.library(r['convention']).checked}: check it and update the registry "
            "(src/ltrconv/evaluation/libraries.py), which docs/libraries.md's table prints")
    assert {"scikit-learn", "LightGBM"} <= seen  # runtime dependencies


def test_check_libraries_refuses_an_unknown_library(capsys):
    assert main(["check-libraries", "--library", "nolib"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ltrconv: error: unknown library or convention ['nolib']")


def test_check_libraries_text_names_the_version(capsys):
    pytest.importorskip("ranx")
    assert main(["check-libraries", "--library", "ranx"]) == 0
    out = capsys.readouterr().out.splitlines()
    version = importlib.metadata.version("ranx")
    assert [line.split(":")[0] for line in out] == [f"ranx {version} / ranx",
                                                    f"ranx {version} / ranx-burges"]
    assert all("equal on 33 queries" in line for line in out)


# --- torchmetrics' module ----------------------------------------------------------------
def test_torchmetrics_module_means(fold1_test):
    """The module's means: its default counts a query without relevant document as 0,
    ``empty_target_action="skip"`` leaves it out (empty=skip); the per-query function is
    checked with the other libraries."""
    need(CALLERS["torchmetrics:torchmetrics"])
    import torch
    from torchmetrics.retrieval import RetrievalNormalizedDCG

    test = fold1_test
    index = torch.tensor(np.repeat(np.arange(test.n_queries), np.diff(test.offsets)))
    skip = C.get("torchmetrics").with_(empty="skip")
    for s in L.file_scores(test).values():
        for action, conv in (("neg", "torchmetrics"), ("skip", skip)):
            module = RetrievalNormalizedDCG(top_k=10, empty_target_action=action)
            mean = float(module(torch.tensor(s, dtype=torch.float32),
                                torch.tensor(test.y, dtype=torch.long), indexes=index))
            (ev,) = evaluate(test.y, s, test.qid, offsets=test.offsets, conventions=[conv],
                             cutoffs=10, metrics="NDCG").values()
            assert mean == pytest.approx(ev.mean()["NDCG@10"], abs=L.TORCH_ATOL)
