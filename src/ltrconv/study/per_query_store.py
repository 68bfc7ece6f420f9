"""The study's per-query table on disk, written and read in bounded memory.

Layout (one Parquet file, ``per_query.parquet``): the columns of
:data:`ltrconv.study.tables.PER_QUERY_COLUMNS`; names (dataset, algorithm, conventions, metric,
qid) strings in dictionary-encoded pages, fold, seed and k int64, value float64. Rows are ordered by
:data:`ORDER` and then by the order in which the evaluation listed the queries; each row group
holds one :data:`UNIT` (one algorithm's scores under one evaluation convention and one metric
type), so a reader loads the row groups it needs and nothing else. ``pd.read_parquet(path)``
still returns the whole table, with the types it always had.

The study's jobs aggregate it chunk by chunk (:func:`chunks`): every aggregate groups by the
algorithm, evaluation convention, metric and cutoff, so a chunk is one (or a few) row groups, and
each group's rows keep the order they had in the whole table, which keeps every mean, standard
deviation and test the same to the last bit.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import LtrconvError
from . import tables as study

NAMES = ("dataset", "algorithm", "train_convention", "eval_convention", "metric", "qid")
UNIT = ["dataset", "algorithm", "eval_convention", "metric"]
ORDER = UNIT + ["k", "train_convention", "fold", "seed"]
# names are strings whose Parquet pages are dictionary-encoded (pyarrow's default), so that
# pd.read_parquet gives them back as the strings they were
SCHEMA = pa.schema([(c, pa.string() if c in NAMES else pa.float64() if c == "value"
                     else pa.int64())
                    for c in study.PER_QUERY_COLUMNS])


class UnreadableTable(LtrconvError):
    """A table that is not a readable Parquet file."""

    def __init__(self, path, exc: BaseException):
        self.path = path
        self.why = ("not a readable Parquet file "
                    f"({(str(exc).strip().splitlines() or [type(exc).__name__])[0]})")
        super().__init__(f"{path}: {self.why}")


def _as_schema(table: pa.Table) -> pa.Table:
    """``table`` with :data:`SCHEMA`'s types (a table without ``seed`` is seed 0)."""
    if "seed" not in table.column_names:
        table = table.append_column("seed", pa.array(np.zeros(len(table), np.int64)))
    missing = [c for c in study.PER_QUERY_COLUMNS if c not in table.column_names]
    if missing:
        raise LtrconvError(f"per-query table lacks column(s) {missing}; has {table.column_names}")
    cols = []
    for field in SCHEMA:
        col = table[field.name]
        if field.name in NAMES:
            col = col.cast(pa.string())
        else:
            col = col.cast(field.type)
        cols.append(col)
    return pa.Table.from_arrays(cols, schema=SCHEMA)


BUDGET = 1_000_000  # rows a reader holds at once (a unit larger than this alone)
SORT = [(c, "ascending") for c in ORDER[len(UNIT):]]
SPILL_OPTIONS = pa.ipc.IpcWriteOptions(compression="lz4")
"""The spill files' buffers LZ4-compressed: on the paper run's 3.8M rows, 99 MB of spill files
in place of 371 MB uncompressed (12 MB as Parquet), 6.4 s of CPU for the whole write against
6.0 s uncompressed and 8.3 s with Parquet spill files (7.8 s with Parquet's LZ4)."""


def write(pieces, path, budget: int = BUDGET) -> int:
    """Write the per-query table from ``pieces`` (the per-model tables of the evaluation, any
    order) to ``path`` in :data:`ORDER`, one row group per :data:`UNIT`; returns the row count.

    Two passes through spill files beside ``path``: the pieces, ``budget`` rows at a time, are
    split into their units (one spill file per ``budget`` rows of consecutive pieces, one
    record batch per unit there, its rows in piece order); then each unit's batches, in spill
    order, are stable-sorted by the rest of :data:`ORDER` and written. Memory: ``budget``
    rows, or one unit when larger. The spill files are Arrow IPC files (:data:`SPILL_OPTIONS`),
    read back memory-mapped: no Parquet encoding either way (on the paper run's 3.8M rows, 165
    pieces, the whole write took 8.3 s of CPU with Parquet spill files, 4.1 s of it spilling)."""
    with tempfile.TemporaryDirectory(dir=Path(path).parent, prefix=".per_query.") as tmp:
        spills, where = [], {}
        for spill, groups in _spill(pieces, Path(tmp), budget):
            spills.append(spill)
            for key, group in groups:
                where.setdefault(key, []).append((len(spills) - 1, group))
        rows, opened, last = 0, {}, ()
        try:
            with pq.ParquetWriter(path, SCHEMA, use_dictionary=list(NAMES)) as writer:
                for key in sorted(where):
                    if key[:2] != last[:2]:
                        _close(opened)  # the spill files of the algorithm before
                    last = key
                    batches = []
                    for f, group in where[key]:
                        if f not in opened:
                            source = pa.memory_map(str(spills[f]))
                            opened[f] = (source, pa.ipc.open_file(source))
                        batches.append(opened[f][1].get_batch(group))
                    unit = pa.Table.from_batches(batches, schema=SCHEMA)
                    del batches
                    # stable: each group keeps the order in which the evaluation listed its
                    # queries
                    unit = unit.take(pc.sort_indices(unit, sort_keys=SORT))
                    writer.write_table(unit, row_group_size=max(len(unit), 1))
                    rows += len(unit)
                    del unit
        finally:
            _close(opened)
    return rows


