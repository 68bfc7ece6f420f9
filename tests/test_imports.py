"""Importing ltrconv, and running ``ltrconv eval``, loads no heavy package.

Each check runs a fresh interpreter on this checkout's ``src``, so that nothing this test
session imported (numba, pandas, ...) can hide an import.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ltrconv.evaluation.metrics import evaluate_dataset
from ltrconv.data.synthetic import make_letor, write_letor

SRC = Path(__file__).resolve().parents[1] / "src"
HEAVY = ("sklearn", "lightgbm", "matplotlib", "scipy", "pandas", "snakemake", "numba")
LOADED = f"[m for m in {HEAVY!r} if m in sys.modules]"


def fresh(code: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("module", ["ltrconv", "ltrconv.cli", "ltrconv.evaluation.ties"])
def test_import_loads_no_heavy_package(module):
    proc = fresh(f"import json, sys, {module}; "
                 f"print(json.dumps([{module}.__file__, {LOADED}]))")
    assert proc.returncode == 0, proc.stderr
    where, loaded = json.loads(proc.stdout)
    assert Path(where).resolve().is_relative_to(SRC)  # this checkout, not an installed copy
    assert loaded == []


def test_help_loads_no_heavy_package():
    proc = fresh("import sys\nfrom ltrconv.cli import main\n"
                 "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
                 f"print({LOADED}, file=sys.stderr)")
    assert "usage: ltrconv" in proc.stdout
    assert proc.stderr.strip().splitlines()[-1] == "[]"


def test_eval_end_to_end_without_heavy_packages(tmp_path):
    data = make_letor(n_queries=30, seed=1)
    write_letor(data, tmp_path / "data.txt")
    scores = np.random.default_rng(1).random(data.n_docs).round(3)
    np.savetxt(tmp_path / "scores.txt", scores)
    proc = fresh("import sys\nfrom ltrconv.cli import main\nrc = main(sys.argv[1:])\n"
                 f"print({LOADED}, file=sys.stderr)\nsys.exit(rc)",
                 "eval", str(tmp_path / "data.txt"), str(tmp_path / "scores.txt"),
                 "-c", "ranklib", "-c", "trec", "--per-query")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "[]"
    out = json.loads(proc.stdout)
    ref = evaluate_dataset(data, scores, conventions=["ranklib", "trec"], engine="numba")
    for name in ("ranklib", "trec"):
        got = out["conventions"][name]
        assert got["mean"]["NDCG@10"] == round(ref[name].mean()["NDCG@10"], 12)
        per_query = [got["per_query"][str(q)]["MAP"] for q in ref[name].qids]
        assert per_query == [round(v, 12) for v in ref[name]["MAP"]]


def test_eval_on_a_run_loads_no_pyarrow_compute_and_one_blas_thread(tmp_path):
    """NDCG of a TREC run: pyarrow's CSV reader but not its compute module (a twentieth of a
    second to load), no numpy.ma (np.unique loads it), and OpenBLAS on one thread; the
    ``ttest`` command keeps OpenBLAS's default."""
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.5 t\n1 Q0 b 2 0.7 t\n2 Q0 c 1 0.1 t\n")
    code = ("import os, sys\nfrom ltrconv.cli import main\ntry:\n    rc = main(sys.argv[1:])\n"
            "except SystemExit as exc:\n    rc = exc.code\n"
            "print([m for m in ('pyarrow.compute', 'numpy.ma', *{HEAVY!r}) if m in "
            "sys.modules], os.environ.get('OPENBLAS_NUM_THREADS'), file=sys.stderr)\n"
            "sys.exit(rc)").replace("{HEAVY!r}", repr(HEAVY))
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    run = [sys.executable, "-c", code, "eval", "--qrels", str(tmp_path / "q"), "--run",
           str(tmp_path / "r"), "-c", "trec_eval", "--metrics", "NDCG"]
    proc = subprocess.run(run, env=dict(env, PYTHONPATH=str(SRC)), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "[] 1"
    assert json.loads(proc.stdout)["conventions"]["trec_eval"]["queries"] == 2
    proc = subprocess.run([*run[:3], "ttest", "--help"], env=dict(env, PYTHONPATH=str(SRC)),
                          capture_output=True, text=True, timeout=300)
    assert proc.stderr.strip().splitlines()[-1] == "[] None"


def test_per_query_tables_load_no_scipy():
    """Every evaluate job of the pipeline builds its table with ltrconv.study.tables; scipy (a
    second of start-up) is needed only by the significance tests."""
    proc = fresh(f"import json, sys, ltrconv.study.tables; print(json.dumps({LOADED}))")
    assert proc.returncode == 0, proc.stderr
    assert "scipy" not in json.loads(proc.stdout)


# Small fits of every ranker; the keys are --param values of 'ltrconv train'.
QUICK = {
    "coordinate_ascent": {"n_restarts": 2, "n_steps": 5, "n_jobs": 1},
    "lambdamart": {"n_estimators": 15},
    "rankboost": {"n_rounds": 20},
    "ranksvm": {"C_grid": [0.1, 10.0]},
    "ranknet": {"architectures": [[5]], "max_epochs": 3},
    "adarank": {"n_rounds": 20},
    "lambdamart_lightgbm": {"n_estimators": 20},  # LightGBM itself loads scikit-learn
}


@pytest.mark.parametrize("algorithm", sorted(QUICK))
def test_train_and_predict_load_no_scikit_learn(tmp_path, algorithm):
    """The ``ltrconv`` command trains and predicts without scikit-learn (a second of start-up,
    ltrconv.rankers.estimator), and writes the same model bytes and scores as the scikit-learn
    estimators (ltrconv.rankers.sklearn) of this process."""
    from ltrconv import rankers

    train, vali, test = (make_letor(n_queries=12, seed=s) for s in (1, 2, 3))
    for name, d in (("train", train), ("vali", vali), ("test", test)):
        write_letor(d, tmp_path / f"{name}.txt")
    params = [f"{k}={json.dumps(v)}" for k, v in QUICK[algorithm].items()]
    argv = ["train", "--algorithm", algorithm, "--train", str(tmp_path / "train.txt"),
            "--vali", str(tmp_path / "vali.txt"), "--out", str(tmp_path / "plain.model")]
    argv += [a for p in params for a in ("--param", p)]
    predict = ["predict", str(tmp_path / "plain.model"), str(tmp_path / "test.txt"),
               "-o", str(tmp_path / "plain.scores")]
    proc = fresh("import json, sys\nfrom ltrconv.cli import main\n"
                 f"rc = main({argv!r}) or main({predict!r})\n"
                 f"print({LOADED}, file=sys.stderr)\nsys.exit(rc)")
    assert proc.returncode == 0, proc.stderr
    assert ("sklearn" in proc.stderr.strip().splitlines()[-1]) == (algorithm == "lambdamart_lightgbm")

    from sklearn.base import BaseEstimator

    from ltrconv.rankers import sklearn as sk

    model = sk.make(algorithm, **QUICK[algorithm])

    assert isinstance(model, BaseEstimator)
    model.fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid,
              docid=train.docid, docid_val=vali.docid)
    model.save(tmp_path / "sklearn.model")
    assert (tmp_path / "plain.model").read_bytes() == (tmp_path / "sklearn.model").read_bytes()
    scores = np.loadtxt(tmp_path / "plain.scores")
    np.testing.assert_array_equal(scores, model.predict(test.X))


