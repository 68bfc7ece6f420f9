"""Qrels and runs from files: TREC text (plain or gzip), TSV/CSV with a header, Parquet.

* TREC qrels: ``QID ITER DOCNO GRADE`` per line; TREC run: ``QID Q0 DOCNO RANK SCORE TAG``
  (fields separated by any whitespace; ITER, Q0, RANK and TAG are read and ignored, as
  trec_eval does: the ranking comes from the scores).
* ``.tsv``/``.csv`` (optionally ``.gz``) and ``.parquet``: a table with a query column
  (``query_id``, ``q_id`` or ``qid``), a document column (``doc_id`` or ``docno``) and a value
  column (qrels: ``relevance``, ``score`` or ``rel``; runs: ``score``): ir_measures' and ranx's
  DataFrame columns.

A TREC text is split as trec_eval splits it: lines end at LF only, and fields are separated
by runs of the bytes C's ``isspace`` takes for whitespace (space, tab, vertical tab, form feed,
carriage return), so a CR before the LF, or a form feed between two fields, separates fields
as a space does; every other byte (a quote, ``#``, U+00A0, ``\x1c``) belongs to its field. A
file whose fields are separated by one space (or one tab) throughout is read by pyarrow's CSV
reader on one thread (a second thread cost more CPU time than it saved wall time on a 1M-line
run); any other goes, with those separators made spaces, to pandas' C parser with quoting off.
A bad line is an :class:`~ltrconv.errors.InputError` naming the file and line: a wrong number
of fields (a blank line too), a score or grade that is not a finite number, a NUL byte
(trec_eval crashes on one), a UTF-8 byte order mark (trec_eval would keep it in the first qid).

Scores and grades are numbers as :func:`~ltrconv.data.lines.parse_number` reads them (ASCII
digits, sign, point, exponent; not ``0x1``, ``1_0``, ``inf`` or ``nan``), in every format:
TREC text, TSV/CSV, and string columns of a DataFrame or Parquet file. trec_eval reads a score
with ``atof``, which reads exponents as these readers do, but a grade with ``atol``, which stops
at the first character that is not a digit: ``1e1`` is 1 to trec_eval and 10 to the tools that
read a float, ``10e-1`` 10 and 1. A grade written with an exponent is therefore refused, naming
its line; one with a fraction (``1.5``) is read as the number it is, each convention then
reading it as its tool does (trec_eval truncates).
"""

from __future__ import annotations

import contextlib
import dataclasses
import mmap
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, printable, shown
from ..evaluation.runs import Located
from .lines import parse_number

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
    _check_bytes(data, source)
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


def _line_of(data: bytes | mmap.mmap, offset: int) -> int:
    """The 1-based line (lines ending at LF) that holds byte ``offset`` of ``data``."""
    return int(np.count_nonzero(np.frombuffer(data, np.uint8, count=offset) == 10)) + 1


_BOM = b"\xef\xbb\xbf"