def _close(opened: dict) -> None:
    """Close the memory maps of ``opened`` (spill index -> (map, reader)) and forget them."""
    for source, _ in opened.values():
        source.close()
    opened.clear()


def _batches(piece, budget: int):
    """The rows of ``piece`` with :data:`SCHEMA`'s types, at most ``budget`` at a time; a
    missing value (NaN) is null, as it always was in the table."""
    try:
        f = pq.ParquetFile(piece)
        for batch in f.iter_batches(batch_size=max(int(budget), 1)):
            table = _as_schema(pa.Table.from_batches([batch]))
            value = table["value"]
            nan = pc.fill_null(pc.is_nan(value), False)
            if pc.any(nan).as_py():
                table = table.set_column(table.schema.get_field_index("value"), "value",
                                         pc.if_else(nan, pa.scalar(None, pa.float64()), value))
            yield table
    except LtrconvError:
        raise
    except Exception as exc:  # pyarrow's errors have no common base
        raise UnreadableTable(piece, exc) from None


def _spill(pieces, tmp: Path, budget: int):
    """Split the rows of ``pieces`` into their :data:`UNIT` s, holding at most ``budget`` rows
    (or one batch of a piece when larger): each time the next batch would pass it, the rows held
    go to a spill file in ``tmp`` (Arrow IPC, :data:`SPILL_OPTIONS`), one record batch per unit
    (its rows in piece order). Yields each spill file and its ``(unit, batch index)`` in order."""
    held, count = {}, 0

    def flush(spill):
        groups = []
        with pa.OSFile(str(spill), "wb") as sink, \
                pa.ipc.new_file(sink, SCHEMA, options=SPILL_OPTIONS) as out:
            for key, parts in held.items():
                # a unit holds rows (_units), so its columns combined make one batch
                [batch] = pa.concat_tables(parts).combine_chunks().to_batches()
                out.write_batch(batch)
                groups.append((key, len(groups)))
        held.clear()
        return spill, groups

    n = 0
    for piece in pieces:
        for table in _batches(piece, budget):
            if held and count + len(table) > budget:
                yield flush(tmp / f"{n}.arrow")
                n, count = n + 1, 0
            for key, rows in _units(table, piece):
                held.setdefault(key, []).append(rows)
            count += len(table)
    if held:
        yield flush(tmp / f"{n}.arrow")


def _units(table: pa.Table, piece):
    """``(key, rows)`` per distinct :data:`UNIT` key of ``table``, rows in table order."""
    code = np.zeros(len(table), np.int64)
    levels, index = [], []
    for c in UNIT:
        col = table[c].combine_chunks()
        if col.null_count:
            raise LtrconvError(f"{piece}: column {c} has missing values")
        enc = pc.dictionary_encode(col)
        idx = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        code = code * len(enc.dictionary) + idx
        levels.append(enc.dictionary.to_pylist())
        index.append(idx)
    order = np.argsort(code, kind="stable")
    if not len(order):
        return
    ordered = table.take(pa.array(order))  # one copy, each unit a slice of it
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(code[order])) + 1, [len(order)]))
    for start, stop in zip(bounds[:-1], bounds[1:]):
        first = order[start]
        yield (tuple(lv[ix[first]] for lv, ix in zip(levels, index)),
               ordered.slice(start, stop - start))


def _stat_values(pf: pq.ParquetFile, i: int, column: str):
    """The single value of ``column`` in row group ``i`` per its statistics, else None."""
    md = pf.metadata.row_group(i)
    idx = pf.schema_arrow.get_field_index(column)
    if idx < 0:
        return None
    st = md.column(idx).statistics
    if st is None or not st.has_min_max or st.min != st.max:
        return None
    v = st.min
    return v.decode() if isinstance(v, bytes) else v


def _may_hold(pf, i, column, allowed) -> bool:
    md = pf.metadata.row_group(i)
    idx = pf.schema_arrow.get_field_index(column)
    st = md.column(idx).statistics if idx >= 0 else None
    if st is None or not st.has_min_max:
        return True
    lo, hi = (v.decode() if isinstance(v, bytes) else v for v in (st.min, st.max))
    return any(lo <= v <= hi for v in allowed)


