"""Parameter and input validation shared by every estimator.

scikit-learn's own constraint machinery lives in private modules, so the
library keeps a small public-API-only equivalent here: each estimator declares
``_parameter_constraints`` (a dict of parameter name -> list of allowed
constraints) and calls :func:`validate_params` at the start of ``fit``.
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .config import MAX_LABEL_MAGNITUDE
from .sparse import is_sparse

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike, DTypeLike

    from .typing import MatrixLike


def is_finite(value: Any) -> bool:
    """``math.isfinite`` for a number from anywhere (a file, JSON, a caller): an int past a
    float's range is no finite float, where ``math.isfinite`` raises ``OverflowError``.

    Examples
    --------
    >>> is_finite(0.5), is_finite(float("nan")), is_finite(10**400), is_finite(2**53)
    (True, False, False, True)
    """
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


@dataclass(frozen=True)
class Interval:
    """A numeric range; ``closed`` is one of "both", "left", "right", "neither"."""

    kind: Any  # numbers.Real or numbers.Integral
    low: Any
    high: Any
    closed: str = "both"

    def accepts(self, value: Any) -> bool:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.kind):
            return False
        if self.kind is numbers.Integral and not isinstance(value, numbers.Integral):
            return False
        if not is_finite(value):  # NaN passes every comparison below; inf is no setting
            return False
        if self.low is not None:
            if value < self.low or (value == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and self.closed in ("left", "neither")):
                return False
        return True

    def __str__(self) -> str:
        kind = "an int" if self.kind is numbers.Integral else "a float"
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        if self.low is None and self.high is None:
            return f"{kind} (finite)"
        low = "-inf" if self.low is None else self.low
        high = "inf" if self.high is None else self.high
        return f"{kind} in the range {left}{low}, {high}{right} (finite)"

    def command_line_words(self) -> str:
        """The bounds alone: an option's text is parsed to the parameter's type already."""
        if self.low == 0 and self.high is None and self.closed in ("right", "neither"):
            return "positive"
        bounds = []
        if self.low is not None:
            closed = self.closed in ("both", "left")
            bounds.append(f"{'at least' if closed else 'greater than'} {self.low}")
        if self.high is not None:
            closed = self.closed in ("both", "right")
            bounds.append(f"{'at most' if closed else 'less than'} {self.high}")
        return " and ".join(bounds) or "a finite number"


@dataclass(frozen=True)
class NonZero:
    """Any finite number but zero (a constant input of either sign)."""

    def accepts(self, value: Any) -> bool:
        return Interval(numbers.Real, None, None).accepts(value) and value != 0

    def __str__(self) -> str:
        return "a finite non-zero number"


def _kind(value: Any) -> type | None:
    """What :class:`Options` compares values within: 1 == True and 1.0 == 1 in Python, but
    an option never matches a value of another kind (a number, a bool, a string, None)."""
    if isinstance(value, (bool, np.bool_)):
        return bool
    for kind in (numbers.Real, str, type(None)):
        if isinstance(value, kind):
            return kind
    return None


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values (strings, usually; bools, numbers and None too).

    Examples
    --------
    >>> Options((1, -1)).accepts(-1.0), Options((1, -1)).accepts(True)
    (True, False)
    >>> print(Options((True, False, "auto")))
    one of True, False, 'auto'
    """

    values: tuple

    def accepts(self, value: Any) -> bool:
        kind = _kind(value)
        return kind is not None and any(_kind(v) is kind and v == value for v in self.values)

    def __str__(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class InstanceOf:
    """Any instance of the given types (``None`` is spelled ``type(None)``)."""

    types: tuple

    def accepts(self, value: Any) -> bool:
        if bool not in self.types and isinstance(value, bool) and numbers.Integral in self.types:
            return False
        return isinstance(value, self.types)

    def __str__(self) -> str:
        names = ["None" if t is type(None) else t.__name__ for t in self.types]
        return "an instance of " + " or ".join(names)


@dataclass(frozen=True)
class Callable:
    """Any callable (a kernel function, an ``on_epoch`` callback)."""

    def accepts(self, value: Any) -> bool:
        return callable(value)

    def __str__(self) -> str:
        return "a callable"


def _command_line_words(constraint) -> str:
    if constraint == NONE:
        return "none"  # as --tol spells it
    words = getattr(constraint, "command_line_words", None)
    return words() if words else str(constraint)


BOOL = InstanceOf((bool, np.bool_))
CALLABLE = Callable()
NONE = InstanceOf((type(None),))
RANDOM_STATE = InstanceOf(
    (numbers.Integral, np.random.RandomState, np.random.Generator, type(None))
)
#: Samples (lines, rows) per chunk: the one rule for a chunk size, wherever one is given
#: (the readers, streaming, ``--chunk-size``).
CHUNK_SIZE = Interval(numbers.Integral, 1, None, closed="left")


class BrokenInvariant(ValueError):
    """A value that breaks an invariant its class declares (a model file's, a saved random
    source's or training state's)."""


def hold(ok: bool, broken: str) -> None:
    """Raise :class:`BrokenInvariant` with ``broken`` (what does not hold) unless ``ok``: the
    one spelling of a declared invariant's check where a reader checks field by field.

    Examples
    --------
    >>> hold(1 < 2, "one must be below two")
    >>> hold(False, "the order must be a permutation")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt._core.validation.BrokenInvariant: the order must be a permutation
    """
    if not ok:
        raise BrokenInvariant(broken)


class ParameterError(ValueError):
    """A value its rule refuses: the message names the parameter in Python's words, and
    ``name``, ``value`` and ``allowed`` let a caller word it otherwise (the command line
    names the option that set it: :meth:`for_option`)."""

    def __init__(self, message: str, *, name: str, value: Any, allowed: list) -> None:
        super().__init__(message)
        self.name, self.value, self.allowed = name, value, allowed

    def for_option(self, option: str) -> str:
        """The same refusal for the value given as ``option``, in one line.

        Examples
        --------
        >>> positive = Interval(float, 0, None, "neither")
        >>> try:
        ...     check_args("Perceptron", {"eta": [positive]}, {"eta": 0.0})
        ... except ParameterError as exc:
        ...     exc.for_option("--eta")
        '--eta must be positive; got 0.0'
        """
        return _option_refused(option, self.allowed, self.value)


def check_args(owner: str, constraints: dict, values: dict, kind: str = "argument") -> None:
    """Raise a :class:`ParameterError` naming the argument, its value and what is allowed.

    Examples
    --------
    >>> header = {"header": [Options((True, False, "auto"))]}
    >>> check_args("read", header, {"header": "yes"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt._core.validation.ParameterError: The 'header' argument of read must be one of \
True, False, 'auto'; got 'yes'.
    """
    for name, allowed in constraints.items():
        value = values[name]
        if any(c.accepts(value) for c in allowed):
            continue
        what = " or ".join(str(c) for c in allowed)
        raise ParameterError(
            f"The {name!r} {kind} of {owner} must be {what}; got {value!r}.",
            name=name,
            value=value,
            allowed=allowed,
        )


def check_option(option: str, allowed: list, value: Any) -> None:
    """Raise a one-line ValueError when a command line option's value is not ``allowed``.

    For the options a command checks itself, by a rule the library declares (as
    ``--chunk-size`` by :data:`CHUNK_SIZE`), worded as :meth:`ParameterError.for_option`
    words an estimator's parameter set by an option.

    Examples
    --------
    >>> check_option("--chunk-size", [CHUNK_SIZE], 0)
    Traceback (most recent call last):
    ...
    ValueError: --chunk-size must be at least 1; got 0
    """
    if not any(c.accepts(value) for c in allowed):
        raise ValueError(_option_refused(option, allowed, value))


def _option_refused(option: str, allowed: list, value: Any) -> str:
    what = " or ".join(_command_line_words(c) for c in allowed)
    return f"{option} must be {what}; got {value!r}"


def validate_params(estimator: Any) -> None:
    """Check an estimator's parameters against its ``_parameter_constraints``."""
    constraints = estimator._parameter_constraints
    # read as attributes: ``get_params`` works out the names from ``__init__``'s signature
    # on every call (45 us, a tenth of a small fit)
    values = {name: getattr(estimator, name) for name in constraints}
    check_args(type(estimator).__name__, constraints, values, kind="parameter")


def check_fitted(estimator: Any, attribute: str) -> None:
    """scikit-learn's ``check_is_fitted(estimator)``, imported only where ``estimator`` lacks
    ``attribute``, a fitted attribute its ``fit`` always sets (with it, the check passes)."""
    if not hasattr(estimator, attribute):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(estimator)


def check_class_weight(class_weight: dict, owner: str) -> None:
    """Class weights must be finite and non-negative, like sample weights."""
    for label, weight in class_weight.items():
        if (
            isinstance(weight, (bool, np.bool_))
            or not isinstance(weight, numbers.Real)
            or not (is_finite(weight) and float(weight) >= 0)
        ):
            raise ValueError(
                f"The class_weight of {owner} for class {label!r} is {weight!r}; class "
                "weights multiply the update step and must be finite numbers >= 0."
            )


def class_weighted(
    sample_weight: np.ndarray,
    class_weight: dict[Any, float] | str | None,
    classes: np.ndarray,
    target: np.ndarray,
) -> np.ndarray:
    """``sample_weight`` times the weight of each sample's class (``target``: indices into
    ``classes``); ``class_weight`` is None, "balanced" or a dict, as in scikit-learn."""
    if class_weight is None:
        return sample_weight
    from sklearn.utils.class_weight import compute_class_weight

    weights = compute_class_weight(class_weight, classes=classes, y=classes[target])
    return sample_weight * weights[target]


def check_sample_weight(
    sample_weight: ArrayLike | None, n_samples: int, dtype: DTypeLike
) -> np.ndarray:
    """Return sample weights as a 1-D array of ``dtype``, ones when None.

    A scalar is the same weight for every sample: it becomes the full array first and
    then goes through the same checks as an array (finite, >= 0, not all zero)."""
    if sample_weight is None:
        return np.ones(n_samples, dtype=dtype)
    sample_weight = np.asarray(sample_weight, dtype=dtype)
    if sample_weight.ndim == 0:
        sample_weight = np.full(n_samples, sample_weight, dtype=dtype)
    if sample_weight.ndim != 1:
        raise ValueError(
            f"Sample weights must be a 1D array or scalar; got an array of shape "
            f"{sample_weight.shape}."
        )
    if sample_weight.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight.shape == {sample_weight.shape}, expected ({n_samples},): "
            "give one weight per sample."
        )
    if not np.all(np.isfinite(sample_weight)):
        raise ValueError("sample_weight contains NaN or infinity; give finite weights.")
    if np.any(sample_weight < 0):
        raise ValueError("sample_weight contains negative values; weights must be >= 0.")
    if not np.any(sample_weight > 0):
        raise ValueError(
            "Sample weights must contain at least one non-zero number: with every weight "
            "zero there is nothing to learn from."
        )
    return np.ascontiguousarray(sample_weight)