@pytest.mark.parametrize("algorithm", ["ranksvm"])
def test_predict_with_a_linear_model_loads_no_numba(tmp_path, algorithm):
    """Scoring with RankSVM's model is a dot product: ``ltrconv predict`` loads neither numba
    nor scipy (about two seconds of start-up), and gives the scores of the trained model.
    (AdaRank and Coordinate Ascent score in RankLib's float arithmetic, with numba kernels.)"""
    from ltrconv import rankers

    train, test = make_letor(n_queries=12, seed=1), make_letor(n_queries=6, seed=3)
    write_letor(test, tmp_path / "test.txt")
    model = rankers.make(algorithm, **QUICK[algorithm]).fit(train.X, train.y, train.qid)
    model.save(tmp_path / "m.model")
    proc = fresh("import sys\nfrom ltrconv.cli import main\n"
                 f"rc = main(['predict', {str(tmp_path / 'm.model')!r}, "
                 f"{str(tmp_path / 'test.txt')!r}])\n"
                 f"print({LOADED}, file=sys.stderr)\nsys.exit(rc)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "[]"
    np.testing.assert_array_equal(np.array(proc.stdout.split(), dtype=float), model.predict(test.X))


def test_plain_rankers_have_scikit_learns_parameters():
    """get_params, set_params, the repr and the refusal of unknown names are the same for the
    rankers (in a process without scikit-learn) and for their estimators."""
    from ltrconv.rankers import registry
    from ltrconv.rankers import sklearn as sk

    code = ("import json, sys\nfrom ltrconv import rankers\n"
            "out = {}\nfor name in rankers.registry.KNOWN:\n"
            "    m = rankers.get_class(name)()\n    out[name] = repr(m.get_params())\n"
            "    out[name + ' repr'] = repr(rankers.get_class(name)(metric='ndcg@5:trec'))\n"
            "    m.set_params(metric='ndcg@5:trec')\n    assert m.metric == 'ndcg@5:trec'\n"
            "    try:\n        m.set_params(nope=1)\n    except rankers.ParamError as exc:\n"
            "        assert isinstance(exc, ValueError) and isinstance(exc, TypeError), exc\n"
            "    else:\n        raise AssertionError('nope accepted')\n"
            "print(json.dumps(out))\n"
            f"print({LOADED}, file=sys.stderr)")
    proc = fresh(code)
    assert proc.returncode == 0, proc.stderr
    assert "sklearn" not in proc.stderr.strip().splitlines()[-1]
    plain = json.loads(proc.stdout)
    for name in registry.KNOWN:
        assert plain[name] == repr(sk.get_class(name)().get_params()), name
        changed = sk.get_class(name)(metric="ndcg@5:trec")
        expected = f"{type(changed).__name__}(metric='ndcg@5:trec')"
        assert plain[name + " repr"] == repr(changed) == expected


SIX = [n for n in QUICK if n != "lambdamart_lightgbm"]


@pytest.mark.parametrize("algorithm", SIX)
def test_fit_predict_save_load_import_no_scikit_learn(tmp_path, algorithm):
    """In a fresh interpreter, with no call made first: make, fit, predict, save and load each
    of the six rankers through the Python API, and scikit-learn is never imported."""
    code = ("import json, sys\nfrom ltrconv import rankers\n"
            "from ltrconv.data.synthetic import make_letor\n"
            "tr, va = make_letor(n_queries=12, seed=1), make_letor(n_queries=8, seed=2)\n"
            f"m = rankers.make({algorithm!r}, **{QUICK[algorithm]!r})\n"
            "m.fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid, docid=tr.docid,"
            " docid_val=va.docid)\n"
            "p = m.predict(va.X)\nm.save(sys.argv[1])\n"
            "assert (rankers.load(sys.argv[1]).predict(va.X) == p).all()\n"
            f"print(json.dumps([type(m).__module__, {LOADED}]))")
    proc = fresh(code, str(tmp_path / "m.model"))
    assert proc.returncode == 0, proc.stderr
    module, loaded = json.loads(proc.stdout)
    assert module.startswith("ltrconv.rankers.") and "sklearn" not in module
    assert "sklearn" not in loaded, loaded


def test_ranksvm_training_loads_no_scipy(tmp_path):
    """``ltrconv train`` of RankSVM runs numba kernels without loading scipy.linalg (nor
    numpy.f2py, which scipy 1.17 pulls in): numba's BLAS probe is deferred by ltrconv.jit.
    A kernel compiled afterwards that calls BLAS still gets it, and numba's answer to the probe
    is the one it gives with scipy installed."""
    train, vali = make_letor(n_queries=12, seed=1), make_letor(n_queries=8, seed=2)
    write_letor(train, tmp_path / "train.txt")
    write_letor(vali, tmp_path / "vali.txt")
    argv = ["train", "--algorithm", "ranksvm", "--train", str(tmp_path / "train.txt"),
            "--vali", str(tmp_path / "vali.txt"), "--out", str(tmp_path / "m.model"),
            "--param", "C_grid=[0.1, 10.0]"]
    slow = ("scipy.linalg", "numpy.f2py", "pandas", "pyarrow", "matplotlib", "sklearn")
    code = ("import json, sys\nfrom ltrconv.cli import main\n"
            f"rc = main({argv!r})\n"
            f"after_train = [m for m in {slow!r} if m in sys.modules]\n"
            "ran_kernels = 'numba.np.arraymath' in sys.modules\n"
            "import numpy as np\nfrom ltrconv.jit import njit\n"
            "@njit\ndef f(a, b):\n    return np.dot(a, b), np.convolve(a, b)\n"
            "a, b = np.arange(1.0, 40.0), np.linspace(-1.0, 2.0, 39)\n"
            "d, c = f(a, b)\n"
            "import numba.np.arraymath as am\n"
            "print(json.dumps([rc, after_train, ran_kernels, bool(d == np.dot(a, b)),"
            " bool(np.allclose(c, np.convolve(a, b))), am._HAVE_BLAS,"
            " 'scipy.linalg' in sys.modules]))")
    proc = fresh(code)
    assert proc.returncode == 0, proc.stderr
    rc, after_train, ran_kernels, dot_ok, convolve_ok, have_blas, blas_loaded = \
        json.loads(proc.stdout.strip().splitlines()[-1])
    assert rc == 0 and ran_kernels
    assert after_train == []
    assert dot_ok and convolve_ok and have_blas and blas_loaded


def test_the_workflow_plan_loads_no_table_or_figure_package():
    """Every Snakemake invocation builds the plan (workflow/rules/common.smk): it reads the
    study's convention names, not the modules that compute with them (pandas, matplotlib)."""
    repo = SRC.parent
    proc = fresh("import sys, yaml\nfrom ltrconv.pipeline import build_plan, config\n"
                 f"cfg = yaml.safe_load(open({str(repo / 'config' / 'extended.yaml')!r}))\n"
                 f"base = yaml.safe_load(open({str(repo / 'config' / 'config.yaml')!r}))\n"
                 f"plan = build_plan(config.fill_defaults(config.merge(base, cfg), "
                 f"config.load_schema({str(repo)!r})))\n"
                 "print(plan.extensions['ties'], [m for m in ('pandas', 'matplotlib') "
                 "if m in sys.modules])")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split(maxsplit=1) == ["True", "[]\n"]
