"""A fresh run of config/ci.yaml equals the committed reference/ci byte for byte.

The run (MQ2008 Fold1 and Fold2; AdaRank, Coordinate Ascent, LambdaMART and RankBoost with small
settings, trained with ranklib, yahoo and letor; one implementation variant) takes about two
minutes on two idle cores. Every table, figure and claims.md it writes is compared, the runtime
table and figure (wall times) excepted, so a change that moves any number, table row or pixel
fails here unless the same commit re-blesses the reference:

    python scripts/ci_reference.py

(it runs the same pipeline and rewrites reference/ci/; LTRCONV_MQ2008_DIR or --mq2008 names the
MQ2008 copy). Review ``git diff --stat reference/ci`` before committing it.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import ci_reference  # noqa: E402

REFERENCE = ci_reference.REFERENCE
NAMES = ci_reference.compared(REFERENCE)


@pytest.fixture(scope="module")
def ci_run(mq2008_dir, tmp_path_factory) -> Path:
    """The results directory of one run of config/ci.yaml."""
    return ci_reference.run(tmp_path_factory.mktemp("ci"), mq2008_dir, timeout=1800)


def test_reference_is_there():
    assert {"claims.md", "tables/summary.tsv", "tables/fold_means.tsv", "tables/ttests.tsv",
            "figures/figure1.png", "figures/figure2.png"} <= set(NAMES)
    assert not any("runtime" in n for n in NAMES)


def test_run_writes_the_reference_files(ci_run):
    assert ci_reference.compared(ci_run) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_run_equals_reference(ci_run, name):
    assert (ci_run / name).read_bytes() == (REFERENCE / name).read_bytes(), (
        f"{name} differs from reference/ci/{name}; if the change is intended, re-bless with "
        "'python scripts/ci_reference.py' and commit reference/ci in the same commit")
