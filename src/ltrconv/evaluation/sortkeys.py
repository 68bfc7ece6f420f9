"""Rankings sorted in one pass: the fields of a ranking's order packed into one 64-bit key.

A ranking orders rows by query, then score descending, then a tie key (trec_eval 9.0.8's
``ndcg_cut``, ``P``, ``map`` and ``recip_rank`` all rank a query's documents by float32 score,
then by docno descending: ``form_res_rels.c``, ``comp_sim_docno``). ``np.lexsort`` takes one
stable pass per key, four for that order; packed into bit fields of one unsigned 64-bit
integer (query code in the high bits, the score as an integer that ascends as the float32
score descends, the tie key in the low bits), the same order comes from one sort. A key unique
per row needs no stable sort: numpy's (vectorised) quicksort then gives the one order there is.

Where the fields do not fit in 64 bits, or the tie key does not separate every pair of rows of
a query, :func:`score_order` returns None and the caller takes the lexsort, which gives the
same order in more passes.
"""

from __future__ import annotations

import numpy as np

_SIGN = np.uint32(0x80000000)
_LOW31 = np.uint32(0x7FFFFFFF)


def descending32(values: np.ndarray) -> np.ndarray:
    """The float32 value of each of ``values`` (no NaN) as a uint32 that ascends as the value
    descends; -0.0 and 0.0 give one key, as they compare equal. A new array."""
    with np.errstate(over="ignore"):  # beyond float32's range: +-inf, in order
        f = np.asarray(values).astype(np.float32)
    f += np.float32(0.0)  # no negative zero
    u = f.view(np.uint32)
    # non-negative values: bits ascend with the value, so 0x7FFFFFFF - bits descends (below
    # 2^31); negative ones: bits ascend as the value descends, sign bit set (above)
    flip = u >> np.uint32(31)
    flip -= np.uint32(1)  # 0xFFFFFFFF where non-negative, 0 where negative
    flip &= _LOW31
    u ^= flip
    return u


def ascending32(keys: np.ndarray) -> np.ndarray:
    """The float32 values :func:`descending32` made ``keys`` of."""
    u = np.asarray(keys, dtype=np.uint32).copy()
    flip = u >> np.uint32(31)
    flip -= np.uint32(1)
    flip &= _LOW31
    u ^= flip
    return u.view(np.float32)


def bits(n: int) -> int:
    """Bits that hold every integer 0..n."""
    return max(int(n), 0).bit_length()


def score_order(qpos: np.ndarray, offsets: np.ndarray, scores: np.ndarray, *,
                float32: bool, tiekey: np.ndarray | None = None) -> np.ndarray | None:
    """The permutation ranking the rows of each query (rows grouped by query in query order:
    ``qpos`` the query of each row, non-decreasing, ``offsets`` their boundaries) by score
    descending, compared as float32 when ``float32``, then by ``tiekey`` descending (a docid's
    byte-order rank, integers >= 0) or, without it, in input order. None where the key does
    not fit in 64 bits, or where ``tiekey`` repeats within a query (the caller then sorts by
    more keys).

    Without ``tiekey``: ``np.lexsort((-scores, qpos))``'s order (stable), the scores compared
    as float32 when ``float32``, else as they are: the float32 key orders them but for scores
    that round to one float32 value, which are then put in order among themselves. With
    ``tiekey`` (and ``float32``): that of ``np.lexsort((-tiekey, -scores32, qpos))``.
    """
    n = len(scores)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if tiekey is not None and not float32:
        return None
    nq = len(offsets) - 1
    qbits = bits(nq - 1)
    if tiekey is None:
        low = np.arange(n, dtype=np.uint64)
        low -= np.repeat(offsets[:-1], np.diff(offsets)).astype(np.uint64)  # place in query
        lbits = bits(int(np.diff(offsets).max()) - 1)
    else:
        top = int(tiekey.max())
        if int(tiekey.min()) < 0:
            return None
        lbits = bits(top)
        low = np.uint64(top) - tiekey.astype(np.uint64)  # descending
    if qbits + 32 + lbits > 64:
        return None
    key = qpos.astype(np.uint64)
    key <<= np.uint64(32 + lbits)
    high = descending32(scores).astype(np.uint64)
    high <<= np.uint64(lbits)
    key |= high
    del high
    key |= low
    del low
    order = np.argsort(key)  # unique keys (checked below for tiekey): any sort gives the order
    if tiekey is not None:
        ranked = key[order]
        return None if (ranked[1:] == ranked[:-1]).any() else order
    if not float32:
        key >>= np.uint64(lbits)  # (query, float32 score)
        ranked = key[order]
        del key
        tied = ranked[1:] == ranked[:-1]
        del ranked
        if tied.any():
            _refine(order, tied, scores)
    return order


def _refine(order: np.ndarray, tied: np.ndarray, scores: np.ndarray) -> None:
    """Put in order, in place, the runs of ``order`` whose scores share one float32 value
    (``tied[i]``: places i and i + 1 do) but differ as given: by score descending, then input
    order (which the places within a run already follow)."""
    start = np.flatnonzero(np.diff(np.concatenate(([False], tied, [False])).astype(np.int8))
                           == 1)  # each run's first place
    end = np.flatnonzero(np.diff(np.concatenate(([False], tied, [False])).astype(np.int8))
                         == -1) + 1  # one past its last
    size = end - start
    places = np.repeat(start, size) + (np.arange(size.sum()) -
                                       np.repeat(np.cumsum(size) - size, size))
    rows = order[places]
    s = scores[rows]
    run = np.repeat(np.arange(len(start)), size)
    differ = np.zeros(len(start), dtype=bool)
    step = np.flatnonzero(s[1:] != s[:-1])
    differ[run[step][run[step] == run[step + 1]]] = True
    if not differ.any():  # every run is one score: input order already
        return
    keep = differ[run]
    places, rows, s, run = places[keep], rows[keep], s[keep], run[keep]
    order[places] = rows[np.lexsort((rows, -s, run))]
