"""Command line: ``ltrconv {eval,ttest,audit,conventions,train,predict}``.

Errors print one line ``ltrconv: error: ...`` naming the file, line or parameter and exit 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from . import conventions as conv_mod
from .data import Dataset, atomic_path, read_scores, write_scores
from .errors import InputError, LtrconvError
from .metrics import evaluate_dataset, parse_cutoffs

EXIT_ERROR = 2


def _load_conventions_file(path: str | None) -> None:
    if path:
        conv_mod.load_yaml(path)


def _emit(text: str, out: str | None) -> None:
    if out is None or out == "-":
        sys.stdout.write(text)
        return
    with atomic_path(out) as tmp:
        Path(tmp).write_text(text)


def _clean(x: float) -> float | None:
    return None if math.isnan(x) else round(float(x), 12)


# --- eval -------------------------------------------------------------------------------
def cmd_eval(args: argparse.Namespace) -> None:
    _load_conventions_file(args.conventions_file)
    data = Dataset.load(args.data)
    scores = read_scores(args.scores, data.n_docs)
    names = args.convention or list(conv_mod.PAPER_TOOLS)
    results = evaluate_dataset(data, scores, conventions=names, cutoffs=args.cutoffs)
    keep = [c for c in next(iter(results.values())).columns if not c.startswith("DCG@")]
    if args.format == "json":
        doc: dict = {"data": str(args.data), "scores": str(args.scores), "conventions": {}}
        for name, ev in results.items():
            cols = [c for c in keep if not np.all(np.isnan(ev[c]))]
            entry: dict = {
                "definition": ev.convention.canonical,
                "mean": {c: _clean(v) for c, v in ev.mean().items() if c in cols},
            }
            if args.per_query:
                entry["per_query"] = {
                    str(q): {c: _clean(ev[c][i]) for c in cols} for i, q in enumerate(ev.qids)
                }
            doc["conventions"][name] = entry
        _emit(json.dumps(doc, indent=1) + "\n", args.output)
        return
    lines = ["\t".join(["convention", "qid", *keep])]
    for name, ev in results.items():
        idx = [ev.columns.index(c) for c in keep]
        if args.per_query:
            for i, q in enumerate(ev.qids):
                lines.append("\t".join([name, str(q), *(f"{ev.values[i, j]:.6f}" for j in idx)]))
        means = ev.values.mean(axis=0)
        lines.append("\t".join([name, "all", *(f"{means[j]:.6f}" for j in idx)]))
    _emit("\n".join(lines) + "\n", args.output)


# --- ttest ------------------------------------------------------------------------------
def _read_per_query(path: str) -> dict[str, dict[str, dict[str, float]]]:
    """{convention: {qid: {metric: value}}} from ``eval --per-query`` JSON or TSV output."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path) from None
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
            out = {name: entry["per_query"] for name, entry in doc["conventions"].items()}
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
            raise InputError("not the JSON of 'ltrconv eval --per-query'", path) from None
        return out
    lines = text.splitlines()
    if not lines or not lines[0].startswith("convention\tqid\t"):
        raise InputError("expected 'ltrconv eval --per-query' output (JSON or TSV)", path, 1)
    header = lines[0].split("\t")
    out: dict = {}
    for lineno, line in enumerate(lines[1:], start=2):
        parts = line.split("\t")
        if len(parts) != len(header):
            raise InputError(f"expected {len(header)} columns, got {len(parts)}", path, lineno)
        if parts[1] == "all":
            continue
        try:
            values = {m: float(v) for m, v in zip(header[2:], parts[2:])}
        except ValueError:
            raise InputError("non-numeric metric value", path, lineno) from None
        out.setdefault(parts[0], {})[parts[1]] = values
    if not any(out.values()):
        raise InputError("no per-query rows (run 'ltrconv eval --per-query')", path)
    return out


def cmd_ttest(args: argparse.Namespace) -> None:
    from .stats import paired_ttest

    a, b = _read_per_query(args.a), _read_per_query(args.b)
    convs = args.convention or [c for c in a if c in b]
    rows = ["\t".join(["convention", "metric", "n", "mean_a", "mean_b", "diff", "t", "p"])]
    for name in convs:
        if name not in a or name not in b:
            raise LtrconvError(f"convention {name!r} is not in both {args.a} and {args.b}")
        qa, qb = a[name], b[name]
        if set(qa) != set(qb):
            only = sorted(set(qa) ^ set(qb))[:5]
            raise LtrconvError(
                f"{args.a} and {args.b} cover different queries under {name} (e.g. {only})"
            )
        qids = sorted(qa)
        metrics = [m for m in next(iter(qa.values())) if m in next(iter(qb.values()))]
        for m in metrics:
            va = np.array([qa[q][m] for q in qids], dtype=float)
            vb = np.array([qb[q][m] for q in qids], dtype=float)
            if np.isnan(va).any() or np.isnan(vb).any():
                continue
            t, p = paired_ttest(va, vb)
            rows.append(
                f"{name}\t{m}\t{len(qids)}\t{va.mean():.6f}\t{vb.mean():.6f}\t"
                f"{va.mean() - vb.mean():+.6f}\t{t:.4f}\t{p:.4g}"
            )
    _emit("\n".join(rows) + "\n", args.output)


