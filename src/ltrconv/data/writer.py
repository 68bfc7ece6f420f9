"""Writing a :class:`~ltrconv.data.letor.Dataset` as LETOR text, the form the reader reads.

One line per document, ``LABEL qid:Q 1:v1 2:v2 ... #docid = D``; the feature values in the
format ``precision`` names: ``".6f"`` (six decimals, the synthetic test data's) or
``FLOAT32_EXACT`` (``".9g"``: nine significant digits give back every float32 value exactly,
IEEE 754-2008 Sec. 5.12.2), which other tools reading the file (RankLib) then see as we do.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..outputs import atomic_path
from .letor import Dataset

FIXED6 = ".6f"
FLOAT32_EXACT = ".9g"
_PRECISION = re.compile(r"\.\d{1,2}[fge]")


def write_letor(data: Dataset, path: str | Path, *, precision: str = FIXED6,
                docids: bool = True, block: int = 20_000) -> None:
    """Write ``data`` to ``path`` as LETOR text, atomically (whole or not at all).

    ``precision``: the format spec of a feature value, ``.Nf``, ``.Ng`` or ``.Ne`` (N < 100);
    ``docids``: end each line with ``#docid = D`` (also when ``D`` is empty). ``block`` rows are
    formatted at once, which bounds the scratch memory; the bytes do not depend on it.
    """
    if not isinstance(precision, str) or not _PRECISION.fullmatch(precision):
        raise InputError(f"precision must be a format spec such as '.6f' or '.9g', got {precision!r}")
    if block < 1:
        raise InputError(f"block must be >= 1, got {block}")
    features = " ".join(f"{j + 1}:%{precision}" for j in range(data.X.shape[1]))
    with atomic_path(path) as tmp, open(tmp, "w") as fh:
        for a in range(0, data.n_docs, block):
            b = min(a + block, data.n_docs)
            X = np.asarray(data.X[a:b], dtype=np.float64).tolist()
            tails = ([f" #docid = {d}" for d in data.docid[a:b].tolist()] if docids
                     else [""] * (b - a))
            fh.write("".join(f"{y} qid:{q} {features % tuple(x)}{t}\n" for y, q, x, t in
                             zip(data.y[a:b].tolist(), data.qid[a:b].tolist(), X, tails)))
