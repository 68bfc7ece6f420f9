"""Command line: ``ltrconv COMMAND``, one of eval, eval-score, ttest, audit, conventions, train,
predict and check-reference.

Errors print one line ``ltrconv: error: ...`` naming the file, line or parameter and exit 2.
Output paths are checked before any work (see :data:`OUTPUT_RULES`). Ctrl-C and SIGTERM stop
a command with one line and exit 130 and 143 (128 + the signal), temporary files removed; a
reader that closes standard output early (``ltrconv eval ... | head``) ends the command
silently with exit 141, as a shell reports a command killed by SIGPIPE.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import sys
import threading
import textwrap
import warnings
from pathlib import Path
from typing import Sequence

import numpy as np

from .data.letor import Dataset, read_scores, write_scores
from .errors import InputError, LtrconvError, printable, shown
from .evaluation import conventions as conv_mod
from .evaluation.metrics import evaluate_dataset, parse_cutoffs
from .outputs import atomic_path, check_output, write_stdout

EXIT_ERROR = 2
EXIT_SIGNAL = 128  # plus the signal number, as a shell reports a command a signal ended

OUTPUT_RULES = """\
output paths (-o/--out, OUTPUT):
  A regular file or a new path is written in full to a hidden temporary file
  beside it, then renamed over it: an interrupted or failed run leaves the old
  file (or nothing). A symbolic link is followed and its target treated by the
  same rules. A FIFO or a character device (/dev/null, /dev/stdout, >(...)) is
  written through, as the shell's > would. A directory, a socket or a block
  device is refused, and so is a file without write permission (even for root)
  or in a directory that is not writable. The path is checked before any work
  starts."""


def _load_conventions_file(path: str | None) -> None:
    if path:
        conv_mod.load_yaml(path)


def _check_out(out: str | None, *inputs: str | None) -> None:
    """Refuse an unusable output path now, before the work (see OUTPUT_RULES), in particular
    one that is the same file as one of the command's ``inputs``."""
    if out is not None and out != "-":
        check_output(out, inputs=[i for i in inputs if i is not None])


@contextlib.contextmanager
def _library_output_to_stderr():
    """Send whatever libraries print meanwhile to stderr, so that stdout holds only results.

    LightGBM logs through Python's ``print`` and, from its worker threads, straight to file
    descriptor 1; both are redirected.
    """
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no stdout to protect
        saved = None
    if saved is not None:
        os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


def _emit(text: str, out: str | None) -> None:
    if out is None or out == "-":
        write_stdout(text)
        return
    with atomic_path(out) as tmp:
        Path(tmp).write_text(text)


def _clean(x: float) -> float | None:
    return None if math.isnan(x) else round(float(x), 12)


# --- eval -------------------------------------------------------------------------------
def cmd_eval(args: argparse.Namespace) -> None:
    from . import cli_trec  # HOOK(trec): --qrels/--run
    if cli_trec.wants(args):  # HOOK(trec)
        return cli_trec.cmd_eval(args)  # HOOK(trec)
    _check_out(args.output, args.data, args.scores, args.conventions_file)
    _load_conventions_file(args.conventions_file)
    data = Dataset.load(args.data)
    scores = read_scores(args.scores, data.n_docs)
    names = args.convention or list(conv_mod.PAPER_TOOLS)
    names = [m for n in names for m in (conv_mod.builtin_names() if n == conv_mod.ALL else [n])]
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    results = evaluate_dataset(data, scores, conventions=names, cutoffs=args.cutoffs,
                               rankdcg=args.rankdcg, metrics=metrics)
    columns = next(iter(results.values())).columns
    keep_idx = [j for j, c in enumerate(columns) if not c.startswith("DCG@")]
    keep = [columns[j] for j in keep_idx]
    if args.format == "json":
        doc: dict = {"data": str(args.data), "scores": str(args.scores), "conventions": {}}
        for name, ev in results.items():
            counted = ev.values if ev.skipped is None else ev.values[~ev.skipped]
            idx = [j for j in keep_idx if not np.all(np.isnan(counted[:, j]))]
            cols = [ev.columns[j] for j in idx]
            means = ev.mean()
            entry: dict = {
                "definition": ev.convention.canonical,
                "mean": {c: _clean(means[c]) for c in cols},
            }
            if ev.skipped is not None:  # empty=skip: left out of the means, null per query
                entry["skipped"] = [str(q) for q in ev.qids[ev.skipped]]
            if args.per_query:
                entry["per_query"] = {
                    str(q): {c: _clean(v) for c, v in zip(cols, ev.values[i, idx])}
                    for i, q in enumerate(ev.qids)
                }
            doc["conventions"][name] = entry
        _emit(json.dumps(doc, indent=1) + "\n", args.output)
        return
    lines = ["\t".join(["convention", "qid", *keep])]
    for name, ev in results.items():
        idx = keep_idx
        if args.per_query:
            for i, q in enumerate(ev.qids):
                lines.append("\t".join([name, str(q), *(f"{ev.values[i, j]:.6f}" for j in idx)]))
        means = ev.mean()  # skipped queries (nan above) left out
        lines.append("\t".join([name, "all", *(f"{means[ev.columns[j]]:.6f}" for j in idx)]))
    _emit("\n".join(lines) + "\n", args.output)


