"""``ltrconv eval-score``: LETOR 4.0's Eval-Score-4.0.pl arguments and layout, hand-computed."""

import math

import pytest

from ltrconv.cli import main

# qid 10 (file order first): labels 2, 0, 1 scored 0.1, 0.3, 0.3 -> ranked (input order within
# the tie) labels 0, 1, 2. qid 9: two irrelevant documents.
DATA = (
    "2 qid:10 1:0.1 #docid = a inc = 1 prob = 0.5\n"
    "0 qid:10 1:0.2 #docid = b inc = 1 prob = 0.5\n"
    "1 qid:10 1:0.3 #docid = c inc = 1 prob = 0.5\n"
    "0 qid:9 1:0.4 #docid = d inc = 1 prob = 0.5\n"
    "0 qid:9 1:0.5 #docid = e inc = 1 prob = 0.5\n"
)
SCORES = "0.1\n0.3\n0.3\n1\n2\n"


def q10():
    """P@1..10, AP, NDCG@1..10 and MeanNDCG of qid 10 from the definitions."""
    prec = [0, 1 / 2, 2 / 3] + [2 / k for k in range(4, 11)]
    ap = (1 / 2 + 2 / 3) / 2
    dcg = [0, 1, 1 + 3 / math.log2(3)]  # gains 0, 1, 3; no discount at ranks 1-2
    ideal = [3, 4, 4]  # gains 3, 1, 0
    ndcg = [d / i for d, i in zip(dcg, ideal)] + [0.0] * 7  # 3 documents: NDCG@k>3 = 0
    return prec, ap, ndcg, sum(ndcg[:3]) / 3


def row(head, values):
    return head + "\t" + "\t".join(f"{v:.4f}" for v in values) + "\n"


def expected(per_query: bool) -> str:
    prec, ap, ndcg, mean_ndcg = q10()
    zeros = [0.0] * 11
    p_head = "qid\t" + "\t".join(f"P@{k}" for k in range(1, 11)) + "\tMAP\n"
    n_head = "qid\t" + "\t".join(f"NDCG@{k}" for k in range(1, 11)) + "\tMeanNDCG\n"
    out = p_head
    if per_query:
        out += row("9", zeros) + row("10", prec + [ap])
    out += row("Average", [v / 2 for v in prec + [ap]]) + "\n" + n_head
    if per_query:
        out += row("9", zeros) + row("10", ndcg + [mean_ndcg])
    return out + row("Average", [v / 2 for v in ndcg + [mean_ndcg]]) + "\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "test.txt").write_text(DATA)
    (tmp_path / "pred.txt").write_text(SCORES)
    return tmp_path


@pytest.mark.parametrize("flag", ["0", "1"])
def test_layout_and_values(files, flag):
    out = files / "result.txt"
    assert main(["eval-score", str(files / "test.txt"), str(files / "pred.txt"), str(out), flag]) == 0
    assert out.read_text() == expected(flag == "1")


def test_stdout(files, capsys):
    assert main(["eval-score", str(files / "test.txt"), str(files / "pred.txt"), "-", "0"]) == 0
    assert capsys.readouterr().out == expected(False)


@pytest.mark.parametrize(
    "data, flag, message",
    [
        (DATA, "2", "FLAG '2': 1 writes per-query results, 0 the averages only"),
        (DATA.replace("2 qid:10", "3 qid:10"), "0", "knows labels 0-2 only"),
    ],
)
def test_refused(files, capsys, data, flag, message):
    (files / "test.txt").write_text(data)
    out = files / "result.txt"
    assert main(["eval-score", str(files / "test.txt"), str(files / "pred.txt"), str(out), flag]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
