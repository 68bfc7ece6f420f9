"""Qrels and runs from files: TREC text (plain or gzip), TSV/CSV with a header, Parquet.

* TREC qrels: ``QID ITER DOCNO GRADE`` per line; TREC run: ``QID Q0 DOCNO RANK SCORE TAG``
  (fields separated by any whitespace; ITER, Q0, RANK and TAG are read and ignored, as
  trec_eval does: the ranking comes from the scores).
* ``.tsv``/``.csv`` (optionally ``.gz``) and ``.parquet``: a table with a query column
  (``query_id``, ``q_id`` or ``qid``), a document column (``doc_id`` or ``docno``) and a value
  column (qrels: ``relevance``, ``score`` or ``rel``; runs: ``score``): ir_measures' and ranx's
  DataFrame columns.

A TREC text whose fields are separated by one space (or one tab) throughout is read by
pyarrow's CSV reader on one thread (a second thread cost more CPU time than it saved wall time
on a 1M-line run); any other goes to pandas' C parser, and a bad line (wrong number of fields,
a non-numeric score or grade, a blank line) is an :class:`~ltrconv.errors.InputError` naming
the file and line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import mmap
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


MAX_LINE = 1 << 20
"""Longest line of a TREC, TSV or CSV file accepted, in bytes: a line holds a few short fields
(a docid of a few hundred bytes at most in public collections), and a line of millions of
fields would take gigabytes to tokenize before it could be refused."""


def _table_kind(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz"):
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    return {".parquet": "parquet", ".pq": "parquet", ".tsv": "tsv", ".csv": "csv"}.get(last,
                                                                                       "trec")


def read(path: str | Path, kind: str) -> Located:
    """Qrels (``kind="qrels"``) or a run (``"run"``) from a file, by its name's suffix; text
    files may be gzip, bzip2 or xz compressed (recognised by their first bytes)."""
    from .fileio import check_regular, map_bytes, read_bytes

    path = Path(path)
    name = str(path)
    if not path.exists():
        raise InputError("no such file", name)
    fmt = _table_kind(path)
    try:
        if fmt == "parquet":
            import pandas as pd

            check_regular(path)
            return from_frame(pd.read_parquet(path), kind, name)
        if fmt in ("tsv", "csv"):
            return _read_table(read_bytes(path), name, kind, "\t" if fmt == "tsv" else ",")
        data = map_bytes(path)
        try:
            return _read_trec(data, name, kind)
        finally:
            if not isinstance(data, bytes):
                with contextlib.suppress(BufferError):  # a view still held: unmapped when freed
                    data.close()
    except InputError:
        raise
    except MemoryError:
        raise InputError(f"not enough memory to read the {kind}", name) from None
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot read {kind}: {getattr(exc, 'strerror', None) or exc}",
                         name) from None
    except Exception as exc:  # pandas/pyarrow parser errors: one line
        raise InputError(f"cannot read {kind}: {' '.join(str(exc).split())}", name) from None


def _read_trec(data: bytes | mmap.mmap, source: str, kind: str) -> Located:
    """A TREC text (the bytes of a file, or its mapping)."""
    if not data or (data[:1 << 12].isspace() and bytes(data).isspace()):
        if data:
            _explain(bytes(data), source, kind)
        empty = np.zeros(0, dtype=object)
        return Located(empty, empty, np.zeros(0), source)
    fast = _read_trec_arrow(data, source, kind)
    if fast is not None:
        return fast
    data = bytes(data)  # the slow readers take bytes
    _check_text(data, source)
    return _read_trec_pandas(data, source, kind)


def _check_text(data: bytes, source: str) -> None:
    """Refuse a line longer than :data:`MAX_LINE` bytes, or bytes that are not UTF-8, naming
    the line; found without splitting the data into lines."""
    arr = np.frombuffer(data, dtype=np.uint8)
    start, lineno = 0, 1
    for lo in range(0, len(arr), 1 << 24):
        ends = np.flatnonzero(arr[lo:lo + (1 << 24)] == 10) + lo
        starts = np.concatenate(([start], ends[:-1] + 1))
        long = np.flatnonzero(ends - starts > MAX_LINE)
        if len(long):
            _too_long(lineno + int(long[0]), source)
        lineno += len(ends)
        start = int(ends[-1]) + 1 if len(ends) else start
    if len(arr) - start > MAX_LINE:
        _too_long(lineno, source)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        raise InputError(f"not UTF-8 text (byte {column} of the line)", source,
                         data.count(b"\n", 0, exc.start) + 1) from None


def _too_long(lineno: int, source: str) -> None:
    raise InputError(f"line longer than {MAX_LINE:,} bytes (a line is a few short fields)",
                     source, lineno)


PIECE = 1 << 23
"""Bytes of a TREC text checked and parsed at a time (cut after a newline): a mapped file's
pages are let go once their piece is parsed, so that the file and its columns are not all in
memory at once."""


def _read_trec_arrow(data: bytes | mmap.mmap, source: str, kind: str) -> Located | None:
    """pyarrow's CSV reader, piece by piece, for files whose fields are separated by one
    space or one tab throughout; None (the pandas reader then reads or explains) for anything
    else."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    n, v = len(TREC_FIELDS[kind]), _VALUE_FIELD[kind]
    delim = b"\t" if b"\t" in data[:4096].split(b"\n", 1)[0] else b" "
    names = [f"f{i}" for i in range(n)]
    types = {c: pa.string() for c in names}
    types[f"f{v}"] = pa.float64()
    options = dict(
        read_options=pcsv.ReadOptions(column_names=names, use_threads=False),
        parse_options=pcsv.ParseOptions(delimiter=delim.decode(), quote_char=False,
                                        ignore_empty_lines=False),
        convert_options=pcsv.ConvertOptions(column_types=types,
                                            include_columns=["f0", "f2", f"f{v}"],
                                            strings_can_be_null=False))
    from ..evaluation.run_ids import arrow_numbers

    view, columns, let_go = memoryview(data), {"f0": [], "f2": [], "value": []}, 0
    for start, end in _pieces(data):
        if not _single_delimited(data, delim[0], start=start, end=end):
            return None
        try:
            table = pcsv.read_csv(pa.BufferReader(pa.py_buffer(view[start:end])), **options)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
        value = table[f"f{v}"]
        if value.null_count:
            return None
        columns["f0"] += table["f0"].chunks
        columns["f2"] += table["f2"].chunks
        columns["value"].append(arrow_numbers(value))
        del table, value  # the parser's blocks and the scores' arrow copy
        pa.default_memory_pool().release_unused()  # go back to the system
        if isinstance(data, mmap.mmap):  # the piece's pages too (still in the page cache)
            upto = end // mmap.PAGESIZE * mmap.PAGESIZE
            if upto > let_go:
                data.madvise(mmap.MADV_DONTNEED, let_go, upto - let_go)
                let_go = upto
    del view
    value = np.concatenate(columns["value"])
    if not np.all(np.isfinite(value)):
        return None
    return Located(pa.chunked_array(columns["f0"], pa.string()),
                   pa.chunked_array(columns["f2"], pa.string()), value, source)


