"""Run ids read from arrow buffers and hashed (evaluation.run_ids) answer as encoding every id
does: the same query codes, repeats, judgments and byte order, on ids at chunk and buffer
ends, non-ASCII ids, repeated pairs, queries not grouped, and hashes forced to collide."""

from __future__ import annotations

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from ltrconv.errors import InputError  # noqa: E402
from ltrconv.evaluation import conventions as C  # noqa: E402
from ltrconv.evaluation import run_ids as R  # noqa: E402
from ltrconv.evaluation.runs import Located, evaluate_run_arrays  # noqa: E402

CONVENTIONS = ["trec_eval", "trec_eval-c", "ir_measures", "ir_measures-judged", "ranx-run",
               C.get("trec_eval").with_(depth=3), C.get("trec_eval").with_(duplicates="last"),
               C.get("trec_eval").with_(ideal="list")]


def chunked(values: list[str], cuts: list[int], slice_first: bool = False):
    """A chunked string column cut at ``cuts``; the first chunk an offset slice if asked."""
    bounds = [0, *cuts, len(values)]
    chunks = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        if slice_first and a == 0:
            chunks.append(pa.array(["pad", *values[a:b]], type=pa.string()).slice(1))
        else:
            chunks.append(pa.array(values[a:b], type=pa.string()))
    return pa.chunked_array(chunks, type=pa.string())


def random_case(rng, n_q=6, per=12, grouped=True, long_ids=False, dup=False):
    """A run and its qrels; the qrels hold a docid longer than any in the run (ids hashed
    over a different number of words, were each column's own width taken)."""
    names = ["d", "dé", "D", "d0", "d00", "ab", "abc\u00e9", "x" * 8, "x" * 9, "x" * 16,
             "y" * 15, "éé", "z", "zz", "é" * 5, "d\0", "x" * 8 + "\0"]
    if long_ids:
        names.append("L" * 70)
    qs, ds, scores = [], [], []
    for q in range(n_q):
        docs = rng.choice(len(names), size=min(per, len(names)), replace=False)
        for d in docs:
            qs.append(f"q{q}" if q % 2 else f"query-{q}-é")
            ds.append(names[d])
            scores.append(float(rng.integers(0, 4)) / 2)  # ties
    if dup:
        i = int(rng.integers(0, len(qs)))
        qs.append(qs[i])
        ds.append(ds[i])
        scores.append(9.0)
    order = np.arange(len(qs)) if grouped else rng.permutation(len(qs))
    qs, ds = [qs[i] for i in order], [ds[i] for i in order]
    scores = np.asarray(scores)[order]
    judged = rng.random(len(qs)) < 0.5
    jq = [q for q, j in zip(qs, judged) if j] + ["q1", "q99", "q3"]
    jd = [d for d, j in zip(ds, judged) if j] + ["never-retrieved", "d", "n" * 30]
    seen, keep = set(), []
    for i, pair in enumerate(zip(jq, jd)):
        if pair not in seen:
            seen.add(pair)
            keep.append(i)
    jq, jd = [jq[i] for i in keep], [jd[i] for i in keep]
    grades = rng.integers(-1, 3, len(jq)).astype(float)
    cut_r = sorted(set(rng.integers(1, len(qs), 3).tolist()))
    cut_q = sorted(set(rng.integers(1, len(jq), 2).tolist()))
    run = Located(chunked(qs, cut_r, True), chunked(ds, cut_r[::-1][:1], True), scores, "run")
    qrels = Located(chunked(jq, cut_q), chunked(jd, []), grades, "qrels")
    return qrels, run


@pytest.fixture(autouse=True)
def every_row_from_words(monkeypatch):
    """Judgments and byte order from the words however many rows are asked for."""
    monkeypatch.setattr(R, "LOCAL_SHARE", 0)


def evaluate_both(qrels, run, monkeypatch):
    def outcome():
        out = {}
        for conv in CONVENTIONS:  # one by one: a refused duplicate stops only its own
            try:
                res = evaluate_run_arrays(qrels, run, conventions=[conv], cutoffs="1-5",
                                          metrics=["NDCG"])
                out.update({k: (v.qids.tolist(), v.values, v.skipped) for k, v in res.items()})
            except InputError as exc:
                out[str(conv)] = str(exc)
        return out

    used = []
    real = R.run_ids

    def spy(r, q):
        ids = real(r, q)
        used.append(type(ids).__name__)
        return ids

    with monkeypatch.context() as m:
        m.setattr("ltrconv.evaluation.runs.run_ids", spy)
        fast = outcome()
    with monkeypatch.context() as m:
        m.setattr("ltrconv.evaluation.runs.run_ids", R.ExactIds)
        exact = outcome()
    return fast, exact, used


def assert_same(fast, exact):
    assert fast.keys() == exact.keys()
    for k in exact:
        if isinstance(exact[k], str):
            assert fast[k] == exact[k]
            continue
        assert fast[k][0] == exact[k][0], k
        np.testing.assert_array_equal(fast[k][1], exact[k][1])
        assert (fast[k][2] is None) == (exact[k][2] is None)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("grouped", [True, False])
def test_hashed_ids_answer_as_exact_ids(seed, grouped, monkeypatch):
    rng = np.random.default_rng(seed)
    qrels, run = random_case(rng, grouped=grouped, dup=seed % 4 == 3)
    fast, exact, used = evaluate_both(qrels, run, monkeypatch)
    assert set(used) == {"HashedIds"}
    assert_same(fast, exact)
    assert any(isinstance(v, str) for v in fast.values()) == (seed % 4 == 3)


def test_long_docids_are_encoded_whole(monkeypatch):
    qrels, run = random_case(np.random.default_rng(0), long_ids=True, per=16)
    fast, exact, used = evaluate_both(qrels, run, monkeypatch)
    assert set(used) == {"ExactIds"}
    assert_same(fast, exact)