def _small_integer_range(*arrays):
    """``(low, high)`` when every array holds integers in a range not much longer than
    the data (so counting beats sorting or hashing), else None."""
    if not all(a.dtype.kind in "iu" and a.size for a in arrays):
        return None
    low = min(int(a.min()) for a in arrays)
    high = max(int(a.max()) for a in arrays)
    return (low, high) if high - low <= 4 * arrays[0].size + 1024 else None


def distinct_labels(y: ArrayLike) -> np.ndarray:
    """``np.unique(y)``; integer labels in a small range are counted instead (several
    times faster on large ``y``, which every fit pays)."""
    y = np.asarray(y)
    bounds = _small_integer_range(y)
    if bounds is None:
        return np.unique(y)
    low, _ = bounds
    present = np.flatnonzero(np.bincount((y - low).astype(np.intp, copy=False)))
    return (present + low).astype(y.dtype)


def label_indices(classes: np.ndarray, y: ArrayLike) -> np.ndarray:
    """The index of each label of ``y`` in the sorted ``classes``; -1 where a label
    is not one of them."""
    y = np.asarray(y)
    bounds = _small_integer_range(y, classes)
    if bounds is not None:
        low, high = bounds
        lookup = np.full(high - low + 1, -1, dtype=np.intp)
        lookup[(classes - low).astype(np.intp)] = np.arange(classes.shape[0])
        return lookup[(y - low).astype(np.intp, copy=False)]
    index = np.searchsorted(classes, y)
    known = classes[np.minimum(index, classes.shape[0] - 1)] == y
    return np.where(known, index, -1)