def _check_bytes(data: bytes | mmap.mmap, source: str) -> None:
    """Refuse a NUL byte (no text holds one; trec_eval's line count stops at it, and it then
    writes past its table of lines) and a UTF-8 byte order mark at the start of a line
    (trec_eval keeps it in the qid, pyarrow would drop it at the start of a piece), naming the
    line; found with memchr/memmem, without splitting."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError("a NUL byte: not a text file (trec_eval miscounts its lines at one and "
                         "crashes)", source, _line_of(data, nul))
    bom = 0 if data[:3] == _BOM else data.find(b"\n" + _BOM)
    if bom >= 0:
        lineno = 1 if bom == 0 else _line_of(data, bom) + 1
        raise InputError("a UTF-8 byte order mark (U+FEFF) starts the line: trec_eval would "
                         "read it as part of the qid; remove it", source, lineno)


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
    """pyarrow's CSV reader, piece by piece; a piece whose fields are not separated by one
    space or one tab throughout is read :func:`_squeezed` (trec_eval's separators made single
    spaces). None (the pandas reader then reads or explains) for a file with a bad line, or
    a grade not written as :data:`GRADE` says."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    n, v = len(TREC_FIELDS[kind]), _VALUE_FIELD[kind]
    delim = b"\t" if b"\t" in data[:4096].split(b"\n", 1)[0] else b" "
    names = [f"f{i}" for i in range(n)]
    types = {c: pa.string() for c in names}
    types[f"f{v}"] = pa.float64() if kind == "run" else pa.string()  # grades: checked first

    def options(sep: str) -> dict:
        return dict(
            read_options=pcsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pcsv.ParseOptions(delimiter=sep, quote_char=False,
                                            ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(column_types=types,
                                                include_columns=["f0", "f2", f"f{v}"],
                                                strings_can_be_null=False))

    plain, spaced = options(delim.decode()), options(" ")
    from ..evaluation.run_ids import arrow_call, arrow_numbers, arrow_options

    view, columns, let_go = memoryview(data), {"f0": [], "f2": [], "value": []}, 0
    for start, end in _pieces(data):
        piece, how = view[start:end], plain
        if not _single_delimited(data, delim[0], start=start, end=end):
            piece = piece.tobytes().replace(b"\r\n", b"\n")  # a CR before LF separates
            if not _single_delimited(piece, delim[0]):
                piece, how = _squeezed(piece), spaced
        try:
            table = pcsv.read_csv(pa.BufferReader(pa.py_buffer(piece)), **how)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
        del piece
        value = table[f"f{v}"]
        if value.null_count:
            return None
        if kind == "qrels" and len(value) <= SMALL_QRELS:  # without pyarrow.compute's import
            grades = [g for chunk in value.chunks for g in chunk.to_pylist()]
            if not all(GRADE.fullmatch(g) for g in grades):
                return None
            numbers = np.array([float(g) for g in grades], dtype=np.float64)
        elif kind == "qrels":
            match = arrow_options("MatchSubstringOptions", f"^(?:{GRADE.pattern})$")
            if not arrow_call("all", arrow_call("match_substring_regex", value,
                                                options=match)).as_py():
                return None
            numbers = arrow_numbers(arrow_call("cast", value,
                                               options=arrow_options("CastOptions",
                                                                     pa.float64())))
        else:
            numbers = arrow_numbers(value)
        columns["f0"] += table["f0"].chunks
        columns["f2"] += table["f2"].chunks
        columns["value"].append(numbers)
        del table, value, numbers  # the parser's blocks and the scores' arrow copy
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


SMALL_QRELS = 65_536
"""Qrels pieces of up to this many lines have their grades checked and parsed in Python: as
fast as pyarrow's compute functions there, without their import (a twentieth of a second)."""


def _squeezed(piece: bytes) -> bytes:
    """``piece`` (whole lines) with every run of trec_eval's separators (:data:`_SEPARATORS`
    and the space) made one space, and none left at a line's start or end: the same fields
    on the same lines, separated as a one-space-delimiter reader needs."""
    b = np.frombuffer(piece.translate(_TO_SPACE), np.uint8)
    space = b == 32
    if not space.any():
        return b.tobytes()
    field = ~space & (b != 10)
    first = np.flatnonzero(space[1:] & field[:-1]) + 1  # a run's first space, after a field
    solid = np.flatnonzero(~space)
    after = np.searchsorted(solid, first)  # the byte after the run: a field's, or LF or the end
    inside = after < len(solid)
    inside[inside] = b[solid[after[inside]]] != 10
    keep = ~space
    keep[first[inside]] = True
    return b[keep].tobytes()


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


_SEPARATORS = b"\t\x0b\x0c\r"
"""The bytes besides the space that C's ``isspace`` takes for whitespace (the newline aside):
trec_eval's field separators, made spaces before pandas splits the fields."""
_TO_SPACE = bytes.maketrans(_SEPARATORS, b" " * len(_SEPARATORS))


def _read_trec_pandas(data: bytes, source: str, kind: str) -> Located:
    import csv
    import io

    import pandas as pd

    n = len(TREC_FIELDS[kind])
    v = _VALUE_FIELD[kind]
    data = data.translate(_TO_SPACE)
    try:
        df = pd.read_csv(io.BytesIO(data), sep=r"\s+", header=None, names=range(n + 1),
                         dtype=str, keep_default_na=False, na_filter=False,
                         quoting=csv.QUOTE_NONE, skip_blank_lines=False, engine="c")
    except ValueError:  # a line of more fields: find its line
        _explain(data, source, kind)
        raise
    extra = df[n].to_numpy() != ""
    short = (df[n - 1].to_numpy() == "") if kind == "run" else \
        (df[0].to_numpy() == "") | (df[2].to_numpy() == "")
    value, bad_value = text_numbers(df[v].to_numpy(dtype=object), kind)
    bad = extra | short | bad_value
    if bad.any():
        _explain(data, source, kind)
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"expected {n} fields ({' '.join(TREC_FIELDS[kind])})", source, i + 1)
    return Located(df[0], df[2], value, source)  # pandas string columns: factorized later


