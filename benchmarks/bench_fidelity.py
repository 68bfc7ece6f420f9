"""The six rankers next to RankLib 2.x: test NDCG@10 per fold and algorithm, and fit time.

For every fold and variant: our test NDCG@10 (``ranklib`` convention, trained and selected with
``ndcg@10:ranklib``, default parameters otherwise), RankLib 2.x's test NDCG@10 where a reference
exists (computed from its ``-score`` output of ``-load MODEL -rank test.txt`` when that file is
there, with the largest score difference to ours; otherwise the published value of RankLib's own
run in ``PUBLISHED``), and the median fit time over ``--repeats`` fits (numba kernels warmed by
one extra fit). The variants are the RankLib-faithful defaults and the project's alternatives
(AdaRank ``weak_ties``; RankBoost ``thresholds="quantile", objective="abs"``; LambdaMART
``min_data_in_leaf=50`` and LightGBM's boosting, ``lambdamart_lightgbm``, also without its
Hessian floor per leaf, ``min_sum_hessian_in_leaf=0``; Coordinate Ascent
``init="random"``). RankSVM has no RankLib counterpart. ``max |dq|`` is the largest difference
of one test query's NDCG@10 between our scores and RankLib's.

    python benchmarks/bench_fidelity.py [--data DIR] [--reference DIR] [--folds 1-5] [--repeats 3]
                                        [--algorithms adarank,rankboost,...] [--jar RankLib.jar]

``--reference`` holds ``MQ2008-Fold<k>/<algorithm>.test-scores.txt`` files of RankLib 2.x
(``qid <TAB> index <TAB> score``). With ``--jar``, LambdaMART is also run end to end both ways
in the same run, ``--repeats`` times alternately: ``ltrconv train`` then ``ltrconv predict``
(each a fresh process), and the jar with the options of the reference (``-ranker 6 -metric2t
NDCG@10`` with the fold's train, vali and test files, ``-save``; then ``-load -rank -score``);
the table gives median wall and CPU seconds (on a shared machine wall time favours the jar,
whose compiler and collector threads run beside its main one) and their ratios, and compares
the jar's fresh test scores with ours query by query.

RankNet draws its initial weights from ``java.util.Random``; with ``--jar``, its rows (1x10,
RankLib's default net, and 2x10; ``random_state=--seed``) are compared with the jar's run seeded
the same way (``--seeded DIR`` holds ``SeededRankLib.class``, a launcher that sets RankLib's
``Synapse.random`` to ``new Random(seed)`` and runs its Evaluator; default the jar's directory),
run with ``-XX:+UnlockDiagnosticVMOptions -XX:-UseLibmIntrinsic`` so that Java's ``Math.exp`` is
fdlibm's, as ours; and each is timed end to end like LambdaMART (``-ranker 1 -epoch 100 -layer L
-node N``).

With ``--seeded DIR`` (the directory of the ``SeededRankLib`` launcher, which seeds the
``java.util.Random`` of ``Collections.shuffle``; ``--jar`` needed too), Coordinate Ascent runs
end to end both ways with ``-r R -i I`` (``--ca-restarts``, ``--ca-steps``) and seed ``--seed``:
the weights of the two models (largest difference) and per-query test NDCG@10. With
``--liblinear-ranksvm TRAIN`` (liblinear-ranksvm's ``train``; its ``predict`` beside it), RankSVM
runs end to end both ways: ours selects C on the validation NDCG@10 over the paper's grid; the
tool trains ``-s 8 -c C`` for every C of the grid, scores the validation file with ``predict``,
and keeps the best C (first on ties) to score the test file.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# LightGBM's OpenMP threads busy-wait by default, which on a shared machine multiplies its CPU
# time (benchmarks/bench_wait_policy.py); libgomp reads this when it loads.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np  # noqa: E402

from ltrconv import evaluate  # noqa: E402
from ltrconv.data.letor import read_letor  # noqa: E402
from ltrconv.rankers import make  # noqa: E402

HERE = Path(__file__).resolve()
VARIANTS = [
    ("adarank", "ranklib (selection ties)", {}),
    ("adarank", "weak_ties=convention", {"weak_ties": "convention"}),
    ("adarank", "weak_ties=average", {"weak_ties": "average"}),
    ("rankboost", "ranklib", {}),
    ("rankboost", "quantile thresholds, |r|", {"thresholds": "quantile", "objective": "abs"}),
    ("lambdamart", "ranklib defaults", {}),
    ("lambdamart", "min_data_in_leaf=50", {"min_data_in_leaf": 50}),
    ("lambdamart_lightgbm", "LightGBM boosting", {}),
    ("lambdamart_lightgbm", "min_sum_hessian_in_leaf=0", {"min_sum_hessian_in_leaf": 0.0}),
    ("coordinate_ascent", "ranklib (uniform starts)", {}),
    ("coordinate_ascent", "init=random", {"init": "random"}),
    ("ranknet", "1x10 (RankLib default)", {"architectures": [[10]]}),
    ("ranknet", "2x10", {"architectures": [[10, 10]]}),
    ("ranknet_adam", "Adam, 1x10", {"architectures": [[10]]}),
    ("ranksvm", "paper grid", {}),
]
# RankLib 2.x's test NDCG@10 on MQ2008 Fold1 (its own scorer, trained with -metric2t NDCG@10,
# default options; RankNet and Coordinate Ascent from one random initialisation).
PUBLISHED = {(1, "lambdamart"): 0.4891, (1, "ranknet"): 0.4725, (1, "coordinate_ascent"): 0.4800}


def per_query10(d, scores) -> np.ndarray:
    return evaluate(d.y, scores, d.qid, conventions=["ranklib"], cutoffs=10)["ranklib"]["NDCG@10"]


def ndcg10(d, scores) -> float:
    return float(per_query10(d, scores).mean())


def timed(cmd: list[str], **kw) -> tuple[float, float]:
    """(wall, CPU) seconds of one command; CPU is user + system of the process and its threads
    (the JVM's compiler and collector threads run beside its main thread)."""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, check=True, stdout=kw.pop("stdout", subprocess.DEVNULL),
                   stderr=subprocess.DEVNULL, **kw)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def jar_command(jar: Path, algo: str, params: dict, seeded: Path | None, seed: int):
    """(java launch words, RankLib training options) of the jar run matching ``algo``."""
    if algo == "lambdamart":
        return ["java", "-jar", str(jar)], ["-ranker", "6"]
    arch = params["architectures"][0]
    java = ["java", "-XX:+UnlockDiagnosticVMOptions", "-XX:-UseLibmIntrinsic", "--add-opens",
            "java.base/java.util=ALL-UNNAMED", f"-Dseed={seed}", "-cp",
            f"{jar}{os.pathsep}{seeded}", "SeededRankLib"]
    return java, ["-ranker", "1", "-epoch", "100", "-layer", str(len(arch)), "-node",
                  str(arch[0])]


