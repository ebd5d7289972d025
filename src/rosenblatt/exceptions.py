"""Exceptions raised by rosenblatt."""


class NotSeparableError(ValueError):
    """Raised when an operation needs linearly separable data and the data is not."""


class ModelFileError(ValueError):
    """Raised when a model file is truncated, altered, foreign or from a newer format version."""


class DataFileError(ValueError):
    """Raised when a data file is malformed; the message names the file and the 1-based line."""

    # set by the readers' ``fail``: where, what, the fix, and a code tests can match
    path: str | None = None
    line: int | None = None
    column: int | None = None
    what: str | None = None
    fix: str | None = None
    code: str | None = None