def _explain(data: bytes, source: str, kind: str) -> None:
    """Raise an InputError for the first bad line of a TREC text (the slow path, taken only
    once the fast reader has found something wrong): a wrong number of fields (split as
    trec_eval splits them), or a value that :func:`value_problem` refuses."""
    n = len(TREC_FIELDS[kind])
    v = _VALUE_FIELD[kind]
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    for lineno, line in enumerate(lines, 1):
        parts = line.split(None, n)  # bytes: split at C's whitespace; at most n + 1 parts
        if len(parts) != n:
            got = len(line.split()) if len(line) < 1 << 16 else f"more than {n}"
            text = line.decode("utf-8", "replace").rstrip(" \t\r\x0b\x0c")
            raise InputError(f"expected {n} fields ({' '.join(TREC_FIELDS[kind])}), got "
                             f"{got}: {shown(text)}", source, lineno)
        problem = value_problem(parts[v].decode("utf-8", "replace"), kind)
        if problem:
            raise InputError(problem, source, lineno)


GRADE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
"""A grade as the readers take it: ASCII digits with an optional sign and fraction, no
exponent (trec_eval's ``atol`` would stop at one)."""
SCORE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A score as the readers take it: a finite :func:`~ltrconv.data.lines.parse_number` number
(what ``atof`` reads too); one that overflows to infinity is refused after conversion."""
_VALUE_RULE = {"qrels": GRADE, "run": SCORE}


def _atol(token: str) -> int:
    """C's ``atol`` of ``token`` (which starts as a number does): its sign and leading digits."""
    m = re.match(r"[+-]?[0-9]*", token)
    digits = m.group(0).lstrip("+-")
    return int(m.group(0)) if digits else 0


def value_problem(token: str, kind: str) -> str | None:
    """Why ``token`` is no score (``kind="run"``) or grade (``"qrels"``), or None if it is
    one."""
    x = parse_number(token)
    if x is None or not np.isfinite(x):
        return f"{_VALUE_NAME[kind]} {shown(token)} is not a finite number"
    if not _VALUE_RULE[kind].fullmatch(token):  # a grade with an exponent
        return (f"grade {shown(token)} has an exponent: trec_eval reads a grade with atol, "
                f"which stops before it ({_atol(token)}), other tools as the number "
                f"({x:g}); write the grade without one")
    return None


_STRIP = " \t\n\r\x0b\x0c"


