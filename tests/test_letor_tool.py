"""``ltrconv eval-score``: the LETOR scripts' arguments and layouts (Eval-Score-4.0.pl,
mslr-eval-score-mslr.pl, Eval-Score-3.0.pl), hand-computed."""

import math

import numpy as np
import pytest

from ltrconv.cli import main
from ltrconv.evaluation import evaluate
from ltrconv.evaluation.letor_tool import Queries, eval_score_report, letor3_ndcg

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


def run(files, tool, flag, data=None, scores=None):
    if data is not None:
        (files / "test.txt").write_text(data)
    if scores is not None:
        (files / "pred.txt").write_text(scores)
    out = files / f"{tool}.{flag}.txt"
    args = ["eval-score", "--tool", tool, str(files / "test.txt"), str(files / "pred.txt"),
            str(out), flag]
    assert main(args) == 0
    return out.read_text()


def test_letor4_is_the_default(files):
    assert run(files, "letor4", "1") == expected(True)


# Eval-Score-3.0.pl on DATA: qid 9 is query0 (2 documents, none relevant), qid 10 query1 with
# ranked labels 0, 1, 2: P@1..3 = 0, 1/2, 2/3; AP = (1/2 + 2/3) / 2 = 0.583333333333333;
# DCG 0, 1, 1 + 3 ln2/ln3 over IDCG 3, 4, 4: NDCG@3 = (1 + 3 ln2/ln3) / 4 = 0.723197315178593.
# Averages divide by both queries; rank 3 exists for qid 10 only.
LETOR3_PER_QUERY = {
    "precision": ("precision of query0:\t0\t0\t\n"
                  "precision of query1:\t0\t0.5\t0.666666666666667\t\n"),
    "map": "Map of query0:\t0\nMap of query1:\t0.583333333333333\n",
    "ndcg": "NDCG of query0:\t0\t0\t\nNDCG of query1:\t0\t0.25\t0.723197315178593\t\n",
}
LETOR3_AVERAGES = {
    "precision": "precision:\t0\t0.25\t0.333333333333333\t\n\n",
    "map": "MAP:\t0.291666666666667\n\n",
    "ndcg": "NDCG:\t0\t0.125\t0.361598657589296\t\n\n",
}


@pytest.mark.parametrize("flag", ["0", "1"])
def test_letor3_layout_and_values(files, flag):
    blocks = [(LETOR3_PER_QUERY[b] if flag == "1" else "") + LETOR3_AVERAGES[b]
              for b in ("precision", "map", "ndcg")]
    assert run(files, "letor3", flag) == "".join(blocks)


def test_letor3_stops_at_rank_16_but_map_does_not(files):
    # one query of 20 documents; the only relevant one is ranked 17th
    data = "".join(f"{int(i == 16)} qid:1 1:0 #docid = d{i}\n" for i in range(20))
    scores = "".join(f"{20 - i}\n" for i in range(20))
    zeros = "\t".join(["0"] * 16)
    assert run(files, "letor3", "1", data, scores) == (
        f"precision of query0:\t{zeros}\t\nprecision:\t{zeros}\t\n\n"
        f"Map of query0:\t{1 / 17:.15g}\nMAP:\t{1 / 17:.15g}\n\n"
        f"NDCG of query0:\t{zeros}\t\nNDCG:\t{zeros}\t\n\n")


# qid 1, labels 3, 1, 4, 0 ranked in that order (scores 4, 3, 2, 1). mslr: relevant = label >= 2,
# so 1, 0, 1, 0: P@1..4 = 1, 1/2, 2/3, 2/4 and P@k = 2/k after; AP = (1 + 2/3) / 2. Gains 7, 1,
# 15, 0 against the ideal 15, 7, 1, 0; NDCG@k = 0 for k > 4; MeanNDCG = mean of NDCG@1..4.
MSLR_DATA = "".join(f"{label} qid:1 1:0 #docid = d{i}\n" for i, label in enumerate([3, 1, 4, 0]))
MSLR_SCORES = "4\n3\n2\n1\n"


def mslr_expected() -> str:
    prec = [1, 1 / 2, 2 / 3] + [2 / k for k in range(4, 11)]
    ap = (1 + 2 / 3) / 2
    dcg = [7, 8, 8 + 15 / math.log2(3), 8 + 15 / math.log2(3)]
    ideal = [15, 22, 22 + 1 / math.log2(3), 22 + 1 / math.log2(3)]
    ndcg = [d / i for d, i in zip(dcg, ideal)] + [0.0] * 6
    mean = sum(ndcg[:4]) / 4
    return ("qid\t" + "\t".join(f"P@{k}" for k in range(1, 11)) + "\tMAP\n"
            + row("1", prec + [ap]) + row("Average", prec + [ap]) + "\n"
            + "qid\t" + "\t".join(f"NDCG@{k}" for k in range(1, 11)) + "\tMeanNDCG\n"
            + row("1", ndcg + [mean]) + row("Average", ndcg + [mean]) + "\n")