# --- eval-score -------------------------------------------------------------------------
def cmd_eval_score(args: argparse.Namespace) -> None:
    from .evaluation.letor_tool import eval_score_report

    if args.flag not in ("0", "1"):
        raise LtrconvError(f"FLAG {shown(args.flag)}: 1 writes per-query results, 0 the "
                           "averages only")
    _check_out(args.output, args.test, args.prediction)
    data = Dataset.load(args.test)
    scores = read_scores(args.prediction, data.n_docs)
    _emit(eval_score_report(data, scores, per_query=args.flag == "1", path=args.test,
                            tool=args.tool), args.output)


# --- ttest ------------------------------------------------------------------------------
def _metric_value(v, path: str, where: str) -> float:
    """A per-query metric value from JSON: a finite number, or null (NaN, as eval writes)."""
    if v is None:
        return math.nan
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InputError(f"{where}: value {shown(v)} is not a finite number or null", path)
    return float(v)


class _RepeatedKey(Exception):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list) -> dict:
    """A JSON object as a dict, refusing a repeated key (json.loads keeps the last silently)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        raise _RepeatedKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return out


def _read_per_query(path: str) -> dict[str, dict[str, dict[str, float]]]:
    """{convention: {qid: {metric: value}}} from ``eval --per-query`` JSON or TSV output.

    Every query of a convention must carry the same metrics.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path) from None
    expected = "expected the output of 'ltrconv eval --per-query' (JSON or TSV)"
    out: dict = {}
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text, object_pairs_hook=_unique_keys)
        except _RepeatedKey as exc:
            raise InputError(f"a JSON object gives the key {shown(exc.key)} twice (a query or "
                             "metric twice?); each key may appear once", path) from None
        except (json.JSONDecodeError, RecursionError) as exc:
            line = getattr(exc, "lineno", None)
            raise InputError(f"not valid JSON ({getattr(exc, 'msg', exc)}); {expected}", path,
                             line) from None
        convs = doc.get("conventions")
        if not isinstance(convs, dict) or not convs:
            raise InputError(f"no 'conventions' mapping; {expected}", path)
        for name, entry in convs.items():
            pq = entry.get("per_query") if isinstance(entry, dict) else None
            if not isinstance(pq, dict):
                raise InputError(f"conventions.{name} has no 'per_query' mapping; {expected}", path)
            rows: dict = {}
            for qid, values in pq.items():
                where = f"conventions.{name}.per_query.{qid}"
                if not isinstance(values, dict) or not values:
                    raise InputError(f"{where}: expected a mapping of metric to value", path)
                rows[qid] = {m: _metric_value(v, path, f"{where}.{m}") for m, v in values.items()}
            out[str(name)] = rows
    else:
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if not lines or not lines[0].rstrip("\r").startswith("convention\tqid\t"):
            raise InputError(expected, path, 1)
        header = lines[0].rstrip("\r").split("\t")
        for lineno, line in enumerate(lines[1:], start=2):
            parts = line.rstrip("\r").split("\t")
            if len(parts) != len(header):
                raise InputError(f"expected {len(header)} columns, got {len(parts)}", path, lineno)
            if parts[1] == "all":
                continue
            values = {}
            for m, v in zip(header[2:], parts[2:]):
                try:
                    x = float(v)
                except ValueError:
                    raise InputError(f"{m} value {shown(v)} is not a "
                                     "number", path, lineno) from None
                if math.isinf(x):
                    raise InputError(f"{m} value {shown(v)} is not finite", path, lineno)
                values[m] = x
            if parts[1] in out.setdefault(parts[0], {}):
                raise InputError(f"query {parts[1]} appears twice under {parts[0]}", path, lineno)
            out[parts[0]][parts[1]] = values
    for name, rows in out.items():
        if not rows:
            raise InputError(f"no per-query values under {name} (run 'ltrconv eval --per-query')", path)
        first_q, first = next(iter(rows.items()))
        for q, values in rows.items():
            if values.keys() != first.keys():
                raise InputError(
                    f"under {name}, query {q} has metrics {sorted(values)} but query {first_q} "
                    f"has {sorted(first)}", path,
                )
    return out


