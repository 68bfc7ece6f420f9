"""The result format of ``ltrconv eval``, text in and text out (the caller reads and writes files).

JSON (the default): ``{"data", "scores", "conventions": {NAME: {"definition", "mean",
["skipped"], ["per_query"]}}}`` (for a run: ``"qrels", "run"`` in place of ``"data", "scores"``,
and ``"queries"`` after each ``"mean"``), each mean and per-query value rounded to 12 decimals,
null for NaN (a query that a convention leaves without a value); a metric that is NaN for every
counted query is left out. TSV: a header ``convention qid METRIC...``, with per-query rows when
asked for, then one ``NAME all`` row of means per convention, values to 6 decimals. Every
column of the evaluations is written (``ltrconv eval --metrics`` chooses them).
:func:`parse_per_query` reads the per-query values of either form back (``ltrconv ttest``).
"""

from __future__ import annotations

import json
import math
from typing import Mapping

import numpy as np

from ..errors import InputError, shown

EXPECTED = "expected the output of 'ltrconv eval --per-query' (JSON or TSV)"

PerQuery = dict[str, dict[str, dict[str, float]]]
"""{convention: {qid: {metric: value}}}"""


def _clean(x: float) -> float | None:
    return None if math.isnan(x) else round(float(x), 12)


def format_per_query(results: Mapping, fmt: str = "json", *, queries: bool = False,
                     data: str = "", scores: str = "", inputs: Mapping[str, str] | None = None,
                     counts: bool = False) -> str:
    """``results`` ({name: Evaluation} of :func:`ltrconv.evaluation.metrics.evaluate_dataset`
    or :func:`ltrconv.data.trec.evaluate_run`) as ``fmt`` ("json" or "tsv"), each query's
    values too with ``queries``. The JSON names the evaluated files first: ``data`` and
    ``scores``, or the keys and values of ``inputs`` (a run's ``{"qrels": ..., "run": ...}``);
    with ``counts`` each convention's entry says after its means how many queries they count
    (``"queries"``)."""
    columns = next(iter(results.values())).columns
    if fmt == "json":
        doc: dict = {**({"data": data, "scores": scores} if inputs is None else inputs),
                     "conventions": {}}
        for name, ev in results.items():
            counted = ev.values if ev.skipped is None else ev.values[~ev.skipped]
            idx = [j for j in range(len(columns)) if not np.all(np.isnan(counted[:, j]))]
            cols = [ev.columns[j] for j in idx]
            means = ev.mean()
            entry: dict = {
                "definition": ev.convention.canonical,
                "mean": {c: _clean(means[c]) for c in cols},
            }
            if counts:
                entry["queries"] = int(ev.n_counted)
            if ev.skipped is not None:  # empty=skip: left out of the means, null per query
                entry["skipped"] = [str(q) for q in ev.qids[ev.skipped]]
            if queries:
                entry["per_query"] = {
                    str(q): {c: _clean(v) for c, v in zip(cols, ev.values[i, idx])}
                    for i, q in enumerate(ev.qids)
                }
            doc["conventions"][name] = entry
        return json.dumps(doc, indent=1) + "\n"
    if fmt != "tsv":
        raise ValueError(f"format_per_query: fmt must be 'json' or 'tsv', got {fmt!r}")
    lines = ["\t".join(["convention", "qid", *columns])]
    for name, ev in results.items():
        if queries:
            _check_tsv_qids(ev.qids)
            for i, q in enumerate(ev.qids):
                values = (f"{v:.6f}" for v in ev.values[i])
                lines.append("\t".join([name, str(q), *values]))
        means = ev.mean()  # skipped queries (nan above) left out
        lines.append("\t".join([name, "all", *(f"{means[c]:.6f}" for c in ev.columns)]))
    return "\n".join(lines) + "\n"