def _pieces(data: bytes | mmap.mmap, size: int | None = None):
    """(start, end) of consecutive pieces of ``data`` of about ``size`` bytes (default
    :data:`PIECE`), each but the last ending with a newline."""
    size = size or PIECE
    start, n = 0, len(data)
    while start < n:
        end = start + size
        if end >= n:
            end = n
        else:
            nl = data.rfind(b"\n", start, end)
            nl = nl if nl >= 0 else data.find(b"\n", end)  # one line longer than a piece
            end = n if nl < 0 else nl + 1
        yield start, end
        start = end


_WHITESPACE = b" \t\r\x0b\x0c"


def _single_delimited(data: bytes | mmap.mmap, delim: int, block: int = 1 << 18,
                      start: int = 0, end: int | None = None) -> bool:
    """Whether, in ``data[start:end]``, the fields of every line are separated by exactly one
    ``delim``, none at a line's ends, and the bytes hold no other whitespace than ``delim``
    and newlines: then a one-character-delimiter reader gives the whitespace-split fields.
    Other whitespace is searched for byte by byte (memchr); pairs of separators with numpy,
    in blocks that stay in cache."""
    end = len(data) if end is None else end
    if end <= start:
        return True
    if data[start] == delim or data[end - 1] == delim:
        return False
    if any(data.find(bytes([w]), start, end) >= 0 for w in _WHITESPACE if w != delim):
        return False
    arr = np.frombuffer(data, dtype=np.uint8)
    for lo in range(start, end, block):
        chunk = arr[lo:min(lo + block + 1, end)]  # one byte of overlap: pairs across blocks
        sep = chunk == delim
        near = chunk == 10
        near |= sep
        pair = near[:-1] & near[1:]
        pair &= sep[:-1] | sep[1:]
        if pair.any():
            return False
    return True


