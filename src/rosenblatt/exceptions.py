"""Exceptions raised by rosenblatt."""


class NotSeparableError(ValueError):
    """Raised when an operation needs linearly separable data and the data is not."""


class ModelFileError(ValueError):
    """Raised when a model file is truncated, altered, foreign or from a newer format version."""


class DataFileError(ValueError):
    """Raised when a data file is malformed; the message names the file and the 1-based line."""
