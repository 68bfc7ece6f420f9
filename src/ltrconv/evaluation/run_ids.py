"""A run's and its qrels' ids as integers: query codes numbered by first appearance (the run's
rows, then the qrels'), and what the evaluation asks of docids (repeated pairs, the qrels row
judging a run row, byte order within a query), answered exactly.

:class:`ExactIds` encodes every id (pyarrow or pandas). :class:`HashedIds` reads arrow string
columns (the TREC reader's) from their buffers: an id is its length and its bytes as
zero-padded 64-bit words, so two ids are equal iff their lengths and words are. Query codes
come from the runs of equal adjacent ids; (query, docid) pairs are compared through a 64-bit
hash of the query code, the words and the length, and every equality a hash suggests is
confirmed on the words (or handed to :class:`ExactIds`): a collision costs time, never a wrong
answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

MAX_WORDS = 8
"""Ids longer than 8 words (64 bytes) are encoded whole instead of hashed."""

LOCAL_SHARE, LOCAL_ROWS = 8, 1 << 16
"""Judgments and byte order are read from the words for at most 65,536 rows or 1/8 of the
run's (the candidates for the top k); for more, every docid is encoded once."""

_M1, _M2, _M3 = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9),
                 np.uint64(0x94D049BB133111EB))
_MASKS = np.array([(1 << (8 * v)) - 1 for v in range(9)], dtype=np.uint64)