def _kept(table: pa.Table, filters: dict) -> pa.Table:
    """The rows of ``table`` whose columns in ``filters`` hold one of the allowed values."""
    if not filters:
        return table
    mask = None
    for c, vals in filters.items():
        col = table[c]
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        try:
            allowed = pa.array(vals).cast(col.type)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
            allowed = pa.array([], type=col.type)  # no value of another type matches
        hit = pc.is_in(col, value_set=allowed)
        mask = hit if mask is None else pc.and_(mask, hit)
    return table.filter(mask)


def chunks(path, by, filters: dict | None = None, columns=None, budget: int = BUDGET):
    """Yield ``(keys, frame)``: ``keys`` distinct values of the columns ``by`` (a subset of
    :data:`UNIT`), consecutive in sorted order, with at most ``budget`` rows in all (or one key);
    ``frame`` the rows of the per-query table at ``path`` with those keys whose columns in ``filters`` (column -> allowed values) hold allowed values, in file
    order, with ``columns`` (default: all) and names as strings, as ``pd.read_parquet`` gives
    them. Reads the row groups of each key only, one at a time, each filtered before it joins the
    frame (any row group whose statistics do not name a single key is read for every key)."""
    filters = {c: [v for v in vals] for c, vals in (filters or {}).items()}
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:
        raise UnreadableTable(path, exc) from None
    present = pf.schema_arrow.names
    want = [c for c in (columns or study.PER_QUERY_COLUMNS) if c in present]
    read_cols = list(dict.fromkeys(want + [c for c in (*by, *filters) if c in present]))
    groups: dict[tuple, list[int]] = {}
    mixed: list[int] = []
    for i in range(pf.num_row_groups):
        if not all(_may_hold(pf, i, c, [str(v) if c in NAMES else v for v in vals])
                   for c, vals in filters.items() if c in present):
            continue
        key = tuple(_stat_values(pf, i, c) for c in by)
        if any(v is None for v in key):
            mixed.append(i)
        else:
            groups.setdefault(key, []).append(i)
    if mixed:
        t = pf.read_row_groups(mixed, columns=list(by))
        keys = pd.DataFrame({c: t[c].to_pandas().astype(object) for c in by}).drop_duplicates()
        for key in keys.itertuples(index=False):
            groups.setdefault(tuple(key), [])
    batches, size = [], 0
    for key in sorted(groups):
        n = sum(pf.metadata.row_group(i).num_rows for i in groups[key])
        if batches and size + n <= budget:
            batches[-1].append(key)
            size += n
        else:
            batches.append([key])
            size = n
    kept = {c: vals for c, vals in filters.items() if c in present}
    for keys in batches:
        rgs = sorted(set().union(*(groups[k] for k in keys)) | set(mixed))
        if mixed:
            frame = pf.read_row_groups(rgs, columns=read_cols).to_pandas()
            wanted = pd.MultiIndex.from_tuples(keys, names=list(by))
            mask = pd.MultiIndex.from_frame(frame[list(by)].astype(object)).isin(wanted)
            for c, vals in kept.items():
                mask &= frame[c].isin(vals).to_numpy(dtype=bool)
            frame = frame.loc[mask, want].reset_index(drop=True)
        else:  # one row group at a time, filtered before it becomes a frame
            parts = [_kept(pf.read_row_group(i, columns=read_cols), kept).select(want)
                     for i in rgs]
            frame = (pa.concat_tables(parts) if parts else
                     pf.schema_arrow.empty_table().select(want)).to_pandas()
            del parts
        for c in want:
            if isinstance(frame[c].dtype, pd.CategoricalDtype):  # a table written so
                frame[c] = frame[c].astype(str)
        yield keys, frame


# --- the study's aggregates, chunk by chunk -------------------------------------------------
# Each function below gives the table its in-memory namesake gives on the whole table: the
# chunks split it along columns every aggregate groups by, Holm's families (which span chunks)
# are adjusted once over all the tests, and the rows are sorted on keys that identify them.

def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="int64" if c in ("fold", "seed", "k") else
                                      "float64" if c == "value" else "str")
                         for c in study.PER_QUERY_COLUMNS})


def _concat(parts, fallback) -> pd.DataFrame:
    parts = [p for p in parts if len(p)]
    return pd.concat(parts, ignore_index=True) if parts else fallback()


def _adjusted(parts, columns, by, alpha) -> pd.DataFrame:
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=columns)
    out = pd.concat(parts, ignore_index=True)
    study.holm_per_family(out, alpha)
    return study.sort_rows(out[columns], by)