def label_too_large(value: float | int) -> bool:
    """Whether a number is too large to be a class label: at or beyond 2**53 in magnitude,
    where whole numbers stop being exact in floating point. The one rule for labels read
    from files and labels given in memory.

    Examples
    --------
    >>> label_too_large(2.0**53 - 1), label_too_large(-(2.0**53)), label_too_large(2**53)
    (False, True, True)
    """
    return bool(abs(value) >= MAX_LABEL_MAGNITUDE)


def label_too_large_message(label: str) -> str:
    """What is wrong with a label :func:`label_too_large` refuses, and what to do."""
    return (
        f"the label {label} is too large for a class label (below 2**53 in magnitude, where "
        "every whole number is exact); number the classes with smaller values, or use names"
    )


def check_classes(y: ArrayLike, estimator_name: str) -> np.ndarray:
    """Check that ``y`` holds class labels with at least two classes; return them sorted."""
    classes = class_labels(distinct_labels(y), estimator_name)
    if classes.shape[0] < 2:
        raise ValueError(
            f"{estimator_name} needs samples of at least two classes to learn a decision "
            f"boundary; the data contains only one class: {classes[:1].tolist()[0]!r}. "
            "The number of classes has to be greater than one."
        )
    return classes


def class_labels(classes: np.ndarray, estimator_name: str) -> np.ndarray:
    """``classes`` (distinct labels, sorted), refused unless they are class labels."""
    # the kind of target (binary, multiclass, continuous...) shows in its distinct
    # values alone: checking those instead of y saves a second pass over y. Integers,
    # booleans, strings and whole finite floats are class labels as they are: only other
    # labels need scikit-learn's check (and its message), which `inspect` and `trace` skip.
    whole = classes.dtype.kind == "f" and bool(np.all(np.isfinite(classes) & (classes % 1 == 0)))
    if not (classes.dtype.kind in "biuUS" or whole):
        from sklearn.utils.multiclass import check_classification_targets

        check_classification_targets(classes)
    # whole numbers, floats or integers alike: the rule the readers apply to a file's labels
    if (whole or classes.dtype.kind in "iu") and classes.shape[0]:
        # sorted: the largest in magnitude is first or last (exact: no float for an int64)
        largest = max(classes[0].item(), classes[-1].item(), key=abs)
        if label_too_large(largest):
            shown = f"{largest:g}" if isinstance(largest, float) else str(largest)
            raise ValueError(f"{estimator_name}: " + label_too_large_message(shown))
    return classes


