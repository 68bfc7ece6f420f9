"""RankLib 2.x's models of datasets other than MQ2008, kept small for
``tests/test_ranklib_other_data.py``; and LightGBM's ``examples/lambdarank`` data as LETOR files.

    python scripts/ranklib_reference.py --tools DIR --data OHSUMED/Fold1 --name ohsumed-fold1
    python scripts/ranklib_reference.py --tools DIR --lightgbm LightGBM/examples/lambdarank \\
        --name lightgbm-lambdarank --libm fdlibm

``DIR`` holds ``RankLib.jar`` (RankLib 2.x with its dependencies, runnable with ``java -jar``)
and ``SeededRankLib.class`` (a launcher that seeds ``Collections.shuffle``'s
``java.util.Random`` and runs RankLib's ``Evaluator``). Each algorithm is trained on the train
and validation files with ``-metric2t NDCG@10 -metric2T NDCG@10`` and RankLib's defaults:
AdaRank (``-ranker 3``), RankBoost (``-ranker 2``), LambdaMART (``-ranker 6``) and Coordinate
Ascent (``-ranker 4 -r 2 -i 25``, seed 7). LambdaMART runs once per ``--libm``: ``system`` on a
default JVM, ``fdlibm`` with ``-XX:+UnlockDiagnosticVMOptions -XX:-UseLibmIntrinsic`` (Java's
``Math.exp`` and ``Math.log`` are then fdlibm's, as ltrconv's ``libm="fdlibm"``).

What is kept, under ``NAME/``: each model's parameters (AdaRank's features and alphas,
RankBoost's features, thresholds and alphas, Coordinate Ascent's weights, LambdaMART's trees
in preorder: feature, 0-based, or -1 at a leaf; float32 threshold; float32 leaf output; nodes
per tree), LambdaMART's test scores (``-load -rank test.txt -score``; float32 values, as
RankLib sums them) and the test NDCG@10 RankLib reports. The file is replaced atomically, other
datasets' entries kept.

LightGBM's example (``rank.train``, ``rank.test``: LibSVM lines, 1-based feature indices;
``rank.train.query``, ``rank.test.query``: one query size per line) becomes ``train.txt`` (the
first 161 training queries), ``vali.txt`` (the other 40) and ``test.txt``, every feature written
(absent ones as 0, RankLib's and ltrconv's value of a missing feature), the queries numbered
1, 2, ... through the three files. The numbers must not repeat between the training and the
validation file: RankLib's NDCG scorer caches each query's ideal DCG by query id, so a validation
query named like a training query would be scored with the training query's ideal DCG.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "ranklib_other_data.npz"
STRICT_JVM = ["-XX:+UnlockDiagnosticVMOptions", "-XX:-UseLibmIntrinsic"]
SEED = 7
OPTIONS = {"adarank": ["-ranker", "3"], "rankboost": ["-ranker", "2"],
           "lambdamart": ["-ranker", "6"],
           "coordinate_ascent": ["-ranker", "4", "-r", "2", "-i", "25"]}
"""RankLib's options of each algorithm (the reference's settings; the test fits ours alike)."""
CA_PARAMS = {"n_restarts": 2, "n_steps": 25, "random_state": SEED}


def lightgbm_to_letor(src: Path, out: Path, n_train: int = 161) -> None:
    """Write ``train.txt``, ``vali.txt`` and ``test.txt`` of LightGBM's lambdarank example
    (module docstring) into ``out``."""
    def queries(name):
        sizes = [int(x) for x in (src / f"{name}.query").read_text().split()]
        lines = (src / name).read_text().splitlines()
        if sum(sizes) != len(lines):
            raise ValueError(f"{src / name}: {len(lines)} lines, {name}.query sums to {sum(sizes)}")
        rows, at = [], 0
        for size in sizes:
            rows.append([ln.split() for ln in lines[at:at + size]])
            at += size
        return rows

    train, test = queries("rank.train"), queries("rank.test")
    width = max(int(item.split(":")[0]) for q in train + test for row in q for item in row[1:])

    def write(path, qs, first):
        with open(path, "w") as fh:
            for qid, q in enumerate(qs, first):
                for row in q:
                    values = dict(item.split(":") for item in row[1:])
                    feats = " ".join(f"{f}:{values.get(str(f), '0')}" for f in range(1, width + 1))
                    fh.write(f"{row[0]} qid:{qid} {feats}\n")

    out.mkdir(parents=True, exist_ok=True)
    write(out / "train.txt", train[:n_train], 1)
    write(out / "vali.txt", train[n_train:], n_train + 1)
    write(out / "test.txt", test, len(train) + 1)


def model_items(text: str) -> list[list[str]]:
    """The ``id:value[:value]`` items of a linear or boosting model's last line."""
    last = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("##")][-1]
    return [item.split(":") for item in last.split()]


