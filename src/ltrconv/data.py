"""LETOR / SVMlight ranking data: reading, validation, binary caching.

A line reads ``LABEL qid:QID 1:v1 2:v2 ... #docid = D inc = ... prob = ...``; the documents
of one query are contiguous. Errors name the file and line.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from .errors import InputError

_DOCID_RE = re.compile(r"docid\s*=\s*(\S+)")


@dataclass(frozen=True)
class Dataset:
    """Documents grouped by query.

    ``X`` (n, d) float64 features, ``y`` (n,) int labels, ``qid`` (n,) query id per row,
    ``offsets`` (q+1,) so that query i spans rows ``offsets[i]:offsets[i+1]``,
    ``docid`` (n,) strings (empty where the file has none).
    """

    X: np.ndarray
    y: np.ndarray
    qid: np.ndarray
    offsets: np.ndarray
    docid: np.ndarray
    source: str = ""

    def __post_init__(self) -> None:
        n = len(self.y)
        if self.X.shape[0] != n or len(self.qid) != n or len(self.docid) != n:
            raise InputError(
                f"X ({self.X.shape[0]}), y ({n}), qid ({len(self.qid)}) and docid "
                f"({len(self.docid)}) must have the same number of rows",
                self.source or None,
            )

    @property
    def n_queries(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_docs(self) -> int:
        return len(self.y)

    @property
    def query_ids(self) -> np.ndarray:
        """The qid of each query, in file order."""
        return self.qid[self.offsets[:-1]]

    @cached_property
    def docid_rank(self) -> np.ndarray:
        """Rank of each docid in byte order, the tie-break key of ``docid-desc``."""
        return docid_ranks(self.docid, self.n_docs)

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    def save(self, path: str | Path) -> None:
        """Write an ``.npz`` cache atomically."""
        path = Path(path)
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as fh:
                np.savez(
                    fh,
                    X=self.X,
                    y=self.y,
                    qid=self.qid,
                    offsets=self.offsets,
                    docid=self.docid.astype(str),
                    source=np.array(self.source),
                )

    @classmethod
    def load(cls, path: str | Path) -> "Dataset":
        """Read a cache written by :meth:`save`, or parse a LETOR text file."""
        path = Path(path)
        if path.suffix != ".npz":
            return read_letor(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                return cls(
                    X=z["X"], y=z["y"], qid=z["qid"], offsets=z["offsets"],
                    docid=z["docid"], source=str(z["source"]),
                )
        except (OSError, KeyError, ValueError) as exc:
            raise InputError(f"not a dataset cache: {exc}", str(path)) from None


def docid_ranks(docid: np.ndarray | None, n: int) -> np.ndarray:
    """Rank of each docid in byte order (0 = smallest); zeros when there are none."""
    if docid is None:
        return np.zeros(n, dtype=np.int64)
    docid = np.asarray(docid)
    if len(docid) != n:
        raise InputError(f"docid has {len(docid)} entries for {n} documents")
    # numpy orders str arrays by code point, which is UTF-8 byte order
    _, inv = np.unique(docid.astype(str), return_inverse=True)
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
    firsts = qid[offsets[:-1]]
    if len(np.unique(firsts)) != len(firsts):
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


def _parse_header(path: str, lineno: int, line: str) -> tuple[int, str, str]:
    """Label, qid and docid of one data line (features are parsed in bulk)."""
    body, _, comment = line.partition("#")
    parts = body.split(None, 2)
    if len(parts) < 2:
        raise InputError("expected 'LABEL qid:QID FEATURE:VALUE ...'", path, lineno)
    label_tok, qid_tok = parts[0], parts[1]
    try:
        label_f = float(label_tok)
    except ValueError:
        raise InputError(f"label {label_tok!r} is not a number", path, lineno) from None
    if not label_f.is_integer() or label_f < 0:
        raise InputError(f"label {label_tok!r} is not a non-negative integer", path, lineno)
    if not qid_tok.startswith("qid:") or len(qid_tok) == 4:
        raise InputError(f"missing qid: second token is {qid_tok!r}, expected qid:QID", path, lineno)
    m = _DOCID_RE.search(comment)
    return int(label_f), qid_tok[4:], (m.group(1) if m else "")


def _check_features(path: str, lineno: int, line: str) -> None:
    body = line.partition("#")[0].split()
    last = 0
    for tok in body[2:]:
        idx, sep, val = tok.partition(":")
        if not sep or not idx.isdigit():
            raise InputError(f"malformed token {tok!r}, expected FEATURE:VALUE", path, lineno)
        if int(idx) < 1:
            raise InputError(f"feature index in {tok!r} must be >= 1", path, lineno)
        if int(idx) <= last:
            raise InputError(f"feature indices must increase, {tok!r} does not", path, lineno)
        last = int(idx)
        try:
            v = float(val)
        except ValueError:
            raise InputError(f"feature value in {tok!r} is not a number", path, lineno) from None
        if not np.isfinite(v):
            raise InputError(f"feature value in {tok!r} is not finite", path, lineno)


def read_letor(path: str | Path, n_features: int | None = None) -> Dataset:
    """Parse a LETOR/SVMlight file; raise :class:`InputError` naming file and line."""
    from sklearn.datasets import load_svmlight_file

    path = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path) from None
    labels: list[int] = []
    qids: list[str] = []
    docids: list[str] = []
    linenos: list[int] = []
    data_lines: list[str] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        label, q, d = _parse_header(path, lineno, stripped)
        labels.append(label)
        qids.append(q)
        docids.append(d)
        linenos.append(lineno)
        data_lines.append(stripped)
    if not labels:
        raise InputError("no data lines (empty file)", path)
    try:
        X, _, _ = load_svmlight_file(
            io.BytesIO("\n".join(data_lines).encode()),
            n_features=n_features,
            query_id=True,
            zero_based=False,
            dtype=np.float64,
        )
    except ValueError:
        for lineno, line in zip(linenos, data_lines):
            _check_features(path, lineno, line)
        raise InputError("cannot parse features", path) from None
    X = np.asarray(X.todense())
    bad = ~np.isfinite(X)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise InputError(f"feature {col + 1} is {X[row, col]} (not finite)", path, linenos[row])
    qid_arr = _qid_array(qids)
    try:
        offsets = offsets_from_qid(qid_arr, path)
    except InputError:
        seen: set[str] = set()
        prev = None
        for lineno, q in zip(linenos, qids):
            if q != prev and q in seen:
                raise InputError(
                    f"documents of qid {q} are not contiguous (the query reappears here)",
                    path, lineno,
                ) from None
            seen.add(q)
            prev = q
        raise
    return Dataset(
        X=X,
        y=np.asarray(labels, dtype=np.int64),
        qid=qid_arr,
        offsets=offsets,
        docid=np.asarray(docids, dtype=str),
        source=path,
    )


def _qid_array(qids: list[str]) -> np.ndarray:
    try:
        return np.asarray([int(q) for q in qids], dtype=np.int64)
    except ValueError:
        return np.asarray(qids, dtype=str)


def read_scores(path: str | Path, n_expected: int | None = None) -> np.ndarray:
    """One finite score per line; the line count must equal ``n_expected``."""
    path = str(path)
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", path) from None
    scores = np.empty(len(lines))
    for i, line in enumerate(lines):
        tok = line.split()
        if len(tok) != 1:
            raise InputError(f"expected one score per line, got {line!r}", path, i + 1)
        try:
            scores[i] = float(tok[0])
        except ValueError:
            raise InputError(f"score {tok[0]!r} is not a number", path, i + 1) from None
        if not np.isfinite(scores[i]):
            raise InputError(f"score {tok[0]!r} is not finite", path, i + 1)
    if n_expected is not None and len(scores) != n_expected:
        raise InputError(
            f"has {len(scores)} score lines but the data has {n_expected} documents", path
        )
    return scores


def write_scores(path: str | Path, scores: np.ndarray) -> None:
    """Write one score per line (repr precision), atomically."""
    path = Path(path)
    with atomic_path(path) as tmp:
        with open(tmp, "w") as fh:
            fh.writelines(f"{float(s)!r}\n" for s in scores)


class atomic_path:
    """Context manager yielding a temporary path beside ``path``; renamed on success only."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    def __enter__(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".part", dir=self.path.parent)
        os.close(fd)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would carry over to the result
        self.tmp = Path(tmp)
        return self.tmp

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            os.replace(self.tmp, self.path)
        else:
            self.tmp.unlink(missing_ok=True)
