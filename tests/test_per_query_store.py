"""The per-query table written in row groups and aggregated chunk by chunk gives the tables the
in-memory functions give on the whole table, to the last bit."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ltrconv.errors import LtrconvError
from ltrconv.study import (audit_predictions, libraries, per_query_store as store, seeds,
                           tables, tie_ranges, variants)

EVALS = ["ranklib", "letor", "yahoo", "ranklib-tiepess", "ranklib-tieavg", "ranklib-tieopt"]
SEEDS = {"coordinate_ascent": [1, 2, 3], "adarank": [0], "adarank_stable": [0], "lambdamart": [0]}


def pieces(tmp_path, n_queries=23, folds=(1, 2, 3)):
    """One file per model, as the evaluation writes them (rows: convention, then query, then
    metric and cutoff), in an order unlike the table's; and the whole table as the former
    writer made it (every piece concatenated, stable-sorted by all keys but the query)."""
    rng = np.random.default_rng(5)
    cols = [("NDCG", k) for k in (1, 5, 10)] + [("P", 5), ("MAP", 0)]
    paths, frames = [], []
    for alg in reversed(list(SEEDS)):
        for train in ("yahoo", "ranklib", "letor", "sklearn"):
            for fold in folds:
                for seed in SEEDS[alg]:
                    qids = rng.permutation(np.arange(fold * 7, fold * 7 + n_queries)).astype(str)
                    rows = []
                    for ev in EVALS:
                        base = np.round(rng.random((len(qids), len(cols))), 2)
                        base[rng.random(base.shape) < 0.2] = 0.0
                        for qi, q in enumerate(qids):
                            for ci, (m, k) in enumerate(cols):
                                rows.append(("toy", fold, seed, alg, train, ev, m, k, q,
                                             base[qi, ci]))
                    frame = pd.DataFrame(rows, columns=tables.PER_QUERY_COLUMNS)
                    path = tmp_path / f"{alg}-{train}-{fold}-{seed}.parquet"
                    frame.to_parquet(path, index=False)
                    paths.append(path)
                    frames.append(frame)
    keys = [c for c in tables.PER_QUERY_COLUMNS if c not in ("qid", "value")]
    whole = pd.concat(frames, ignore_index=True).sort_values(keys, kind="stable",
                                                             ignore_index=True)
    whole.to_parquet(tmp_path / "former.parquet", index=False)
    return paths, pd.read_parquet(tmp_path / "former.parquet")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pq")
    paths, whole = pieces(tmp)
    out = tmp / "per_query.parquet"
    rows = store.write(paths, out)
    return out, whole, rows


def same(a, b):
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True),
                                  check_exact=True)
    assert a.to_csv(sep="\t", index=False, float_format="%.17g") == \
        b.to_csv(sep="\t", index=False, float_format="%.17g")


def test_layout_types_and_one_line_read(written):
    path, whole, rows = written
    assert rows == len(whole)
    back = pd.read_parquet(path)
    assert list(back.columns) == tables.PER_QUERY_COLUMNS
    assert (back.dtypes == whole.dtypes).all()
    meta = pq.ParquetFile(path).metadata
    for c in store.NAMES:
        col = meta.row_group(0).column(tables.PER_QUERY_COLUMNS.index(c))
        assert "RLE_DICTIONARY" in col.encodings or "PLAIN_DICTIONARY" in col.encodings, c
    assert {str(back[c].dtype) for c in ("fold", "seed", "k")} == {"int64"}
    assert back["value"].dtype == np.float64
    # same rows and values as the former table, in another order
    keys = tables.PER_QUERY_COLUMNS[:-1]
    same(back.sort_values(keys, ignore_index=True), whole.sort_values(keys, ignore_index=True))
    pf = pq.ParquetFile(path)
    units = back[store.UNIT].drop_duplicates()
    assert pf.num_row_groups == len(units)
    for i in range(pf.num_row_groups):
        t = pf.read_row_group(i, columns=store.UNIT).to_pandas()
        assert len(t.drop_duplicates()) == 1


def test_aggregates_equal_the_whole_table(written):
    path, whole, _ = written
    folds, tests = store.aggregate(path)
    same(folds, tables.fold_stats(whole))
    same(tests, tables.ttests(whole))
    means, stests = store.seed_tables(path)
    same(means, seeds.seed_fold_means(whole))
    same(stests, seeds.seed_ttests(whole))
    assert len(means) and set(means["algorithm"]) == {"coordinate_ascent"}
    for k in (1, 10):
        same(store.tie_table(path, k=k), tie_ranges.tie_table(whole, k=k))
    v = {"adarank_stable": "adarank"}
    same(store.implementation_table(path, v), variants.implementation_table(whole, v))
    algs = ["adarank", "coordinate_ascent"]
    sub = whole[whole["algorithm"].isin(algs)]
    same(store.zero_shares(path, "ranklib", algs), audit_predictions.zero_shares(sub, "ranklib"))
    same(store.training_ttests(path, algs, ("sklearn",), "ranklib"),
         libraries.training_ttests(sub, ("sklearn",), reference="ranklib"))


def test_former_layout_reads_the_same(written, tmp_path):
    """A table in the former layout (one row group, plain strings) gives the same tables."""
    path, whole, _ = written
    former = path.parent / "former.parquet"
    for new, old in zip(store.aggregate(former), store.aggregate(path)):
        same(new, old)


def test_damaged_or_incomplete_tables_fail_with_one_line(tmp_path, written):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really")
    with pytest.raises(LtrconvError, match="bad.parquet: not a readable Parquet file"):
        store.aggregate(bad)
    path, whole, _ = written
    with pytest.raises(LtrconvError, match=r"no NDCG@7 under"):
        store.tie_table(path, k=7)



def test_writer_budget_and_piece_order_do_not_change_the_file(written, tmp_path):
    """Pieces read a few rows at a time, spilled in many row groups, in another order, give
    the same bytes; the spill files are gone."""
    path, _, rows = written
    paths = sorted(p for p in path.parent.glob("*.parquet")
                   if p.name not in ("per_query.parquet", "former.parquet"))
    assert len(paths) == 4 * 3 * sum(len(s) for s in SEEDS.values())
    small = tmp_path / "small.parquet"
    assert store.write(paths[::-1], small, budget=37) == rows
    assert small.read_bytes() == path.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["small.parquet"]


def test_spill_files_hold_at_most_the_budget(written, tmp_path):
    """The first pass holds at most ``budget`` rows: each spill file has at most that many,
    several small pieces share one (one record batch per unit there), and every row is in one."""
    path, _, rows = written
    paths = sorted(p for p in path.parent.glob("*.parquet")
                   if p.name not in ("per_query.parquet", "former.parquet"))
    sizes = [pq.ParquetFile(p).metadata.num_rows for p in paths]
    budget = 3 * max(sizes)
    spills = list(store._spill(paths, tmp_path, budget))
    files = [pa.ipc.open_file(f) for f, _ in spills]
    held = [f.read_all().num_rows for f in files]
    assert sum(held) == rows
    assert all(n <= budget for n in held)
    assert len(paths) / 3 <= len(spills) < len(paths) / 2
    for f, (_, groups) in zip(files, spills):
        assert [g for _, g in groups] == list(range(f.num_record_batches))
        assert len({key for key, _ in groups}) == len(groups)
        for key, g in groups:  # each batch holds its unit's rows, and only those
            batch = f.get_batch(g).to_pylist()
            assert {tuple(r[c] for c in store.UNIT) for r in batch} == {key}


def test_writer_keeps_missing_values_and_rejects_damaged_pieces(tmp_path):
    frame = pd.DataFrame({"dataset": "toy", "fold": [1, 1, 1], "seed": 0, "algorithm": "a",
                          "train_convention": "ranklib", "eval_convention": "letor",
                          "metric": "NDCG", "k": [1, 2, 3], "qid": ["9", "9", "9"],
                          "value": [0.5, np.nan, 0.0]})
    frame.to_parquet(tmp_path / "a.parquet", index=False)
    out = tmp_path / "out" / "per_query.parquet"
    out.parent.mkdir()
    assert store.write([tmp_path / "a.parquet"], out) == 3
    back = pd.read_parquet(out)
    same(back, frame.astype({"value": "float64"})[tables.PER_QUERY_COLUMNS])
    assert pq.read_table(out)["value"].null_count == 1  # stored as missing, read as NaN
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really")
    with pytest.raises(LtrconvError, match="bad.parquet: not a readable Parquet file"):
        store.write([tmp_path / "a.parquet", bad], tmp_path / "out" / "again.parquet")
    assert sorted(p.name for p in out.parent.iterdir()) == ["per_query.parquet"]