def test_mslr_relevance_from_label_2_and_gains_to_label_4(files):
    assert run(files, "mslr", "1", MSLR_DATA, MSLR_SCORES) == mslr_expected()


@pytest.mark.parametrize("tool, data, message", [
    ("mslr", MSLR_DATA.replace("4 qid", "5 qid"), "mslr-eval-score-mslr.pl knows labels 0-4 only"),
    ("letor3", MSLR_DATA, "Eval-Score-3.0.pl knows labels 0-2 only"),
    ("letor4", MSLR_DATA, "Eval-Score-4.0.pl knows labels 0-2 only"),
])
def test_labels_beyond_the_tables_refused(files, capsys, tool, data, message):
    (files / "test.txt").write_text(data)
    (files / "pred.txt").write_text(MSLR_SCORES)
    out = files / "result.txt"
    args = ["eval-score", "--tool", tool, str(files / "test.txt"), str(files / "pred.txt"),
            str(out), "0"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_repeated_docid_is_one_document_for_letor3_and_letor4_only(files):
    # docid a: label 2 scored 0.9 on line 1, label 0 scored 0.1 on line 3; the LETOR 3.0 and
    # 4.0 scripts keep line 3 (no relevant document left), the MSLR script keeps all three lines
    data = ("2 qid:1 1:0 #docid = a\n0 qid:1 1:0 #docid = b\n0 qid:1 1:0 #docid = a\n")
    scores = "0.9\n0.5\n0.1\n"
    p1 = lambda text: text.splitlines()[1].split("\t")[1]  # noqa: E731
    assert p1(run(files, "letor4", "0", data, scores)) == "0.0000"
    assert run(files, "letor3", "0", data, scores).startswith("precision:\t0\t0\t\n")
    (files / "test.txt").write_text(data.replace("2 qid", "3 qid"))  # mslr: relevant from 2
    assert p1(run(files, "mslr", "0")) == "1.0000"


def linear_scores(data):
    return data.X @ np.random.default_rng(2012).normal(size=data.X.shape[1])


def test_letor3_ndcg_is_the_letor_convention_on_mq2008(mq2008_fold1):
    test = mq2008_fold1[2]
    s = linear_scores(test)
    q = Queries(test.y, s, test.qid, test.offsets)
    ours = letor3_ndcg(q)
    ev = evaluate(test.y, s, test.qid, offsets=test.offsets, conventions=["letor"],
                  cutoffs="1-16")["letor"]
    engine = np.column_stack([ev[f"NDCG@{k}"] for k in range(1, 17)])
    assert np.max(np.abs(ours - engine)) < 1e-12
    # so the 3.0 report's NDCG@1..10 averages are the 4.0 report's (4 decimals)
    l3 = eval_score_report(test, s, per_query=False, tool="letor3").split("\n")[4].split("\t")
    l4 = eval_score_report(test, s, per_query=False, tool="letor4").split("\n")[4].split("\t")
    assert l3[0] == "NDCG:" and l4[0] == "Average"
    assert [f"{float(v):.4f}" for v in l3[1:11]] == l4[1:11]


def test_mslr_precision_counts_labels_from_2_on_mq2008(mq2008_fold1):
    test = mq2008_fold1[2]
    s = linear_scores(test)
    lines = eval_score_report(test, s, per_query=True, tool="mslr").splitlines()
    rows = {int(r[0]): r[1:] for r in (ln.split("\t") for ln in lines[1:test.n_queries + 1])}
    for i, qid in enumerate(test.query_ids):
        lo, hi = test.offsets[i], test.offsets[i + 1]
        ranked = test.y[lo:hi][np.argsort(-s[lo:hi], kind="stable")]
        want = [np.sum(ranked[:k] >= 2) / k for k in range(1, 11)]
        assert rows[int(qid)][:10] == [f"{v:.4f}" for v in want]
    letor4 = eval_score_report(test, s, per_query=False, tool="letor4").splitlines()[1]
    assert lines[test.n_queries + 1] != letor4  # MQ2008's label-1 documents count for 4.0 only
