"""The command line: outputs, and one-line errors with a non-zero exit."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ltrconv.cli import main
from ltrconv.data.synthetic import write_letor

from cli_helpers import fails, files  # noqa: F401 (files is a fixture)


def test_eval_json_shape(files, capsys):
    d, data = files
    assert main(["eval", str(d / "data.txt"), str(d / "a.txt"), "--per-query", "-c", "ranklib", "-c", "yahoo"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["conventions"]) == {"ranklib", "yahoo"}
    r = doc["conventions"]["ranklib"]
    assert {"NDCG@1", "NDCG@10", "P@1", "MAP"} <= set(r["mean"])
    assert len(r["per_query"]) == data.n_queries
    per_q = np.mean([v["NDCG@10"] for v in r["per_query"].values()])
    assert per_q == pytest.approx(r["mean"]["NDCG@10"])
    empty_share = np.mean([data.y[a:b].max() == 0 for a, b in zip(data.offsets[:-1], data.offsets[1:])])
    diff = doc["conventions"]["yahoo"]["mean"]["NDCG@5"] - r["mean"]["NDCG@5"]
    assert diff == pytest.approx(empty_share)


def test_eval_metrics_option_reports_those_metrics_with_the_same_values(files, capsys):
    d, _ = files
    assert main(["eval", str(d / "data.txt"), str(d / "a.txt"), "--per-query"]) == 0
    every = json.loads(capsys.readouterr().out)["conventions"]
    assert main(["eval", str(d / "data.txt"), str(d / "a.txt"), "--per-query",
                 "--metrics", "NDCG, P"]) == 0
    some = json.loads(capsys.readouterr().out)["conventions"]
    for name, entry in some.items():
        assert set(entry["mean"]) == {f"{m}@{k}" for m in ("NDCG", "P") for k in range(1, 11)}
        assert entry["mean"] == {c: every[name]["mean"][c] for c in entry["mean"]}
        assert entry["per_query"] == {q: {c: v[c] for c in entry["mean"]}
                                      for q, v in every[name]["per_query"].items()}
    fails(capsys, ["eval", d / "data.txt", d / "a.txt", "--metrics", "NDCG,AP"],
          "metrics AP: expected some of NDCG, DCG, P, ERR, MAP, RR")


def test_audit_text(files, capsys):
    d, _ = files
    assert main(["audit", str(d / "data.txt")]) == 0
    out = capsys.readouterr().out
    assert "queries              40" in out and "letor scores 0" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["eval", "{d}/data.txt", "{d}/short.txt"], "short.txt: has 3 score lines but the data has"),
        (["eval", "{d}/missing.txt", "{d}/a.txt"], "missing.txt: cannot read"),
        (["eval", "{d}/data.txt", "{d}/a.txt", "-c", "nope"], "unknown convention 'nope'"),
        (["train", "--algorithm", "nope", "--train", "{d}/data.txt", "--out", "{d}/m.pkl"], "unknown algorithm 'nope'"),
        (["train", "--algorithm", "adarank", "--metric", "ndcg:10", "--train", "{d}/data.txt", "--out", "{d}/m.pkl"], "expected ndcg@K:CONVENTION"),
    ],
)
def test_errors_are_one_line_and_exit_non_zero(files, args, message):
    d, _ = files
    (d / "short.txt").write_text("1\n2\n3\n")
    proc = subprocess.run([sys.executable, "-m", "ltrconv.cli", *[a.format(d=d) for a in args]],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (d / "m.pkl").exists()


# --- hostile and careless input: one line naming file/line/option, exit 2, nothing written --
def run_limited(args, tmp_path):
    """The CLI in a child limited to 4 GB of address space and 60 s: unbounded work fails fast."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    import os

    import ltrconv

    env = {**os.environ, "PYTHONPATH": str(Path(ltrconv.__file__).parents[1])}  # this checkout
    return subprocess.run([sys.executable, "-m", "ltrconv.cli", *map(str, args)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60, preexec_fn=limit)


@pytest.mark.parametrize(
    "cutoffs, message",
    [
        ("1-100000000", "cutoffs '1-100000000': cutoff 100000000 is above 100000"),
        ("1-100000", "cutoffs '1-100000': more than 1000 distinct cutoffs"),
    ],
)
def test_cutoffs_are_bounded(files, tmp_path, cutoffs, message):
    d, _ = files
    out = tmp_path / "r.json"
    proc = run_limited(["eval", d / "data.txt", d / "a.txt", "--cutoffs", cutoffs, "-o", out], tmp_path)
    assert proc.returncode == 2 and message in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "cutoffs, message",
    [
        ("1-100000", "cutoffs '1-100000': more than 1000 distinct cutoffs (each adds four"),
        ("10-1", "range 10-1 is empty (its end is below its start); did you mean 1-10?"),
        ("0-5", "cutoffs '0-5': cutoff 0 must be >= 1"),
    ],
)
def test_cutoff_messages(files, tmp_path, capsys, cutoffs, message):
    d, _ = files
    out = tmp_path / "r.txt"
    fails(capsys, ["eval", d / "data.txt", d / "a.txt", "--cutoffs", cutoffs, "-o", out], message, out)
    fails(capsys, ["audit", d / "data.txt", "--cutoffs", cutoffs, "-o", out], message, out)


