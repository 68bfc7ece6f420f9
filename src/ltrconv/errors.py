"""Errors raised for bad input; the CLI prints them as one line and exits non-zero."""


class LtrconvError(ValueError):
    """Any user-facing error: bad data file, bad config, bad parameter."""


class InputError(LtrconvError):
    """Malformed input, located as precisely as possible: ``file:line: message``."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)
        self.path = path
        self.line = line


class AcquireError(LtrconvError):
    """The dataset cannot be obtained or fails verification."""


class ExtractorMissing(AcquireError):
    """This machine cannot unpack the archive (no extractor); the archive itself may be fine."""