def cmd_ttest(args: argparse.Namespace) -> None:
    from .study.stats import paired_ttest

    _check_out(args.output, args.a, args.b)
    a, b = _read_per_query(args.a), _read_per_query(args.b)
    convs = args.convention or [c for c in a if c in b]
    if not convs:
        raise LtrconvError(
            f"{args.a} ({', '.join(a)}) and {args.b} ({', '.join(b)}) have no convention in common"
        )
    rows = ["\t".join(["convention", "metric", "n", "mean_a", "mean_b", "diff", "t", "p"])]
    single = []
    for name in convs:
        if name not in a or name not in b:
            raise LtrconvError(f"convention {shown(name)} is not in both {args.a} and {args.b}")
        qa, qb = a[name], b[name]
        if set(qa) != set(qb):
            only = sorted(set(qa) ^ set(qb))[:5]
            raise LtrconvError(
                f"{args.a} and {args.b} cover different queries under {name} (e.g. {only})"
            )
        qids = sorted(qa)
        if len(qids) < 2:
            single.append(name)
        metrics = [m for m in next(iter(qa.values())) if m in next(iter(qb.values()))]
        if not metrics:
            raise LtrconvError(f"{args.a} and {args.b} have no metric in common under {name}")
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
    if len(rows) == 1:
        raise LtrconvError(f"nothing to test: every metric common to {args.a} and {args.b} has "
                           "missing (null) values")
    if single:
        print(f"ltrconv: warning: one query only under {', '.join(single)}; a paired t-test "
              "needs two or more, so t and p are nan", file=sys.stderr)
    _emit("\n".join(rows) + "\n", args.output)


# --- audit ------------------------------------------------------------------------------
def cmd_audit(args: argparse.Namespace) -> None:
    from .data.audit import audit, format_audit

    _check_out(args.output, *args.data)
    for i, path in enumerate(args.data):
        for earlier in args.data[:i]:
            with contextlib.suppress(OSError):
                if os.path.samefile(path, earlier):
                    what = (f"{printable(path)} is given twice" if path == earlier else
                            f"{printable(earlier)} and {printable(path)} are the same file")
                    raise LtrconvError(f"{what}; audit it once")
    datasets = [Dataset.load(p) for p in args.data]
    if len(datasets) == 1:
        data = datasets[0]
    else:
        for i, later in enumerate(datasets):
            for j, earlier in enumerate(datasets[:i]):
                shared = np.intersect1d(earlier.query_ids, later.query_ids)
                if shared.size:
                    raise LtrconvError(
                        f"{printable(args.data[j])} and {printable(args.data[i])} share "
                        f"{shared.size} query id(s) (e.g. {', '.join(map(str, shared[:3]))}); "
                        "audit them one at a time")
        data = Dataset.concat(datasets, source=",".join(args.data))
    report = audit(data, parse_cutoffs(args.cutoffs).tolist())
    if args.format == "json":
        _emit(json.dumps(report, indent=1) + "\n", args.output)
    else:
        _emit(format_audit(report) + "\n", args.output)


