"""Coordinate Ascent against RankLib 2.x's ``CoorAscent`` run with a seeded ``java.util.Random``
(the ``SeededRankLib`` launcher seeds ``Collections.shuffle``'s generator, then runs RankLib's
``Evaluator``). Runs where ``LTRCONV_SEEDED_RANKLIB`` names a directory holding ``RankLib.jar``
and ``SeededRankLib.class`` and java is on the PATH; skips saying why otherwise."""

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ltrconv import evaluate
from ltrconv.data.letor import Dataset
from ltrconv.rankers import make

TOOLS = os.environ.get("LTRCONV_SEEDED_RANKLIB")


def _skip_reason():
    if not TOOLS:
        return "LTRCONV_SEEDED_RANKLIB not set (a directory with RankLib.jar and SeededRankLib.class)"
    if not (Path(TOOLS) / "RankLib.jar").exists() or not (Path(TOOLS) / "SeededRankLib.class").exists():
        return f"RankLib.jar or SeededRankLib.class missing in {TOOLS}"
    if shutil.which("java") is None:
        return "java not on the PATH"
    return None


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))


def per_query10(d, scores):
    return evaluate(d.y, scores, d.qid, conventions=["ranklib"], cutoffs=10)["ranklib"]["NDCG@10"]


@pytest.mark.parametrize("restarts, steps, seed", [(2, 6, 7), (1, 25, -3)])
def test_same_weights_and_test_ndcg_as_seeded_ranklib(mq2008_dir, tmp_path, restarts, steps, seed):
    fold = mq2008_dir / "Fold1"
    files = {s: str(fold / f"{s}.txt") for s in ("train", "vali", "test")}
    java = ["java", "--add-opens", "java.base/java.util=ALL-UNNAMED", f"-Dseed={seed}", "-cp",
            f"{TOOLS}/RankLib.jar:{TOOLS}", "SeededRankLib"]
    model, scores = tmp_path / "m.txt", tmp_path / "s.txt"
    subprocess.run(java + ["-train", files["train"], "-validate", files["vali"], "-ranker", "4",
                           "-r", str(restarts), "-i", str(steps), "-metric2t", "NDCG@10",
                           "-save", str(model)], check=True, capture_output=True)
    subprocess.run(java + ["-load", str(model), "-rank", files["test"], "-score", str(scores)],
                   check=True, capture_output=True)
    line = [x for x in model.read_text().splitlines() if not x.startswith("#")][0]
    w_rl = np.array([float(kv.split(":")[1]) for kv in line.split()])
    tr, va, te = (Dataset.load(files[s]) for s in ("train", "vali", "test"))
    m = make("coordinate_ascent", n_restarts=restarts, n_steps=steps, random_state=seed).fit(
        tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
    np.testing.assert_array_equal(m.coef_, w_rl)
    theirs = np.loadtxt(scores, usecols=2)
    np.testing.assert_array_equal(per_query10(te, m.predict(te.X)), per_query10(te, theirs))
