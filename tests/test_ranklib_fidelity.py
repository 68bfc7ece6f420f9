"""AdaRank and RankBoost against RankLib 2.x's own models of MQ2008 Fold1.

The reference outputs (models, per-round logs, test scores of RankLib 2.x trained with
``-metric2t NDCG@10`` and default parameters) are kept beside the checkout with the data, or
where LTRCONV_RANKLIB_REFERENCE points (conftest's ``ranklib_reference``; skipped without them).
"""

import re
from pathlib import Path

import numpy as np
import pytest

from ltrconv import evaluate
from ltrconv.rankers import make


@pytest.fixture(scope="module")
def reference(ranklib_reference) -> Path:
    """RankLib 2.x's outputs on MQ2008 Fold1 (conftest's ``ranklib_reference``)."""
    fold = ranklib_reference / "MQ2008-Fold1"
    missing = [f for f in ("adarank.model", "adarank.log", "adarank.test-scores.txt",
                           "rankboost.model", "rankboost.log", "rankboost.test-scores.txt")
               if not (fold / f).exists()]
    assert not missing, f"{fold}: missing {missing}"
    return fold


def model_rounds(path: Path) -> list[list[str]]:
    """The ``id:value[:value]`` items of a RankLib model file's last line."""
    last = [ln for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("##")][-1]
    return [item.split(":") for item in last.split()]


def reference_scores(path: Path) -> np.ndarray:
    """The score column of ``-rank TEST -score FILE`` output (qid, index in query, score)."""
    return np.loadtxt(path, usecols=2)


def fit(name, fold):
    tr, va, _ = fold
    return make(name).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid,
                          docid=tr.docid, docid_val=va.docid)


def per_query_ndcg10(te, scores):
    return evaluate(te.y, scores, te.qid, conventions=["ranklib"], cutoffs=10)["ranklib"]["NDCG@10"]


def test_adarank_is_ranklibs_model(mq2008_fold1, reference):
    model = fit("adarank", mq2008_fold1)
    ref = [(int(f) - 1, float(a)) for f, a in model_rounds(reference / "adarank.model")]
    assert [f for f, _ in model.rounds_] == [f for f, _ in ref]
    np.testing.assert_allclose([a for _, a in model.rounds_], [a for _, a in ref], rtol=1e-9)
    te = mq2008_fold1[2]
    ours, theirs = model.predict(te.X), reference_scores(reference / "adarank.test-scores.txt")
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(per_query_ndcg10(te, ours), per_query_ndcg10(te, theirs))
    assert per_query_ndcg10(te, ours).mean() == pytest.approx(0.4763, abs=5e-5)


def test_adarank_log_is_ranklibs_log(mq2008_fold1, reference):
    model = fit("adarank", mq2008_fold1)
    rows = re.findall(r"^(\d+)\s*\|\s*(\d+)\s*\|\s*([\d.]*)\s*\|\s*([\d.]*)\s*\|\s*(\S.*?)\s*\|",
                      (reference / "adarank.log").read_text(), flags=re.M)
    assert len(rows) == len(model.log_) > 100
    for (t, f, train, val, status), (ot, of, otrain, oval, ostatus) in zip(rows, model.log_):
        assert (int(t), int(f), status) == (ot, of + 1, ostatus)
        if train and otrain is not None:
            assert float(train) == round(otrain, 4)
        if val and oval is not None:
            assert float(val) == round(oval, 4)


def test_rankboost_is_ranklibs_model(mq2008_fold1, reference):
    model = fit("rankboost", mq2008_fold1)
    ref = [(int(f) - 1, float(t), float(a)) for f, t, a in model_rounds(reference / "rankboost.model")]
    assert list(model.features_) == [f for f, _, _ in ref]
    assert list(model.thresholds_) == [t for _, t, _ in ref]
    np.testing.assert_allclose(model.alphas_, [a for _, _, a in ref], rtol=1e-9)
    te = mq2008_fold1[2]
    ours, theirs = model.predict(te.X), reference_scores(reference / "rankboost.test-scores.txt")
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(per_query_ndcg10(te, ours), per_query_ndcg10(te, theirs))
    assert per_query_ndcg10(te, ours).mean() == pytest.approx(0.4868, abs=5e-5)


def test_rankboost_log_is_ranklibs_log(mq2008_fold1, reference):
    model = fit("rankboost", mq2008_fold1)
    rows = re.findall(r"^(\d+)\s*\|\s*(\d+)\s*\|\s*([-\d.E]+)\s*\|\s*([-\d.E]+)\s*\|\s*[\d.]+\s*\|\s*([\d.]+)\s*\|",
                      (reference / "rankboost.log").read_text(), flags=re.M)
    assert len(rows) == len(model.log_) == 300
    for (t, f, thr, err, val), (of, othr, oR, oval) in zip(rows, model.log_):
        assert int(f) == of + 1
        assert float(thr) == round(othr, 4)
        assert float(err) == round(oR, 4)
        assert float(val) == round(oval, 4)
