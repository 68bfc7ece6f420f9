"""Qrels and runs from files: TREC text (plain or gzip), TSV/CSV with a header, Parquet.

* TREC qrels: ``QID ITER DOCNO GRADE`` per line; TREC run: ``QID Q0 DOCNO RANK SCORE TAG``
  (fields separated by any whitespace; ITER, Q0, RANK and TAG are read and ignored, as
  trec_eval does: the ranking comes from the scores).
* ``.tsv``/``.csv`` (optionally ``.gz``) and ``.parquet``: a table with a query column
  (``query_id``, ``q_id`` or ``qid``), a document column (``doc_id`` or ``docno``) and a value
  column (qrels: ``relevance``, ``score`` or ``rel``; runs: ``score``): ir_measures' and ranx's
  DataFrame columns.

Reading is pandas' C parser on the whole file; a bad line (wrong number of fields, a
non-numeric score or grade, a blank line) is an :class:`~ltrconv.errors.InputError` naming
the file and line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, printable, shown
from ..evaluation.runs import Located

QID_COLUMNS = ("query_id", "q_id", "qid")
DOC_COLUMNS = ("doc_id", "docno")
VALUE_COLUMNS = {"qrels": ("relevance", "score", "rel"), "run": ("score",)}
TREC_FIELDS = {"qrels": ("qid", "iter", "docno", "grade"),
               "run": ("qid", "Q0", "docno", "rank", "score", "tag")}
_VALUE_FIELD = {"qrels": 3, "run": 4}
_VALUE_NAME = {"qrels": "grade", "run": "score"}


def _gzipped(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _table_kind(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    return {".parquet": "parquet", ".pq": "parquet", ".tsv": "tsv", ".csv": "csv"}.get(last,
                                                                                       "trec")


def read(path: str | Path, kind: str) -> Located:
    """Qrels (``kind="qrels"``) or a run (``"run"``) from a file, by its name's suffix."""
    path = Path(path)
    name = str(path)
    if not path.is_file():
        raise InputError("no such file" if not path.exists() else "not a regular file", name)
    fmt = _table_kind(path)
    try:
        if fmt == "parquet":
            import pandas as pd

            return from_frame(pd.read_parquet(path), kind, name)
        if fmt in ("tsv", "csv"):
            return _read_table(path, kind, "\t" if fmt == "tsv" else ",")
        return _read_trec(path, kind)
    except InputError:
        raise
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {kind}: {getattr(exc, 'strerror', None) or exc}",
                         name) from None
    except Exception as exc:  # pandas/pyarrow parser errors: one line
        raise InputError(f"cannot read {kind}: {' '.join(str(exc).split())}", name) from None


def _read_trec(path: Path, kind: str) -> Located:
    fast = _read_trec_arrow(path, kind)
    return fast if fast is not None else _read_trec_pandas(path, kind)


