"""Query structure shared by evaluation and training: query boundaries, docid tie keys, the
largest label a gain table covers. Arrays only; no file is read here."""

from __future__ import annotations

import numpy as np

from ..errors import InputError

MAX_LABEL = 1_000
"""Largest relevance label accepted: gain tables are indexed by label, and the ``exp`` gain
2^l - 1 overflows float64 beyond l = 1023. Public LTR datasets grade 0..4."""

MAX_CUTOFF = 100_000
"""Largest cutoff k, in evaluation and training: discount tables are sized max(k, largest
query), one float per rank."""


def docid_ranks(docid: np.ndarray | None, n: int) -> np.ndarray:
    """Rank of each docid in byte order (0 = smallest); zeros when there are none. Text is
    ranked by its UTF-8 bytes, ``bytes`` by themselves (any bytes, UTF-8 or not)."""
    if docid is None:
        return np.zeros(n, dtype=np.int64)
    docid = np.asarray(docid)
    if len(docid) != n:
        raise InputError(f"docid has {len(docid)} entries for {n} documents")
    if docid.dtype.kind == "O":
        kinds = {type(d) for d in docid.tolist()}
        if bytes in kinds and kinds != {bytes}:
            raise InputError("docid mixes bytes and other values ("
                             f"{', '.join(sorted(k.__name__ for k in kinds))}); give one kind")
        if kinds == {bytes}:
            docid = docid.astype(bytes)
    # numpy orders bytes arrays by their bytes, and str arrays by code point, which is UTF-8
    # byte order: bytes are compared as they are, whatever they encode
    _, inv = np.unique(docid if docid.dtype.kind == "S" else docid.astype(str),
                       return_inverse=True)
    return inv.astype(np.int64)


def offsets_from_qid(qid: np.ndarray, source: str | None = None) -> np.ndarray:
    """Query boundaries of a qid vector whose queries are contiguous."""
    qid = np.asarray(qid)
    if qid.ndim != 1:
        raise InputError("qid must be one-dimensional", source)
    if len(qid) == 0:
        return np.zeros(1, dtype=np.int64)
    starts = np.flatnonzero(qid[1:] != qid[:-1]) + 1
    offsets = np.concatenate(([0], starts, [len(qid)])).astype(np.int64)
    firsts = np.sort(qid[offsets[:-1]])
    if np.any(firsts[1:] == firsts[:-1]):
        seen: set = set()
        for row in offsets[:-1]:
            q = qid[row]
            if q in seen:
                raise InputError(
                    f"documents of qid {q} are not contiguous (the query reappears at row "
                    f"{row + 1})",
                    source,
                )
            seen.add(q)
    return offsets