def test_stray_feature_index_is_refused_without_allocating(tmp_path):
    (tmp_path / "d.txt").write_text("0 qid:1 1:0.5 #docid = a\n1 qid:1 1:0.2 1000000000:0.3 #docid = b\n")
    (tmp_path / "s.txt").write_text("0.1\n0.2\n")
    proc = run_limited(["eval", "d.txt", "s.txt", "-o", "out.json"], tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("ltrconv: error: d.txt:2: feature index 1000000000 is above 100000")
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "out.json").exists()


@pytest.mark.parametrize(
    "text, message",
    [
        ("0 qid:1 1:0.5\n1 qid:1 1:0.2 100000000000:0.3\n", "d.txt:2: feature index 100000000000 is above"),
        ("0 qid:1 1:0.5\n1 qid:1 1:0.2 1e11:0.3\n", "d.txt:2: malformed token '1e11:0.3'"),
        ("0 qid:1 1:0.5\n1 qid:123456789012345678901234567890 1:0.2\n", "d.txt:2: qid 123456789012345678901234567890 does not fit in 64 bits"),
        ("0 qid:1 1:0.5\n1 qid:q7 1:0.2\n", "d.txt:2: qid 'q7' is not an integer"),
        ("0 qid:1 1:0.5\n1e11 qid:1 1:0.2\n", "d.txt:2: label '1e11' is above 1000"),
    ],
)
def test_hostile_data_lines(tmp_path, capsys, text, message):
    (tmp_path / "d.txt").write_text(text)
    (tmp_path / "s.txt").write_text("0.1\n0.2\n")
    fails(capsys, ["eval", tmp_path / "d.txt", tmp_path / "s.txt", "-o", tmp_path / "r.json"],
          message, tmp_path / "r.json")