def cli_vs_jar(fold: Path, te, jar: Path, repeats: int, algo: str = "lambdamart",
               params: dict | None = None, seeded: Path | None = None, seed: int = 0) -> None:
    """``algo`` end to end, ``ltrconv train`` + ``predict`` beside RankLib's jar (module
    docstring); one printed line."""
    params = params or {}
    env = {**os.environ, "PYTHONPATH": str(HERE.parents[1] / "src")}
    tr, va, test = (str(fold / f"{s}.txt") for s in ("train", "vali", "test"))
    extra = [w for k, v in params.items() for w in ("--param", f"{k}={v}")]
    if algo == "ranknet":
        extra += ["--param", f"random_state={seed}"]
    java, options = jar_command(jar, algo, params, seeded, seed)
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for _ in range(repeats):
            with open(t / "scores", "w") as out:
                ours.append((timed([sys.executable, "-m", "ltrconv.cli", "train", "--algorithm",
                                    algo, "--train", tr, "--vali", va, "--out",
                                    str(t / "model"), *extra], env=env),
                             timed([sys.executable, "-m", "ltrconv.cli", "predict",
                                    str(t / "model"), test], env=env, stdout=out)))
            theirs.append((timed([*java, "-train", tr, "-validate", va, "-test", test, *options,
                                  "-metric2t", "NDCG@10", "-save", str(t / "rl.model")],
                                 cwd=tmp),
                           timed([*java, "-load", str(t / "rl.model"), "-rank", test,
                                  "-score", str(t / "rl.scores")], cwd=tmp)))
        a = np.loadtxt(t / "scores")
        b = np.loadtxt(t / "rl.scores", usecols=2)
    dq = np.abs(per_query10(te, a) - per_query10(te, b)).max()

    def medians(runs):  # [(train, predict)] of (wall, CPU) -> wall and CPU of each step
        return [[statistics.median(r[step][kind] for r in runs) for step in (0, 1)]
                for kind in (0, 1)]

    (ow, oc), (jw, jc) = medians(ours), medians(theirs)
    print(f"      end to end, wall (CPU) s: ltrconv train {ow[0]:.2f} ({oc[0]:.2f}) + predict "
          f"{ow[1]:.2f} ({oc[1]:.2f}) = {sum(ow):.2f} ({sum(oc):.2f}); RankLib jar train "
          f"{jw[0]:.2f} ({jc[0]:.2f}) + rank {jw[1]:.2f} ({jc[1]:.2f}) = {sum(jw):.2f} "
          f"({sum(jc):.2f}); ratio wall {sum(ow) / sum(jw):.2f}, CPU {sum(oc) / sum(jc):.2f}; "
          f"test NDCG@10 {ndcg10(te, a):.4f} vs {ndcg10(te, b):.4f}, max |dq| {dq:.1e}, "
          f"max |ds| {np.abs(a - b).max():.1e}", flush=True)