def cmd_conventions(args: argparse.Namespace) -> None:
    _load_conventions_file(args.conventions_file)
    lines = []
    for name in conv_mod.names():
        lines.append(f"{name:19s} {conv_mod.get(name).canonical}\n")
        lib = conv_mod.library(name)
        if lib is not None:
            note = f" [float32: {lib.float32}]" if lib.float32 else ""
            lines.append(f"{'':19s} {lib.tool}, checked on {lib.checked}: {lib.description}{note}\n")
    write_stdout("".join(lines))


# --- check-reference --------------------------------------------------------------------
def cmd_check_reference(args: argparse.Namespace) -> int:
    from .study.reference import compare, skipped_files

    names, differences = compare(args.results, args.reference)
    skipped = skipped_files(args.reference)
    lines = [f"{printable(args.results)} against {printable(args.reference)}: {len(names)} files "
             "compared byte for byte"
             + (f"; not compared (wall times): {', '.join(skipped)}" if skipped else "")]
    lines += [f"  differs: {d.name}: {d.detail}" for d in differences]
    lines.append(f"{len(differences)} of {len(names)} differ" if differences
                 else "every compared file equals the reference")
    write_stdout("\n".join(lines) + "\n")
    return 1 if differences else 0


# --- train / predict --------------------------------------------------------------------
def _parse_params(items: Sequence[str]) -> dict:
    import yaml

    from .evaluation import safe_yaml

    params = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise LtrconvError(f"--param {shown(item)}: expected KEY=VALUE")
        try:
            params[key] = safe_yaml.load(value)
        except yaml.YAMLError as exc:
            raise LtrconvError(f"--param {shown(item)}: cannot parse the value: "
                               f"{safe_yaml.reason(exc)}") from None
    return params


def cmd_train(args: argparse.Namespace) -> None:
    from . import rankers
    from .evaluation.spec import MetricSpec

    _check_out(args.out, args.train, args.vali, args.conventions_file)
    _load_conventions_file(args.conventions_file)
    MetricSpec.parse(args.metric)
    params = _parse_params(args.param)
    if "metric" in params:
        raise LtrconvError(f"--param metric={params['metric']}: the training metric is set "
                           f"with --metric (e.g. --metric {params['metric']}), not --param")
    names, removed = rankers.param_names(args.algorithm), rankers.removed_params(args.algorithm)
    unknown = sorted(set(params) - set(names))
    if unknown:
        why = "".join(f"; {p}: {removed[p]}" for p in unknown if p in removed)
        raise LtrconvError(f"--param: {args.algorithm} has no parameter(s) {unknown}{why}; valid: "
                           f"{', '.join(v for v in names if v != 'metric')}")
    try:
        model = rankers.make(args.algorithm, **params, metric=args.metric)
    except rankers.ParamError as exc:
        raise LtrconvError(f"--param {exc.param}: {exc}") from None
    train = Dataset.load(args.train)
    vali = Dataset.load(args.vali) if args.vali else None
    if vali is not None:  # a file may omit features that are zero throughout it
        width = max(train.X.shape[1], vali.X.shape[1])
        train, vali = train.with_width(width), vali.with_width(width)
    kwargs = {}
    if vali is not None:
        kwargs = dict(X_val=vali.X, y_val=vali.y, qid_val=vali.qid, docid_val=vali.docid)
    if vali is None:
        warnings.warn(f"no --vali file: model selection ({rankers.selects(args.algorithm)}) runs on the training "
                      f"data {args.train}", rankers.TrainingSelectionWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankers.TrainingSelectionWarning)  # said above
        try:
            model.fit(train.X, train.y, train.qid, docid=train.docid, **kwargs)
        except rankers.DegenerateDataError as exc:
            raise InputError(str(exc), args.train if exc.split == "training" else args.vali) from None
    model.save(args.out)
    on = (f"the validation data {printable(args.vali)}" if vali is not None
          else f"the training data {printable(args.train)}")
    _say(f"ltrconv: {args.algorithm} selected {rankers.selected(model)} on {on}: "
         f"{model.metric_spec} = {model.val_score_:.4f}; model saved to {printable(args.out)}")