def text_numbers(texts: np.ndarray, kind: str, strip: bool = False
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(float64 values, where each is bad) of the strings ``texts`` (an object array; an
    element that is not a string is bad) read as scores or grades by :func:`value_problem`'s
    rules; ``strip``: C whitespace around a number is allowed (a table's cell)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    is_text = np.fromiter((isinstance(x, str) for x in texts), bool, len(texts))
    arr = pa.array(np.where(is_text, texts, ""), type=pa.string())
    if strip:
        arr = pc.utf8_trim(arr, characters=_STRIP)
    ok = pc.match_substring_regex(arr, f"^(?:{_VALUE_RULE[kind].pattern})$")
    ok = np.asarray(ok.to_numpy(zero_copy_only=False), dtype=bool) & is_text
    values = np.full(len(texts), np.nan)
    if ok.any():
        values[ok] = pc.cast(arr.filter(pa.array(ok)), pa.float64()).to_numpy()
    return values, ~np.isfinite(values)


def _read_table(data: bytes, source: str, kind: str, sep: str) -> Located:
    """A TSV/CSV text with a header line; every line must have the header's fields (a blank
    line has none). Rows are lines: a carriage return is read only before a line feed, and a
    quoted field may not hold a line break, so that a message's line is the file's."""
    import io
    import warnings

    import pandas as pd

    _check_text(data, source)
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError("a NUL byte: not a text file", source, _line_of(data, nul))
    lone_cr = re.search(rb"\r(?!\n)", data)
    if lone_cr:
        raise InputError("a carriage return not followed by a line feed (lines end at LF or "
                         "CRLF)", source, _line_of(data, lone_cr.start()))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            df = pd.read_csv(io.BytesIO(data), sep=sep, dtype=str, keep_default_na=False,
                             na_filter=False, index_col=False, skip_blank_lines=False)
    except pd.errors.EmptyDataError:
        raise InputError(f"empty {kind} table: expected a header line naming its columns",
                         source) from None
    except (ValueError, pd.errors.ParserWarning):  # a line of another number of fields
        _count_fields(data, source, sep)
        raise
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if len(df) + 1 != lines:  # a quoted field holding a line break
        _count_fields(data, source, sep)
    blank = np.flatnonzero((df.to_numpy(dtype=object) == "").all(axis=1)) if df.shape[1] else []
    if len(blank):
        raise InputError(f"a blank line (each line holds the header's {df.shape[1]} fields)",
                         source, int(blank[0]) + 2)
    header = data.split(b"\n", 1)[0].decode("utf-8").strip("\r\ufeff")
    names = [c.strip('"') for c in header.split(sep)]
    for c in QID_COLUMNS + DOC_COLUMNS + VALUE_COLUMNS[kind]:
        if names.count(c) > 1:
            raise InputError(f"column {c!r} appears {names.count(c)} times in the header",
                             source, 1)
    return from_frame(df, kind, source, header_lines=1)


def _count_fields(data: bytes, source: str, sep: str) -> None:
    """Raise an InputError at the first line whose number of fields differs from the
    header's, or whose quoted field holds a line break."""
    import csv
    import io

    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", errors="replace",
                            newline="")
    rows = csv.reader(text, delimiter=sep)
    width, line = None, 0
    for row in rows:
        line += 1
        if rows.line_num != line:
            raise InputError("a quoted field holds a line break (a row is one line)", source,
                             line)
        if width is None:
            width = len(row)
        elif len(row) != width:
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


def _id_strings(column, what: str, col: str, source: str, header_lines: int) -> np.ndarray:
    """The ids of ``column`` as strings (an object array): bytes decoded as UTF-8 (refused,
    naming the row, when they are not), anything else by ``str``; a missing one (None, NaN,
    NA) becomes ``""``."""
    values = column.to_numpy(dtype=object)
    missing = column.isna().to_numpy()
    out = np.empty(len(values), dtype=object)
    for i, x in enumerate(values.tolist()):
        if missing[i]:
            out[i] = ""
        elif isinstance(x, str):
            out[i] = x
        elif isinstance(x, (bytes, bytearray, memoryview)):
            try:
                out[i] = bytes(x).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"{what} {shown(bytes(x))} in column {col!r} is not UTF-8 text "
                                 f"(byte {exc.start + 1})", source, i + 1 + header_lines) from None
        else:
            out[i] = str(x)
    return out


