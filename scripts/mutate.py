"""Mutation check: does a test fail when a number that matters moves?

    python scripts/mutate.py [--only NAME ...] [--tests FILE ...] [--every-test] [--list]
                             [--no-baseline]

Each mutation below replaces one exact snippet of the source by a wrong variant (the one-line
``breaks`` says what it breaks). For each, one at a time, ``src/`` is copied to a temporary
directory, the snippet is replaced there, and the tests run on that copy
(``python -m pytest -x -q -p no:cacheprovider``, ``PYTHONPATH`` = the copy, ``NUMBA_CACHE_DIR``
a fresh directory so that no compiled kernel of the unmutated code is reused). A mutation is
caught when the tests fail. Every mutation meets the whole test selection; the file nearest to
the mutated code runs first, so that ``-x`` stops early. ``--every-test`` drops ``-x`` and lists
every failing test. The unmutated copy runs first and must pass (``--no-baseline`` skips it).

Snippets are found by exact text. ``FILES`` maps each short name to its path under
``src/ltrconv``; when that file does not exist (modules move), every ``src/ltrconv/**/*.py`` is
searched for the snippet. A snippet that is found nowhere, more than once in its file, or in
more than one file stops the script before anything runs (exit status 2).

Output: one line per mutation (caught, and by which test, or NOT CAUGHT), then
``caught X of Y``. A run longer than ``--timeout`` is stopped and counts as caught (a test
suite that never ends does not pass), reported as such. Exit status 0 when every mutation is
caught, 1 otherwise. Tests that need MQ2008 find it as the tests do (``LTRCONV_MQ2008_DIR``)
and are skipped without it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path("src") / "ltrconv"

# Where each mutated module lives, under src/ltrconv: update when modules move.
FILES = {
    "metrics": "evaluation/metrics.py",
    "kernels": "evaluation/_kernels.py",
    "numpy_kernel": "evaluation/_numpy_kernel.py",
    "conventions": "evaluation/conventions.py",
    "scorer": "evaluation/scorer.py",
    "labels": "evaluation/labels.py",
    "adarank": "rankers/adarank.py",
    "rankboost": "rankers/rankboost.py",
    "coordinate_ascent": "rankers/coordinate_ascent.py",
    "lambdamart": "rankers/lambdamart.py",
    "lambdamart_lightgbm": "rankers/lambdamart_lightgbm.py",
    "ranknet": "rankers/ranknet.py",
    "ranksvm": "rankers/ranksvm.py",
}

METRIC_TESTS = "tests/test_metric_truths.py"
RANKER_TESTS = "tests/test_ranker_cores.py"
LAMBDAMART_TESTS = "tests/test_lambdamart.py"
TESTS = (METRIC_TESTS, RANKER_TESTS, LAMBDAMART_TESTS)


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # a key of FILES
    original: str
    replacement: str
    breaks: str
    first: str = METRIC_TESTS  # the test file run first


MUTATIONS = [
    # ---- evaluation ----
    Mutation("err-stop-denominator", "labels",
             "return (np.exp2(np.arange(top + 1)) - 1.0) / np.exp2(max(top, 1))",
             "return (np.exp2(np.arange(top + 1)) - 1.0) / (2.0 * np.exp2(max(top, 1)))",
             "ERR's stopping probability R = (2^l - 1) / 2^l_max divided by twice 2^l_max"),
    Mutation("err-rank-discount", "kernels",
             "acc_e += p_cont * stop / (p + 1.0)", "acc_e += p_cont * stop / (p + 2.0)",
             "ERR's 1/r becomes 1/(r+1) (numba engine)"),
    Mutation("err-continuation", "numpy_kernel",
             "p_cont[:m] *= 1.0 - stop", "p_cont[:m] *= 1.0 - 0.5 * stop",
             "ERR's probability of going on past a rank (numpy engine)"),
    Mutation("pk-denominator-min", "kernels",
             "acc_r / (k if pk_k else min(k, n))", "acc_r / (k if pk_k else min(k, n + 1))",
             "P@k divides by min(k, n + 1) instead of min(k, n) (numba engine)"),
    Mutation("pk-denominator-k", "numpy_kernel",
             "acc_r[lo:hi, None] / (k if pk_k else np.minimum(k, n))",
             "acc_r[lo:hi, None] / (k + 1 if pk_k else np.minimum(k, n))",
             "P@k divides by k + 1 instead of k (numpy engine)"),
    Mutation("map-count-documents", "kernels",
             "ap / n_rel if n_rel > 0 else 0.0", "ap / n if n_rel > 0 else 0.0",
             "AP divides by the number of documents, not of relevant ones (numba engine)"),
    Mutation("map-count-top-grade", "numpy_kernel",
             "n_rel = np.bincount(qpos, weights=isrel, minlength=nq)",
             "n_rel = np.bincount(qpos, weights=ranked > rel, minlength=nq)",
             "AP divides by the documents above the relevance threshold only (numpy engine)"),
    Mutation("letor-discount", "conventions",
             "out[2:] = 1.0 / np.log2(r[2:])", "out[2:] = 1.0 / np.log2(r[2:] + 1.0)",
             "LETOR's discount 1/log2(r) from rank 3 becomes 1/log2(r+1)"),
    Mutation("empty-value-numba", "kernels",
             "out[c] = empty", "out[c] = 0.0",
             "a query without relevant document scores 0 whatever the convention (numba)"),
    Mutation("empty-value-numpy", "numpy_kernel",
             "np.where(fixed, empty, np.where(", "np.where(fixed, 0.0, np.where(",
             "a query without relevant document scores 0 whatever the convention (numpy)"),
    Mutation("empty-value-scorer", "scorer",
             "self.fallback[q] = empty", "self.fallback[q] = 0.0",
             "the training metric scores empty queries 0 whatever the convention"),
    Mutation("short-rule-numba", "kernels",
             "elif short_zero and n < k:", "elif short_zero and n <= k:",
             "LETOR's n < k rule also zeroes n = k (numba engine)"),
    Mutation("short-rule-numpy", "numpy_kernel",
             "np.where(short_zero & (n < k), 0.0, ratio)",
             "np.where(short_zero & (n <= k), 0.0, ratio)",
             "LETOR's n < k rule also zeroes n = k (numpy engine)"),
    Mutation("short-rule-scorer", "scorer",
             'elif self.convention.short == "zero" and sizes[q] < self.k:',
             'elif self.convention.short == "zero" and sizes[q] <= self.k:',
             "the training metric's n < k rule also zeroes n = k"),
    # ---- rankers ----
    Mutation("adarank-query-weights", "adarank",
             "acc += m[f, q] * P[q]", "acc += m[f, q]",
             "AdaRank picks the weak ranker by unweighted NDCG sums", RANKER_TESTS),
    Mutation("adarank-weight-update", "adarank",
             "e = np.exp(-alpha * per_q)", "e = np.exp(alpha * per_q)",
             "AdaRank raises the weight of queries it already ranks well", RANKER_TESTS),
    Mutation("rankboost-update-sign", "rankboost",
             "D[p] = D[p] * np.exp(alpha * (fires[lo[p]] - fires[hi[p]]))",
             "D[p] = D[p] * np.exp(alpha * (fires[hi[p]] - fires[lo[p]]))",
             "RankBoost moves pair mass to the pairs already ordered", RANKER_TESTS),
    Mutation("rankboost-normalisation", "rankboost",
             "D /= Z", "D /= 1.0",
             "RankBoost's distribution is not renormalised", RANKER_TESTS),
    Mutation("ca-step-size", "coordinate_ascent",
             "step = 0.001 * sign", "step = 0.002 * sign",
             "Coordinate Ascent's line search starts from twice the step", RANKER_TESTS),
    Mutation("ca-acceptance", "coordinate_ascent",
             "if score > best:", "if score >= best:",
             "Coordinate Ascent accepts a step that does not improve NDCG", RANKER_TESTS),
    Mutation("lambdamart-lightgbm-lambda-sign", "lambdamart_lightgbm",
             "grad_q[i] -= lam\n            grad_q[j] += lam",
             "grad_q[i] += lam\n            grad_q[j] -= lam",
             "LambdaMART's λ pushes the better document down", RANKER_TESTS),
    Mutation("lambdamart-delta-ndcg", "scorer",
             "abs((gains_q[i] - gains_q[j]) * (d[i] - d[j])) * inv_idcg",
             "abs((gains_q[i] - gains_q[j]) * (d[i] + d[j])) * inv_idcg",
             "LambdaMART's |ΔNDCG| adds the two discounts instead of subtracting", RANKER_TESTS),
    Mutation("lambdamart-lightgbm-rho", "lambdamart_lightgbm",
             "math.exp(sigma * (scores_q[i] - scores_q[j]))",
             "math.exp(-sigma * (scores_q[i] - scores_q[j]))",
             "LambdaMART's rho grows with the margin of a pair already ordered", RANKER_TESTS),
    Mutation("ranknet-gradient-sign", "ranknet",
             "lam[i] -= g\n                lam[j] += g", "lam[i] += g\n                lam[j] -= g",
             "RankNet's dC/ds has the wrong sign", RANKER_TESTS),
    Mutation("lambdamart-ranklib-lambda-sign", "lambdamart",
             "lam_q[a] += lam\n                lam_q[b] -= lam",
             "lam_q[a] -= lam\n                lam_q[b] += lam",
             "RankLib's LambdaMART: λ pushes the better document down", LAMBDAMART_TESTS),
    Mutation("lambdamart-ranklib-rho", "lambdamart",
             "math.exp(scores_q[a] - scores_q[b])", "math.exp(scores_q[b] - scores_q[a])",
             "RankLib's LambdaMART: rho grows with the margin of a pair already ordered",
             LAMBDAMART_TESTS),
    Mutation("ranksvm-pair-sign", "ranksvm",
             "pos = X[hi] - X[lo]", "pos = X[lo] - X[hi]",
             "RankSVM's +1 examples are worse minus better", RANKER_TESTS),
]


class SnippetError(Exception):
    """A snippet that cannot be placed exactly once."""


def locate(m: Mutation, src_root: Path) -> Path:
    """The file (relative to ``src_root``) holding ``m.original`` exactly once."""
    named = PACKAGE / FILES[m.file]
    if (src_root / named).exists():
        candidates = [named]
    else:
        candidates = sorted(p.relative_to(src_root) for p in (src_root / PACKAGE).rglob("*.py")
                            if "__pycache__" not in p.parts)
    hits = [(p, (src_root / p).read_text(encoding="utf-8").count(m.original)) for p in candidates]
    hits = [(p, n) for p, n in hits if n]
    where = named if len(candidates) == 1 else f"{PACKAGE}/**/*.py ({named} does not exist)"
    if not hits:
        raise SnippetError(f"{m.name}: snippet not found in {where}: {m.original!r}")
    if len(hits) > 1:
        raise SnippetError(f"{m.name}: snippet found in several files "
                           f"({', '.join(map(str, (p for p, _ in hits)))}): {m.original!r}")
    path, count = hits[0]
    if count > 1:
        raise SnippetError(f"{m.name}: snippet found {count} times in {path}: {m.original!r}")
    return path


def copy_tree(dest: Path) -> None:
    shutil.copytree(ROOT / "src", dest / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))


def run_tests(copy: Path, tests: list[str], stop_first: bool,
              timeout: float) -> tuple[int | None, list[str], float]:
    """(pytest exit status, failing test ids, seconds) on the source tree at ``copy``; the
    status is None when the run outlasts ``timeout`` seconds (and is killed)."""
    cache = copy / "numba-cache"
    cache.mkdir()
    env = dict(os.environ, PYTHONPATH=str(copy / "src"), NUMBA_CACHE_DIR=str(cache))
    cmd = [sys.executable, "-m", "pytest", *(["-x"] if stop_first else []), "-q",
           "-p", "no:cacheprovider", *tests]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None, [], time.perf_counter() - start
    took = time.perf_counter() - start
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, flags=re.MULTILINE)
    if proc.returncode not in (0, 1):  # collection errors, interrupts: show why
        failed = failed or [proc.stdout.strip().splitlines()[-1] if proc.stdout.strip()
                            else proc.stderr.strip()[-300:]]
    return proc.returncode, failed, took


def imports_copy(copy: Path) -> bool:
    """Whether a process with PYTHONPATH = the copy imports ltrconv from it."""
    env = dict(os.environ, PYTHONPATH=str(copy / "src"))
    out = subprocess.run([sys.executable, "-c", "import ltrconv; print(ltrconv.__file__)"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    return Path(out).resolve().is_relative_to((copy / "src").resolve())


def order_tests(first: str, tests: list[str]) -> list[str]:
    return sorted(tests, key=lambda t: t != first)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run these mutations only")
    ap.add_argument("--tests", nargs="+", metavar="FILE", default=list(TESTS),
                    help=f"test files to run (default: {' '.join(TESTS)})")
    ap.add_argument("--every-test", action="store_true",
                    help="run every test (no -x) and list all that fail")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the run on the unmutated copy")
    ap.add_argument("--timeout", type=float, default=900.0, metavar="SECONDS",
                    help="a test run taking longer is stopped and the mutation counted as "
                         "caught, by timeout (default: 900)")
    ap.add_argument("--list", action="store_true", help="list the mutations and exit")
    args = ap.parse_args(argv)

    chosen = MUTATIONS
    if args.only:
        unknown = sorted(set(args.only) - {m.name for m in MUTATIONS})
        if unknown:
            print(f"unknown mutation(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
        chosen = [m for m in MUTATIONS if m.name in args.only]
    try:
        places = {m.name: locate(m, ROOT) for m in chosen}
    except SnippetError as exc:
        print(f"mutate.py: {exc}", file=sys.stderr)
        return 2
    if args.list:
        for m in chosen:
            print(f"{m.name:26} {places[m.name]}: {m.breaks}")
        return 0

    stop_first = not args.every_test
    with tempfile.TemporaryDirectory(prefix="ltrconv-mutate-") as tmp:
        if not args.no_baseline:
            copy = Path(tmp) / "baseline"
            copy_tree(copy)
            if not imports_copy(copy):
                print("mutate.py: a process with PYTHONPATH on the copy imports another ltrconv",
                      file=sys.stderr)
                return 2
            status, failed, took = run_tests(copy, args.tests, stop_first, args.timeout)
            if status != 0:
                print("mutate.py: the unmutated source fails: "
                      + (", ".join(failed) or f"no result after {args.timeout:.0f} s"),
                      file=sys.stderr)
                return 2
            print(f"{'baseline':26} passes ({took:.0f} s)", flush=True)
        caught = timed_out = 0
        for m in chosen:
            copy = Path(tmp) / m.name
            copy_tree(copy)
            path = copy / places[m.name]
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace(m.original, m.replacement, 1), encoding="utf-8")
            status, failed, took = run_tests(copy, order_tests(m.first, args.tests), stop_first,
                                             args.timeout)
            if status is None:
                caught += 1
                timed_out += 1
                verdict = f"caught by timeout (no result after {args.timeout:.0f} s)"
            elif status not in (0, 1, 2):  # 2: a collection error, which the mutation may cause
                print(f"mutate.py: pytest exit status {status} on {m.name}: {', '.join(failed)}",
                      file=sys.stderr)
                return 2
            elif status != 0:
                caught += 1
                verdict = "caught by " + ", ".join(failed or [f"pytest exit status {status}"])
            else:
                verdict = "NOT CAUGHT"
            print(f"{m.name:26} {verdict} ({took:.0f} s)  [{m.breaks}]", flush=True)
            shutil.rmtree(copy, ignore_errors=True)
        print(f"caught {caught} of {len(chosen)}"
              + (f" ({timed_out} by timeout)" if timed_out else ""))
    return 0 if caught == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
