"""What the command-line tests share: a small LETOR file with two score files, the check
that a command fails in one line, and the trec_eval binary to compare with."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ltrconv.cli import main
from ltrconv.data.synthetic import make_letor, write_letor


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    data = make_letor(n_queries=40, seed=3)
    write_letor(data, d / "data.txt")
    rng = np.random.default_rng(0)
    np.savetxt(d / "a.txt", data.X[:, :3].sum(axis=1))
    np.savetxt(d / "b.txt", rng.random(data.n_docs))
    return d, data


def fails(capsys, args, message, out=None):
    """Run the CLI in-process; assert exit 2, one stderr line containing ``message``."""
    capsys.readouterr()
    assert main([str(a) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ltrconv: error: ") and len(err.strip().splitlines()) == 1, err
    assert message in err, err
    if out is not None:
        assert not out.exists() and not list(out.parent.glob(f".{out.name}.*"))
    return err


def trec_eval_binary() -> Path:
    """The trec_eval binary LTRCONV_TREC_EVAL names; the test skips, saying so, without it."""
    path = os.environ.get("LTRCONV_TREC_EVAL")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("set LTRCONV_TREC_EVAL to a trec_eval binary (usnistgov/trec_eval v9.0.8) "
                    "to compare with it")
    return Path(path)
