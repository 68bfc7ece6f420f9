"""benchmarks/bench_scale.py's evaluation part: ltrconv's ``evaluate``, pytrec_eval and ranx on
MSLR-WEB30K-sized data, each side in a child process of bench_scale.py."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ltrconv.data.synthetic import make_mslr_like

from scale_parts import peak_mb, rss_mb  # loaded by bench_scale.py

SCRIPT = Path(__file__).resolve().with_name("bench_scale.py")  # runs each side as --eval-child


def eval_child(kind: str, path: str, repeats: int) -> dict:
    z = np.load(path)
    y, scores, offsets = z["y"], z["scores"], z["offsets"]
    n = len(y)
    if kind == "ours":
        from ltrconv.evaluation.conventions import BUILTIN
        from ltrconv.evaluation.metrics import evaluate

        convs = sorted(BUILTIN)
        rank = np.arange(n, dtype=np.int64)  # docids "D0000000".. sort like their row numbers
        tiny = slice(0, int(offsets[3]))
        evaluate(y[tiny], scores[tiny], offsets=offsets[:4], conventions=convs, docid_rank=rank[tiny],
                 engine="numba")  # numba load
        base = rss_mb()
        out = {"base_mb": base, "conventions": convs}
        every = ("NDCG", "DCG", "P", "ERR", "MAP", "RR")
        for key, cs, metrics in (("all", convs, every), ("all_ndcg", convs, ("NDCG",)),
                                 ("trec", ["trec"], every), ("trec_ndcg", ["trec"], ("NDCG",))):
            wall, cpu = [], []
            for _ in range(repeats):
                w0, c0 = time.perf_counter(), time.process_time()
                res = evaluate(y, scores, offsets=offsets, conventions=cs, cutoffs="1-10",
                               docid_rank=rank, metrics=metrics, engine="numba")
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
            out[key] = {"wall": statistics.median(wall), "cpu": statistics.median(cpu)}
            if key == "all":
                for name in ("ranklib-tiepess", "ranklib-tieopt"):
                    np.save(f"{path}.{name}.npy", res[name]["NDCG@10"])
        np.save(path + ".ours.npy", res["trec"]["NDCG@10"])
        out["peak_mb"] = peak_mb()
        return out
    if kind == "ranx":
        return ranx_child(path, y, scores, offsets, repeats)
    import pytrec_eval

    base = rss_mb()
    w0 = time.perf_counter()
    qrel, run = {}, {}
    gain = (2 ** y - 1).tolist()
    sc = scores.tolist()
    for q in range(len(offsets) - 1):
        a, b = int(offsets[q]), int(offsets[q + 1])
        ids = [f"D{i:07d}" for i in range(a, b)]
        qrel[str(q)] = dict(zip(ids, gain[a:b]))
        run[str(q)] = dict(zip(ids, sc[a:b]))
    build = time.perf_counter() - w0
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, {f"ndcg_cut_{k}" for k in range(1, 11)})
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        res = evaluator.evaluate(run)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    np.save(path + ".theirs.npy", np.array([res[str(q)]["ndcg_cut_10"] for q in range(len(offsets) - 1)]))
    return {"base_mb": base, "build_s": build, "wall": statistics.median(wall),
            "cpu": statistics.median(cpu), "peak_mb": peak_mb()}


def ranx_child(path: str, y, scores, offsets, repeats: int) -> dict:
    """ranx's ``ndcg_burges@1..10``: an untimed run on 20 queries loads its numba functions,
    then its Qrels and Run are built (dicts, typed dicts, sorted) once and evaluated
    ``repeats`` times on one thread."""
    from ranx import Qrels, Run, evaluate

    metrics = [f"ndcg_burges@{k}" for k in range(1, 11)]

    def build(n_queries):
        qd, rd = {}, {}
        labels, sc = y.tolist(), scores.tolist()
        for q in range(n_queries):
            a, b = int(offsets[q]), int(offsets[q + 1])
            ids = [f"D{i:07d}" for i in range(a, b)]
            qd[f"q{q:06d}"] = dict(zip(ids, labels[a:b]))  # query ids sort in row order
            rd[f"q{q:06d}"] = dict(zip(ids, sc[a:b]))
        qrels, run = Qrels.from_dict(qd), Run.from_dict(rd)
        qrels.sort()
        run.sort()
        return qrels, run

    evaluate(*build(20), metrics, threads=1, save_results_in_run=False)
    base = rss_mb()
    w0 = time.perf_counter()
    qrels, run = build(len(offsets) - 1)
    build_s = time.perf_counter() - w0
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        res = evaluate(qrels, run, metrics, return_mean=False, threads=1,
                       save_results_in_run=False)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    np.save(path + ".ranx.npy", np.asarray(res["ndcg_burges@10"], dtype=np.float64))
    return {"base_mb": base, "build_s": build_s, "wall": statistics.median(wall),
            "cpu": statistics.median(cpu), "peak_mb": peak_mb()}


def run_eval(args) -> None:
    d = make_mslr_like(args.eval_docs, n_features=1, seed=args.seed)
    # a noisy relevance signal rounded to 0.01: about the ties of a real model's scores
    scores = np.round(d.X[:, 0].astype(np.float64), 2)
    with tempfile.TemporaryDirectory(prefix="bench_scale_") as tmp:
        path = str(Path(tmp) / "eval.npz")
        np.savez(path, y=d.y, scores=scores, offsets=d.offsets)
        print(f"evaluation data: make_mslr_like({args.eval_docs:,}, seed={args.seed}): "
              f"{d.n_queries:,} queries, {d.n_docs:,} documents, labels 0-4, "
              f"{len(np.unique(scores)):,} distinct scores; {args.eval_repeats} repeats, medians; "
              "one process per side")
        got = {}
        for kind in ("ours", "theirs", "ranx"):
            out = subprocess.run([sys.executable, str(SCRIPT), "--eval-child", kind, path,
                                  "--eval-repeats", str(args.eval_repeats)],
                                 capture_output=True, text=True, check=True)
            got[kind] = json.loads(out.stdout.strip().splitlines()[-1])
        err = np.abs(np.load(path + ".ours.npy") - np.load(path + ".theirs.npy")).max()
        rx = np.load(path + ".ranx.npy")
        lo, hi = (np.load(f"{path}.ranklib-tie{b}.npy") for b in ("pess", "opt"))
        outside = float(max((lo - rx).max(), (rx - hi).max(), 0.0))
        ranx_trec = int(np.count_nonzero(np.abs(rx - np.load(path + ".ours.npy")) > 1e-12))
    o, t, r = got["ours"], got["theirs"], got["ranx"]
    nconv = len(o["conventions"])
    print(f"check: max |ltrconv trec - pytrec_eval| NDCG@10 over {d.n_queries:,} queries = {err:.1e}")
    print(f"check: ranx ndcg_burges@10 outside [ranklib-tiepess, ranklib-tieopt] by at most "
          f"{outside:.1e}; differs from trec's tie order on {ranx_trec:,} queries")
    print(f"{'':62s} {'wall s':>8s} {'CPU s':>8s} {'peak-data MB':>13s}")
    peak = f"{o['peak_mb'] - o['base_mb']:13.0f}"  # over all four calls, reported once
    for key, label in (("all", f"{nconv} built-in conventions, @1..10, all metrics"),
                       ("all_ndcg", f"{nconv} built-in conventions, NDCG@1..10"),
                       ("trec", "trec only, @1..10 (NDCG/DCG/P/ERR, MAP, RR)"),
                       ("trec_ndcg", "trec only, NDCG@1..10")):
        print(f"{'ltrconv evaluate, ' + label:62s} {o[key]['wall']:8.2f} {o[key]['cpu']:8.2f} "
              f"{peak if key == 'all' else '':13s}")
    print(f"{'pytrec_eval evaluate, ndcg_cut_1..10 (trec)':62s} {t['wall']:8.2f} {t['cpu']:8.2f} "
          f"{t['peak_mb'] - t['base_mb']:13.0f}")
    print(f"{'pytrec_eval: building its qrel/run dicts (once)':62s} {t['build_s']:8.2f}")
    print(f"{'ranx evaluate, ndcg_burges@1..10 (1 thread)':62s} {r['wall']:8.2f} {r['cpu']:8.2f} "
          f"{r['peak_mb'] - r['base_mb']:13.0f}")
    print(f"{'ranx: building its Qrels/Run, sorted (once)':62s} {r['build_s']:8.2f}")
    r_one = t["cpu"] / o["trec_ndcg"]["cpu"]
    r_all = t["cpu"] * nconv / o["all_ndcg"]["cpu"]
    r_more = t["cpu"] / o["trec"]["cpu"]
    print(f"speed-up, CPU, NDCG@1..10 as pytrec_eval computes it: one convention {r_one:.1f}x "
          f"(wall {t['wall'] / o['trec_ndcg']['wall']:.1f}x); {nconv} conventions {r_all:.1f}x "
          f"(pytrec_eval x {nconv} calls, which could only do trec's); target >= 10x: "
          f"{'met' if r_one >= 10 else 'NOT met'}. With MAP, RR, P, ERR and DCG as well "
          f"(the whole ranking): {r_more:.1f}x")
    print(f"speed-up against ranx, CPU, NDCG@1..10 (one convention): "
          f"{r['cpu'] / o['trec_ndcg']['cpu']:.1f}x (wall {r['wall'] / o['trec_ndcg']['wall']:.1f}x), "
          f"its Qrels/Run build aside")
