"""LETOR / SVMlight ranking data: reading, validation, binary caching.

A line reads ``LABEL qid:QID 1:v1 2:v2 ... #docid = D inc = ... prob = ...``; the documents
of one query are contiguous. Lines, labels, qids and docids are read by the rules of
:mod:`ltrconv.data.lines` (shared with the content digest); errors name the file and line.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import NoReturn

import numpy as np

from ..errors import ECHO_LIMIT, InputError, LtrconvError, printable, shown
from ..evaluation.queries import docid_ranks, offsets_from_qid
from ..outputs import atomic_path
from .cache import read_cache
from .fileio import decode, read_bytes, read_text, refuse_nul
from .letor_bulk import parse_bulk
from .lines import MAX_FEATURES, data_lines, has_qid, parse_number, split_lines


class DocidWarning(UserWarning):
    """Docids that make the ``docid-desc`` tie order (the ``trec`` convention) ambiguous."""


@dataclass(frozen=True)
class Dataset:
    """Documents grouped by query.

    ``X`` (n, d) float64 features, ``y`` (n,) int labels, ``qid`` (n,) query id per row,
    ``offsets`` (q+1,) so that query i spans rows ``offsets[i]:offsets[i+1]``,
    ``docid`` (n,) strings (empty where the file has none), ``lines`` (n,) the 1-based line of
    each row in ``source`` when it was read from a text file (None otherwise). ``groups`` names
    the query sizes file that numbered the queries of a file without qids (its queries are
    then 1, 2, ... in that file, numbers that say nothing about the queries of another file),
    None when the qids were read.
    """

    X: np.ndarray
    y: np.ndarray
    qid: np.ndarray
    offsets: np.ndarray
    docid: np.ndarray
    source: str = ""
    lines: np.ndarray | None = field(default=None, compare=False, repr=False)
    groups: str | None = field(default=None, compare=False, repr=False)

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

    def check_labels(self, conventions) -> None:
        """Raise the :class:`InputError` of the first label one of ``conventions`` (each a
        :class:`~ltrconv.evaluation.conventions.Convention`) does not accept, naming the file
        and line (the file and the document's place when the lines are not known)."""
        from ..evaluation.labels import convention_labels

        for conv in conventions:
            convention_labels(self.y, conv, self.qid, self.source or None, self.lines)

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

    def with_width(self, n_features: int, what: str = "expected",
                   where: str | None = None) -> "Dataset":
        """The same data with ``n_features`` columns: missing trailing features are zeros.

        In the sparse LETOR/SVMlight format an absent feature *is* zero, so a file whose last
        features are zero everywhere may be narrower than its siblings; padding restores the
        width. Data wider than ``n_features`` is an :class:`InputError` naming ``where`` (by
        default the source).
        """
        d = self.X.shape[1]
        if d > n_features:
            raise InputError(f"has {d} features, more than the {n_features} features {what}",
                             where or self.source or None)
        if d == n_features:
            return self
        return replace(self, X=np.pad(self.X, ((0, 0), (0, n_features - d))))

    @classmethod
    def concat(cls, parts: "list[Dataset]", source: str | None = None) -> "Dataset":
        """The queries of ``parts`` one after another, each padded to the widest part's
        features (absent features are zeros). qids keep their type unless the parts mix
        numbers and strings, which become strings. ``source`` defaults to the parts' joined
        by ``+``."""
        if not parts:
            raise LtrconvError("nothing to concatenate: no datasets")
        width = max(p.X.shape[1] for p in parts)
        parts = [p.with_width(width) for p in parts]
        qids = [p.qid for p in parts]
        if len({q.dtype.kind for q in qids}) > 1:
            qids = [q.astype(str) for q in qids]
        sizes = np.concatenate([p.sizes for p in parts])
        return cls(
            X=np.vstack([p.X for p in parts]), y=np.concatenate([p.y for p in parts]),
            qid=np.concatenate(qids),
            offsets=np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
            docid=np.concatenate([p.docid for p in parts]),
            source="+".join(str(p.source) for p in parts) if source is None else source,
        )

    @classmethod
    def load(cls, path: str | Path, n_features: int | None = None,
             what: str = "expected", *, features: bool = True,
             docid_warning: bool = True) -> "Dataset":
        """Read a cache written by :meth:`save`, or parse a LETOR text file.

        With ``n_features`` the result has exactly that many columns (see :meth:`with_width`);
        ``what`` says where that width comes from, for the error message. ``features=False``
        checks the features but keeps none (``X`` has no column), for evaluation, which needs
        labels, qids and docids only: memory then follows the file's size, not its widest index.
        ``docid_warning=False`` leaves out the :class:`DocidWarning`, for a caller whose tie
        order does not read docids.
        """
        path = Path(path)
        if path.suffix != ".npz":
            return read_letor(path, n_features=n_features, what=what, features=features,
                              docid_warning=docid_warning)
        data = _load_npz(path)
        if not features:
            return replace(data, X=np.zeros((data.n_docs, 0)))
        return data if n_features is None else data.with_width(n_features, what, str(path))


def _load_npz(path: Path) -> Dataset:
    """A :class:`Dataset` from an ``.npz`` cache (:func:`ltrconv.data.cache.read_cache`)."""
    return Dataset(**read_cache(path))


def _check_features(path: str, lineno: int, feats: str, n_features: int | None,
                    what: str) -> None:
    """Raise the :class:`InputError` that the feature tokens ``feats`` of one line deserve."""
    last = 0
    limit = MAX_FEATURES if n_features is None else n_features
    for tok in feats.split(" ") if feats else ():  # single-spaced by data_lines
        idx, sep, val = tok.partition(":")
        if not sep or not (idx.isascii() and idx.isdigit()):
            raise InputError(f"malformed token {shown(tok)}, expected FEATURE:VALUE", path, lineno)
        i = int(idx) if len(idx.lstrip("0")) <= 18 else limit + 1
        if i < 1:
            raise InputError(f"feature index in {shown(tok)} must be >= 1", path, lineno)
        if i <= last:
            raise InputError(f"feature indices must increase, {shown(tok)} does not", path, lineno)
        if i > limit:
            index = idx.lstrip("0") if len(idx) <= ECHO_LIMIT else idx[: ECHO_LIMIT - 1] + "…"
            if n_features is None:
                raise InputError(
                    f"feature index {index} is above {MAX_FEATURES}, the largest accepted "
                    "(features are held densely, one float per row and index)", path, lineno)
            raise InputError(f"feature index {index} is beyond the {n_features} features {what}",
                             path, lineno)
        last = i
        v = parse_number(val)
        if v is None:
            raise InputError(f"feature value in {shown(tok)} is not a number", path, lineno)
        if not np.isfinite(v):
            raise InputError(f"feature value in {shown(tok)} is not finite", path, lineno)


CHUNK_TOKENS = 1 << 16
"""Feature tokens parsed at a time: a chunk's strings take about 60 bytes a token, so the reader
needs the dense matrix plus a few MB, whatever the file's size."""


def _feature_matrix(path: str, linenos: list[int], feats: list[str], n_features: int | None,
                    what: str, keep: bool = True) -> np.ndarray:
    """Dense float64 matrix of the feature tokens of each line (absent features are 0).

    Well-formed input (``INDEX:VALUE`` tokens, single-spaced, ASCII, indices increasing within
    1..the width) is parsed in bulk, a chunk of lines at a time; anything else goes to
    :func:`_check_features`, line by line from the first, for the error naming its line.
    Values go through Python's ``float`` (correctly rounded) and ``-0.0`` is stored as
    ``0.0``; the width is the largest index (at least 1) unless ``n_features`` fixes it.
    With ``keep=False`` the tokens are checked the same way and an ``n x 0`` matrix returned.
    """
    limit = MAX_FEATURES if n_features is None else n_features
    counts = np.array([f.count(":") for f in feats], dtype=np.int64)
    total = np.cumsum(counts)
    cuts = np.searchsorted(total, np.arange(CHUNK_TOKENS, total[-1], CHUNK_TOKENS)).tolist()
    bounds = sorted({0, len(feats), *cuts})
    width = n_features if n_features is not None else 1
    X = None
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        parsed = _parse_features(feats[lo:hi], counts[lo:hi])
        if parsed is None or parsed[1].max(initial=0) > limit:
            _locate_feature_error(path, linenos[:hi], feats[:hi], n_features, what)
        rows, index, values = parsed
        if not keep:
            if not np.isfinite(values).all():
                _locate_feature_error(path, linenos[:hi], feats[:hi], n_features, what)
            continue
        if X is None or index.max(initial=0) > width:
            width = max(width, int(index.max(initial=0)))
            try:
                grown = np.zeros((len(feats), width))
            except MemoryError:
                raise InputError(f"not enough memory for the dense {len(feats)} x {width} "
                                 "feature matrix", path) from None
            if X is not None:
                grown[:lo, :X.shape[1]] = X[:lo]
            X = grown
        X[lo + rows, index - 1] = values + 0.0  # + 0.0: a written -0.0 is an absent feature
    return X if keep else np.zeros((len(feats), 0))


def _parse_features(feats: list[str], counts: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(row, index, value) of every token of the lines ``feats`` (``counts`` colons each), or
    None unless they are well formed, indices increasing from 1 within each line."""
    body = " ".join(f for f in feats if f)
    pieces = body.replace(":", " ").split(" ") if body else []
    names = pieces[0::2]
    if body and not _well_formed(body):
        return None
    try:
        if counts.min() == counts.max() and names == _dense_names(int(counts[0]), len(counts)):
            index = np.tile(np.arange(1, counts[0] + 1, dtype=np.int64), len(counts))
        elif "".join(names).isdigit() or not names:
            index = np.array(names, dtype=np.int64)
        else:
            return None
        values = np.array(pieces[1::2], dtype=np.float64)
    except (ValueError, OverflowError):
        return None
    rows = np.repeat(np.arange(len(feats)), counts)
    if len(index) and (index.min() < 1 or np.any((np.diff(index) <= 0) & (rows[1:] == rows[:-1]))):
        return None
    return rows, index, values


_NOT_SEPARATOR = bytes(c for c in range(256) if c not in b" :")


def _well_formed(body: str) -> bool:
    """Whether ``body`` is ASCII tokens separated by single spaces, each with exactly one
    colon and something on both sides of it (digits are checked by the caller)."""
    if not body.isascii():
        return False
    raw = body.encode("ascii")
    separators = raw.translate(None, _NOT_SEPARATOR)
    n = separators.count(b":")
    return (separators == b": " * (n - 1) + b":" and b" :" not in raw and b": " not in raw
            and not raw.startswith(b":") and not raw.endswith(b":"))


def _dense_names(d: int, n: int) -> list[str]:
    """Feature names of ``n`` lines that each list features 1..d in order (LETOR's layout)."""
    return [str(i) for i in range(1, d + 1)] * n


def _locate_feature_error(path, linenos, feats, n_features, what) -> NoReturn:
    """Raise the error of the first line whose features :func:`_check_features` refuses."""
    for lineno, f in zip(linenos, feats):
        _check_features(path, lineno, f, n_features, what)
    raise InputError("cannot parse the features", path)  # not reached: the checks cover it


GROUP_SUFFIXES = (".query", ".group")
"""Where LightGBM (``train.txt.query``) and XGBoost (``train.txt.group``) keep the query sizes
of a data file whose lines have no qid: one number per line, the rows of each query in turn."""


def group_file(path: str | Path) -> str | None:
    """The group sizes file beside ``path`` (``PATH.query``, else ``PATH.group``), if any."""
    return next((str(path) + s for s in GROUP_SUFFIXES if Path(str(path) + s).is_file()), None)


def read_groups(path: str | Path) -> np.ndarray:
    """The query sizes of a ``.query``/``.group`` file: one integer >= 1 per line (blank lines
    skipped); :class:`InputError` naming the file and line otherwise."""
    path = str(path)
    sizes = []
    for lineno, line in enumerate(split_lines(read_text(path)), start=1):
        tok = line.split()
        if not tok:
            continue
        if len(tok) != 1 or not (tok[0].isascii() and tok[0].isdigit()) or int(tok[0]) < 1:
            raise InputError(f"expected one query size (an integer >= 1) per line, got "
                             f"{shown(line)}", path, lineno)
        sizes.append(int(tok[0]))
    if not sizes:
        raise InputError("no query sizes (empty file)", path)
    return np.asarray(sizes, dtype=np.int64)


def check_sizes(path: str, sizes: np.ndarray, sizes_from: str, n_rows: int) -> None:
    """Refuse query sizes that do not cover the ``n_rows`` data lines of ``path`` exactly
    (:class:`InputError` naming ``sizes_from``, the sizes file, and both counts)."""
    if int(sizes.sum()) != n_rows:
        raise InputError(f"the {len(sizes)} query sizes add up to {int(sizes.sum())} rows, but "
                         f"{printable(path)} has {n_rows} data lines", sizes_from)


def _grouped(path: str, groups, sizes_from: str, n_rows: int) -> np.ndarray:
    """The qid of each row from query sizes: query i (from 1) spans the next sizes[i-1] rows."""
    sizes = groups if not isinstance(groups, (str, Path)) else read_groups(groups)
    sizes = np.asarray(sizes)
    if sizes.ndim != 1 or sizes.dtype.kind not in "iu" or np.any(sizes < 1):
        raise InputError(f"query sizes must be integers >= 1, got {shown(sizes.tolist())}",
                         sizes_from)
    check_sizes(path, sizes, sizes_from, n_rows)
    return np.repeat(np.arange(1, len(sizes) + 1, dtype=np.int64), sizes)


def _check_groups(path: str, groups, sizes_from: str, offsets: np.ndarray, qid, linenos) -> None:
    """Refuse query sizes that disagree with the qids of a file that has them."""
    sizes = np.asarray(groups if not isinstance(groups, (str, Path)) else read_groups(groups))
    have = np.diff(offsets)
    if len(sizes) != len(have) or np.any(sizes != have):
        i = next((j for j in range(min(len(sizes), len(have))) if sizes[j] != have[j]),
                 min(len(sizes), len(have)))
        said = (f"query {i + 1} has {int(have[i])} rows by its qid {qid[offsets[i]]} (from line "
                f"{int(linenos[offsets[i]])})" if i < len(have) else "the data has no more queries")
        size = f"{int(sizes[i])}" if i < len(sizes) else "no size"
        raise InputError(f"the query sizes disagree with the qids of {printable(path)}: {said}, "
                         f"size {i + 1} is {size}", sizes_from)


def read_letor(path: str | Path, n_features: int | None = None, what: str = "expected", *,
               features: bool = True, docid_warning: bool = True, groups=None) -> Dataset:
    """Parse a LETOR/SVMlight file; raise :class:`InputError` naming file and line.

    ``n_features`` fixes the width: features the file omits are zeros (the sparse format's
    meaning), an index beyond it is an error (``what`` says whose width it is). Without it
    the width is the largest index present, at most :data:`MAX_FEATURES`. Duplicate docids
    within a query, and missing docids, raise a :class:`DocidWarning`: the ``docid-desc``
    tie order (the ``trec`` convention) cannot separate such documents.

    Lines, labels, qids and docids follow :mod:`ltrconv.data.lines`. Queries are grouped by
    the qid's number; since RankLib and trec_eval group by the qid as written, a file that
    writes one number two ways (``qid:07`` and ``qid:7``) is refused, naming both lines.
    A well-formed file is read in bulk (:mod:`ltrconv.data.letor_bulk`), any other line by line,
    to the same arrays.

    LightGBM's and XGBoost's files write no qid (``LABEL FEATURES...``) and keep the query sizes
    beside the data, in ``PATH.query`` or ``PATH.group`` (:data:`GROUP_SUFFIXES`), found there
    or given as ``groups`` (a file, or the sizes themselves): query i, numbered from 1, is the
    next ``sizes[i-1]`` lines. Sizes that do not add up to the data lines are refused, naming
    the file; given for a file with qids, they must agree with them.
    """
    path = str(path)
    sizes_from = (str(groups) if isinstance(groups, (str, Path)) else "groups") \
        if groups is not None else group_file(path)
    if groups is None:
        groups = sizes_from
    if n_features is not None and not (isinstance(n_features, (int, np.integer))
                                       and 1 <= n_features <= MAX_FEATURES):
        raise LtrconvError(f"n_features must be an integer in 1..{MAX_FEATURES}, got {n_features!r}")
    numbered = None
    raw = read_bytes(path)
    refuse_nul(raw, path)  # the fast path would keep one in a comment's docid
    limit = MAX_FEATURES if n_features is None else n_features
    bulk = parse_bulk(raw, limit, n_features, features)
    if bulk is not None:  # a well-formed file, read in bulk
        linenos, labels, qids, X = bulk.linenos, bulk.labels, bulk.qids, bulk.X
        docid_arr = bulk.docids.astype(str)
        if X is None:
            X = np.zeros((len(labels), 0))
    else:
        text = decode(raw, path)
        with_qid = groups is None or has_qid(text)
        linenos, labels, qids, docid_arr, X = _read_lines(text, path, n_features, what, features,
                                                          with_qid)
        if not with_qid:
            qids = _grouped(path, groups, sizes_from, len(labels))
            groups, numbered = None, sizes_from  # the sizes made the qids
    qid_arr = np.asarray(qids, dtype=np.int64)
    try:
        offsets = offsets_from_qid(qid_arr, path)
    except InputError:
        seen: set[int] = set()
        prev = None
        for lineno, q in zip(np.asarray(linenos).tolist(), qid_arr.tolist()):
            if q != prev and q in seen:
                raise InputError(
                    f"documents of qid {q} are not contiguous (the query reappears here)",
                    path, lineno,
                ) from None
            seen.add(q)
            prev = q
        raise
    if groups is not None:
        _check_groups(path, groups, sizes_from, offsets, qid_arr, linenos)
    if docid_warning:
        _warn_docids(path, docid_arr, qid_arr, offsets, linenos)
    return Dataset(
        X=X,
        y=np.asarray(labels, dtype=np.int64),
        qid=qid_arr,
        offsets=offsets,
        docid=docid_arr,
        source=path,
        lines=np.asarray(linenos, dtype=np.int64),
        groups=numbered,
    )


def _read_lines(text: str, path: str, n_features: int | None, what: str, features: bool,
                with_qid: bool = True):
    """(line numbers, labels, qids, docids, features) of the data lines of ``text``, line by
    line: errors name the line at fault (``with_qid=False``: lines without qid, each qid 0)."""
    labels: list[int] = []
    qids: list[int] = []
    docids: list[str] = []
    linenos: list[int] = []
    feats: list[str] = []
    for line in data_lines(text, path, with_qid=with_qid):
        if "_" in line.features:  # float() reads '1_0' as 10; LETOR tools refuse it
            _check_features(path, line.lineno, line.features, n_features, what)
        labels.append(line.label)
        qids.append(line.qid)
        docids.append(line.docid)
        linenos.append(line.lineno)
        feats.append(line.features)
    if not labels:
        raise InputError("no data lines (empty file)", path)
    X = _feature_matrix(path, linenos, feats, n_features, what, keep=features)
    bad = ~np.isfinite(X)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise InputError(f"feature {col + 1} is {X[row, col]} (not finite)", path, linenos[row])
    return linenos, labels, qids, np.asarray(docids, dtype=str), X


def _warn_docids(path: str, docid: np.ndarray, qid: np.ndarray, offsets: np.ndarray,
                 linenos: list[int]) -> None:
    """Warn once about missing docids and once about a docid repeated within a query."""
    consequence = ("the docid-desc tie order (trec convention) keeps file order among tied "
                   "documents it cannot tell apart")
    missing = np.flatnonzero(docid == "")
    if missing.size:
        warnings.warn(
            f"{printable(path)}:{linenos[int(missing[0])]}: {missing.size} of {len(docid)} "
            "documents have "
            f"no '#docid = ...' comment (the first is here); {consequence}",
            DocidWarning, stacklevel=3,
        )
    qpos = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    rows = np.flatnonzero(docid != "")
    order = rows[np.lexsort((docid[rows], qpos[rows]))]
    same = (qpos[order][1:] == qpos[order][:-1]) & (docid[order][1:] == docid[order][:-1])
    if not same.any():
        return
    n_dup = len({(int(qpos[r]), str(docid[r])) for r in order[1:][same]})
    seen: dict[tuple[int, str], int] = {}
    for r in rows:  # the first repeat in file order
        key = (int(qpos[r]), str(docid[r]))
        if key in seen:
            warnings.warn(
                f"{printable(path)}:{linenos[r]}: docid {printable(docid[r], ECHO_LIMIT)} repeats "
                f"within query {qid[r]} (first on "
                f"line {linenos[seen[key]]}); {n_dup} docid(s) repeat within a query in this file; "
                f"{consequence}",
                DocidWarning, stacklevel=3,
            )
            return
        seen[key] = int(r)


def read_scores(path: str | Path, n_expected: int | None = None, *,
                data: "Dataset | None" = None, count: bool = True) -> np.ndarray:
    """One finite score per line; the line count must equal ``n_expected`` (default: the
    documents of ``data``; not checked with ``count`` False, for a caller that names the
    query a short file leaves unscored).

    Lines and numbers follow :mod:`ltrconv.data.lines`: lines end at LF, CRLF or CR only (a
    form feed or U+2028 inside a line makes it malformed, not two lines), and a score is an
    ASCII number (``1_000`` and ``١٢`` are not).

    RankLib's ``-score`` output, ``QID <TAB> INDEX <TAB> SCORE`` per line (INDEX the document's
    place in its query, from 0), is read too, recognised by its first line's three fields: each
    line's score goes to the document it names in ``data`` (needed for this form), whatever
    the lines' order. A query or index the data lacks, a document scored twice or left without
    a score is refused, naming the line (:func:`read_ranklib_scores`)."""
    path = str(path)
    text = read_text(path)
    lines = split_lines(text)
    if lines and lines[-1] == "":
        lines.pop()
    if lines and len(lines[0].split()) == 3:
        if data is None:
            raise InputError("three fields a line, as RankLib's -score output (qid, index, "
                             "score), which needs its data file to be placed", path, 1)
        return read_ranklib_scores(path, lines, data)
    if n_expected is None and data is not None and count:
        n_expected = data.n_docs
    scores = np.empty(len(lines))
    for i, line in enumerate(lines):
        tok = line.split()
        if len(tok) != 1 or not line.strip(" \t").isprintable():
            raise InputError(f"expected one score per line, got {shown(line)}", path, i + 1)
        value = parse_number(tok[0])
        if value is None:
            raise InputError(f"score {shown(tok[0])} is not a number", path, i + 1)
        if not np.isfinite(value):
            raise InputError(f"score {shown(tok[0])} is not finite", path, i + 1)
        scores[i] = value
    if n_expected is not None and len(scores) != n_expected:
        raise InputError(
            f"has {len(scores)} score lines but the data has {n_expected} documents", path
        )
    return scores


def read_ranklib_scores(path: str, lines: list[str], data: Dataset) -> np.ndarray:
    """The scores of RankLib's ``-score`` output (``lines``, of file ``path``) in the order of
    ``data``'s documents: line ``QID INDEX SCORE`` scores document INDEX (from 0) of query QID
    (the qid's number, as the data reader groups by it)."""
    start = {int(q): int(o) for q, o in zip(data.query_ids.tolist(), data.offsets[:-1].tolist())}
    sizes = dict(zip(start, data.sizes.tolist()))
    scores = np.full(data.n_docs, np.nan)
    line_of = np.zeros(data.n_docs, dtype=np.int64)
    for i, line in enumerate(lines, start=1):
        tok = line.split()
        if len(tok) != 3 or not line.replace("\t", " ").isprintable():
            raise InputError(f"expected 'QID<TAB>INDEX<TAB>SCORE' (RankLib's -score output), got "
                             f"{shown(line)}", path, i)
        q, idx, value = tok
        if not re.fullmatch(r"-?[0-9]{1,19}", q) or int(q) not in start:
            raise InputError(f"query {shown(q)} is not in {printable(data.source or 'the data')}",
                             path, i)
        if not re.fullmatch(r"[0-9]{1,19}", idx) or int(idx) >= sizes[int(q)]:
            raise InputError(f"document {shown(idx)} of query {q}: the query has "
                             f"{sizes[int(q)]} documents (0..{sizes[int(q)] - 1}) in "
                             f"{printable(data.source or 'the data')}", path, i)
        v = parse_number(value)
        if v is None or not np.isfinite(v):
            raise InputError(f"score {shown(value)} is not a finite number", path, i)
        row = start[int(q)] + int(idx)
        if line_of[row]:
            raise InputError(f"document {idx} of query {q} is scored again (first on line "
                             f"{line_of[row]})", path, i)
        scores[row], line_of[row] = v, i
    if not line_of.all():
        row = int(np.flatnonzero(line_of == 0)[0])
        q = int(data.qid[row])
        where = (f", line {int(data.lines[row])} of {printable(data.source)}"
                 if data.lines is not None and data.source else "")
        raise InputError(f"no score for document {row - start[q]} of query {q}{where}; "
                         f"{int((line_of == 0).sum())} documents have none", path)
    return scores


def write_scores(path: str | Path, scores: np.ndarray) -> None:
    """Write one score per line (repr precision), by the rules of :mod:`ltrconv.outputs`."""
    path = Path(path)
    with atomic_path(path) as tmp:
        with open(tmp, "w") as fh:
            fh.writelines(f"{float(s)!r}\n" for s in scores)
