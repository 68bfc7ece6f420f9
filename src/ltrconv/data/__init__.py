"""Datasets: the LETOR reader and binary cache (``letor``), the rules it reads a line by
(``lines``, shared with the content digest), synthetic data (``synthetic``), the dataset audit
(``audit``), and acquisition in parts: ``download``, ``archives``, ``verify`` (digests and the
manifest), composed by ``acquire``."""

from .letor import Dataset, DocidWarning, read_letor, read_scores, write_scores

__all__ = ["Dataset", "DocidWarning", "read_letor", "read_scores", "write_scores"]
