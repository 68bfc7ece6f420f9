"""Time the LETOR reader against scikit-learn's svmlight reader on the same files.

Peer: ``sklearn.datasets.load_svmlight_file(path, query_id=True)``, the parser that
``read_letor`` used to call for the features (it reads labels, qids and a sparse matrix; no
docids, no per-line checks, so it is a lower bound of the former reader's cost). Files: MQ2008
``Fold1/train.txt`` and ``test.txt``, and a synthetic file of 100,000 rows in MQ2008's layout
(46 features, six decimals, docid comments; seeded). Printed: medians of N runs, in a fresh
process each (import and parse, wall clock: what a pipeline job pays) and in one process
(parse only, CPU time). Target: faster than the peer end to end on every file.

    python benchmarks/bench_reader.py [--data DIR] [--repeats 7] [--rows 100000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
SRC = HERE.parents[1] / "src"
DEFAULT_DATA = HERE.parents[2] / "shared" / "data" / "MQ2008"
OURS = ("import warnings; warnings.simplefilter('ignore'); from ltrconv.data.letor import read_letor; "
        "read_letor({path!r})")
PEER = "from sklearn.datasets import load_svmlight_file; load_svmlight_file({path!r}, query_id=True)"


def synthetic(path: Path, rows: int) -> None:
    """``rows`` documents, 20 per query, 46 dense features with six decimals or 0."""
    rng = np.random.default_rng(0)
    x = np.where(rng.random((rows, 46)) < 0.3, 0.0, rng.random((rows, 46)))
    with open(path, "w") as fh:
        for i in range(rows):
            feats = " ".join(f"{j + 1}:{v:.6f}" if v else f"{j + 1}:0" for j, v in enumerate(x[i]))
            fh.write(f"{rng.integers(0, 3)} qid:{i // 20} {feats} #docid = D{i:07d} inc = 1\n")


def fresh_process(code: str, repeats: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def in_process(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--rows", type=int, default=100_000)
    args = ap.parse_args()
    sys.path.insert(0, str(SRC))
    from sklearn.datasets import load_svmlight_file

    from ltrconv.data.letor import read_letor

    with tempfile.TemporaryDirectory() as tmp:
        synth = Path(tmp) / "synthetic.txt"
        synthetic(synth, args.rows)
        files = [args.data / "Fold1" / "train.txt", args.data / "Fold1" / "test.txt", synth]
        print(f"{'file':34s} {'rows':>7s}  {'fresh process, wall s':>27s}  "
              f"{'in process, CPU s':>27s}   (medians of {args.repeats})")
        print(f"{'':34s} {'':7s}  {'ltrconv':>8s} {'sklearn':>8s} {'ratio':>8s}  "
              f"{'ltrconv':>8s} {'sklearn':>8s} {'ratio':>8s}")
        met = True
        for f in files:
            if not f.exists():
                print(f"{str(f):34s} missing (--data DIR)")
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rows = read_letor(f).n_docs
                ours_in = in_process(lambda: read_letor(f), args.repeats)
            peer_in = in_process(lambda: load_svmlight_file(str(f), query_id=True), args.repeats)
            ours_e2e = fresh_process(OURS.format(path=str(f)), args.repeats)
            peer_e2e = fresh_process(PEER.format(path=str(f)), args.repeats)
            met &= ours_e2e < peer_e2e
            name = f.name if f == synth else f"{f.parent.name}/{f.name}"
            print(f"{name:34s} {rows:7d}  {ours_e2e:8.3f} {peer_e2e:8.3f} {ours_e2e / peer_e2e:8.2f}  "
                  f"{ours_in:8.3f} {peer_in:8.3f} {ours_in / peer_in:8.2f}")
        print(f"target (faster than the peer end to end on every file): {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
