"""Compile and cache the numba kernels once, at set-up, so that the first real fit does not.

``python -m ltrconv.warmup`` runs ``ltrconv train`` and ``ltrconv predict`` for each ranker
the registry knows (the study's six and the other implementations the paper run's variants
train: :data:`ltrconv.rankers.registry.KNOWN`), and the numba evaluation engine under every
built-in convention, on a small synthetic fold written in LETOR format: the same code paths,
hence the same kernel signatures, as a fit on MQ2008. The kernels that exist plain and parallel
(:func:`ltrconv.jit.serial_and_parallel`) are warmed both ways: the training scorer's and
LambdaMART's by a second LambdaMART fit, the evaluation engine's by a second evaluation, each
with the parallel twins forced (a real run takes them from :data:`ltrconv.jit
.PARALLEL_MIN_DOCS` documents). numba writes each compiled kernel to the ``__pycache__``
beside its source (``cache=True``), where later processes load it instead of compiling it
again. Running it again changes nothing but the time it takes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

SMALL = {
    "adarank": {"n_rounds": 5},
    "rankboost": {"n_rounds": 5},
    "lambdamart": {"n_estimators": 5},
    "coordinate_ascent": {"n_restarts": 1},
    "ranknet": {"architectures": [[10]], "max_epochs": 2},
    "ranknet_adam": {"architectures": [[10]], "max_epochs": 2},
    "lambdamart_lightgbm": {"n_estimators": 5},
}
"""Settings that keep each fit short, by registry name; a ranker without an entry is fitted
with its defaults."""


def _small_params(algorithm: str) -> list[str]:
    """``algorithm``'s :data:`SMALL` settings as ``--param`` values; a key that is not a
    parameter of the ranker raises ValueError."""
    from . import rankers

    small = SMALL.get(algorithm, {})
    unknown = sorted(set(small) - set(rankers.param_names(algorithm)))
    if unknown:
        raise ValueError(f"ltrconv.warmup: {algorithm} has no parameter(s) {unknown}")
    return [f"{k}={v}" for k, v in small.items()]


def _fold(root: Path) -> tuple[Path, Path]:
    from .data.synthetic import make_letor, split
    from .data.writer import write_letor

    data = make_letor(n_queries=40, n_features=8, min_docs=5, max_docs=20, seed=0)
    train, vali = split(data, range(30)), split(data, range(30, 40))
    write_letor(train, root / "train.txt")
    write_letor(vali, root / "vali.txt")
    return root / "train.txt", root / "vali.txt"


EVALUATION = "evaluation"
"""The name that asks ``python -m ltrconv.warmup`` for the evaluation engine."""

PARALLEL_TWINS = {"lambdamart", EVALUATION}
"""The targets run a second time with the parallel twins forced: LambdaMART's gradients and
its validation scorer (the training scorer every ranker validates with), the evaluation
engine's metrics."""


@contextlib.contextmanager
def _parallel_forced():
    """Every kernel call in the block takes its parallel twin (:func:`ltrconv.jit.use_parallel`
    reads the threshold when called)."""
    from . import jit

    threshold = jit.PARALLEL_MIN_DOCS
    jit.PARALLEL_MIN_DOCS = 0
    try:
        yield
    finally:
        jit.PARALLEL_MIN_DOCS = threshold


def _twice(target: str, warm) -> None:
    """``warm()``, then again with the parallel twins forced if ``target`` has any."""
    warm()
    if target in PARALLEL_TWINS:
        with _parallel_forced():
            warm()