def preorder_trees(text: str) -> dict[str, np.ndarray]:
    """A RankLib ensemble's trees in preorder: ``feature`` (0-based, -1 at a leaf),
    ``threshold`` and ``output`` (float32, 0 where not one), ``sizes`` (nodes per tree)."""
    feature, threshold, output, sizes = [], [], [], []
    for body in re.findall(r"<tree [^>]*>(.*?)</tree>", text, flags=re.S):
        items = re.findall(r"<(feature|threshold|output)>\s*(\S+)\s*</", body)
        n, i = 0, 0
        while i < len(items):
            if items[i][0] == "feature":
                feature.append(int(items[i][1]) - 1)
                threshold.append(np.float32(items[i + 1][1]))
                output.append(0.0)
                i += 2
            else:
                feature.append(-1)
                threshold.append(0.0)
                output.append(np.float32(items[i][1]))
                i += 1
            n += 1
        sizes.append(n)
    return {"feature": np.array(feature, dtype=np.int32),
            "threshold": np.array(threshold, dtype=np.float32),
            "output": np.array(output, dtype=np.float32), "sizes": np.array(sizes, dtype=np.int32)}


def run_ranklib(tools: Path, data: Path, algorithm: str, strict: bool, tmp: Path) -> dict:
    """Train ``algorithm`` with the jar on ``data``; its entries (module docstring)."""
    java = ["java"] + (STRICT_JVM if strict else [])
    if algorithm == "coordinate_ascent":
        java += ["--add-opens", "java.base/java.util=ALL-UNNAMED", f"-Dseed={SEED}", "-cp",
                 f"{tools / 'RankLib.jar'}:{tools}", "SeededRankLib"]
    else:
        java += ["-jar", str(tools / "RankLib.jar")]
    model, scores = tmp / f"{algorithm}.model", tmp / f"{algorithm}.scores"
    files = {s: str(data / f"{s}.txt") for s in ("train", "vali", "test")}
    log = subprocess.run(java + ["-train", files["train"], "-validate", files["vali"], "-test",
                                 files["test"], *OPTIONS[algorithm], "-metric2t", "NDCG@10",
                                 "-metric2T", "NDCG@10", "-save", str(model)],
                         check=True, capture_output=True, text=True)
    ndcg = re.findall(r"NDCG@10 on test data: ([\d.]+)", log.stdout + log.stderr)
    out = {"test_ndcg10": np.float64(ndcg[-1])}
    text = model.read_text()
    items = model_items(text)
    if algorithm == "adarank":
        out |= {"feature": np.array([int(f) - 1 for f, _ in items], dtype=np.int32),
                "alpha": np.array([float(a) for _, a in items])}
    elif algorithm == "rankboost":
        out |= {"feature": np.array([int(f) - 1 for f, _, _ in items], dtype=np.int32),
                "threshold": np.array([float(t) for _, t, _ in items]),
                "alpha": np.array([float(a) for _, _, a in items])}
    elif algorithm == "coordinate_ascent":
        out |= {"weight": np.array([float(w) for _, w in items])}
    else:
        subprocess.run(java + ["-load", str(model), "-rank", files["test"], "-score", str(scores)],
                       check=True, capture_output=True)
        out |= preorder_trees(text)
        out["test_scores"] = np.loadtxt(scores, usecols=2).astype(np.float32)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", type=Path, required=True,
                    help="directory of RankLib.jar and SeededRankLib.class")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--data", type=Path, help="a directory of train.txt, vali.txt, test.txt")
    src.add_argument("--lightgbm", type=Path, help="LightGBM's examples/lambdarank directory")
    ap.add_argument("--name", required=True, help="the dataset's key in the reference file")
    ap.add_argument("--libm", default="system,fdlibm",
                    help="LambdaMART's runs: system (default JVM), fdlibm (-XX:-UseLibmIntrinsic)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    entries = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = args.data
        if args.lightgbm is not None:
            data = tmp / "data"
            lightgbm_to_letor(args.lightgbm, data)
        runs = [("adarank", False), ("rankboost", False), ("coordinate_ascent", False)]
        runs += [("lambdamart", libm == "fdlibm") for libm in args.libm.split(",")]
        for algorithm, strict in runs:
            key = (f"lambdamart-{'fdlibm' if strict else 'system'}" if algorithm == "lambdamart"
                   else algorithm)
            print(f"{args.name}: {key}", file=sys.stderr, flush=True)
            for name, value in run_ranklib(args.tools, data, algorithm, strict, tmp).items():
                entries[f"{args.name}/{key}/{name}"] = value
    kept = {}
    if args.out.exists():
        with np.load(args.out) as old:
            kept = {k: old[k] for k in old.files if not k.startswith(args.name + "/")}
    sys.path.insert(0, str(ROOT / "src"))
    from ltrconv.outputs import atomic_path

    with atomic_path(args.out) as tmp_out, open(tmp_out, "wb") as fh:
        np.savez_compressed(fh, **kept, **entries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