def test_truncated_cache_and_bad_conventions_file(files, tmp_path, capsys):
    d, data = files
    data.save(tmp_path / "c.npz")
    blob = (tmp_path / "c.npz").read_bytes()
    (tmp_path / "c.npz").write_bytes(blob[: len(blob) // 3])
    out = tmp_path / "r.json"
    fails(capsys, ["eval", tmp_path / "c.npz", d / "a.txt", "-o", out],
          f"{tmp_path / 'c.npz'}: not a dataset cache, or a truncated/corrupt one", out)
    (tmp_path / "g.yaml").write_text("conventions:\n  g:\n    gain: {0: 0, 1: x}\n")
    fails(capsys, ["eval", d / "data.txt", d / "a.txt", "--conventions-file", tmp_path / "g.yaml",
                   "-o", out], "g.yaml: conventions.g: gain map value 'x' is not a number", out)
    (tmp_path / "g.yaml").write_text("conventions:\n  g:\n    gain: {0: 0, [1]: 1}\n")
    fails(capsys, ["conventions", "--conventions-file", tmp_path / "g.yaml"],
          "g.yaml:3: not valid YAML")


@pytest.mark.parametrize(
    "param, message",
    [
        ("metric=ndcg@5:trec", "--param metric=ndcg@5:trec: the training metric is set with --metric"),
        ("name=x", "--param: ranksvm has no parameter(s) ['name']"),
        ("foo=1", "--param: ranksvm has no parameter(s) ['foo']"),
        ("tol=true", "--param tol: ranksvm: tol must be a finite number > 0, got True"),
        ("C_grid=[]", "--param C_grid: ranksvm: C_grid must be a non-empty list of finite numbers"),
        ("max_iter=ten", "--param max_iter: ranksvm: max_iter must be an integer >= 1, got 'ten'"),
    ],
)
def test_train_param_collisions(files, tmp_path, capsys, param, message):
    d, _ = files
    out = tmp_path / "m.pkl"
    fails(capsys, ["train", "--algorithm", "ranksvm", "--train", d / "data.txt", "--out", out,
                   "--param", param], message, out)


def test_train_removed_random_state_says_why(files, tmp_path, capsys):
    d, _ = files
    out = tmp_path / "m.pkl"
    fails(capsys, ["train", "--algorithm", "adarank", "--train", d / "data.txt", "--out", out,
                   "--param", "random_state=0"],
          "--param: adarank has no parameter(s) ['random_state']; random_state: AdaRank is "
          "deterministic", out)


@pytest.mark.parametrize("algorithm", ["adarank", "coordinate_ascent", "lambdamart", "ranknet",
                                       "rankboost", "ranksvm"])
@pytest.mark.parametrize("split", ["train", "vali"])
def test_train_refuses_data_without_relevant_documents(files, tmp_path, capsys, algorithm, split):
    from dataclasses import replace

    d, data = files
    write_letor(replace(data, y=np.zeros_like(data.y)), tmp_path / "zeros.txt")
    files_ = {"train": d / "data.txt", "vali": d / "data.txt", split: tmp_path / "zeros.txt"}
    out = tmp_path / "m.pkl"
    what = "training" if split == "train" else "validation"
    fails(capsys, ["train", "--algorithm", algorithm, "--train", files_["train"], "--vali",
                   files_["vali"], "--out", out],
          f"{tmp_path / 'zeros.txt'}: {what} data has no relevant document (every label is 0)", out)


def test_train_metric_as_eval_writes_it(files, tmp_path, capsys):
    d, _ = files
    assert main(["train", "--algorithm", "ranksvm", "--metric", "NDCG@10:letor", "--train",
                 str(d / "data.txt"), "--vali", str(d / "data.txt"), "--out", str(tmp_path / "m.pkl"),
                 "--param", "C_grid=[1.0]"]) == 0
    from ltrconv.rankers import load

    assert str(load(tmp_path / "m.pkl").metric_spec) == "ndcg@10:letor"


def test_train_without_vali_warns_in_one_line(files, tmp_path, capsys):
    d, _ = files
    capsys.readouterr()
    assert main(["train", "--algorithm", "ranksvm", "--train", str(d / "data.txt"), "--out",
                 str(tmp_path / "m.pkl"), "--param", "C_grid=[1.0]"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (f"ltrconv: warning: no --vali file: model selection (C) runs on the training "
                      f"data {d / 'data.txt'}")
    assert err[1].startswith(f"ltrconv: ranksvm selected C = 1 on the training data {d / 'data.txt'}: "
                             "ndcg@10:ranklib = 0.")
    assert len(err) == 2 and (tmp_path / "m.pkl").exists()


SMALL = {"adarank": ["n_rounds=3"], "coordinate_ascent": ["n_restarts=2", "n_steps=2", "n_jobs=1"],
         "lambdamart": ["n_estimators=4"], "rankboost": ["n_rounds=3"],
         "ranknet": ["architectures=[[3]]", "max_epochs=2"], "ranksvm": ["C_grid=[0.1, 1.0]"]}
SELECTED = {"adarank": r"\d+ rounds", "coordinate_ascent": r"restart [12] of 2",
            "lambdamart": r"[1-4] trees", "rankboost": r"[0-3] rounds",
            "ranknet": r"hidden layers 3, epoch [0-2]", "ranksvm": r"C = (0.1|1)"}


@pytest.mark.parametrize("algorithm", sorted(SMALL))
def test_train_says_what_it_selected(files, tmp_path, capsys, algorithm):
    import re

    d, _ = files
    capsys.readouterr()
    args = ["train", "--algorithm", algorithm, "--train", str(d / "data.txt"), "--vali",
            str(d / "data.txt"), "--out", str(tmp_path / "m.pkl")]
    assert main(args + [a for p in SMALL[algorithm] for a in ("--param", p)]) == 0
    err = capsys.readouterr().err
    assert re.fullmatch(rf"ltrconv: {algorithm} selected {SELECTED[algorithm]} on the validation "
                        rf"data {re.escape(str(d / 'data.txt'))}: ndcg@10:ranklib = [01]\.\d{{4}}; "
                        rf"model saved to {re.escape(str(tmp_path / 'm.pkl'))}\n", err), err


def test_train_help_lists_every_parameter_with_its_default(capsys, monkeypatch):
    from ltrconv import rankers

    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    for name in rankers.ALGORITHMS:
        assert f"  {name} (validation data selects {rankers.selects(name)}):" in out
        for param, default, _ in rankers.param_help(name):
            if param != "metric":
                assert f"    {param}=" in out
    assert "    C_grid=[1.0e-06, 1.0e-05, 0.0001," in out  # YAML reads them as floats
    assert "    architectures=[[10], [50]," in out and "enqueue=true:" in out


def write_sparse(data, path, drop_zeros=True):
    """LETOR text without zero-valued features (as sparse writers do)."""
    with open(path, "w") as fh:
        for i in range(data.n_docs):
            feats = " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(data.X[i])
                             if v != 0 or not drop_zeros)
            fh.write(f"{data.y[i]} qid:{data.qid[i]} {feats} #docid = {data.docid[i]}\n")


def test_files_that_omit_trailing_zero_features(files, tmp_path, capsys):
    from dataclasses import replace

    _, data = files
    X = data.X.copy()
    X[:, -2:] = 0.0  # the last two features are zero everywhere
    full = replace(data, X=X)
    write_letor(full, tmp_path / "full.txt")
    write_sparse(full, tmp_path / "sparse.txt")
    assert "9:" not in (tmp_path / "sparse.txt").read_text()
    # train on the narrow file, validate on the full one: widths are reconciled with zeros
    assert main(["train", "--algorithm", "ranksvm", "--train", str(tmp_path / "sparse.txt"),
                 "--vali", str(tmp_path / "full.txt"), "--out", str(tmp_path / "m.pkl")]) == 0
    # predicting the narrow file equals predicting the full one
    for name in ("full", "sparse"):
        assert main(["predict", str(tmp_path / "m.pkl"), str(tmp_path / f"{name}.txt"),
                     "-o", str(tmp_path / f"{name}.scores")]) == 0
    assert (tmp_path / "full.scores").read_text() == (tmp_path / "sparse.scores").read_text()
    # a file wider than the model is refused, naming the file and the line
    wide = replace(data, X=np.hstack([data.X, np.ones((data.n_docs, 1))]))
    write_letor(wide, tmp_path / "wide.txt")
    fails(capsys, ["predict", tmp_path / "m.pkl", tmp_path / "wide.txt", "-o", tmp_path / "w.scores"],
          f"{tmp_path / 'wide.txt'}:1: feature index 11 is beyond the 10 features the model "
          f"{tmp_path / 'm.pkl'} was fitted on", tmp_path / "w.scores")


def test_audit_of_files_with_different_widths(files, tmp_path, capsys):
    d, data = files
    (tmp_path / "narrow.txt").write_text("0 qid:5 1:0.5 #docid = x\n1 qid:5 1:0.1 #docid = y\n")
    capsys.readouterr()
    assert main(["audit", str(d / "data.txt"), str(tmp_path / "narrow.txt"), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["features"] == data.X.shape[1] and report["queries"] == data.n_queries + 1


def test_docid_warnings_are_one_line(tmp_path, capsys):
    (tmp_path / "d.txt").write_text("1 qid:1 1:0.5 #docid = A\n0 qid:1 1:0.5 #docid = A\n")
    (tmp_path / "s.txt").write_text("0.1\n0.1\n")
    capsys.readouterr()
    assert main(["eval", str(tmp_path / "d.txt"), str(tmp_path / "s.txt"), "-c", "trec"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"ltrconv: warning: {tmp_path / 'd.txt'}:2: docid A repeats within "
                          "query 1 (first on line 1)")
    assert len(err.splitlines()) == 1


def test_conventions_file_cannot_redefine_a_built_in(files, tmp_path, capsys):
    d, data = files
    (tmp_path / "c.yaml").write_text("conventions: {ranklib: {empty: 1}}\n")
    out = tmp_path / "r.json"
    fails(capsys, ["eval", d / "data.txt", d / "a.txt", "--conventions-file", tmp_path / "c.yaml",
                   "-c", "ranklib", "-o", out],
          f"{tmp_path / 'c.yaml'}: conventions.ranklib: 'ranklib' is the name of a built-in "
          "convention, reserved", out)
    # a column labelled ranklib still scores queries without a relevant document 0
    assert main(["eval", str(d / "data.txt"), str(d / "a.txt"), "-c", "ranklib", "--per-query",
                 "--cutoffs", "5"]) == 0
    per_query = json.loads(capsys.readouterr().out)["conventions"]["ranklib"]["per_query"]
    empty = [str(data.qid[a]) for a, b in zip(data.offsets[:-1], data.offsets[1:])
             if data.y[a:b].max() == 0]
    assert empty and {per_query[q]["NDCG@5"] for q in empty} == {0.0}


@pytest.mark.parametrize("command", [None, "eval", "eval-score", "ttest", "compare", "audit",
                                     "conventions", "train", "predict", "check-reference",
                                     "check-libraries", "identify"])
def test_help_is_plain_text(command, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as exc:
        main(([command] if command else []) + ["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "``" not in out and ":func:" not in out and ":class:" not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    paragraphs = out.split("\n\n")  # usage, then a description before the arguments
    assert len(paragraphs) >= 3 and not paragraphs[1].startswith(("positional", "options"))


def test_every_argument_has_help():
    import argparse

    from ltrconv.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {"eval", "eval-score", "ttest", "compare", "audit", "conventions",
                                "train", "predict", "check-reference", "check-libraries",
                                "explain", "identify"}
    for name, parser in sub.choices.items():
        for action in parser._actions:
            assert action.help, f"{name} {action.dest}"


def test_yaml_bomb_in_a_conventions_file_or_a_param_fails_fast(files, tmp_path):
    from test_conventions import yaml_bomb

    d, _ = files
    (tmp_path / "bomb.yaml").write_text(yaml_bomb())
    inline = "[&l0 [x, x, x, x, x, x, x, x, x], " + ", ".join(
        f"&l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)) + "]"
    for args in (["eval", d / "data.txt", d / "a.txt", "--conventions-file", "bomb.yaml",
                  "-o", "r.json"],
                 ["train", "--algorithm", "ranksvm", "--train", d / "data.txt", "--out", "m.pkl",
                  "--param", "C_grid=" + inline]):
        proc = run_limited(args, tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert "expand the document by more than 10,000 values" in proc.stderr
        assert len(proc.stderr.splitlines()) == 1 and len(proc.stderr) < 400
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bomb.yaml"]


def test_a_key_given_twice_in_a_definition_string(files, tmp_path, capsys):
    d, _ = files
    out = tmp_path / "r.json"
    fails(capsys, ["eval", d / "data.txt", d / "a.txt", "-c", "ndcg(empty=0.5,empty=1)", "-o", out],
          "cannot parse convention 'ndcg(empty=0.5,empty=1)': empty is given twice", out)


def test_audit_names_the_files_that_share_queries(files, tmp_path, capsys):
    d, data = files
    out = tmp_path / "r.txt"
    (tmp_path / "link.txt").symlink_to(d / "data.txt")
    (tmp_path / "other.txt").write_text(f"0 qid:{data.qid[0]} 1:0.5 #docid = a\n"
                                        f"1 qid:{data.qid[0]} 1:0.1 #docid = b\n")
    fails(capsys, ["audit", d / "data.txt", d / "data.txt", "-o", out],
          f"{d / 'data.txt'} is given twice; audit it once", out)
    fails(capsys, ["audit", d / "data.txt", tmp_path / "link.txt", "-o", out],
          f"{d / 'data.txt'} and {tmp_path / 'link.txt'} are the same file; audit it once", out)
    fails(capsys, ["audit", d / "data.txt", tmp_path / "other.txt", "-o", out],
          f"{d / 'data.txt'} and {tmp_path / 'other.txt'} share 1 query id(s) (e.g. {data.qid[0]}); "
          "audit them one at a time", out)


def test_control_characters_in_paths_and_names_stay_on_one_line(files, tmp_path, capsys):
    d, _ = files
    odd = tmp_path / "new\nline\x1b[31m.txt"
    odd.write_text("0 qid:1 1:0.5\nx qid:1 1:0.5\n")
    escaped = str(tmp_path / "new\\nline\\x1b[31m.txt")
    fails(capsys, ["eval", odd, d / "a.txt"], f"{escaped}:2: label 'x' is not a number")
    fails(capsys, ["eval", tmp_path / "gone\r.txt", d / "a.txt"], f"{tmp_path}/gone\\r.txt: cannot read")
    fails(capsys, ["eval", d / "data.txt", d / "a.txt", "-c", "no\npe"], "unknown convention 'no\\npe'")
    fails(capsys, ["audit", d / "data.txt", "-o", f"{tmp_path}/dir\n/x/"], "dir\\n/x/: names a directory")
    odd.write_text("1 qid:1 1:0.5 #docid = A\n0 qid:1 1:0.5 #docid = A\n")
    (tmp_path / "s.txt").write_text("0.1\n0.1\n")
    capsys.readouterr()
    assert main(["eval", str(odd), str(tmp_path / "s.txt"), "-c", "trec"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"ltrconv: warning: {escaped}:2: docid A repeats") and err.count("\n") == 1


def test_docid_warning_only_where_a_tie_order_reads_docids(tmp_path, capsys):
    """Repeated or missing docids matter only to the trec tie order (docid-desc): eval under
    ranklib, predict, and train under letor say nothing of them."""
    text = "".join(f"{i % 3} qid:{1 + i // 4} 1:{i / 10} 2:{(i * 7) % 5 / 5} #docid = A\n"
                   for i in range(16))
    (tmp_path / "d.txt").write_text(text)
    (tmp_path / "s.txt").write_text("".join(f"{i / 7}\n" for i in range(16)))
    capsys.readouterr()
    assert main(["eval", str(tmp_path / "d.txt"), str(tmp_path / "s.txt"), "-c", "ranklib"]) == 0
    assert main(["train", "--algorithm", "adarank", "--train", str(tmp_path / "d.txt"), "--vali",
                 str(tmp_path / "d.txt"), "--metric", "ndcg@10:letor", "--param", "n_rounds=2",
                 "--out", str(tmp_path / "m")]) == 0
    assert main(["predict", str(tmp_path / "m"), str(tmp_path / "d.txt"), "-o",
                 str(tmp_path / "p.txt")]) == 0
    assert "repeats within query" not in capsys.readouterr().err
    assert main(["eval", str(tmp_path / "d.txt"), str(tmp_path / "s.txt"), "-c", "trec"]) == 0
    assert "docid A repeats within query 1" in capsys.readouterr().err