def _medians(runs):
    """[(train, predict)] of (wall, CPU) -> (wall, CPU) of the whole, medians over runs."""
    return tuple(statistics.median(sum(step[kind] for step in r) for r in runs) for kind in (0, 1))


def _ltrconv(algo: str, params: list[str], tr: str, va: str, test: str, t: Path):
    env = {**os.environ, "PYTHONPATH": str(HERE.parents[1] / "src")}
    with open(t / "scores", "w") as out:
        fit = timed([sys.executable, "-m", "ltrconv.cli", "train", "--algorithm", algo,
                     "--train", tr, "--vali", va, "--out", str(t / "model")]
                    + [x for p in params for x in ("--param", p)], env=env)
        pred = timed([sys.executable, "-m", "ltrconv.cli", "predict", str(t / "model"), test],
                     env=env, stdout=out)
    return fit, pred


def ca_vs_seeded_jar(fold: Path, te, jar: Path, seeded: Path, restarts: int, steps: int,
                     seed: int, repeats: int) -> None:
    """Coordinate Ascent end to end beside the seeded jar (module docstring); one line."""
    from ltrconv.rankers import load

    tr, va, test = (str(fold / f"{s}.txt") for s in ("train", "vali", "test"))
    java = ["java", "--add-opens", "java.base/java.util=ALL-UNNAMED", f"-Dseed={seed}", "-cp",
            f"{jar}:{seeded}", "SeededRankLib"]
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for _ in range(repeats):
            ours.append(_ltrconv("coordinate_ascent", [f"n_restarts={restarts}",
                                                       f"n_steps={steps}", f"random_state={seed}"],
                                 tr, va, test, t))
            theirs.append((timed(java + ["-train", tr, "-validate", va, "-test", test, "-ranker",
                                         "4", "-r", str(restarts), "-i", str(steps), "-metric2t",
                                         "NDCG@10", "-save", str(t / "rl.model")], cwd=tmp),
                           timed(java + ["-load", str(t / "rl.model"), "-rank", test, "-score",
                                         str(t / "rl.scores")], cwd=tmp)))
        a = np.loadtxt(t / "scores")
        b = np.loadtxt(t / "rl.scores", usecols=2)
        line = [x for x in (t / "rl.model").read_text().splitlines() if not x.startswith("#")][0]
        w_rl = np.array([float(kv.split(":")[1]) for kv in line.split()])
        w = load(t / "model").coef_
    dq = np.abs(per_query10(te, a) - per_query10(te, b)).max()
    (ow, oc), (jw, jc) = _medians(ours), _medians(theirs)
    print(f"      CA -r {restarts} -i {steps} seed {seed}: max |dw| {np.abs(w - w_rl).max():.1e}"
          f" (weights equal: {np.array_equal(w, w_rl)}); test NDCG@10 {ndcg10(te, a):.4f} vs "
          f"seeded jar {ndcg10(te, b):.4f}, max |dq| {dq:.1e}; end to end wall (CPU) s: ltrconv "
          f"{ow:.1f} ({oc:.1f}), jar {jw:.1f} ({jc:.1f}), ratio wall {ow / jw:.2f}", flush=True)