# --- audit ------------------------------------------------------------------------------
def cmd_audit(args: argparse.Namespace) -> None:
    from .audit import audit, format_audit

    datasets = [Dataset.load(p) for p in args.data]
    if len(datasets) == 1:
        data = datasets[0]
    else:
        data = Dataset(
            X=np.vstack([d.X for d in datasets]),
            y=np.concatenate([d.y for d in datasets]),
            qid=np.concatenate([d.qid.astype(str) for d in datasets]),
            offsets=np.concatenate(
                [[0]] + [d.offsets[1:] + sum(x.n_docs for x in datasets[:i]) for i, d in enumerate(datasets)]
            ).astype(np.int64),
            docid=np.concatenate([d.docid for d in datasets]),
            source=",".join(args.data),
        )
        if len(np.unique(data.query_ids)) != data.n_queries:
            raise LtrconvError("the files share query ids; audit them one at a time")
    report = audit(data, parse_cutoffs(args.cutoffs).tolist())
    if args.format == "json":
        _emit(json.dumps(report, indent=1) + "\n", args.output)
    else:
        _emit(format_audit(report) + "\n", args.output)


def cmd_conventions(args: argparse.Namespace) -> None:
    _load_conventions_file(args.conventions_file)
    for name in conv_mod.names():
        print(f"{name:18s} {conv_mod.get(name).canonical}")


# --- train / predict --------------------------------------------------------------------
def _parse_params(items: Sequence[str]) -> dict:
    import yaml

    params = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise LtrconvError(f"--param {item!r}: expected KEY=VALUE")
        try:
            params[key] = yaml.safe_load(value)
        except yaml.YAMLError:
            raise LtrconvError(f"--param {item!r}: cannot parse the value") from None
    return params


def cmd_train(args: argparse.Namespace) -> None:
    from . import rankers
    from .metrics import MetricSpec

    _load_conventions_file(args.conventions_file)
    MetricSpec.parse(args.metric)
    model = rankers.make(args.algorithm, metric=args.metric, **_parse_params(args.param))
    train = Dataset.load(args.train)
    vali = Dataset.load(args.vali) if args.vali else None
    kwargs = {}
    if vali is not None:
        kwargs = dict(X_val=vali.X, y_val=vali.y, qid_val=vali.qid, docid_val=vali.docid)
    model.fit(train.X, train.y, train.qid, docid=train.docid, **kwargs)
    model.save(args.out)


def cmd_predict(args: argparse.Namespace) -> None:
    from . import rankers

    model = rankers.load(args.model)
    data = Dataset.load(args.data)
    scores = model.predict(data.X)
    if args.output and args.output != "-":
        write_scores(args.output, scores)
    else:
        sys.stdout.writelines(f"{float(s)!r}\n" for s in scores)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ltrconv", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)

    e = sub.add_parser("eval", help="evaluate a score file under NDCG conventions (Eval-Score-4.0.pl replacement)")
    e.add_argument("data", help="LETOR file (or .npz cache)")
    e.add_argument("scores", help="one score per line, aligned with DATA")
    e.add_argument("--convention", "-c", action="append", help="name or canonical string; repeatable (default: ranklib, trec, yahoo, letor)")
    e.add_argument("--conventions-file", help="YAML file defining more conventions")
    e.add_argument("--cutoffs", default="1-10", help="e.g. 1-10 or 1,5,10 (default 1-10)")
    e.add_argument("--per-query", action="store_true", help="include per-query values")
    e.add_argument("--format", choices=("json", "tsv"), default="json")
    e.add_argument("--output", "-o", help="write here instead of stdout")
    e.set_defaults(func=cmd_eval)

    t = sub.add_parser("ttest", help="paired t-test per metric between two per-query result files")
    t.add_argument("a")
    t.add_argument("b")
    t.add_argument("--convention", "-c", action="append")
    t.add_argument("--output", "-o")
    t.set_defaults(func=cmd_ttest)

    a = sub.add_parser("audit", help="how sensitive a dataset is to the NDCG conventions")
    a.add_argument("data", nargs="+", help="one or more LETOR files with distinct queries")
    a.add_argument("--cutoffs", default="1-10")
    a.add_argument("--format", choices=("text", "json"), default="text")
    a.add_argument("--output", "-o")
    a.set_defaults(func=cmd_audit)

    c = sub.add_parser("conventions", help="list the registered conventions")
    c.add_argument("--conventions-file")
    c.set_defaults(func=cmd_conventions)

    tr = sub.add_parser("train", help="train a ranker under a training metric")
    tr.add_argument("--algorithm", required=True)
    tr.add_argument("--metric", default="ndcg@10:ranklib", help="ndcg@K:CONVENTION")
    tr.add_argument("--train", required=True)
    tr.add_argument("--vali")
    tr.add_argument("--out", required=True)
    tr.add_argument("--param", action="append", default=[], help="KEY=VALUE (YAML value); repeatable")
    tr.add_argument("--conventions-file")
    tr.set_defaults(func=cmd_train)

    pr = sub.add_parser("predict", help="score a data file with a trained model")
    pr.add_argument("model")
    pr.add_argument("data")
    pr.add_argument("--output", "-o")
    pr.set_defaults(func=cmd_predict)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        args.func(args)
    except LtrconvError as exc:
        print(f"ltrconv: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