def _read_trec_pandas(data: bytes, source: str, kind: str) -> Located:
    import io

    import pandas as pd

    n = len(TREC_FIELDS[kind])
    v = _VALUE_FIELD[kind]
    dtypes: dict[int, Any] = {i: str for i in range(n + 1)}
    dtypes[v] = np.float64
    try:
        df = pd.read_csv(io.BytesIO(data), sep=r"\s+", header=None, names=range(n + 1),
                         dtype=dtypes, keep_default_na=False, na_values={v: []},
                         skip_blank_lines=False, engine="c", usecols=None)
    except ValueError:  # a value that is not a number, a line of more fields: find its line
        _explain(data, source, kind)
        raise
    extra = df[n].to_numpy() != ""
    short = (df[n - 1].to_numpy() == "") if kind == "run" else \
        (df[0].to_numpy() == "") | (df[2].to_numpy() == "")
    value = df[v].to_numpy(dtype=np.float64)
    bad = extra | short | ~np.isfinite(value)
    if bad.any():
        _explain(data, source, kind)
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"expected {n} fields ({' '.join(TREC_FIELDS[kind])})", source, i + 1)
    return Located(df[0], df[2], value, source)  # pandas string columns: factorized later


def _explain(data: bytes, source: str, kind: str) -> None:
    """Raise an InputError for the first bad line of a TREC text (the slow path, taken only
    once the fast reader has found something wrong): a wrong number of fields, or a value
    that is not a finite number as the TREC tools write one (no ``1_000``, ``0x10``)."""
    import io

    from .lines import parse_number

    n = len(TREC_FIELDS[kind])
    v = _VALUE_FIELD[kind]
    with io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.split(None, n)  # at most n + 1 parts, however long the line
            if len(parts) != n:
                got = len(line.split()) if len(line) < 1 << 16 else f"more than {n}"
                raise InputError(f"expected {n} fields ({' '.join(TREC_FIELDS[kind])}), got "
                                 f"{got}: {shown(line.rstrip())}", source, lineno)
            x = parse_number(parts[v])
            if x is None or not np.isfinite(x):
                raise InputError(f"{_VALUE_NAME[kind]} {shown(parts[v])} is not a finite "
                                 "number", source, lineno)


def _read_table(data: bytes, source: str, kind: str, sep: str) -> Located:
    """A TSV/CSV text with a header line; every line must have the header's fields."""
    import io
    import warnings

    import pandas as pd

    _check_text(data, source)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            df = pd.read_csv(io.BytesIO(data), sep=sep, dtype=str, keep_default_na=False,
                             index_col=False)
    except pd.errors.EmptyDataError:
        raise InputError(f"empty {kind} table: expected a header line naming its columns",
                         source) from None
    except (ValueError, pd.errors.ParserWarning):  # a line of another number of fields
        _count_fields(data, source, sep)
        raise
    header = data.split(b"\n", 1)[0].decode("utf-8").strip("\r\ufeff")
    names = [c.strip('"') for c in header.split(sep)]
    for c in QID_COLUMNS + DOC_COLUMNS + VALUE_COLUMNS[kind]:
        if names.count(c) > 1:
            raise InputError(f"column {c!r} appears {names.count(c)} times in the header",
                             source, 1)
    return from_frame(df, kind, source, header_lines=1)


