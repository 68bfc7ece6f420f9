"""scripts/drift.py's report: what moves between the lock and a newer environment.

The scratch environment itself (a venv and a pip install from PyPI) is not made here; each part
of the report is built from what its step returns: the lock file read by scripts/lock.py, the
objects of ``check-libraries --format json`` as ltrconv's own check makes them, two result
directories compared as ``check-reference`` compares them, and a JUnit report pytest writes.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


drift = _script("drift")


# --- packages ---------------------------------------------------------------------------------
def test_package_changes_against_the_lock_file(tmp_path):
    """Versions are ordered as PEP 440 orders them (1.10.0 follows 1.9.1, 2.0.3 precedes
    2.1.0), not as strings; packages only one side has are added or removed."""
    lock = _script("lock")
    path = tmp_path / "lock.txt"
    path.write_text(lock.pip_text({"gone": "1.0", "numpy": "1.9.1", "pandas": "2.1.0",
                                   "scipy": "1.11.0", "tzdata": "2024.1"}, "3.11.7"))
    locked = lock.read_lock(path)
    new = {"fresh": "0.1", "numpy": "1.10.0", "pandas": "2.0.3", "scipy": "1.11.0",
           "tzdata": "2024.1.post1"}
    assert drift.package_changes(locked, new) == [
        {"package": "fresh", "locked": None, "new": "0.1", "change": "added"},
        {"package": "gone", "locked": "1.0", "new": None, "change": "removed"},
        {"package": "numpy", "locked": "1.9.1", "new": "1.10.0", "change": "upgraded"},
        {"package": "pandas", "locked": "2.1.0", "new": "2.0.3", "change": "downgraded"},
        {"package": "tzdata", "locked": "2024.1", "new": "2024.1.post1", "change": "upgraded"},
    ]
    assert drift.package_changes(locked, dict(locked)) == []


def test_held_back_reads_pip_list_outdated():
    """``pip list --outdated --format json`` names distributions as installed (any case,
    underscores); only those of the locked closure are held back (pip and setuptools are not
    the project's)."""
    outdated = [
        {"name": "NumPy", "version": "2.3.5", "latest_version": "2.4.6",
         "latest_filetype": "wheel"},
        {"name": "pip", "version": "24.0", "latest_version": "25.1", "latest_filetype": "wheel"},
        {"name": "scikit_learn", "version": "1.8.0", "latest_version": "1.9.1",
         "latest_filetype": "wheel"},
    ]
    covered = {"numpy": "2.3.5", "scikit-learn": "1.8.0", "scipy": "1.16.0"}
    assert drift.held_back(outdated, covered) == [
        {"package": "numpy", "installed": "2.3.5", "newest": "2.4.6"},
        {"package": "scikit-learn", "installed": "1.8.0", "newest": "1.9.1"},
    ]


# --- libraries --------------------------------------------------------------------------------
def test_library_results_classify_check_libraries_objects():
    """Outcomes made by ltrconv's own check: scikit-learn's ndcg_score with ignore_ties=True put
    where the ``sklearn`` convention (ties averaged) is expected departs on a tied query; a
    library that cannot be imported is not checked, and moves only when the lock has it."""
    pytest.importorskip("sklearn")
    from ltrconv.study import library_check as L

    sklearn = next(c for c in L.CALLERS if c.convention == "sklearn")
    holds = L.check(sklearn).as_dict()
    wrong = L.Caller("scikit-learn", "scikit-learn", "sklearn",
                     L._with(L.sklearn_values, ignore_ties=True), ("sklearn",),
                     sklearn.refuses, slow=True)
    departs = L.check(wrong).as_dict()
    lost = L.check(L.Caller("CatBoost", "catboost", "catboost", L.catboost_values,
                            ("no_module_of_that_name",))).as_dict()
    absent = L.check(L.Caller("torchmetrics", "torchmetrics", "torchmetrics",
                              L.torchmetrics_values, ("no_module_of_that_name",))).as_dict()
    objects = json.loads(json.dumps([holds, departs, lost, absent]))  # as the command prints
    locked = {"scikit-learn": "1.0.0", "catboost": "1.2.10"}
    got = drift.library_results(objects, locked)
    assert [(g["status"], g["moved"]) for g in got] == [
        ("holds", False), ("departs", True), ("not checked", True), ("not checked", False)]
    assert got[0]["locked"] == "1.0.0" and got[1]["first_difference"]["case"].startswith(
        "edge case") and "tied" in got[1]["first_difference"]["case"]
    report = _report(libraries=got)
    assert drift.exit_status(report) == 1
    assert drift.moves(report) == [
        f"scikit-learn {departs['version']} / sklearn: departs from its convention",
        f"CatBoost  / catboost: no longer checked ({lost['reason']})"]
    out = drift.text(report)
    assert f"scikit-learn {holds['version']}, locked 1.0.0 / sklearn: holds" in out
    assert "/ sklearn: DEPARTS at edge case" in out and "LOST: not checked" in out
    assert "torchmetrics / torchmetrics: not checked (no_module_of_that_name" in out
    assert drift.exit_status(_report(libraries=[got[0], got[3]])) == 0


def test_library_results_know_a_distribution_by_its_checked_name():
    """XGBoost comes as xgboost-cpu: absent, it is lost when the lock has the distribution its
    convention was checked on, whatever name the caller gives."""
    obj = {"library": "XGBoost", "package": "xgboost", "version": None, "convention": "xgboost",
           "checked_on": "xgboost-cpu 3.2.0", "equal": None, "queries": 0,
           "largest_difference": 0.0, "reason": "xgboost is not installed"}
    assert drift.library_results([obj], {"xgboost-cpu": "3.2.0"})[0]["moved"] is True
    assert drift.library_results([obj], {"numpy": "2.4.6"})[0]["moved"] is False


# --- reference --------------------------------------------------------------------------------
def _results(root: Path, rows: list[str], numpy: str) -> Path:
    (root / "tables").mkdir(parents=True)
    (root / "tables" / "fold_means.tsv").write_text("\n".join(rows) + "\n")
    (root / "claims.md").write_text("# claims\n")
    (root / "provenance.json").write_text(json.dumps(
        {"packages": {"numpy": numpy, "pandas": "3.0.0"}, "cpu": {"model": "x"}}))
    return root


def test_reference_report_names_the_file_and_why(tmp_path):
    """A run whose sklearn-ignore-ties rows moved under another numpy: the report names the
    file, that every differing line is such a row, and the numpy versions of both records."""
    head = "algorithm\tconvention\tndcg@10"
    ref = _results(tmp_path / "ref", [head, "lambdamart\tsklearn-ignore-ties\t0.4512",
                                      "lambdamart\tranklib\t0.4400"], "2.4.6")
    run = _results(tmp_path / "run", [head, "lambdamart\tsklearn-ignore-ties\t0.4519",
                                      "lambdamart\tranklib\t0.4400"], "2.5.0")
    got = drift.reference_report(run, ref)
    assert got["compared"] == 2
    assert got["provenance"] == ["numpy: 2.5.0 here, 2.4.6 in the reference"]
    (moved,) = got["differ"]
    assert moved["file"] == "tables/fold_means.tsv" and moved["detail"] == "line 2 differs"
    assert moved["why"][0] == "every differing line is a sklearn-ignore-ties row"
    assert "numpy: 2.5.0 here, 2.4.6 in the reference" in moved["why"][1]
    assert "sklearn-ignore-ties rows" in got["dependences"]
    report = _report(reference=got)
    assert drift.moves(report) == ["reference/ci: 1 of 2 files differ"]
    out = drift.text(report)
    assert "  differs: tables/fold_means.tsv: line 2 differs" in out
    assert "numpy: 2.5.0 here, 2.4.6 in the reference" in out

    same = _results(tmp_path / "same", [head, "lambdamart\tsklearn-ignore-ties\t0.4512",
                                        "lambdamart\tranklib\t0.4400"], "2.5.0")
    got = drift.reference_report(same, ref)
    assert got["differ"] == [] and drift.exit_status(_report(reference=got)) == 0


# --- tests ------------------------------------------------------------------------------------
def test_junit_results_from_a_pytest_run(tmp_path):
    (tmp_path / "test_sample.py").write_text(
        "import pytest\n"
        "def test_pass(): pass\n"
        "def test_fail(): assert 1 == 2, 'one is not two'\n"
        "@pytest.mark.skip(reason='no')\n"
        "def test_skip(): pass\n"
        "@pytest.fixture\n"
        "def broken(): raise RuntimeError('fixture broke')\n"
        "def test_error(broken): pass\n")
    junit = tmp_path / "junit.xml"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"--junitxml={junit}", "test_sample.py"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout
    got = drift.junit_results(junit.read_text())
    assert (got["run"], got["passed"], got["skipped"]) == (4, 1, 1)
    assert [(f["test"], f["kind"]) for f in got["failed"]] == [
        ("test_sample.py::test_fail", "failure"), ("test_sample.py::test_error", "error")]
    assert "one is not two" in got["failed"][0]["message"]
    report = _report(tests=got, tests_args="test_sample.py")
    assert drift.moves(report) == ["tests: 2 of 4 fail"]
    assert "failure: test_sample.py::test_fail: " in drift.text(report)


# --- the whole report -------------------------------------------------------------------------
def _report(**parts) -> dict:
    report = {"environment": {"dir": "/tmp/x/venv", "kept": False, "python": "3.11.7",
                              "locked_python": "3.11.7", "pins": [], "extras": ".[test,docs]"},
              "packages": {"changed": [], "missing": [], "held_back": [], "same": 3},
              "libraries": None, "libraries_data": "adversarial queries"}
    report.update(parts)
    return report


def test_newer_versions_alone_move_nothing():
    changed = [{"package": "numpy", "locked": "2.4.6", "new": "2.5.0", "change": "upgraded"}]
    report = _report(packages={"changed": changed, "missing": [], "same": 140,
                               "held_back": [{"package": "pandas", "installed": "3.0.0",
                                              "newest": "3.1.0"}]},
                     environment={**_report()["environment"], "pins": ["pandas<3.1"]})
    assert drift.moves(report) == [] and drift.exit_status(report) == 0
    out = drift.text(report)
    assert "packages: 1 differ from requirements/lock.txt (140 the same)" in out
    assert "  numpy: 2.4.6 -> 2.5.0 (upgraded)" in out
    assert "held back below their newest release (by a requirement or --pin): pandas 3.0.0 "\
           "(newest 3.1.0)" in out
    assert "pinned: pandas<3.1" in out
    assert out.rstrip().endswith("nothing moves (newer versions, none of the checks moved)")
    json.dumps(report)  # the --format json report


def test_a_failing_step_in_the_new_environment_moves():
    report = _report(reference=None, reference_error="snakemake failed (1): ImportError")
    assert drift.moves(report) == ["reference: failed in the new environment"]
    assert "reference: the pipeline failed:\n    snakemake failed (1)" in drift.text(report)


@pytest.mark.parametrize("argv, message", [
    (["--pin", "numpy=>2"], "--pin 'numpy=>2': not a requirement"),
    (["--tests", "tests/test_metrics.py 'unclosed"], "--tests"),
    (["--tests", "  "], "--tests: empty"),
    (["--mq2008", "{tmp}"], "no Fold1/test.txt there"),
    (["--dir", "{tmp}"], "exists and is no virtual environment"),
])
def test_wrong_options_stop_before_any_environment(tmp_path, capsys, monkeypatch, argv, message):
    (tmp_path / "something").write_text("x")
    made = []
    monkeypatch.setattr(drift, "make_environment", lambda *a: made.append(a))
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert drift.main(argv) == 2
    assert message in capsys.readouterr().err and made == []