@pytest.mark.parametrize("seed", range(4))
def test_colliding_hashes_are_settled_on_the_ids(seed, monkeypatch):
    """Every docid hashed alike: each equality the hashes suggest is refuted on the words."""
    qrels, run = random_case(np.random.default_rng(seed), dup=seed == 3)
    monkeypatch.setattr(R, "_id_hash", lambda length, words, q: np.zeros(len(length), np.uint64))
    fast, exact, used = evaluate_both(qrels, run, monkeypatch)
    assert set(used) == {"HashedIds"}
    assert_same(fast, exact)


@pytest.mark.parametrize("pair_hash", ["query only", "docid length, any query"])
def test_a_hash_shared_with_a_judged_docid_is_not_a_judgment(pair_hash, monkeypatch):
    """Run rows whose hash equals a judged row's are judged only when query and docid are
    the same: hashes forced to the query code (same words, other length: 'ab' and 'ab\\0'),
    or to the docid's length whatever the query ('cd' of query 2 against 'cd' of query 1)."""
    docs = ["ab", "cd", "ef", "a", "abc", "ab\0"]
    run = Located(chunked(["1"] * 6 + ["2"] * 6, [5]), chunked(docs * 2, [7]),
                  np.arange(12, dtype=float), "run")
    qrels = Located(pa.array(["1", "2"]), pa.array(["cd", "ab\0"]), np.array([2.0, 1.0]),
                    "qrels")
    monkeypatch.setattr(R, "_id_hash", lambda length, words, q: np.asarray(
        q if pair_hash == "query only" else length, dtype=np.uint64))
    ids = R.run_ids(run, qrels)
    assert type(ids).__name__ == "HashedIds"
    assert ids.qrels_duplicate() is None
    assert ids.judged_at(np.arange(12)).tolist() == [-1, 0, -1, -1, -1, -1,
                                                     -1, -1, -1, -1, -1, 1]
    fast, exact, _ = evaluate_both(qrels, run, monkeypatch)
    assert_same(fast, exact)


def test_query_codes_by_first_appearance_across_chunks():
    run = Located(chunked(["b", "b", "a", "a", "a", "c"], [1, 3], True),
                  chunked(list("xyzwvu"), [2]), np.zeros(6), "run")
    qrels = Located(chunked(["c", "d", "d", "b"], [2]), chunked(list("xyzx"), []),
                    np.ones(4), "qrels")
    ids = R.run_ids(run, qrels)
    assert type(ids).__name__ == "HashedIds"
    assert ids.r_q.tolist() == [0, 0, 1, 1, 1, 2]
    assert ids.q_q.tolist() == [2, 3, 3, 0]
    assert ids.quniq.tolist() == ["b", "a", "c", "d"]


@pytest.mark.parametrize("values", [["a"], ["ab", "c"], ["abcdefgh", "i"], ["", "x", ""],
                                    ["abcdefghij", "abcdefghi", "é" * 4 + "x"]])
def test_words_at_the_end_of_the_data(values):
    col = R._Strings(pa.array(values, type=pa.string()))
    length, words = col.words(np.arange(len(values)))
    assert length.tolist() == [len(v.encode()) for v in values]
    assert col.text(np.arange(len(values))) == values
    raw = words.astype("<u8").tobytes()
    for i, v in enumerate(values):
        b = v.encode()
        assert raw[i * 8 * col.width:(i + 1) * 8 * col.width] == b.ljust(8 * col.width, b"\0")


def test_doc_rank_is_byte_order():
    docs = ["b", "a", "é", "z", "ab", "a\u0300", "A", "aa" * 5, "aa" * 4]
    run = Located(chunked(["1"] * len(docs), [4]), chunked(docs, [3]), np.zeros(len(docs)),
                  "run")
    qrels = Located(pa.array(["1"]), pa.array(["a"]), np.ones(1), "qrels")
    ids = R.run_ids(run, qrels)
    rank = ids.doc_rank(np.arange(len(docs)))
    want = sorted(range(len(docs)), key=lambda i: docs[i].encode())
    assert [docs[i] for i in np.argsort(rank, kind="stable")] == [docs[i] for i in want]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("by_score", [False, True])
def test_top_candidates_are_the_rows_reaching_the_kth_float32_score(seed, by_score):
    """With or without the sort (a run listing each query by score): the rows whose float32
    score reaches their query's k-th highest, zeros of either sign, infinities and ties
    included."""
    from ltrconv.evaluation.runs import _top_candidates
    from ltrconv.evaluation.sortkeys import ascending32, descending32

    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, 12)
    q = np.repeat(np.arange(len(sizes)), sizes)
    pool = np.array([0.0, -0.0, 1.5, -1.5, 1e-45, -1e-45, 3.4e38, 1e39, -1e39, np.inf, -np.inf,
                     0.1, 0.1 + 1e-12, -7.0, 2.0])
    score = rng.choice(pool, len(q)) if seed % 2 else rng.normal(size=len(q)).round(1)
    if by_score:
        score = np.concatenate([np.sort(score[q == g])[::-1] for g in range(len(sizes))])
    k = int(rng.integers(1, 12))
    with np.errstate(over="ignore"):
        f = score.astype(np.float32) + np.float32(0.0)
        want = [i for i in range(len(q))
                if f[i] >= np.sort(f[q == q[i]])[::-1][min(k, sizes[q[i]]) - 1]]
        assert _top_candidates(q, score, k).tolist() == want
        u = descending32(f)
        assert np.array_equal(np.argsort(u, kind="stable"), np.argsort(-f, kind="stable"))
        np.testing.assert_array_equal(ascending32(u), f)