def joint_codes(first: Any, second: Any, sort: bool = False,
                uniques: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Codes of ``first`` then ``second`` in one numbering (by first appearance, or by byte
    order of the ids with ``sort``), and the distinct ids as strings (None without
    ``uniques``: arrow columns then skip making them). Arrow string columns are encoded by
    pyarrow, anything else by pandas."""
    if is_arrow(first) and is_arrow(second):
        import pyarrow as pa

        chunks = [c for col in (first, second)
                  for c in (col.chunks if isinstance(col, pa.ChunkedArray) else [col])]
        enc = arrow_call("dictionary_encode",
                         pa.chunked_array(chunks, type=pa.string())).combine_chunks()
        codes = arrow_numbers(enc.indices).astype(np.int64)
        distinct = np.array(enc.dictionary.to_pylist(), dtype=object) if uniques else None
        if sort:  # arrow orders strings by bytes: the docid-desc key
            order = arrow_numbers(arrow_call("sort_indices", enc.dictionary)).astype(np.int64)
            rank = np.empty(len(order), dtype=np.int64)
            rank[order] = np.arange(len(order))
            codes = rank[codes]
            distinct = distinct[order] if uniques else None
        return codes, distinct
    import pandas as pd

    both = pd.concat([pd.Series(first, dtype="str").reset_index(drop=True),
                      pd.Series(second, dtype="str").reset_index(drop=True)], ignore_index=True)
    codes, uniques = pd.factorize(both, sort=sort)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def arrow_call(name: str, *args: Any, options: Any = None) -> Any:
    """pyarrow's compute function ``name`` on ``args``, called without importing
    ``pyarrow.compute``, which makes a Python wrapper for each of its hundreds of functions
    when imported (about 50 ms of a process' start-up; pyarrow 26)."""
    try:
        from pyarrow._compute import call_function
    except ImportError:  # the module the wrappers are made from, moved: through them
        from pyarrow.compute import call_function
    return call_function(name, list(args), options)


def arrow_options(name: str, *args: Any, **kwargs: Any) -> Any:
    """pyarrow's compute options class ``name`` (``MatchSubstringOptions``, ``CastOptions``)
    made with ``args``, likewise without importing ``pyarrow.compute``."""
    try:
        import pyarrow._compute as compute
    except ImportError:
        import pyarrow.compute as compute
    return getattr(compute, name)(*args, **kwargs)


def arrow_numbers(arr: Any) -> np.ndarray:
    """A null-free numeric arrow array (or chunked array) as numpy, read from its buffers:
    pyarrow's own ``to_numpy`` loads pandas, a second of start-up."""
    chunks = arr.chunks if hasattr(arr, "chunks") else [arr]
    parts = []
    for c in chunks:
        dtype = np.dtype({"double": "float64", "float": "float32"}.get(str(c.type), str(c.type)))
        parts.append(np.frombuffer(c.buffers()[1], dtype=dtype, count=len(c) + c.offset)[c.offset:])
    return np.concatenate(parts) if parts else np.zeros(0)


def is_arrow(x: Any) -> bool:
    return type(x).__module__.startswith("pyarrow")


def first_duplicate(key: np.ndarray) -> tuple[int, int] | None:
    """(first row, later row) of the first key that repeats, in row order; None if none."""
    if len(key) < 2 or not _repeats(np.sort(key)):
        return None
    order = np.argsort(key, kind="stable")
    sk = key[order]
    same = np.flatnonzero(sk[1:] == sk[:-1])
    later = order[same + 1]
    j = int(np.argmin(later))
    return int(order[same[j]]), int(later[j])


def _repeats(sorted_keys: np.ndarray) -> bool:
    return bool(len(sorted_keys) > 1 and (sorted_keys[1:] == sorted_keys[:-1]).any())


def index_of(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Row of each wanted key among ``keys`` (distinct), -1 where absent."""
    if not len(keys):
        return np.full(len(wanted), -1, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    pos = np.minimum(np.searchsorted(keys[order], wanted), len(keys) - 1)
    return np.where(keys[order[pos]] == wanted, order[pos], -1)


class ExactIds:
    """Every id encoded: ``r_q``/``q_q`` the query codes of the run's and the qrels' rows,
    ``quniq`` the queries; docids coded by byte order when first asked for."""

    def __init__(self, run, qrels, codes: tuple[np.ndarray, np.ndarray] | None = None):
        self.run, self.qrels = run, qrels
        self.nr = len(run.qid)
        qcode, self.quniq = codes or joint_codes(run.qid, qrels.qid)
        self.r_q, self.q_q = qcode[:self.nr], qcode[self.nr:]
        self._keys: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._join: tuple[np.ndarray, tuple[int, int] | None] | None = None

    def _exact(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(docid codes by byte order, run keys, qrels keys): key = query * #docids + docid."""
        if self._keys is None:
            dcode, _ = joint_codes(self.run.docid, self.qrels.docid, sort=True, uniques=False)
            nd = int(dcode.max()) + 1 if len(dcode) else 1
            qcode = np.concatenate([self.r_q, self.q_q]).astype(np.int64)
            key = qcode * nd + dcode
            self._keys = dcode[:self.nr], key[:self.nr], key[self.nr:]
        return self._keys

    def encode_all(self) -> None:
        """Encode every id now: for an evaluation that will ask about every row, whose checks
        then read the exact keys (a subclass answering from hashes would hash for nothing)."""
        self._exact()

    def _joined(self) -> tuple[np.ndarray, tuple[int, int] | None] | None:
        """(the qrels row judging each run row, -1 where none does; the run's first repeated
        pair as :meth:`run_duplicate` gives it), from one sort of the run's keys with each
        row's number in their low bits (and a search of the qrels' sorted keys in them); None
        when key and row number do not fit in 64 bits together."""
        if self._join is None:
            _, r_key, q_key = self._exact()
            nr = len(r_key)
            rbits = max(nr - 1, 0).bit_length()
            top = max(int(r_key.max()) if nr else 0, int(q_key.max()) if len(q_key) else 0)
            if not nr or top.bit_length() + rbits > 64:
                return None
            packed = r_key.astype(np.uint64)
            packed <<= np.uint64(rbits)
            packed |= np.arange(nr, dtype=np.uint64)
            packed.sort()
            rows = (packed & np.uint64((1 << rbits) - 1)).astype(np.int64)
            packed >>= np.uint64(rbits)  # the keys, sorted; rows ascending within a key
            same = np.flatnonzero(packed[1:] == packed[:-1])
            dup = None
            if len(same):  # as first_duplicate: the pair whose later row comes first
                later = rows[same + 1]
                j = int(np.argmin(later))
                dup = int(rows[same[j]]), int(later[j])
            q_order = np.argsort(q_key, kind="stable")
            wanted = q_key[q_order].astype(np.uint64)
            pos = np.minimum(np.searchsorted(packed, wanted), nr - 1)
            hit = packed[pos] == wanted
            at_sorted = np.full(nr, -1, dtype=np.int64)
            at_sorted[pos[hit]] = q_order[hit]  # the first row of each key
            if len(same):  # every row of a repeated key judged as its first
                start = np.ones(nr, dtype=bool)
                start[same + 1] = False
                at_sorted = at_sorted[np.maximum.accumulate(np.where(start, np.arange(nr), 0))]
            at = np.empty(nr, dtype=np.int64)
            at[rows] = at_sorted
            self._join = at, dup
        return self._join

    def run_key(self) -> np.ndarray:
        return self._exact()[1]

    def run_duplicate(self) -> tuple[int, int] | None:
        """(first, later) run rows of the first (query, docid) pair retrieved twice."""
        joined = self._joined()
        if joined is not None:
            return joined[1]
        return first_duplicate(self._exact()[1])

    def qrels_duplicate(self) -> tuple[int, int] | None:
        return first_duplicate(self._exact()[2])

    def judged_at(self, rows) -> np.ndarray:
        """The qrels row judging each run row of ``rows`` (an index array or ``slice(None)``),
        -1 where none does."""
        joined = self._joined()
        if joined is not None:
            return joined[0][rows]
        _, r_key, q_key = self._exact()
        return index_of(q_key, r_key[rows])

    def doc_rank(self, rows) -> np.ndarray:
        """Integers ordering the docids of ``rows`` as their bytes do."""
        return self._exact()[0][rows]


class _Strings:
    """An arrow string column read from its buffers, chunk by chunk."""

    def __init__(self, col):
        chunks = col.chunks if hasattr(col, "chunks") else [col]
        self.parts = []
        for c in chunks:
            off = np.frombuffer(c.buffers()[1], dtype=np.int32, count=len(c) + 1 + c.offset)
            data = c.buffers()[2]
            self.parts.append((off[c.offset:], np.frombuffer(data, dtype=np.uint8)
                               if data is not None else np.zeros(0, np.uint8)))
        sizes = [len(off) - 1 for off, _ in self.parts]
        self.bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.n = int(self.bounds[-1])
        longest = max((int(np.diff(off).max()) for off, _ in self.parts if len(off) > 1),
                      default=0)
        self.width = (longest + 7) // 8  # words

    @staticmethod
    def usable(col) -> bool:
        import pyarrow as pa

        chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
        return all(c.type == pa.string() and c.null_count == 0 for c in chunks)

    def _words(self, part: int, local: np.ndarray | None, width: int):
        """(lengths, words) of rows ``local`` (None: all) of one chunk: word j holds bytes
        8j..8j+7, little-endian, zero past the id's end."""
        off, data = self.parts[part]
        start = off[:-1] if local is None else off[local]
        length = (off[1:] if local is None else off[local + 1]) - start
        size = len(data)
        if size < 8:  # a copy with room for one word at every byte
            data = np.concatenate([data, np.zeros(8, np.uint8)])
        view = np.ndarray((len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))
        last = len(view) - 1  # words starting after it run past the data: read from a copy
        base = max(size - 8, 0)
        tail = np.zeros(16, np.uint8)
        tail[:size - base] = data[base:size]
        tail_view = np.ndarray((9,), dtype="<u8", buffer=tail, strides=(1,))
        pos = start.astype(np.intp)
        words = []
        for j in range(width):
            if j:
                pos += 8
            if local is None:  # rows in data order: the late ones are the last few
                cut = int(np.searchsorted(pos, last, side="right"))
                w = np.empty(len(pos), dtype=np.uint64)
                w[:cut] = view[pos[:cut]]
                w[cut:] = tail_view[np.clip(pos[cut:] - base, 0, 8)]
            else:
                w = view[np.minimum(pos, last)]
                late = pos > last
                if late.any():
                    w[late] = tail_view[np.clip(pos[late] - base, 0, 8)]
            short = length < 8 * (j + 1)
            if short.any():
                w &= _MASKS.take(np.clip(length - 8 * j, 0, 8))
            words.append(w)
        return length, words

    def words(self, rows: np.ndarray, width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(lengths, words as a (rows, width) array) of the rows at global positions
        ``rows``; ``width`` words (default: the longest id's)."""
        width = self.width if width is None else width
        length = np.zeros(len(rows), dtype=np.int64)
        words = np.zeros((len(rows), width), dtype=np.uint64)
        part = np.searchsorted(self.bounds, rows, side="right") - 1
        for p in np.flatnonzero(np.bincount(part, minlength=len(self.parts))):
            at = np.flatnonzero(part == p)
            ln, ws = self._words(int(p), rows[at] - self.bounds[p], width)
            length[at] = ln
            for j, w in enumerate(ws):
                words[at, j] = w
        return length, words

    def hashes(self, q: np.ndarray, width: int) -> np.ndarray:
        """:func:`_id_hash` of every row, its query code ``q``, over ``width`` words."""
        out = np.empty(self.n, dtype=np.uint64)
        for p in range(len(self.parts)):
            a, b = self.bounds[p], self.bounds[p + 1]
            length, ws = self._words(p, None, width)
            out[a:b] = _id_hash(length, ws, q[a:b])
        return out

    def heads(self) -> np.ndarray:
        """The rows whose id differs from the row before's (row 0 included)."""
        out, prev = [], None
        for p in range(len(self.parts)):
            length, ws = self._words(p, None, self.width)
            if not len(length):
                continue
            new = np.empty(len(length), dtype=bool)
            new[1:] = length[1:] != length[:-1]
            for w in ws:
                new[1:] |= w[1:] != w[:-1]
            new[0] = prev is None or prev != (int(length[0]), *(int(w[0]) for w in ws))
            prev = (int(length[-1]), *(int(w[-1]) for w in ws))
            out.append(np.flatnonzero(new) + self.bounds[p])
        return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)

    def text(self, rows: np.ndarray) -> list[str]:
        length, words = self.words(rows)
        raw = words.astype("<u8").tobytes()
        step = 8 * self.width
        return [raw[i * step:i * step + int(n)].decode("utf-8") for i, n in enumerate(length)]


def _id_hash(length: np.ndarray, words, q: np.ndarray) -> np.ndarray:
    """A 64-bit hash of (query code, id length, id words): the same for the same query and
    id whatever column the id comes from, given the same number of words."""
    h = np.asarray(length).astype(np.uint64)
    h *= _M1
    for w in words:
        h ^= w
        _mix(h)
    hq = q.astype(np.uint64)
    hq *= _M2
    h ^= hq
    return _mix(h)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer, in place."""
    h ^= h >> np.uint64(30)
    h *= _M2
    h ^= h >> np.uint64(27)
    h *= _M3
    h ^= h >> np.uint64(31)
    return h


def _segment_codes(cols: list[_Strings], limit: float = 0.25):
    """Query codes by first appearance over the rows of ``cols`` in turn, from the runs of
    equal adjacent ids; None when the runs are more than ``limit`` of the rows (ids not
    grouped: encoded whole instead)."""
    codes = np.zeros(sum(col.n for col in cols), dtype=np.intp)
    index, at, prev = {}, 0, 0
    for col in cols:
        heads = col.heads()
        if len(heads) > limit * col.n + 16:
            return None
        head_code = np.array([index.setdefault(s, len(index)) for s in col.text(heads)],
                             dtype=np.intp)
        if len(heads):  # each run's first row holds the step from the code before
            codes[at + heads] = np.diff(head_code, prepend=prev)
            prev = head_code[-1]
        at += col.n
    np.cumsum(codes, out=codes)
    uniques = np.empty(len(index), dtype=object)
    uniques[:] = list(index)
    return codes, uniques


class HashedIds(ExactIds):
    """:class:`ExactIds`' answers from the words and hashes of arrow string columns; whatever
    a hash cannot settle goes to :class:`ExactIds`."""

    def __init__(self, run, qrels, r_doc: _Strings, q_doc: _Strings):
        qs = [_Strings(run.qid), _Strings(qrels.qid)]
        codes = _segment_codes(qs) if max(c.width for c in qs) <= MAX_WORDS else None
        super().__init__(run, qrels, codes)
        self.r_doc, self.q_doc = r_doc, q_doc
        self.width = max(r_doc.width, q_doc.width)  # one for both: equal ids, equal hashes
        self._run_repeats: bool | None = None
        self._q_sorted: tuple[np.ndarray, np.ndarray] | None = None

    def _local(self, rows) -> bool:
        return not isinstance(rows, slice) and (len(rows) <= LOCAL_ROWS
                                                or len(rows) * LOCAL_SHARE <= self.nr)

    def run_duplicate(self):
        if self._keys is not None:  # every id encoded already: the exact answer costs less
            return super().run_duplicate()
        if self._run_repeats is None:  # the hashes are not kept: judgments rehash a few rows
            h = self.r_doc.hashes(self.r_q, self.width)
            h.sort()
            self._run_repeats = _repeats(h)
        if self._run_repeats:
            return super().run_duplicate()  # a repeat, or a collision: settled exactly
        return None

    def qrels_duplicate(self):
        if self._keys is not None:
            return super().qrels_duplicate()
        h = self.q_doc.hashes(self.q_q, self.width)
        order = np.argsort(h)
        sk = h[order]
        if _repeats(sk):
            return super().qrels_duplicate()
        self._q_sorted = sk, order
        return None

    def judged_at(self, rows) -> np.ndarray:
        if self._q_sorted is None or not self._local(rows) or self._join is not None:
            return super().judged_at(rows)
        sk, order = self._q_sorted  # distinct: at most one qrels row shares a run row's hash
        length, words = self.r_doc.words(rows, self.width)
        want = _id_hash(length, words.T, self.r_q[rows])
        pos = np.minimum(np.searchsorted(sk, want), len(sk) - 1)
        hit = np.flatnonzero(sk[pos] == want)
        at = np.full(len(rows), -1, dtype=np.int64)
        if len(hit):
            q = order[pos[hit]]
            same = self.r_q[rows[hit]] == self.q_q[q]
            ql, qw = self.q_doc.words(q, self.width)
            same &= (length[hit] == ql) & (words[hit] == qw).all(axis=1)
            at[hit[same]] = q[same]  # a hash without the same id: that id is not judged
        return at

    def doc_rank(self, rows) -> np.ndarray:
        if not self._local(rows) or self._keys is not None:
            return super().doc_rank(rows)
        length, words = self.r_doc.words(rows)
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        big = words.byteswap()  # big-endian words compare as the bytes do
        order = np.lexsort((length, *[big[:, j] for j in range(big.shape[1] - 1, -1, -1)]))
        key = np.column_stack([big, length.astype(np.uint64)])[order]
        step = np.ones(len(rows), dtype=np.int64)
        step[1:] = (key[1:] != key[:-1]).any(axis=1)
        step[0] = 0
        rank = np.empty(len(rows), dtype=np.int64)
        rank[order] = np.cumsum(step)
        return rank


def run_ids(run, qrels) -> ExactIds:
    """:class:`HashedIds` for arrow string columns of docids up to :data:`MAX_WORDS` words,
    :class:`ExactIds` otherwise."""
    cols = (run.qid, run.docid, qrels.qid, qrels.docid)
    if all(is_arrow(c) and _Strings.usable(c) for c in cols):
        docs = _Strings(run.docid), _Strings(qrels.docid)
        if max(d.width for d in docs) <= MAX_WORDS:
            return HashedIds(run, qrels, *docs)
    return ExactIds(run, qrels)