def _check_tsv_qids(qids) -> None:
    """Refuse query ids that TSV rows cannot hold faithfully: ``all`` (the mean row's) and ids
    with a tab, newline or carriage return (they would split or break a row)."""
    for q in qids:
        text = str(q)
        if text == "all" or any(c in text for c in "\t\n\r"):
            why = ("is the name of the TSV's mean row" if text == "all" else
                   "holds a tab, newline or carriage return, which would break its TSV row")
            raise InputError(f"query {shown(text)} {why}; write the per-query values as JSON "
                             "(--format json), which keeps every query id apart")


def _metric_value(v, where: str, path: str) -> float:
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


def _parse_json(text: str, path: str) -> PerQuery:
    try:
        doc = json.loads(text, object_pairs_hook=_unique_keys)
    except _RepeatedKey as exc:
        raise InputError(f"a JSON object gives the key {shown(exc.key)} twice (a query or "
                         "metric twice?); each key may appear once", path) from None
    except (json.JSONDecodeError, RecursionError) as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(f"not valid JSON ({getattr(exc, 'msg', exc)}); {EXPECTED}", path,
                         line) from None
    convs = doc.get("conventions")
    if not isinstance(convs, dict) or not convs:
        raise InputError(f"no 'conventions' mapping; {EXPECTED}", path)
    out: PerQuery = {}
    for name, entry in convs.items():
        pq = entry.get("per_query") if isinstance(entry, dict) else None
        if not isinstance(pq, dict):
            raise InputError(f"conventions.{name} has no 'per_query' mapping; {EXPECTED}", path)
        rows: dict = {}
        for qid, values in pq.items():
            where = f"conventions.{name}.per_query.{qid}"
            if not isinstance(values, dict) or not values:
                raise InputError(f"{where}: expected a mapping of metric to value", path)
            rows[qid] = {m: _metric_value(v, f"{where}.{m}", path) for m, v in values.items()}
        out[str(name)] = rows
    return out


def _parse_tsv(text: str, path: str) -> PerQuery:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or not lines[0].rstrip("\r").startswith("convention\tqid\t"):
        raise InputError(EXPECTED, path, 1)
    header = lines[0].rstrip("\r").split("\t")
    out: PerQuery = {}
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
                raise InputError(f"{m} value {shown(v)} is not a number", path, lineno) from None
            if math.isinf(x):
                raise InputError(f"{m} value {shown(v)} is not finite", path, lineno)
            values[m] = x
        if parts[1] in out.setdefault(parts[0], {}):
            raise InputError(f"query {parts[1]} appears twice under {parts[0]}", path, lineno)
        out[parts[0]][parts[1]] = values
    return out


def parse_per_query(text: str, where: str) -> PerQuery:
    """{convention: {qid: {metric: value}}} from the JSON or TSV text of ``ltrconv eval
    --per-query`` (NaN for null); bad text raises :class:`ltrconv.errors.InputError` naming
    ``where`` (the file) and, where it can, the line. Every query of a convention must carry
    the same metrics."""
    out = _parse_json(text, where) if text.lstrip().startswith("{") else _parse_tsv(text, where)
    for name, rows in out.items():
        if not rows:
            raise InputError(f"no per-query values under {name} (run 'ltrconv eval --per-query')",
                             where)
        first_q, first = next(iter(rows.items()))
        for q, values in rows.items():
            if values.keys() != first.keys():
                raise InputError(
                    f"under {name}, query {q} has metrics {sorted(values)} but query {first_q} "
                    f"has {sorted(first)}", where,
                )
    return out


def parse_definitions(text: str) -> dict[str, str]:
    """{convention: definition string} of a JSON result of ``ltrconv eval`` (empty for TSV,
    which names the conventions only); the text is assumed valid (:func:`parse_per_query`)."""
    if not text.lstrip().startswith("{"):
        return {}
    convs = json.loads(text).get("conventions", {})
    return {str(name): entry["definition"] for name, entry in convs.items()
            if isinstance(entry, dict) and isinstance(entry.get("definition"), str)}