def ranksvm_vs_liblinear(fold: Path, te, va, train_bin: Path, repeats: int) -> None:
    """RankSVM end to end beside liblinear-ranksvm with C selected on validation; one line."""
    from ltrconv.rankers import load
    from ltrconv.rankers.ranksvm import DEFAULT_C_GRID

    predict_bin = train_bin.parent / "predict"
    tr, vf, test = (str(fold / f"{s}.txt") for s in ("train", "vali", "test"))
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for _ in range(repeats):
            ours.append(_ltrconv("ranksvm", [], tr, vf, test, t))
            fit_t, best, best_c = [0.0, 0.0], -1.0, None
            for C in DEFAULT_C_GRID:
                m, pv = t / f"m{C:g}", t / f"v{C:g}"
                for cmd in ([str(train_bin), "-s", "8", "-c", repr(C), "-q", tr, str(m)],
                            [str(predict_bin), vf, str(m), str(pv)]):
                    wall, cpu = timed(cmd)
                    fit_t[0] += wall
                    fit_t[1] += cpu
                score = ndcg10(va, np.loadtxt(pv))
                if score > best:
                    best, best_c = score, C
            theirs.append((tuple(fit_t), timed([str(predict_bin), test, str(t / f"m{best_c:g}"),
                                                str(t / "ll.scores")])))
        a, b = np.loadtxt(t / "scores"), np.loadtxt(t / "ll.scores")
        model = load(t / "model")
        w_ll = np.array([float(v) for v in
                         (t / f"m{best_c:g}").read_text().split("w\n", 1)[1].split()])
        model_c = model.best_C_
    rel = np.linalg.norm(model.coef_ - w_ll) / np.linalg.norm(w_ll) if model_c == best_c else np.nan
    dq = np.abs(per_query10(te, a) - per_query10(te, b)).max()
    (ow, oc), (jw, jc) = _medians(ours), _medians(theirs)
    print(f"      RankSVM: selected C {model_c:g} vs liblinear-ranksvm {best_c:g}; |w - w_tool| / "
          f"|w_tool| {rel:.1e}; test NDCG@10 {ndcg10(te, a):.4f} vs {ndcg10(te, b):.4f}, max |dq| "
          f"{dq:.1e}; end to end wall (CPU) s: ltrconv {ow:.2f} ({oc:.2f}), tool {jw:.2f} "
          f"({jc:.2f}), ratio wall {ow / jw:.2f} (CPU {oc / jc:.2f})", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=HERE.parents[2] / "shared" / "data" / "MQ2008")
    ap.add_argument("--reference", type=Path,
                    default=HERE.parents[2] / "shared" / "reference" / "ranklib-2.x")
    ap.add_argument("--folds", default="1-5")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--algorithms", default=",".join(dict.fromkeys(a for a, _, _ in VARIANTS)))
    ap.add_argument("--jar", type=Path,
                    help="RankLib 2.x jar: time LambdaMART, RankNet and Coordinate Ascent end to "
                    "end beside it")
    ap.add_argument("--seeded", type=Path, help="directory of SeededRankLib.class (default: the "
                    "jar's directory)")
    ap.add_argument("--seed", type=int, default=0, help="random_state of RankNet and Coordinate "
                    "Ascent, and the seeded jar's seed (default 0)")
    ap.add_argument("--ca-restarts", type=int, default=2)
    ap.add_argument("--ca-steps", type=int, default=25)
    ap.add_argument("--liblinear-ranksvm", type=Path, help="liblinear-ranksvm's train binary: run "
                    "RankSVM end to end beside it")
    ap.add_argument("--only-end-to-end", action="store_true",
                    help="skip the in-process fits; print only the end-to-end comparisons")
    args = ap.parse_args(argv)
    chosen = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    if not (args.data / "Fold1" / "train.txt").exists():
        print(f"bench_fidelity: no MQ2008 folds under {args.data} (set --data)", file=sys.stderr)
        return 2
    lo, _, hi = args.folds.partition("-")
    folds = range(int(lo), int(hi or lo) + 1)
    if not args.reference.is_dir():
        print(f"(no RankLib reference at {args.reference}: reference columns left empty)")
    print(f"{'fold':>4}  {'algorithm':<20} {'variant':<26} {'NDCG@10':>8} {'RankLib':>8} "
          f"{'max |ds|':>9} {'max |dq|':>9} {'fit s':>7}")
    for k in folds:
        tr, va, te = (read_letor(args.data / f"Fold{k}" / f"{s}.txt") for s in ("train", "vali", "test"))
        for algo, label, params in VARIANTS:
            if algo not in chosen:
                continue
            if args.only_end_to_end:
                _end_to_end(args, k, algo, params, va, te)
                continue
            times, model = [], None
            for _ in range(args.repeats + 1):  # the first fit warms the kernels
                t0 = time.perf_counter()
                seeded = {"random_state": args.seed} if algo.startswith("ranknet") else {}
                model = make(algo, **params, **seeded).fit(
                    tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid, docid=tr.docid,
                    docid_val=va.docid)
                times.append(time.perf_counter() - t0)
            pred = model.predict(te.X)
            ref_file = args.reference / f"MQ2008-Fold{k}" / f"{algo}.test-scores.txt"
            ref, diff, dq = "", "", ""
            if not params and ref_file.exists():
                theirs = np.loadtxt(ref_file, usecols=2)
                ref, diff = f"{ndcg10(te, theirs):.4f}", f"{np.abs(pred - theirs).max():.1e}"
                dq = f"{np.abs(per_query10(te, pred) - per_query10(te, theirs)).max():.1e}"
            elif not params and (k, algo) in PUBLISHED:
                ref = f"{PUBLISHED[k, algo]:.4f}"
            print(f"{k:>4}  {algo:<20} {label:<26} {ndcg10(te, pred):>8.4f} {ref:>8} {diff:>9} "
                  f"{dq:>9} {statistics.median(times[1:]):>7.2f}", flush=True)
            if algo == "ranknet" and args.jar:
                cli_vs_jar(args.data / f"Fold{k}", te, args.jar, args.repeats, algo, params,
                           args.seeded or args.jar.parent, args.seed)
            _end_to_end(args, k, algo, params, va, te)
    return 0


def _end_to_end(args, k: int, algo: str, params: dict, va, te) -> None:
    fold = args.data / f"Fold{k}"
    if params:
        return
    if args.only_end_to_end and algo in ("lambdamart", "coordinate_ascent", "ranksvm"):
        print(f"{k:>4}  {algo}", flush=True)
    if algo == "lambdamart" and args.jar:
        cli_vs_jar(fold, te, args.jar, args.repeats)
    if algo == "coordinate_ascent" and args.jar:
        ca_vs_seeded_jar(fold, te, args.jar, args.seeded or args.jar.parent, args.ca_restarts,
                         args.ca_steps,
                         args.seed, args.repeats)
    if algo == "ranksvm" and args.liblinear_ranksvm:
        ranksvm_vs_liblinear(fold, te, va, args.liblinear_ranksvm, args.repeats)


if __name__ == "__main__":
    raise SystemExit(main())
