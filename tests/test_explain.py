"""explain: the difference of two conventions' means split into causes by Shapley values."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ltrconv.cli import main
from ltrconv.errors import LtrconvError
from ltrconv.evaluation import conventions as C
from ltrconv.evaluation.explain import differing_causes, explain
from ltrconv.evaluation.metrics import Evaluation, evaluate


def fake(table):
    """evaluate(conv) giving one query whose NDCG@1 is table[(gain, disc)]."""
    def run(conv):
        v = table[(conv.gain, conv.disc)]
        return Evaluation(conv, np.array(["q"]), ("NDCG@1",), np.array([[v]]))
    return run


def test_interaction_is_split_evenly():
    a, b = C.Convention(), C.Convention(gain="linear", disc="position")
    table = {("exp", "log2"): 0.0, ("linear", "log2"): 0.0, ("exp", "position"): 0.0,
             ("linear", "position"): 1.0}
    (e,) = explain(a, b, fake(table), [1])
    assert [(c.axis, c.contribution, c.queries) for c in e.causes] == \
        [("gain", 0.5, 1), ("discount", 0.5, 1)]
    assert e.difference == 1.0


def test_additive_effects_and_reversal():
    a, b = C.Convention(), C.Convention(gain="linear", disc="position")
    table = {("exp", "log2"): 0.1, ("linear", "log2"): 0.3, ("exp", "position"): 0.6,
             ("linear", "position"): 0.8}
    (e,) = explain(a, b, fake(table), [1])
    assert [c.contribution for c in e.causes] == pytest.approx([0.2, 0.5])
    (r,) = explain(b, a, fake(table), [1])
    assert [c.contribution for c in r.causes] == pytest.approx([-0.2, -0.5])


def test_letor_closed_form():
    # q1 has no relevant document; q2 ranks its relevant one second of two
    y, s, qid = np.array([0, 0, 0, 1]), np.array([2.0, 1.0, 2.0, 1.0]), np.array([1, 1, 2, 2])

    def ev(conv):
        return next(iter(evaluate(y, s, qid, conventions=[conv], cutoffs=[1, 2],
                                  metrics=("NDCG",)).values()))

    a, b = C.get("ranklib"), C.get("lightgbm")
    assert differing_causes(a, b) == ["empty", "labels"]
    e1, e2 = explain(a, b, ev, [1, 2])
    assert e1.start == 0.0 and e1.end == 0.5
    assert [(c.axis, c.contribution, c.queries) for c in e1.causes] == \
        [("empty", 0.5, 1), ("labels", 0.0, 0)]
    assert e2.start == pytest.approx(1 / np.log2(3) / 2)
    assert sum(c.contribution for c in e2.causes) == pytest.approx(e2.difference, abs=1e-15)


def test_command_json_and_plot(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 x 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.5 r\n1 Q0 z 3 0.7 r\n")
    assert main(["explain", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"),
                 "--from", "trec_eval", "--to", "trec_eval-c", "--cutoffs", "3",
                 "--format", "json", "--plot", str(tmp_path / "w.png")]) == 0
    doc = json.loads(capsys.readouterr().out)["cutoffs"]["3"]
    assert doc["from"] == pytest.approx(2 * doc["to"])  # query 2 missing: counted as 0
    assert doc["causes"] == [{"axis": "missing", "contribution": doc["difference"],
                              "queries": 1}]
    assert (tmp_path / "w.png").read_bytes()[:4] == b"\x89PNG"
    assert main(["explain", "--qrels", str(tmp_path / "q"), "--from", "trec_eval", "--to",
                 "ranx"]) == 2
    assert "explain needs DATA and SCORES, or --qrels and --run" in capsys.readouterr().err


@pytest.mark.parametrize("plot, output, message", [
    # matplotlib refused the format with a traceback once the work was done
    ("w.docx", None, "--plot {d}/w.docx: cannot draw a .docx file; name one ending in"),
    ("w.png", "w.png", "--plot and --output both name {d}/w.png"),
])
def test_plot_is_checked_before_the_work(tmp_path, capsys, plot, output, message):
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.7 r\n")
    args = ["explain", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"),
            "--from", "trec_eval", "--to", "ranx", "--plot", str(tmp_path / plot)]
    assert main(args + (["-o", str(tmp_path / output)] if output else [])) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message.format(d=tmp_path) in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q", "r"]


def test_a_plot_name_without_suffix_is_png(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.7 r\n")
    (tmp_path / "a.b").mkdir()  # the dot of a directory is no suffix
    assert main(["explain", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"),
                 "--from", "trec_eval", "--to", "ranx", "--plot", str(tmp_path / "a.b/w")]) == 0
    assert (tmp_path / "a.b" / "w").read_bytes()[:4] == b"\x89PNG"


def test_values_kept_are_bounded(monkeypatch):
    # every convention mix's per-query values are kept to the end: 2^causes x queries x
    # cutoffs; 8 causes, 10,000 queries and 1,000 cutoffs would be 2.6e9 values (20 GB)
    from ltrconv.evaluation import explain as X

    a, b = C.Convention(), C.Convention(gain="linear", disc="position")
    qids = np.array([f"q{i}" for i in range(3000)])
    calls = []

    def ev(conv):
        calls.append(conv)
        return Evaluation(conv, qids, ("NDCG@1", "NDCG@2"), np.zeros((3000, 2)))

    with pytest.raises(LtrconvError, match=r"4 convention mixes x 3000 queries x 2 cutoffs = "
                                           r"24,000 values, more than 20,000"):
        monkeypatch.setattr(X, "MAX_VALUES", 20_000)
        explain(a, b, ev, [1, 2])
    assert len(calls) == 1  # refused after the first evaluation
    monkeypatch.undo()
    e1, e2 = explain(a, b, ev, [1, 2])
    assert e1.difference == 0 and all(c.queries == 0 for c in e2.causes)


def test_plot_panels_are_bounded_before_the_work(tmp_path, capsys):
    # --cutoffs 1-300 --plot drew a 700 x 78,000-pixel PNG for minutes
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.7 r\n")
    assert main(["explain", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"),
                 "--from", "trec_eval", "--to", "ranx", "--cutoffs", "1-51",
                 "--plot", str(tmp_path / "w.png")]) == 2
    assert "--plot draws a waterfall per cutoff, at most 50; --cutoffs 1-51 gives 51" in \
        capsys.readouterr().err
    assert not (tmp_path / "w.png").exists()