def cmd_predict(args: argparse.Namespace) -> None:
    from . import rankers

    _check_out(args.output, args.model, args.data)
    with _library_output_to_stderr():
        model = rankers.load(args.model)
        width = getattr(model, "n_features_in_", None)
        data = Dataset.load(args.data, n_features=width,
                            what=f"the model {args.model} was fitted on")
        scores = model.predict(data.X)
    if args.output and args.output != "-":
        write_scores(args.output, scores)
    else:
        write_stdout("".join(f"{float(s)!r}\n" for s in scores))


DESCRIPTION = ("NDCG as each public learning-to-rank tool computes it (RankLib, trec_eval, the "
               "Yahoo! challenge script, LETOR's Eval-Score), and what the choice does to "
               "evaluation and training.")

EPILOG = ("Bad input stops with one line, 'ltrconv: error: ...', naming the file and line or "
          "the parameter, and exit status 2; so does an output that cannot be written in full "
          "(a full disk, standard output included). Ctrl-C and SIGTERM stop a command with one "
          "line and exit status 130 and 143, leaving no temporary file; a reader that closes "
          "standard output early (| head) ends it silently with exit status 141, as SIGPIPE "
          "would. 'ltrconv COMMAND --help' describes a command.")


def _paragraphs(*texts: str) -> str:
    """Paragraphs wrapped for an 80-column terminal, a blank line between them."""
    return "\n\n".join(textwrap.fill(" ".join(t.split()), 78) for t in texts)


def _as_yaml(value) -> str:
    """``value`` as --param reads it back (YAML 1.1: a float needs its decimal point)."""
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(map(_as_yaml, value)) + "]"
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, float):
        text = repr(value)
        return text.replace("e", ".0e", 1) if "e" in text and "." not in text else text
    return str(value)