def _count_fields(data: bytes, source: str, sep: str) -> None:
    """Raise an InputError at the first line whose number of fields differs from the
    header's."""
    import csv
    import io

    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", errors="replace",
                            newline="")
    rows = csv.reader(text, delimiter=sep)
    width = None
    for row in rows:
        if width is None:
            width = len(row)
        elif row and len(row) != width:
            raise InputError(f"{len(row)} fields, the header has {width}", source,
                             rows.line_num)


def _column(df, names: tuple[str, ...], what: str, source: str) -> str:
    col = next((c for c in names if c in df.columns), None)
    if col is None:
        raise InputError(f"no {what} column: expected one of {', '.join(names)}; have "
                         f"{', '.join(map(str, df.columns)) or 'none'}", source)
    if list(df.columns).count(col) > 1:
        raise InputError(f"column {col!r} appears {list(df.columns).count(col)} times", source)
    return col


def _item(x: Any) -> Any:
    """A numpy or pandas scalar as the Python value it stands for (for messages)."""
    return x.item() if isinstance(x, np.generic) else x


def _ids(df, cols: tuple[str, str], source: str, header_lines: int) -> list[np.ndarray]:
    """The query and docid columns as strings; a missing (None, NaN, NA) or empty id is
    refused at the first row that has one."""
    out, bad = [], np.zeros(len(df), dtype=bool)
    for col in cols:
        ids = df[col].astype(str).to_numpy(dtype=object)
        bad |= df[col].isna().to_numpy() | (ids == "")
        out.append(ids)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        col = next(c for c in cols if df[c].isna().iloc[i] or str(df[c].iloc[i]) == "")
        what = "query id" if col == cols[0] else "docid"
        raise InputError(f"no {what} (got {shown(_item(df[col].iloc[i]))}) in column {col!r}",
                         source, i + 1 + header_lines)
    return out


def from_frame(df, kind: str, source: str | None = None, header_lines: int = 0) -> Located:
    """A pandas DataFrame in ir_measures' (``query_id``, ``doc_id``, ``relevance``/``score``)
    or ranx's (``q_id``, ``doc_id``, ``score``) columns; rows numbered from 1 (plus
    ``header_lines``) in messages. Ids are read as strings (a missing or empty one is
    refused); values must be real numbers (dates, durations and complex numbers are not)."""
    import pandas as pd

    source = source or f"{kind} DataFrame"
    q = _column(df, QID_COLUMNS, "query", source)
    d = _column(df, DOC_COLUMNS, "document", source)
    c = _column(df, VALUE_COLUMNS[kind], _VALUE_NAME[kind], source)
    raw = df[c]
    kind_of = getattr(getattr(raw.dtype, "categories", raw), "dtype", raw.dtype).kind
    if kind_of in "mMc":
        raise InputError(f"column {c!r} holds {raw.dtype} values; {_VALUE_NAME[kind]}s must "
                         "be real numbers", source)
    numbers = pd.to_numeric(raw, errors="coerce")
    if np.asarray(numbers).dtype.kind == "c":
        raise InputError(f"column {c!r} holds complex numbers; {_VALUE_NAME[kind]}s must be "
                         "real numbers", source)
    value = np.asarray(numbers, dtype=np.float64)
    bad = ~np.isfinite(value)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{_VALUE_NAME[kind]} {shown(_item(raw.iloc[i]))} in column {c!r} is "
                         "not a finite number", source, i + 1 + header_lines)
    lines = np.arange(1 + header_lines, len(df) + 1 + header_lines)
    qid, docid = _ids(df, (q, d), source, header_lines)
    return Located(qid, docid, value, source, lines)


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
    if mod.startswith("pandas") and hasattr(obj, "columns"):
        return from_frame(obj, kind)
    if mod.startswith("ranx") and hasattr(obj, "to_dict"):
        located = from_dict({q: dict(d) for q, d in obj.to_dict().items()}, kind)
        ranked = kind == "run" and getattr(obj, "sorted", False) is True
        return dataclasses.replace(located, ranked=True) if ranked else located
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
