"""A job parameter that does not decide whether the job is redone.

Snakemake (8.x, 9.x) records a job's params of builtin types (numbers, strings, lists, dicts,
...) with its outputs and redoes the job when one of them changes; a value of any other type is
passed to the job but not recorded. Where to find a dataset, whether to download it and the
conventions file's path say nothing about the results (the data is verified by its digests,
the definitions by the file's digest), so they travel wrapped in :class:`Untracked`.
"""


class Untracked:
    """``value``, passed to the job as ``params.NAME.value`` and never recorded."""

    def __init__(self, value):
        self.value = value

    def __repr__(self) -> str:
        return f"Untracked({self.value!r})"
