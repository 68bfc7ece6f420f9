"""Datasets: the LETOR reader and binary cache (``letor``), synthetic data (``synthetic``), the
dataset audit (``audit``), and acquisition in parts: ``download``, ``archives``, ``verify``
(digests and the manifest), composed by ``acquire``."""

from .letor import Dataset, DocidWarning, read_letor, read_scores, write_scores

__all__ = ["Dataset", "DocidWarning", "read_letor", "read_scores", "write_scores"]
