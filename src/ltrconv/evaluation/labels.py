"""Labels as a convention reads them, and as the kernels index their tables by them.

A convention accepts integer labels (``labels=int``), any real number (``real``) or any real
number truncated toward zero (``trunc``); negative labels are refused, counted as 0 or kept
(``negative``); a tool's largest label is ``max_label``. The gain of a real or negative label
is the gain formula's value there (``linear`` l, ``exp`` 2^l - 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .conventions import Convention


def convention_labels(y: np.ndarray, conv: Convention, qid, source: str | None,
                      lines: np.ndarray | None = None) -> np.ndarray:
    """The labels as ``conv`` reads them (float64), or an :class:`InputError` naming the first
    label it does not accept: a non-integer under ``labels=int``, a negative one under
    ``negative=refuse``, one above ``max_label``. ``trunc`` truncates toward zero,
    ``negative=zero`` counts negative labels as 0. With ``lines`` (each label's line in
    ``source``) the message names the line instead of the document's position."""
    lab = y.astype(np.float64)

    def refuse(mask: np.ndarray, why: str) -> None:
        i = int(np.flatnonzero(mask)[0])
        where = f" of document {i + 1}" if lines is None else ""
        where += f" (qid {qid[i]})" if qid is not None else ""
        raise InputError(f"label {_format_label(y[i])}{where} {why}", source,
                         None if lines is None else int(lines[i]))

    if conv.labels == "int" and not np.all(lab == np.floor(lab)):
        refuse(lab != np.floor(lab), f"is not an integer; convention {conv} takes integer labels "
                                     "(labels=int)")
    if conv.labels == "trunc":
        lab = np.trunc(lab)
    if conv.negative == "refuse" and np.any(lab < 0):
        refuse(lab < 0, f"is negative; convention {conv} refuses negative labels "
                        "(negative=refuse)")
    if conv.negative == "zero":
        lab = np.where(lab < 0, 0.0, lab)
    if conv.max_label is not None and np.any(lab > conv.max_label):
        refuse(lab > conv.max_label, f"is above {conv.max_label}, the largest label convention "
                                     f"{conv} accepts (max_label={conv.max_label})")
    return lab + 0.0  # no negative zero


def _format_label(x) -> str:
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


@dataclass(frozen=True)
class Labels:
    """One label vector as the kernels take it: ``index`` (int64) into per-convention tables of
    ``len(values)`` entries.

    Integer labels >= 0 index directly (``values`` = 0..top); other labels index the sorted
    distinct values (``values`` holds them). ``top`` is ERR's maximum grade.
    """

    index: np.ndarray
    values: np.ndarray
    top: float
    direct: bool

    @classmethod
    def of(cls, lab: np.ndarray, max_label: int | None) -> "Labels":
        if len(lab) and max_label is not None and lab.max() > max_label:
            raise InputError(f"label {_format_label(lab.max())} exceeds max_label {max_label}")
        if np.all(lab >= 0) and np.all(lab == np.floor(lab)):
            top = int(lab.max()) if max_label is None else int(max_label)
            return cls(lab.astype(np.int64), np.arange(top + 1, dtype=np.float64), top, True)
        values, index = np.unique(lab, return_inverse=True)
        top = float(values[-1]) if max_label is None else float(max_label)
        return cls(index.astype(np.int64).ravel(), values, top, False)

    def gain_table(self, conv: Convention) -> np.ndarray:
        return conv.gain_table(int(self.top)) if self.direct else conv.gains(self.values)

    def rel(self, conv: Convention) -> int:
        """``rel`` as an index: labels >= rel are relevant."""
        return conv.rel if self.direct else int(np.searchsorted(self.values, conv.rel))

    def err_stop(self) -> np.ndarray:
        """ERR's stopping probability of each label, (2^l - 1) / 2^top (negative l as 0)."""
        top = self.top
        if self.direct:
            return (np.exp2(np.arange(top + 1)) - 1.0) / np.exp2(max(top, 1))
        return (np.exp2(np.maximum(self.values, 0.0)) - 1.0) / np.exp2(max(top, 1.0))