def check_same_classes(classes: ArrayLike, fitted: np.ndarray, fitted_by: str) -> None:
    """Refuse ``classes`` given again unless they are the ``fitted`` ones (``fitted_by``
    says where those came from): training that goes on keeps its classes.

    Examples
    --------
    >>> check_same_classes([1, 0], np.array([0, 1]), "the fitted model")
    >>> check_same_classes([0, 2], np.array([0, 1]), "the fitted model")
    Traceback (most recent call last):
    ...
    ValueError: classes=[0, 2] differs from the classes of the fitted model [0, 1].
    """
    given = np.unique(np.asarray(classes))
    if not np.array_equal(given, fitted):
        raise ValueError(
            f"classes={given.tolist()!r} differs from the classes of {fitted_by} "
            f"{fitted.tolist()!r}."
        )


def is_label_matrix(y: Any) -> bool:
    """Whether ``y`` has the shape of a label matrix: 2-D with several columns (a
    column vector is a 1-D ``y``, as scikit-learn reads it).

    Examples
    --------
    >>> is_label_matrix([[0, 1], [1, 1]]), is_label_matrix([0, 1]), is_label_matrix([[0], [1]])
    (True, False, False)
    """
    shape = getattr(y, "shape", None)
    if shape is None:
        if isinstance(y, (list, tuple)):  # its first row tells, without converting it all
            first = y[0] if len(y) else ""
            return isinstance(first, (list, tuple, np.ndarray)) and len(first) > 1
        try:
            shape = np.asarray(y).shape
        except (ValueError, TypeError):  # nothing numpy reads as an array
            return False
    return len(shape) == 2 and shape[1] > 1


