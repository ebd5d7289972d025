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
    column: int | str | None = None  # a quoted name, or a 1-based position
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


class SolverError(ArithmeticError):
    """Raised when the LP or QP solver fails on data it should solve.

    A real outcome on large or badly scaled data, not a bug in the caller's code,
    hence not a :class:`RuntimeError`; the message says what to try (rescale the
    features, take a subset). :class:`rosenblatt.exceptions.NotSeparableError`,
    not this, reports data that have no separating hyperplane.

    Examples
    --------
    >>> from rosenblatt.exceptions import SolverError
    >>> issubclass(SolverError, ArithmeticError), issubclass(SolverError, RuntimeError)
    (True, False)
    """


class NumericOverflowError(ValueError, ArithmeticError):
    """Raised when training or a bound leaves the float range: a score, a weight or a bound
    became inf or NaN.

    Such a number answers no mistake test truly (``nan <= 0`` is false), so a run that went
    on would report updates it never made, or convergence it never reached. The message
    names the cause and the fix (a smaller learning rate, features on a smaller scale). A
    ``ValueError``: the parameters or the data are what must change.

    Examples
    --------
    >>> from rosenblatt.exceptions import NumericOverflowError as Overflow
    >>> issubclass(Overflow, ValueError), issubclass(Overflow, ArithmeticError)
    (True, True)
    """
