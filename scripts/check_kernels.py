"""RankNet's compiled kernels hold no fused multiply-add: RankLib's Java rounds every product
and every sum (Java never fuses ``a*b + c``), so a kernel that fuses one computes other bits.
The ``ranknet_adam`` variant's kernels, which share the tiles, are held to the same: its models
are committed reference numbers.

    python scripts/check_kernels.py [--json]

Compiles every numba function of ``ltrconv.rankers.ranknet``, ``.tiles``, ``.fdlibm`` and
``.ranknet_adam``
afresh (into a temporary numba cache: a kernel loaded from the cache has no assembly to show),
on a small problem that reaches each of them, and reports per function its ``fastmath``
option and, per signature, the fused multiply-adds of its assembly, any fast-math flag of its
LLVM IR, and which packed vector instructions it holds. It first shows that the pattern finds
the fused multiply-add LLVM emits for ``a*b + c`` under fastmath, where the CPU has one.
Exit status 1 when a kernel fuses or asks for fast math. About a minute of CPU: run it when
the kernels change (the test suite checks the fastmath options, and the tiled kernels' bits
against the plain ones', without compiling afresh).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
import tempfile
from pathlib import Path

FUSED = re.compile(r"\bv?f(n)?m(add|sub|addsub|subadd)[0-9]*[ps][sd]\b")
"""x86 fused multiply-add mnemonics (vfmadd231pd, vfnmsub213sd, vfmaddsub132pd, ...)."""

FLAGGED = re.compile(r"= f(add|sub|mul|div) (fast|contract|reassoc|nsz|afn)")
"""An LLVM IR float operation carrying a fast-math flag."""

MODULES = ("ltrconv.rankers.ranknet", "ltrconv.rankers.tiles", "ltrconv.rankers.fdlibm",
           "ltrconv.rankers.ranknet_adam")


def cpu_has_fma() -> bool:
    try:
        return "fma" in Path("/proc/cpuinfo").read_text().split()
    except OSError:  # pragma: no cover - not Linux
        return False


def pattern_sees_one() -> bool:
    """Whether :data:`FUSED` finds the instruction a fastmath ``a*b + c`` compiles to."""
    import numpy as np
    from numba import njit

    @njit(fastmath=True)
    def fused(a, b, c):
        for i in range(a.size):
            c[i] = a[i] * b[i] + c[i]

    x = np.ones(64)
    fused(x, x, x.copy())
    return bool(FUSED.search(fused.inspect_asm(fused.signatures[0])))


def _reach_every_kernel() -> None:
    """A small fit's calls: both epochs (plain, and tiled with 4- and 8-lane vectors), the
    forward passes, exp in lanes."""
    import numpy as np

    from ltrconv.evaluation.queries import offsets_from_qid
    from ltrconv.rankers import fdlibm, ranknet

    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(6), 7)
    X = rng.standard_normal((42, 12))
    X[rng.random(X.shape) < 0.5] = 0.0
    y = rng.integers(0, 3, 42).astype(np.int64)
    sizes = [12, 9, 10, 1]
    off = offsets_from_qid(qid)
    w_off, u_off, _ = ranknet.layout(sizes)
    longest = int(np.diff(off).max())
    epochs = [ranknet._train_epoch_plain] + [
        functools.partial(ranknet._train_epoch, lanes=lanes) for lanes in (4, 8)]
    for epoch in epochs:
        params = ranknet.init_weights(sizes, 3)
        out = np.zeros((longest, u_off[-1]))
        work = (out, np.zeros_like(out), np.zeros(u_off[-1]), np.zeros((longest, u_off[-1])),
                np.zeros((max(longest, max(sizes) + 1), max(sizes) + 1)),
                np.zeros(longest, dtype=np.int64))
        epoch(params, np.asarray(sizes, dtype=np.int64), w_off, u_off, X, y, off,
              np.arange(len(off) - 1, dtype=np.int64), 0.05, *work)
    for predict in (functools.partial(ranknet._predict, lanes=4),
                    functools.partial(ranknet._predict, lanes=8), ranknet._predict_plain):
        predict(params, np.asarray(sizes), w_off, u_off, X, np.zeros((8, u_off[-1])))
    _reach_adam(X, y, off)
    x = np.linspace(-800, 800, 1000)
    fdlibm.exp_lanes(x, np.empty_like(x), len(x))
    for lanes in (4, 8):
        fdlibm.exp_vectors(x, np.empty_like(x), len(x), lanes)


def _reach_adam(X, y, off) -> None:
    """ranknet_adam's epoch and prediction in both vector widths, and its plain kernels."""
    import numpy as np

    from ltrconv.rankers import ranknet_adam as ra

    sizes = [X.shape[1], 9, 10, 1]
    sizes_a, w_off, b_off, u_off, total = ra._layout_arrays(sizes)
    for lanes in (4, 8):
        params = ra.init_params(sizes, np.random.default_rng(1))
        ra._train_epoch(params, np.zeros(total), np.zeros(total), 0, sizes_a, w_off, b_off,
                        u_off, 0, X, y, off, np.arange(len(off) - 1, dtype=np.int64), 1e-3, 0.9,
                        0.999, 1e-8, ra.work_rows(int(np.diff(off).max()), u_off), lanes)
        ra._predict(params, sizes_a, w_off, b_off, u_off, 0, X, ra.work_rows(8, u_off), lanes)
    acts = np.zeros((len(X), u_off[-1]))
    scores = ra._forward_plain(params, sizes_a, w_off, b_off, u_off, 1, X, acts)
    ra._backward_plain(params, sizes_a, w_off, b_off, u_off, 1, acts, scores, np.zeros(total))


