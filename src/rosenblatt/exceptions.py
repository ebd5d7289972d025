"""Exceptions raised by rosenblatt."""


class NotSeparableError(ValueError):
    """Raised when an operation needs linearly separable data and the data is not."""


class ModelFileError(ValueError):
    """Raised when a model file is truncated, altered, foreign or from a newer format version."""
