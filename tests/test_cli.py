"""The command line: outputs, and one-line errors with a non-zero exit."""

import json
import subprocess
import sys

import numpy as np
import pytest

from ltrconv.cli import main
from ltrconv.synthetic import make_letor, write_letor


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    data = make_letor(n_queries=40, seed=3)
    write_letor(data, d / "data.txt")
    rng = np.random.default_rng(0)
    np.savetxt(d / "a.txt", data.X[:, :3].sum(axis=1))
    np.savetxt(d / "b.txt", rng.random(data.n_docs))
    return d, data


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


def test_ttest_between_two_runs(files, tmp_path, capsys):
    d, _ = files
    for name in ("a", "b"):
        assert main(["eval", str(d / "data.txt"), str(d / f"{name}.txt"), "--per-query",
                     "-o", str(tmp_path / f"{name}.json")]) == 0
    assert main(["ttest", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "-c", "ranklib"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert rows[0][:3] == ["convention", "metric", "n"]
    ndcg10 = next(r for r in rows if r[1] == "NDCG@10")
    assert float(ndcg10[5]) > 0 and float(ndcg10[7]) < 0.05  # the informative run wins


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