def _frame_values(raw, kind: str, col: str, source: str) -> tuple[np.ndarray, np.ndarray]:
    """(float64 values, where each is bad) of a DataFrame's value column: numbers as they
    are, strings read by :func:`text_numbers` (as the same text in a file would be)."""
    import pandas as pd

    kind_of = getattr(getattr(raw.dtype, "categories", raw), "dtype", raw.dtype).kind
    if kind_of in "mMc":
        raise InputError(f"column {col!r} holds {raw.dtype} values; {_VALUE_NAME[kind]}s must "
                         "be real numbers", source)
    if kind_of in "biuf":
        numbers = pd.to_numeric(raw.astype(raw.dtype.categories.dtype)
                                if hasattr(raw.dtype, "categories") else raw, errors="coerce")
        value = np.asarray(numbers, dtype=np.float64)
        return value, ~np.isfinite(value)
    obj = raw.to_numpy(dtype=object)
    obj = np.array([bytes(x).decode("utf-8", "replace")
                    if isinstance(x, (bytes, bytearray)) else x for x in obj.tolist()],
                   dtype=object) if len(obj) else obj
    is_text = np.fromiter((isinstance(x, str) for x in obj), bool, len(obj))
    value, bad = text_numbers(obj, kind, strip=True)
    if not is_text.all():  # numbers among the strings
        rest = pd.to_numeric(pd.Series(obj[~is_text], dtype=object), errors="coerce")
        if np.asarray(rest).dtype.kind == "c":
            raise InputError(f"column {col!r} holds complex numbers; {_VALUE_NAME[kind]}s "
                             "must be real numbers", source)
        value[~is_text] = np.asarray(rest, dtype=np.float64)
        bad = ~np.isfinite(value) | (bad & is_text)
    return value, bad


def from_frame(df, kind: str, source: str | None = None, header_lines: int = 0) -> Located:
    """A pandas DataFrame in ir_measures' (``query_id``, ``doc_id``, ``relevance``/``score``)
    or ranx's (``q_id``, ``doc_id``, ``score``) columns; rows numbered from 1 (plus
    ``header_lines``) in messages. Ids are read as strings (bytes as UTF-8; a missing or empty
    one is refused); values must be real numbers (dates, durations and complex numbers are
    not), and a value given as a string must be one as a file writes it (:func:`value_problem`).
    The first row with a problem is named."""
    source = source or f"{kind} DataFrame"
    q = _column(df, QID_COLUMNS, "query", source)
    d = _column(df, DOC_COLUMNS, "document", source)
    c = _column(df, VALUE_COLUMNS[kind], _VALUE_NAME[kind], source)
    raw = df[c]
    value, bad_value = _frame_values(raw, kind, c, source)
    qid = _id_strings(df[q], "query id", q, source, header_lines)
    docid = _id_strings(df[d], "docid", d, source, header_lines)
    no_qid, no_docid = qid == "", docid == ""
    bad = no_qid | no_docid | bad_value
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = (source, i + 1 + header_lines)
        for col, missing, what in ((q, no_qid, "query id"), (d, no_docid, "docid")):
            if missing[i]:
                raise InputError(f"no {what} (got {shown(_item(df[col].iloc[i]))}) in column "
                                 f"{col!r}", *where)
        item = _item(raw.iloc[i])
        if isinstance(item, str) and value_problem(item.strip(_STRIP), kind):
            raise InputError(f"{value_problem(item.strip(_STRIP), kind)} (column {c!r})", *where)
        raise InputError(f"{_VALUE_NAME[kind]} {shown(item)} in column {c!r} is not a finite "
                         "number", *where)
    lines = np.arange(1 + header_lines, len(df) + 1 + header_lines)
    return Located(qid, docid, value, source, lines)