def check_indicator(y: Any, *, n_labels: int | None = None) -> np.ndarray:
    """Check a label matrix, scikit-learn's multilabel ``y``: (n_samples, M) with
    ``M >= 2`` columns (``n_labels`` when given), every entry 0 or 1 (ints, floats
    or bools; dense or sparse). Returns it as C-ordered int8, one row per sample.

    Examples
    --------
    >>> check_indicator([[1, 0, 1], [0, 0, 1]]).tolist()
    [[1, 0, 1], [0, 0, 1]]
    >>> check_indicator([[0, 2], [1, 0]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: y is a label matrix of shape (2, 2) whose entries are not all 0 or 1 ...
    """
    if hasattr(y, "toarray"):  # a sparse indicator matrix
        y = y.toarray()
    y = np.asarray(y)
    if y.ndim != 2 or y.shape[1] < 2:
        raise ValueError(
            f"A label matrix (multilabel y) has shape (n_samples, n_labels) with at least "
            f"two labels; got y of shape {y.shape}."
        )
    if n_labels is not None and y.shape[1] != n_labels:
        raise ValueError(
            f"y has {y.shape[1]} label columns; the model was fitted on a label matrix of "
            f"{n_labels}: give the same labels, in the same columns."
        )
    if y.dtype.kind not in "biuf" or not np.all((y == 0) | (y == 1)):
        raise ValueError(
            f"y is a label matrix of shape {y.shape} whose entries are not all 0 or 1 "
            "(multilabel: 1 where a sample has the label). Several multiclass outputs "
            "are not one layer of binary neurons: fit one classifier per column, e.g. "
            "with sklearn.multioutput.MultiOutputClassifier."
        )
    return np.ascontiguousarray(y, dtype=np.int8)


def check_not_empty(X: Any) -> None:
    """Raise a clear error for data without samples or without features."""
    n_samples, n_features = X.shape
    if n_samples == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is "
            "required: pass at least one sample."
        )
    if n_features == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
            "required: pass at least one feature."
        )


def canonical_rows(X: Any) -> Any:
    """CSR rows with sorted column indices, each at most once per row (duplicates summed),
    as the compiled loops read them and model files keep them; dense rows as they are."""
    if hasattr(X, "has_canonical_format") and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


# ---------------------------------------------------------------------- rows and labels, fast
# The command line's readers hand over float64 arrays (or CSR matrices) of finite
# numbers and 1-D label arrays: exactly what scikit-learn's checks return. Those are
# taken as they are, so that `rosenblatt inspect` and `trace` do not import
# scikit-learn (which takes longer than their whole computation); any other input,
# and every error message, still goes through scikit-learn's checks.
def _ready_X(X) -> bool:
    """Whether ``check_array(X, accept_sparse="csr", dtype=np.float64)`` would return X as is."""
    if is_sparse(X):
        if X.format != "csr":
            return False
        values = X.data
    elif type(X) is np.ndarray and X.ndim == 2:
        values = X
    else:
        return False
    return X.dtype == np.float64 and min(X.shape) > 0 and bool(np.isfinite(values).all())


def _ready_y(y, n_samples: int) -> bool:
    """Whether ``check_X_y`` would return the labels ``y`` as they are."""
    if type(y) is not np.ndarray or y.ndim != 1 or y.shape[0] != n_samples:
        return False
    return y.dtype.kind in "biuUS" or (y.dtype.kind == "f" and bool(np.isfinite(y).all()))


