"""Model files: a short text header that checks the file, then the model.

Format 1 reads::

    ltrconv-model
    format: 1
    ltrconv: 0.1.0
    algorithm: lambdamart
    payload: pickle
    length: 8065
    sha256: 64 lowercase hex digits
    (an empty line, then exactly ``length`` bytes of payload)

``sha256`` is the SHA-256 of every header byte before the ``sha256:`` line followed by the
payload. :func:`read_model` checks the magic line, the format version (a newer format is
refused with that reason), each header line, the payload length (a truncated file, or bytes
after the payload, are refused) and the digest, all before the payload is unpickled; any
failure is one :class:`ModelFileError` line naming the file.

The payload is the fitted ranker, pickled (an estimator of :mod:`ltrconv.rankers.sklearn` as the
ranker it subclasses, so that both write the same bytes). LambdaMART on LightGBM (``lambdamart_lightgbm``)
keeps LightGBM's own text model format in it (``model_str_``) and rebuilds the booster from that
text. Unpickling resolves only the class of the algorithm the header names (one of
:data:`ltrconv.rankers.registry.KNOWN`) and the few numpy and builtin names that arrays and
numbers need, so a file cannot ask for any other callable.

The digest guards against corruption (a damaged disk or transfer, a truncated copy), not
against a malicious file: whoever can write a model file can write a matching digest, and the
ranker classes and LightGBM's parser were not written to resist hostile input. Treat model files
like code: load only those written by you or by a pipeline you trust.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import os
import pickle
import re

from .._version import __version__
from ..errors import InputError, LtrconvError, check_regular, printable, shown
from ..outputs import atomic_path
from .registry import KNOWN as ALGORITHMS
from .params import RESULT_FREE
from .registry import get as get_entry

MAGIC = b"ltrconv-model\n"
FORMAT = 1
KEYS = ("format", "ltrconv", "algorithm", "payload", "length", "sha256")
MAX_LINE = 128  # longest header line accepted
_LINE_RE = re.compile(rb"([a-z0-9]+): ([\x21-\x7e]+)\n")
_DIGEST_RE = re.compile(r"[0-9a-f]{64}")
_LENGTH_RE = re.compile(r"0|[1-9][0-9]{0,15}")
_CHUNK = 1 << 20

# Names a pickled ranker refers to besides its own class: numpy arrays, dtypes and scalars
# (numpy 2 moved numpy.core to numpy._core), and builtins that numbers and containers use.
_ALLOWED = frozenset({
    ("numpy", "dtype"), ("numpy", "ndarray"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar"),
    ("builtins", "complex"), ("builtins", "set"), ("builtins", "frozenset"),
    # a training metric under a conventions file's convention holds the whole convention
    ("ltrconv.evaluation.spec", "MetricSpec"), ("ltrconv.evaluation.conventions", "Convention"),
})


class ModelFileError(InputError):
    """A model file that is not one, is damaged, or cannot be read."""


def write_model(path: str | os.PathLike, ranker) -> None:
    """Write the fitted ``ranker`` to ``path`` in format 1 (by the rules of :mod:`ltrconv.outputs`)."""
    if not hasattr(ranker, "n_features_in_"):
        raise LtrconvError(f"{ranker.name}: save called before fit")
    if ranker.name not in ALGORITHMS:
        raise LtrconvError(f"{ranker.name}: not one of the algorithms a model file can hold "
                           f"({', '.join(ALGORITHMS)})")
    payload = pickle.dumps(_as_ranker(ranker), protocol=5)
    head = MAGIC + "".join(f"{k}: {v}\n" for k, v in (
        ("format", FORMAT), ("ltrconv", __version__), ("algorithm", ranker.name),
        ("payload", "pickle"), ("length", len(payload)))).encode("ascii")
    digest = hashlib.sha256(head + payload).hexdigest()
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(head + f"sha256: {digest}\n\n".encode("ascii") + payload)


def _result_free_defaults(cls) -> dict:
    """The parameters of ``cls`` that change how a fit runs, not what it finds
    (:data:`.params.RESULT_FREE`), with their defaults."""
    return {name: inspect.signature(cls.__init__).parameters[name].default
            for name in RESULT_FREE if name in cls._get_param_names()}


def _as_ranker(model):
    """``model`` as its algorithm's ranker class: an estimator of :mod:`ltrconv.rankers.sklearn`
    (a subclass that adds no state) is written as the ranker it holds, so both write one file.
    A parameter that changes how a fit runs, not what it finds (``params.RESULT_FREE``: the
    threads), is written as its default: one fit on 1 or 8 cores writes one file."""
    cls = get_entry(model.name).load_class()
    if not isinstance(model, cls):
        return model
    free = _result_free_defaults(cls)
    if type(model) is cls and all(getattr(model, k) == v for k, v in free.items()):
        return model
    ranker = cls.__new__(cls)
    ranker.__dict__.update(model.__dict__)
    ranker.__dict__.update(free)
    return ranker


def read_model(path: str | os.PathLike):
    """The ranker stored at ``path``; :class:`ModelFileError` if the file fails any check."""
    where = os.fspath(path)
    try:
        check_regular(path)  # a FIFO would block until a writer comes
    except InputError as exc:
        raise ModelFileError(str(exc).removeprefix(f"{printable(where)}: "), where) from None
    try:
        with open(path, "rb") as fh:
            head, fields = _read_header(fh, where)
            payload = _read_payload(fh, int(fields["length"]), where)
    except OSError as exc:
        raise ModelFileError(f"cannot read the model: {exc.strerror or exc}", where) from None
    got = hashlib.sha256(head + payload).hexdigest()
    if got != fields["sha256"]:
        raise ModelFileError("damaged model file: its SHA-256 does not match its header (a "
                             "byte changed); copy it again or retrain", where)
    return _unpickle(payload, fields, where)


def _read_header(fh, where: str) -> tuple[bytes, dict[str, str]]:
    """The header bytes the digest covers, and the header's fields (checked)."""
    first = fh.readline(len(MAGIC))
    if first != MAGIC:
        if first[:1] == b"\x80":
            raise ModelFileError("a model file of an earlier ltrconv (an unchecked pickle), "
                                 "which is not loaded; retrain the model", where)
        raise ModelFileError("not an ltrconv model file", where)
    head = first
    fields: dict[str, str] = {}
    for lineno, key in enumerate(KEYS, start=2):
        line = fh.readline(MAX_LINE)
        m = _LINE_RE.fullmatch(line)
        if not line.endswith(b"\n"):
            raise ModelFileError(f"damaged model file: header line {lineno} is cut short or "
                                 "too long", where)
        if m is None or m.group(1).decode() != key:
            raise ModelFileError(f"damaged model file: header line {lineno} should read "
                                 f"'{key}: ...'", where)
        value = m.group(2).decode("ascii")
        if key == "format":
            _check_format(value, where)
        fields[key] = value
        if key != "sha256":
            head += line
    if not _LENGTH_RE.fullmatch(fields["length"]):
        raise ModelFileError(f"damaged model file: length {shown(fields['length'])} is not a "
                             "byte count", where)
    if not _DIGEST_RE.fullmatch(fields["sha256"]):
        raise ModelFileError("damaged model file: sha256 is not 64 lowercase hex digits", where)
    if fh.read(1) != b"\n":
        raise ModelFileError("damaged model file: no empty line after the header", where)
    return head, fields