def run(algorithms=None, say=print, evaluation: bool | None = None) -> float:
    """Warm every kernel the ``algorithms`` (default: every ranker the registry knows,
    :data:`ltrconv.rankers.registry.KNOWN`) and, with ``evaluation`` (default: when no
    algorithm is named), the numba evaluation engine use; returns the seconds taken."""
    from . import cli
    from .rankers import registry

    if evaluation is None:
        evaluation = algorithms is None
    algorithms = tuple(registry.KNOWN) if algorithms is None else algorithms
    small = {a: [arg for p in _small_params(a) for arg in ("--param", p)] for a in algorithms}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ltrconv-warmup-") as tmp:
        root = Path(tmp)
        train, vali = _fold(root)
        for algorithm in algorithms:
            t0 = time.perf_counter()
            model, scores = root / f"{algorithm}.model", root / f"{algorithm}.scores"

            def fit_and_predict(algorithm=algorithm, model=model, scores=scores):
                with contextlib.redirect_stdout(io.StringIO()), \
                        contextlib.redirect_stderr(io.StringIO()):
                    status = cli.main(["train", "--algorithm", algorithm, "--train", str(train),
                                       "--vali", str(vali), "--out", str(model),
                                       *small[algorithm]])
                    status = status or cli.main(["predict", str(model), str(vali), "-o",
                                                 str(scores)])
                if status:
                    raise SystemExit(f"ltrconv.warmup: {algorithm} failed (exit {status})")

            _twice(algorithm, fit_and_predict)
            say(f"ltrconv.warmup: {algorithm} ready ({time.perf_counter() - t0:.1f} s)")
        if evaluation:
            t0 = time.perf_counter()
            _twice(EVALUATION, lambda: _evaluation(train))
            say(f"ltrconv.warmup: evaluation ready ({time.perf_counter() - t0:.1f} s)")
    return time.perf_counter() - start


def _evaluation(path: Path) -> None:
    """The evaluation kernels (numba engine, every tie policy, RankDCG) on a LETOR file."""
    import numpy as np

    from .data.letor import read_letor
    from .evaluation.conventions import builtin_names
    from .evaluation.metrics import evaluate_dataset

    data = read_letor(path)
    scores = np.round(np.random.default_rng(0).random(len(data.y)), 1)  # ties
    evaluate_dataset(data, scores, conventions=builtin_names(), engine="numba", rankdcg=True)


def _one(target: str) -> str:
    """Warm one target (a ranker or :data:`EVALUATION`) in this process; what it said."""
    said: list[str] = []
    if target == EVALUATION:
        run([], say=said.append, evaluation=True)
    else:
        run([target], say=said.append, evaluation=False)
    return "\n".join(said)


def run_parallel(targets: list[str], jobs: int, say=print) -> float:
    """The ``targets`` (rankers and :data:`EVALUATION`) warmed by ``jobs`` processes at once,
    the costliest first (numba writes each kernel's cache files by rename, so processes that
    compile the same kernel leave one whole copy); returns the seconds taken."""
    import concurrent.futures
    import multiprocessing

    order = sorted(targets, key=lambda t: COST_ORDER.index(t) if t in COST_ORDER
                   else len(COST_ORDER))
    start = time.perf_counter()
    context = multiprocessing.get_context("spawn")  # numba's state is not for forking
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
        for said in pool.map(_one, order):
            say(said)
    return time.perf_counter() - start


COST_ORDER = ("lambdamart", EVALUATION, "ranknet_adam", "adarank", "ranksvm", "ranknet",
              "rankboost", "coordinate_ascent")
"""Targets by the CPU their kernels take to compile, costliest first (measured with an empty
cache: LambdaMART 32 s, the evaluation engine 28 s, AdaRank 15 s; ranknet_adam's tiles about
45 s, its first fold in a paper run without them warmed, 58 s against 12 s for the next)."""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ltrconv.warmup", description=__doc__)
    parser.add_argument("algorithms", nargs="*",
                        help="rankers to warm, and 'evaluation' for the evaluation engine "
                             "(default: every ranker the registry knows, and the "
                             "evaluation engine)")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                        help="processes compiling at once (default 1), each taking the next "
                             "ranker or the evaluation engine")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    names = [a for a in args.algorithms if a != EVALUATION]
    evaluation = not args.algorithms or EVALUATION in args.algorithms
    for name in names:  # an unknown ranker or setting, before any compiling
        try:
            _small_params(name)
        except ValueError as exc:
            parser.error(str(exc))
    if args.jobs > 1:
        from .rankers import registry

        targets = [*(names if args.algorithms else registry.KNOWN),
                   *([EVALUATION] if evaluation else [])]
        total = run_parallel(targets, args.jobs)
    else:
        total = run(names if args.algorithms else None, evaluation=evaluation)
    print(f"ltrconv.warmup: numba kernels compiled and cached in {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