def from_dict(mapping: Any, kind: str) -> Located:
    """pytrec_eval's ``{qid: {docid: value}}`` (a ranx ``Qrels``/``Run`` via ``to_dict``).
    Ids are strings (bytes decoded as UTF-8); a value given as a string is read as a file's
    would be (:func:`value_problem`)."""
    source = f"{kind} dict"
    if not isinstance(mapping, dict):
        raise InputError(f"expected {{qid: {{docid: {_VALUE_NAME[kind]}}}}}, got "
                         f"{type(mapping).__name__}", source)
    qids, docs, values = [], [], []
    for q, docs_of in mapping.items():
        if not isinstance(docs_of, dict):
            raise InputError(f"query {shown(q)}: expected a dict of docid to "
                             f"{_VALUE_NAME[kind]}, got {type(docs_of).__name__}", source)
        qids.extend([_dict_id(q, "query id", q, source)] * len(docs_of))
        docs.extend(_dict_id(d, "docid", q, source) for d in docs_of)
        values.extend(docs_of.values())
    fast = np.asarray(values) if values else np.zeros(0)
    if fast.dtype.kind in "biuf":
        return Located(np.asarray(qids, dtype=object), np.asarray(docs, dtype=object),
                       fast.astype(np.float64), source)
    value = np.empty(len(values))
    for i, x in enumerate(values):
        problem = None
        if isinstance(x, str):
            problem = value_problem(x, kind)
            value[i] = np.nan if problem else float(x)
        elif _is_number(x):
            value[i] = float(x)
        else:
            problem = f"{_VALUE_NAME[kind]} {shown(x)} is not a number"
        if problem:
            raise InputError(f"query {shown(qids[i])}, docid {shown(docs[i])}: {problem}",
                             source)
    return Located(np.asarray(qids, dtype=object), np.asarray(docs, dtype=object), value,
                   source)


def _dict_id(x: Any, what: str, qid: Any, source: str) -> str:
    """An id of a dict as a string: bytes decoded as UTF-8, anything else by ``str``."""
    if isinstance(x, (bytes, bytearray)):
        try:
            return bytes(x).decode("utf-8")
        except UnicodeDecodeError as exc:
            where = "" if what == "query id" else f"query {shown(qid)}: "
            raise InputError(f"{where}{what} {shown(bytes(x))} is not UTF-8 text (byte "
                             f"{exc.start + 1})", source) from None
    return str(x)


def _is_number(x: Any) -> bool:
    try:
        float(x)
        return not isinstance(x, (bool, str, bytes))
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


def evaluate_run(qrels: Any, run: Any, *, conventions=("trec_eval",), cutoffs=None,
                 metrics=None, engine: str = "auto") -> dict:
    """Evaluate a run against its qrels under each convention: ``{key: Evaluation}`` as
    :func:`ltrconv.evaluate` returns. ``qrels`` and ``run`` are each a file (TREC, TSV/CSV,
    Parquet), a pandas DataFrame (ir_measures' or ranx's columns), a dict of dicts
    (pytrec_eval's) or a ranx ``Qrels``/``Run``; see
    :func:`ltrconv.evaluation.runs.evaluate_run_arrays` for the rules.

    ``conventions`` may also hold the IR tools' own metrics, ``"ranx:ndcg@10"`` or an
    ir_measures measure (``ir_measures.nDCG@10``), each evaluated under the convention it
    names (:mod:`ltrconv.evaluation.measures`) and keyed by that convention's name; their
    cutoffs join ``cutoffs`` (default: theirs, or 1-10 when no metric is given)."""
    from ..evaluation.measures import resolve, with_cutoffs
    from ..evaluation.metrics import METRICS
    from ..evaluation.runs import evaluate_run_arrays

    conventions, ks = resolve(conventions, "run")
    return evaluate_run_arrays(coerce(qrels, "qrels"), coerce(run, "run"),
                               conventions=conventions, cutoffs=with_cutoffs(cutoffs, ks),
                               metrics=metrics or METRICS, engine=engine)