def _read_trec_arrow(path: Path, kind: str) -> Located | None:
    """pyarrow's CSV reader, for files whose fields are separated by one space or one tab
    throughout; None (the pandas reader then reads or explains) for anything else."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    n, v = len(TREC_FIELDS[kind]), _VALUE_FIELD[kind]
    if _gzipped(path):
        with pa.input_stream(str(path), compression="gzip") as fh:
            data = fh.read_buffer()
    else:  # mapped, not copied: the checks below and the reader share the file's pages
        with pa.memory_map(str(path)) as fh:
            data = fh.read_buffer()
    if not data.size:
        return None
    head = data.slice(0, min(4096, data.size)).to_pybytes()
    delim = b"\t" if b"\t" in head.split(b"\n", 1)[0] else b" "
    if not _single_delimited(np.frombuffer(data, dtype=np.uint8), ord(delim)):
        return None
    delim = delim.decode()
    names = [f"f{i}" for i in range(n)]
    types = {c: pa.string() for c in names}
    types[f"f{v}"] = pa.float64()
    try:
        table = pcsv.read_csv(
            pa.BufferReader(data), read_options=pcsv.ReadOptions(column_names=names),
            parse_options=pcsv.ParseOptions(delimiter=delim, quote_char=False,
                                            ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(column_types=types,
                                                include_columns=["f0", "f2", f"f{v}"],
                                                strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    value = table[f"f{v}"]
    if value.null_count:
        return None
    from ..evaluation.runs import arrow_numbers

    value = arrow_numbers(value)
    if not np.all(np.isfinite(value)):
        return None
    return Located(table["f0"], table["f2"], value, str(path))


_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[ord(c) for c in " \t\r\v\f"]] = True


def _single_delimited(data: np.ndarray, delim: int, block: int = 1 << 20) -> bool:
    """Whether the fields of every line are separated by exactly one ``delim`` and the bytes
    hold no other whitespace than ``delim`` and newlines, none at a line's ends: then a
    one-character-delimiter reader gives the whitespace-split fields. Checked in blocks that
    stay in cache."""
    if data[0] == delim or data[-1] == delim:
        return False
    other = _WHITESPACE.copy()
    other[delim] = False
    for start in range(0, len(data), block):
        chunk = data[start:start + block + 1]  # one byte of overlap: pairs across blocks
        if other[chunk].any():
            return False
        sep = chunk == delim
        near = sep | (chunk == 10)
        if (near[:-1] & near[1:] & (sep[:-1] | sep[1:])).any():
            return False
    return True


def _read_trec_pandas(path: Path, kind: str) -> Located:
    import pandas as pd

    n = len(TREC_FIELDS[kind])
    v = _VALUE_FIELD[kind]
    comp = "gzip" if _gzipped(path) else None
    dtypes: dict[int, Any] = {i: str for i in range(n + 1)}
    dtypes[v] = np.float64
    try:
        df = pd.read_csv(path, sep=r"\s+", header=None, names=range(n + 1), dtype=dtypes,
                         keep_default_na=False, na_values={v: []}, skip_blank_lines=False,
                         compression=comp, engine="c", usecols=None)
    except ValueError:  # a value that is not a number: find its line
        _explain(path, kind, comp)
        raise
    extra = df[n].to_numpy() != ""
    short = (df[n - 1].to_numpy() == "") if kind == "run" else \
        (df[0].to_numpy() == "") | (df[2].to_numpy() == "")
    value = df[v].to_numpy(dtype=np.float64)
    bad = extra | short | ~np.isfinite(value)
    if bad.any():
        _explain(path, kind, comp)
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"expected {n} fields ({' '.join(TREC_FIELDS[kind])})", str(path), i + 1)
    return Located(df[0], df[2], value, str(path))  # pandas string columns: factorized later


def _explain(path: Path, kind: str, comp: str | None) -> None:
    """Raise an InputError for the first bad line of a TREC file (the slow path, taken only
    once the fast reader has found something wrong)."""
    import gzip

    n = len(TREC_FIELDS[kind])
    v = _VALUE_FIELD[kind]
    opener = gzip.open if comp == "gzip" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.split()
            if len(parts) != n:
                raise InputError(f"expected {n} fields ({' '.join(TREC_FIELDS[kind])}), got "
                                 f"{len(parts)}: {shown(line.rstrip())}", str(path), lineno)
            try:
                x = float(parts[v])
            except ValueError:
                x = None
            if x is None or not np.isfinite(x):
                raise InputError(f"{_VALUE_NAME[kind]} {shown(parts[v])} is not a finite "
                                 "number", str(path), lineno)


def _read_table(path: Path, kind: str, sep: str) -> Located:
    import pandas as pd

    df = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, compression="infer")
    return from_frame(df, kind, str(path), header_lines=1)


def _column(df, names: tuple[str, ...], what: str, source: str) -> str:
    col = next((c for c in names if c in df.columns), None)
    if col is None:
        raise InputError(f"no {what} column: expected one of {', '.join(names)}; have "
                         f"{', '.join(map(str, df.columns)) or 'none'}", source)
    return col


def from_frame(df, kind: str, source: str | None = None, header_lines: int = 0) -> Located:
    """A pandas DataFrame in ir_measures' (``query_id``, ``doc_id``, ``relevance``/``score``)
    or ranx's (``q_id``, ``doc_id``, ``score``) columns; rows numbered from 1 (plus
    ``header_lines``) in messages."""
    import pandas as pd

    source = source or f"{kind} DataFrame"
    q = _column(df, QID_COLUMNS, "query", source)
    d = _column(df, DOC_COLUMNS, "document", source)
    c = _column(df, VALUE_COLUMNS[kind], _VALUE_NAME[kind], source)
    raw = df[c]
    value = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(value)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{_VALUE_NAME[kind]} {shown(raw.iloc[i])} in column {c!r} is not a "
                         "finite number", source, i + 1 + header_lines)
    lines = np.arange(1 + header_lines, len(df) + 1 + header_lines)
    return Located(df[q].astype(str).to_numpy(dtype=object),
                   df[d].astype(str).to_numpy(dtype=object), value, source, lines)


def from_dict(mapping: Any, kind: str) -> Located:
    """pytrec_eval's ``{qid: {docid: value}}`` (a ranx ``Qrels``/``Run`` via ``to_dict``)."""
    source = f"{kind} dict"
    if not isinstance(mapping, dict):
        raise InputError(f"expected {{qid: {{docid: {_VALUE_NAME[kind]}}}}}, got "
                         f"{type(mapping).__name__}", source)
    qids, docs, values = [], [], []
    for q, docs_of in mapping.items():
        if not isinstance(docs_of, dict):
            raise InputError(f"query {shown(q)}: expected a dict of docid to "
                             f"{_VALUE_NAME[kind]}, got {type(docs_of).__name__}", source)
        qids.extend([str(q)] * len(docs_of))
        docs.extend(map(str, docs_of))
        values.extend(docs_of.values())
    try:
        value = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        bad = next(i for i, x in enumerate(values) if not _is_number(x))
        raise InputError(f"query {shown(qids[bad])}, docid {shown(docs[bad])}: "
                         f"{_VALUE_NAME[kind]} {shown(values[bad])} is not a number",
                         source) from None
    return Located(np.asarray(qids, dtype=object), np.asarray(docs, dtype=object), value,
                   source)