def report() -> dict:
    """{function: {"fastmath": bool, "sigs": [{"fused", "flagged", "packed"}, ...]}} of every
    numba function of :data:`MODULES` that the small problem compiled."""
    import importlib

    _reach_every_kernel()
    out = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attr in dir(module):
            fn = getattr(module, attr)
            if not (hasattr(fn, "inspect_asm") and getattr(fn, "__module__", "") == name):
                continue
            rows = []
            for sig in fn.signatures:
                asm, ir_text = fn.inspect_asm(sig), fn.inspect_llvm(sig)
                flag = FLAGGED.search(ir_text)
                rows.append({"fused": [m.group(0) for m in FUSED.finditer(asm)][:3],
                             "flagged": flag.group(0) if flag else None,
                             "packed": sorted(set(re.findall(r"\bv(?:mul|add|div)pd\b", asm)))})
            out[f"{name}.{attr}"] = {"fastmath": bool(fn.targetoptions.get("fastmath")),
                                     "sigs": rows}
    return out


def problems(found: dict) -> list[str]:
    """One line per kernel that asks for fast math or fuses; empty when none does."""
    lines = []
    for name, info in found.items():
        if info["fastmath"]:
            lines.append(f"{name}: compiled with fastmath")
        for sig in info["sigs"]:
            if sig["fused"] or sig["flagged"]:
                lines.append(f"{name}: fused {sig['fused']} flagged {sig['flagged']}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    args = parser.parse_args(argv)
    if cpu_has_fma() and not pattern_sees_one():
        print("check_kernels: the pattern does not see the fused multiply-add of a fastmath "
              "a*b + c: it cannot be trusted on this CPU", file=sys.stderr)
        return 2
    found = report()
    if args.json:
        print(json.dumps(found, indent=1))
    bad = problems(found)
    n = sum(len(info["sigs"]) for info in found.values())
    for line in bad:
        print(line)
    print(f"check_kernels: {len(found)} functions, {n} compiled signatures, "
          f"{'none fuses or asks for fast math' if not bad else f'{len(bad)} problems'}"
          f" (this CPU {'has' if cpu_has_fma() else 'has no'} fused multiply-add)")
    return 1 if bad else 0


if __name__ == "__main__":
    # a cache of its own, before numba loads: every kernel is compiled here, asm and all
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="check-kernels-")
    sys.exit(main())