def checked_Xy(X: MatrixLike, y: ArrayLike) -> tuple[Any, np.ndarray]:
    """Float64 X (dense or CSR) with at least one sample and feature, and 1-D labels y.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Patterns; arrays the readers return are taken as they are (no scikit-learn).
    y : array-like of shape (n_samples,)
        Labels.

    Returns
    -------
    X : ndarray or csr_matrix of float64
    y : ndarray of shape (n_samples,)
    """
    if not (_ready_X(X) and _ready_y(y, X.shape[0])):
        from sklearn.utils import check_X_y

        with _quiet_sums():
            X, y = check_X_y(X, y, accept_sparse="csr", dtype=np.float64)
    check_not_empty(X)
    return X, np.asarray(y)  # already an ndarray: asarray only tells mypy so


def checked_X(X: MatrixLike) -> Any:
    """Float64 X (dense or CSR) with at least one sample and feature (arrays the readers
    return are taken as they are, without scikit-learn)."""
    if not _ready_X(X):
        from sklearn.utils import check_array

        with _quiet_sums():
            X = check_array(X, accept_sparse="csr", dtype=np.float64)
    check_not_empty(X)
    return X


def _quiet_sums() -> Any:
    """scikit-learn's finiteness check sums the data first: finite values beyond about 1e308
    in all overflow that sum, and numpy would warn of an overflow that is not the data's
    (the check then finds every value finite, or names the one that is not)."""
    return np.errstate(over="ignore", invalid="ignore")


_AS_IS_OPTIONS = {"reset", "accept_sparse", "dtype", "order", "multi_output"}


def _taken_as_is(estimator: Any, X: Any, y: Any, options: dict[str, Any]) -> bool:
    """Whether ``validate_data(estimator, X, y, **options)`` returns the readers' ``X`` (and
    ``y``) as they are, raising nothing (as many features as a fitted model's)."""
    if set(options) - _AS_IS_OPTIONS or options.get("multi_output", False):
        return False
    if options.get("accept_sparse") != "csr" or not _ready_X(X):
        return False
    dtype = options.get("dtype", "numeric")
    if not (dtype == "numeric" or np.float64 in (dtype if isinstance(dtype, list) else [dtype])):
        return False
    if options.get("order") == "C" and not (is_sparse(X) or X.flags.c_contiguous):
        return False
    if not (isinstance(y, str) and y == "no_validation") and not _ready_y(y, X.shape[0]):
        return False
    reset = options.get("reset", True)
    return reset or getattr(estimator, "n_features_in_", X.shape[1]) == X.shape[1]


def validate(estimator: Any, X: Any, y: Any = "no_validation", **options: Any) -> Any:
    """scikit-learn's ``validate_data`` for an estimator's input, without numpy's warnings on
    finite data at the edge of the float range (see :func:`_quiet_sums`).

    What the readers give (float64 rows of finite numbers, dense or CSR; 1-D labels), which
    ``validate_data`` returns as it is, is taken so without importing scikit-learn, to the
    same effect (``reset`` sets ``n_features_in_`` and drops ``feature_names_in_``; a model
    fitted with feature names warns of rows without); the rest, and every error, goes
    through ``validate_data``.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> validate(BaseEstimator(), np.array([[1e308, -1e308], [1e308, 1e308]])).shape
    (2, 2)
    """
    if _taken_as_is(estimator, X, y, options):
        if options.get("reset", True):
            if hasattr(estimator, "feature_names_in_"):
                del estimator.feature_names_in_
            estimator.n_features_in_ = X.shape[1]
        elif getattr(estimator, "feature_names_in_", None) is not None:
            warnings.warn(
                "X does not have valid feature names, but "
                f"{type(estimator).__name__} was fitted with feature names",
                UserWarning,
                stacklevel=2,
            )
        return X if isinstance(y, str) and y == "no_validation" else (X, y)
    if not hasattr(estimator, "get_params"):  # validate_data reads the estimator's tags
        raise TypeError(
            f"{type(estimator).__module__}.{type(estimator).__name__} takes the readers' input "
            "(float64 rows of finite numbers, 1-D labels); use the estimator for any other."
        )
    from sklearn.utils.validation import validate_data

    with _quiet_sums():
        return validate_data(estimator, X, y, **options)