STUDY_CHUNK = ["algorithm", "eval_convention", "metric"]
TTEST_ORDER = ["dataset", "algorithm", "eval_convention", "metric", "k", "conv_a", "conv_b"]


def aggregate(path, alpha: float = 0.05) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`~ltrconv.study.tables.fold_stats` and :func:`~ltrconv.study.tables.ttests` of the
    table at ``path``."""
    folds, tests = [], []
    for _, chunk in chunks(path, STUDY_CHUNK):
        averaged = study.seed_averaged(chunk)
        folds.append(study.fold_stats(averaged, averaged=True))
        tests.append(study.ttests(averaged, alpha, averaged=True))
    folds = _concat(folds, lambda: study.fold_stats(_empty()))
    return (study.sort_rows(folds, study.KEYS + ["fold"]),
            _adjusted(tests, study.TTEST_COLUMNS, TTEST_ORDER, alpha))


def seed_tables(path, metric: str = "NDCG") -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`~ltrconv.study.seeds.seed_fold_means` and :func:`~ltrconv.study.seeds.seed_ttests`
    of the table at ``path``."""
    from . import seeds

    means, tests = [], []
    for _, chunk in chunks(path, ["algorithm", "eval_convention"], {"metric": [metric]}):
        means.append(seeds.seed_fold_means(chunk, metric))
        tests.append(seeds.seed_ttests(chunk, metric))
    means = _concat(means, lambda: seeds.seed_fold_means(_empty(), metric))
    tests = _concat(tests, lambda: seeds.seed_ttests(_empty(), metric))
    if len(means):
        means = study.sort_rows(means, study.KEYS + ["fold", "seed"])
    if len(tests):
        tests = study.sort_rows(tests, seeds.SEED_TTEST_COLUMNS[:8])
    return means, tests


def tie_table(path, k: int = 10, metric: str = "NDCG") -> pd.DataFrame:
    """:func:`~ltrconv.study.tie_ranges.tie_table` of the table at ``path``."""
    from . import tie_ranges as tr

    needed = {tr.PESS, tr.AVG, tr.OPT, tr.INPUT}
    seen, parts = set(), []
    for _, chunk in chunks(path, ["algorithm"], {"metric": [metric], "k": [int(k)],
                                                 "eval_convention": sorted(needed)}):
        have = set(chunk["eval_convention"].unique())
        seen |= have
        if needed <= have:
            parts.append(tr.tie_table(chunk, k, metric))
    if needed - seen:
        raise LtrconvError(f"the per-query table has no {metric}@{k} under {sorted(needed - seen)}")
    out = _concat(parts, lambda: pd.DataFrame(columns=tr.TIE_COLUMNS))
    return study.sort_rows(out, ["dataset", "algorithm", "train_convention", "fold", "seed"])


def implementation_table(path, variants: dict, alpha: float = 0.05) -> pd.DataFrame:
    """:func:`~ltrconv.study.variants.implementation_table` of the table at ``path``."""
    from . import variants as var

    parts = []
    for variant, base in variants.items():
        for _, chunk in chunks(path, ["eval_convention", "metric"],
                               {"algorithm": [variant, base]}):
            parts.append(var.implementation_table(chunk, {variant: base}, alpha))
    return _adjusted(parts, var.COLUMNS, ["dataset", "algorithm", "variant", "train_convention",
                                          "eval_convention", "metric", "k"], alpha)


def zero_shares(path, train_convention: str, algorithms, conventions=("letor", "ranklib"),
                metric: str = "NDCG") -> pd.DataFrame:
    """:func:`~ltrconv.study.audit_predictions.zero_shares` of ``algorithms``' rows of the table
    at ``path``."""
    from . import audit_predictions as ap

    parts = [ap.zero_shares(chunk, train_convention, conventions, metric)
             for _, chunk in chunks(path, ["algorithm"], {
                 "algorithm": list(algorithms), "train_convention": [train_convention],
                 "metric": [metric], "eval_convention": list(conventions)})]
    return _concat(parts, lambda: ap.zero_shares(_empty(), train_convention, conventions, metric))


def training_ttests(path, algorithms, libraries, reference: str, metric: str = "NDCG",
                    alpha: float = 0.05) -> pd.DataFrame:
    """:func:`~ltrconv.study.libraries.training_ttests` of ``algorithms``' rows of the table at
    ``path``."""
    from . import libraries as lib

    parts = [lib.training_ttests(chunk, libraries, reference, metric, alpha)
             for _, chunk in chunks(path, ["algorithm", "eval_convention"], {
                 "algorithm": list(algorithms), "metric": [metric],
                 "train_convention": [reference, *libraries]})]
    return _adjusted(parts, study.TTEST_COLUMNS, ["dataset", "algorithm", "conv_a",
                                                  "eval_convention", "metric", "k"], alpha)