def _algorithm_parameters() -> str:
    """Each algorithm's parameters with their defaults and allowed values, for train's help."""
    from . import rankers

    out = ["algorithm parameters (--param KEY=VALUE; the default after '='):"]
    for name in rankers.ALGORITHMS:
        out.append(f"  {name} (validation data selects {rankers.selects(name)}):")
        for param, default, allowed in rankers.param_help(name):
            if param == "metric":
                continue
            out.append(textwrap.fill(f"{param}={_as_yaml(default)}: {allowed}", 78,
                                     initial_indent="    ", subsequent_indent="        "))
    return "\n".join(out)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; help texts are plain text for the terminal."""
    from .rankers import ALGORITHMS

    fmt = argparse.RawDescriptionHelpFormatter
    p = argparse.ArgumentParser(prog="ltrconv", description=_paragraphs(DESCRIPTION),
                                epilog=_paragraphs(EPILOG), formatter_class=fmt)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str, description: str,
                writes: bool = True) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=summary, formatter_class=fmt, description=_paragraphs(
            f"{summary[0].upper()}{summary[1:]}.", description),
            epilog=OUTPUT_RULES if writes else None)

    e = command("eval", "evaluate a score file under NDCG conventions", """
        SCORES holds one score per line, in the order of the documents of DATA, as for LETOR's
        Eval-Score-4.0.pl (use -c letor for its numbers). Reports NDCG@k, P@k, ERR@k, MAP and
        RR, the mean over queries and, with --per-query, each query's values.
    """)
    e.add_argument("data", metavar="DATA", help="LETOR/SVMlight file, or its .npz cache")
    e.add_argument("scores", metavar="SCORES", help="one score per line, aligned with DATA")
    e.add_argument("--convention", "-c", metavar="NAME", action="append",
                   help="convention name (see 'ltrconv conventions') or definition string "
                        "such as 'ndcg(empty=0.5)', or 'all' for every built-in one; "
                        "repeatable (default: ranklib, trec, yahoo, letor)")
    e.add_argument("--conventions-file", metavar="FILE", help="YAML file defining more conventions")
    e.add_argument("--cutoffs", metavar="K", default="1-10",
                   help="cutoffs, e.g. 1-10 or 1,5,10 (default: 1-10)")
    e.add_argument("--metrics", metavar="LIST", default="NDCG,P,ERR,MAP,RR",
                   help="metrics to report, of NDCG, P, ERR, MAP, RR (default: all); "
                        "without MAP and RR each query is ranked only to the last cutoff")
    e.add_argument("--rankdcg", action="store_true",
                   help="also report RankDCG (Katerenchuk & Rosenberg), ties per convention")
    e.add_argument("--per-query", action="store_true", help="also report each query's values")
    e.add_argument("--format", choices=("json", "tsv"), default="json",
                   help="output format (default: json)")
    e.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")
    e.set_defaults(func=cmd_eval)
    from . import cli_trec  # HOOK(trec): --qrels/--run
    cli_trec.add_arguments(e)  # HOOK(trec)

    es = command("eval-score", "the LETOR evaluation scripts: same arguments, same output", """
        Replaces 'perl Eval-Score-4.0.pl TEST PREDICTION OUTPUT FLAG' (--tool letor4, the
        default: P@1-10, MAP, NDCG@1-10 and MeanNDCG, NDCG under the letor convention),
        mslr-eval-score-mslr.pl (--tool mslr: the same with labels 0-4, relevant for P@k and
        MAP meaning label >= 2) or Eval-Score-3.0.pl (--tool letor3: P@k, MAP and NDCG@k for
        k up to 16, letor convention), in the Perl script's layout.
    """)
    es.add_argument("--tool", choices=("letor3", "letor4", "mslr"), default="letor4",
                    help="the script to replace (default: letor4)")
    es.add_argument("test", metavar="TEST", help="LETOR file (labels 0-2; 0-4 for mslr)")
    es.add_argument("prediction", metavar="PREDICTION",
                    help="one score per line, aligned with TEST")
    es.add_argument("output", metavar="OUTPUT", help="result file ('-' for stdout)")
    es.add_argument("flag", metavar="FLAG",
                    help="1: per-query results and averages; 0: averages only")
    es.set_defaults(func=cmd_eval_score)

    t = command("ttest", "paired t-test per metric between two runs", """
        A and B are outputs of 'ltrconv eval --per-query' (JSON or TSV) over the same queries;
        each convention and metric present in both gets a two-sided paired t-test across
        queries.
    """)
    t.add_argument("a", metavar="A", help="per-query results of the first run")
    t.add_argument("b", metavar="B", help="per-query results of the second run")
    t.add_argument("--convention", "-c", metavar="NAME", action="append",
                   help="test only this convention; repeatable (default: all in common)")
    t.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")
    t.set_defaults(func=cmd_ttest)

    a = command("audit", "how much the NDCG conventions can disagree on a dataset", """
        Counts what the conventions treat differently: queries without a relevant document,
        queries shorter than each cutoff, labels, repeated docids and tied feature vectors.
    """)
    a.add_argument("data", metavar="DATA", nargs="+",
                   help="one or more LETOR files (together: distinct query ids)")
    a.add_argument("--cutoffs", metavar="K", default="1-10",
                   help="cutoffs, e.g. 1-10 or 1,5,10 (default: 1-10)")
    a.add_argument("--format", choices=("text", "json"), default="text",
                   help="output format (default: text)")
    a.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")
    a.set_defaults(func=cmd_audit)

    c = command("conventions", "list the registered conventions", """
        Each name with its definition string, which -c accepts in place of the name; for a
        library's convention also the tool, the version checked and, where the library computes
        in float32, how far its values agree.
    """, writes=False)
    c.add_argument("--conventions-file", metavar="FILE", help="YAML file defining more conventions")
    c.set_defaults(func=cmd_conventions)

    tr = command("train", "train a ranker with an NDCG convention as its metric", """
        The metric drives training and the selection on the validation file; the fitted model is
        saved to --out for 'ltrconv predict'.
    """)
    tr.add_argument("--algorithm", metavar="NAME", required=True,
                    help=f"one of {', '.join(ALGORITHMS)}")
    tr.add_argument("--metric", default="ndcg@10:ranklib",
                    help="training metric ndcg@K:CONVENTION (default: ndcg@10:ranklib)")
    tr.add_argument("--train", metavar="FILE", required=True, help="training data (LETOR file)")
    tr.add_argument("--vali", metavar="FILE", help="validation data (LETOR file)")
    tr.add_argument("--out", metavar="FILE", required=True, help="where to save the model")
    tr.add_argument("--param", metavar="KEY=VALUE", action="append", default=[],
                    help="algorithm parameter, VALUE read as YAML; repeatable")
    tr.add_argument("--conventions-file", metavar="FILE", help="YAML file defining more conventions")
    tr.set_defaults(func=cmd_train)
    plain_help = tr.format_help

    def train_help() -> str:  # the rankers (scikit-learn) load only when this help is asked for
        tr.epilog = _algorithm_parameters() + "\n\n" + OUTPUT_RULES
        return plain_help()

    tr.format_help = train_help

    pr = command("predict", "score a data file with a trained model", """
        Writes one score per line, in the order of the documents of DATA (the SCORES of 'ltrconv
        eval').
    """)
    pr.add_argument("model", metavar="MODEL", help="model saved by 'ltrconv train'")
    pr.add_argument("data", metavar="DATA", help="LETOR file to score")
    pr.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")
    pr.set_defaults(func=cmd_predict)

    cr = command("check-reference", "compare a run's results with the reference result", """
        Compares claims.md, every table and every figure (PNG and PDF) that REFERENCE holds
        with the file of the same name under RESULTS, byte for byte, and prints each that
        differs or is missing; exit status 1 if any does. The runtime table and figures hold
        wall times and are not compared.
    """, writes=False)
    cr.add_argument("results", metavar="RESULTS", nargs="?", default="results/MQ2008",
                    help="the run's results directory (default: results/MQ2008)")
    cr.add_argument("reference", metavar="REFERENCE", nargs="?", default="reference/MQ2008",
                    help="the reference result (default: reference/MQ2008)")
    cr.set_defaults(func=cmd_check_reference)
    from . import cli_explain  # HOOK(explain)
    cli_explain.add_parser(sub)  # HOOK(explain)
    return p


class Terminated(BaseException):
    """SIGTERM, raised where the program is, so that ``finally`` blocks and the output context
    managers remove their temporary files as they do for Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum, frame) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def _sigterm_raises():
    """SIGTERM raises :class:`Terminated` meanwhile (only the main thread can set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _say(text: str) -> None:
    """One line on stderr, which may itself be gone."""
    with contextlib.suppress(OSError, ValueError):
        print(text, file=sys.stderr)


def _stdout_gone() -> None:
    """Point standard output at /dev/null once its reader has left, so that the interpreter's
    final flush does not fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            with _sigterm_raises():
                status = args.func(args)
        except LtrconvError as exc:
            _say(f"ltrconv: error: {printable(exc)}")
            return EXIT_ERROR
        except BrokenPipeError:
            _stdout_gone()
            return EXIT_SIGNAL + signal.SIGPIPE
        except KeyboardInterrupt:
            _say("ltrconv: interrupted")
            return EXIT_SIGNAL + signal.SIGINT
        except Terminated as exc:
            _say(f"ltrconv: terminated ({signal.Signals(exc.signum).name})")
            return EXIT_SIGNAL + exc.signum
    return status or 0


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one line each, like the errors."""
    _say(f"ltrconv: warning: {printable(' '.join(str(message).split()))}")


def run() -> int:
    """The ``ltrconv`` command: :func:`main` with the rankers built without scikit-learn's
    import (:mod:`ltrconv.rankers.estimator`), which no command needs."""
    from . import rankers

    rankers.use_plain_estimators()
    return main()


if __name__ == "__main__":
    sys.exit(run())
