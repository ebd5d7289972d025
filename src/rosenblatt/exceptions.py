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


class DistributedFitError(Exception):
    """Raised when a fit on a Dask cluster fails there: a task raised, or kept losing its worker.

    Nothing of the failed round was mixed and the estimator was not fitted; the
    message names the round and the partition, and the exception that stopped it
    is chained (``__cause__``). Not a ``ValueError``: the data and the parameters
    were accepted, and the same fit may succeed once the cluster is sound.
    """