def _check_format(value: str, where: str) -> None:
    if not re.fullmatch(r"[1-9][0-9]{0,5}", value):
        raise ModelFileError(f"damaged model file: format {shown(value)} is not a version number",
                             where)
    if int(value) > FORMAT:
        raise ModelFileError(f"model file format {value} is newer than this ltrconv "
                             f"{__version__} reads (format {FORMAT}); upgrade ltrconv", where)


def _read_payload(fh, length: int, where: str) -> bytes:
    buf = io.BytesIO()
    left = length
    while left:
        block = fh.read(min(left, _CHUNK))
        if not block:
            raise ModelFileError(f"truncated model file: {length - left} of {length} payload "
                                 "bytes", where)
        buf.write(block)
        left -= len(block)
    if fh.read(1):
        raise ModelFileError(f"damaged model file: bytes after the {length}-byte payload",
                             where)
    return buf.getvalue()


class _OtherRanker(pickle.UnpicklingError):
    """The payload holds a ranker of another algorithm than the header's."""


class _RankerUnpickler(pickle.Unpickler):
    """Resolves only the header's ranker class and the names in ``_ALLOWED``; ``classes``
    maps the other rankers' classes to None."""

    def __init__(self, data: bytes, classes: dict[tuple[str, str], type]):
        super().__init__(io.BytesIO(data))
        self.classes = classes

    def find_class(self, module: str, name: str):
        if (module, name) in self.classes:
            if self.classes[module, name] is None:
                raise _OtherRanker(f"{module}.{name}")
            return self.classes[module, name]
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refers to {module}.{name}, which no ranker holds")


def _unpickle(payload: bytes, fields: dict[str, str], where: str):
    algorithm, written_by = fields["algorithm"], fields["ltrconv"]
    if fields["payload"] != "pickle":
        raise ModelFileError(f"payload kind {shown(fields['payload'])} is not one this ltrconv "
                             "reads (pickle)", where)
    if algorithm not in ALGORITHMS:
        raise ModelFileError(f"unknown algorithm {shown(algorithm)} (written by ltrconv "
                             f"{written_by}); known: {', '.join(ALGORITHMS)}", where)
    # Only the header's algorithm is imported, not every ranker module; a payload naming
    # another ranker's class is not the model the header announces.
    cls = get_entry(algorithm).load_class()
    classes = {(cls.__module__, cls.__qualname__): cls}
    for name in ALGORITHMS:
        if name != algorithm:
            classes[tuple(get_entry(name).ranker.split(":"))] = None
    try:
        model = _RankerUnpickler(payload, classes).load()
    except _OtherRanker:
        raise ModelFileError(f"the payload is not a fitted {algorithm} model", where) from None
    except Exception as exc:  # the checks passed: a model this version cannot rebuild
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise ModelFileError(f"cannot load this {algorithm} model written by ltrconv "
                             f"{written_by} ({reason})", where) from None
    if type(model) is not get_entry(algorithm).load_class() or not model.__sklearn_is_fitted__():
        raise ModelFileError(f"the payload is not a fitted {algorithm} model", where)
    # a file holds the threads at their default (_as_ranker); one written before its ranker
    # had the parameter (RankNet's n_jobs) reads it so too
    for name, value in _result_free_defaults(cls).items():
        model.__dict__.setdefault(name, value)
    return model