def _is_number(x: Any) -> bool:
    try:
        float(x)
        return not isinstance(x, (bool, str))
    except (TypeError, ValueError):
        return False


def coerce(obj: Any, kind: str) -> Located:
    """Qrels or a run from a path, a DataFrame, a dict of dicts or a ranx object."""
    if isinstance(obj, Located):
        return obj
    if isinstance(obj, (str, Path)):
        return read(obj, kind)
    mod = type(obj).__module__ or ""
    if mod.startswith("pandas"):
        return from_frame(obj, kind)
    if mod.startswith("ranx") and hasattr(obj, "to_dict"):
        return from_dict({q: dict(d) for q, d in obj.to_dict().items()}, kind)
    if isinstance(obj, dict):
        return from_dict(obj, kind)
    raise InputError(f"cannot read {kind} from a {type(obj).__name__}: expected a file path, a "
                     "pandas DataFrame, a dict of dicts or a ranx object", printable(kind))


def evaluate_run(qrels: Any, run: Any, *, conventions=("trec_eval",), cutoffs="1-10",
                 metrics=None, engine: str = "auto") -> dict:
    """Evaluate a run against its qrels under each convention: ``{key: Evaluation}`` as
    :func:`ltrconv.evaluate` returns. ``qrels`` and ``run`` are each a file (TREC, TSV/CSV,
    Parquet), a pandas DataFrame (ir_measures' or ranx's columns), a dict of dicts
    (pytrec_eval's) or a ranx ``Qrels``/``Run``; see
    :func:`ltrconv.evaluation.runs.evaluate_run_arrays` for the rules."""
    from ..evaluation.metrics import METRICS
    from ..evaluation.runs import evaluate_run_arrays

    if isinstance(conventions, str):
        conventions = (conventions,)
    return evaluate_run_arrays(coerce(qrels, "qrels"), coerce(run, "run"),
                               conventions=conventions, cutoffs=cutoffs,
                               metrics=metrics or METRICS, engine=engine)
