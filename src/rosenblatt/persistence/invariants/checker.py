"""The checker language of the invariants: the decoded model (:class:`Plain`), the
error (:class:`BrokenInvariant`), and the vocabulary the declarations are written in
(:class:`Checker`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from ..._core.sparse import MAX_INDEX
from ..._core.validation import BrokenInvariant, is_finite
from .roles import parts, plays

if TYPE_CHECKING:  # pragma: no cover
    pass


@dataclass
class Plain:
    """An estimator as a model file describes it, decoded but not built.

    Attributes
    ----------
    key : str
        The class, as ``rosenblatt.persistence.REGISTRY`` names it.
    params : dict
        Constructor parameters (nested estimators are :class:`Plain` too).
    fitted : dict
        Fitted attributes (names ending in ``_``).
    properties : dict
        Fitted properties set through a setter (``TfidfVectorizer.idf_``).
    derived : dict
        Fitted attributes the file does not hold, rebuilt from the checked ones (the public
        weights of an engine state): what the class's check returned.
    """

    key: str
    params: dict
    fitted: dict
    properties: dict = field(default_factory=dict)
    derived: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.key.rpartition(".")[2]


def final_step(model: Plain) -> Plain:
    """A pipeline's last step (the classifier), else the model itself."""
    if plays(model.key, "pipeline"):
        return model.params["steps"][-1][1]
    return model


def is_index(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_column_selector(value: object) -> bool:
    """A column selector a model file may hold: a column name or index, or a list (or
    tuple) of names or of indices; never a callable, a slice or a mask."""
    items = value if isinstance(value, (list, tuple)) else [value]
    return all(isinstance(v, str) for v in items) or all(is_index(v) for v in items)


def column_indices(selector: Any, n_features: int, names: Sequence[str] | None = None) -> list[int]:
    """The indices of the input columns ``selector`` picks (see :func:`is_column_selector`).

    Raises
    ------
    ValueError
        If it is no such selector, names a column that ``names`` (the fitted
        ``feature_names_in_``, or None) does not hold, or an index past ``n_features``.
    """
    if not is_column_selector(selector):
        raise ValueError("must select columns by name or index (a str, an int or a list)")
    items = selector if isinstance(selector, (list, tuple)) else [selector]
    if items and isinstance(items[0], str):
        if names is None:
            raise ValueError("selects columns by name, but the model has no feature_names_in_")
        position = {name: k for k, name in enumerate(names)}
        unknown = [name for name in items if name not in position]
        if unknown:
            raise ValueError(f"selects columns the input does not have: {unknown!r:.80}")
        return [position[name] for name in items]
    beyond = [int(k) for k in items if not -n_features <= k < n_features]
    if beyond:
        raise ValueError(f"selects columns {beyond!r:.80} beyond the {n_features} of the input")
    return [int(k) % n_features for k in items]


# ---------------------------------------------------------------------- vocabulary
class Checker:
    """The fitted values of one model under check, and the words of the checks; every
    failure names the class and the attribute."""

    def __init__(self, model: Plain) -> None:
        self.model = model
        self.values = {**model.fitted, **model.properties}

    def fail(self, name: str, what: str) -> NoReturn:
        raise BrokenInvariant(f"{self.model.name}.{name} {what}")

    def param(self, name: str, default: Any = None) -> Any:
        return self.model.params.get(name, default)

    def fitted(self, *required: str) -> bool:
        """Whether the model is fitted: all of ``required`` present (True) or none of the
        fitted attributes at all (False, an unfitted model); anything between fails."""
        if not self.values:
            return False
        for name in required:
            if name not in self.values:
                self.fail(name, "is missing, though the model holds other fitted attributes")
        return True

    def array(
        self,
        name: str,
        *,
        value: Any = None,
        ndim: int | None = None,
        shape: tuple[int | None, ...] | None = None,
        kinds: str = "f",
        finite: bool = True,
        missing: bool = False,
        low: float | None = None,
        positive: bool = False,
        increasing: bool = False,
    ) -> np.ndarray:
        """The array ``name`` (or ``value``), checked: dimensions, shape (None entries
        free), dtype kinds, finite (``missing``: NaN allowed, as the mark of a missing
        value, infinities never), ``>= low``, ``> 0``, non-decreasing (NaN ignored)."""
        array = self.values.get(name) if value is None else value
        if not isinstance(array, np.ndarray):
            self.fail(name, f"must be an array; it is a {type(array).__name__}")
        if array.dtype.kind not in kinds:
            self.fail(name, f"must be an array of kind {kinds!r}; it is {array.dtype}")
        if ndim is not None and array.ndim != ndim:
            self.fail(name, f"must have {ndim} dimension(s); it has shape {array.shape}")
        if shape is not None and (
            array.ndim != len(shape)
            or any(want is not None and have != want for have, want in zip(array.shape, shape))
        ):
            wanted = tuple("any" if n is None else n for n in shape)
            self.fail(name, f"must have shape {wanted}; it has shape {array.shape}")
        if array.dtype.kind in "fiu" and array.size:
            if missing and array.dtype.kind == "f":
                if np.any(np.isinf(array)):
                    self.fail(name, "holds infinite values")
                present = array[~np.isnan(array)]
            else:
                present = array
                if finite and array.dtype.kind == "f" and not np.all(np.isfinite(array)):
                    self.fail(name, "holds values that are not finite (NaN or infinity)")
            if low is not None and present.size and np.min(present) < low:
                self.fail(name, f"holds values below {low}")
            if positive and present.size and np.min(present) <= 0:
                self.fail(name, "holds values that are not positive")
            if increasing and np.any(np.diff(present) < 0):
                self.fail(name, "is not sorted in increasing order")
        return array

    def integer(self, name: str, low: int = 0, high: int = MAX_INDEX, *, value: Any = None) -> int:
        value = self.values.get(name) if value is None else value
        if (
            not isinstance(value, (int, np.integer))
            or isinstance(value, (bool, np.bool_))
            or not low <= value <= high
        ):
            self.fail(name, f"must be an int from {low} to {high}; it is {value!r:.40}")
        return int(value)

    def number(self, name: str, *, nonzero: bool = False) -> float:
        value = self.values.get(name)
        if (
            not isinstance(value, (int, float, np.integer, np.floating))
            or isinstance(value, (bool, np.bool_))
            or not is_finite(value)
            or (nonzero and value == 0)
        ):
            kind = "a finite non-zero number" if nonzero else "a finite number"
            self.fail(name, f"must be {kind}; it is {value!r:.40}")
        return float(value)

    def boolean(self, name: str) -> bool:
        value = self.values.get(name)
        if not isinstance(value, (bool, np.bool_)):
            self.fail(name, f"must be True or False; it is {value!r:.40}")
        return bool(value)

    def counts(self, name: str) -> list[int]:
        """A list of ints >= 0 (epoch records)."""
        value = self.values.get(name)
        if not isinstance(value, list) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0 for v in value
        ):
            self.fail(name, "must be a list of counts (ints >= 0)")
        return value

    def classes(self, name: str = "classes_") -> np.ndarray:
        """Class labels: 1-D, at least two, sorted and distinct (as ``np.unique`` gives)."""
        classes = self.labels(name)
        if classes.shape[0] < 2:
            self.fail(name, f"must hold at least two classes; it holds {classes.shape[0]}")
        return classes

    def labels(self, name: str, *, value: Any = None, missing: bool = False) -> np.ndarray:
        """Distinct labels in sorted order, as ``np.unique`` gives them: numbers or str
        (``missing``: a float NaN may come last, where ``np.unique`` puts it)."""
        labels = self.array(name, value=value, ndim=1, kinds="biufUO", missing=missing)
        if labels.dtype.kind == "O" and not all(isinstance(v, str) for v in labels):
            self.fail(name, "holds objects that are not str")
        present = labels
        if missing and labels.dtype.kind == "f" and labels.size:
            if np.any(np.isnan(labels[:-1])):
                self.fail(name, "holds NaN elsewhere than last")
            present = labels[:-1] if np.isnan(labels[-1]) else labels
        if not np.all(present[1:] > present[:-1]):
            self.fail(name, "must hold distinct labels in sorted order")
        return labels

    def n_features(self) -> int:
        """``n_features_in_``, and ``feature_names_in_`` (if any) of that length."""
        n = self.integer("n_features_in_", 1)
        if self.values.get("feature_names_in_") is not None:
            names = self.array("feature_names_in_", shape=(n,), kinds="O")
            if not all(isinstance(v, str) for v in names):
                self.fail("feature_names_in_", "holds objects that are not str")
            if len(set(names)) != n:
                self.fail("feature_names_in_", "holds a name twice")
        return n

    def same(self, name: str, expected: Any) -> None:
        """The attribute is exactly ``expected`` (the value its training state gives)."""
        value = self.values.get(name)
        if isinstance(expected, np.ndarray):
            agrees = (
                isinstance(value, np.ndarray)
                and value.dtype == expected.dtype
                and value.shape == expected.shape
                and np.array_equal(value, expected, equal_nan=False)
            )
        else:
            agrees = type(value) is type(expected) and value == expected
        if not agrees:
            self.fail(name, "differs from what the model's training state gives")

    def estimator(
        self,
        value: Any,
        name: str,
        keys: Collection[str] | None = None,
        role: str = "a classifier of rosenblatt or a pipeline",
    ) -> Plain:
        """A nested estimator, of one of the classes ``keys`` (its ``role`` in words)."""
        if not isinstance(value, Plain) or (keys is not None and value.key not in keys):
            what = "an estimator" if keys is None else role
            self.fail(name, f"must be {what}; it is {_what(value)}")
        return value

    def columns(
        self, name: str, selector: Any, n_features: int, names: Sequence[str] | None = None
    ) -> list[int]:
        """The input columns a column selector picks, as indices: a column name (of
        ``feature_names_in_``) or index, or a list of names or of indices."""
        try:
            return column_indices(selector, n_features, names)
        except ValueError as exc:
            self.fail(name, str(exc))

    def part(self, value: Any, name: str) -> Plain:
        """A container's transformer: one rosenblatt stores, or a pipeline of them."""
        self.estimator(value, name, parts(), "a transformer rosenblatt stores")
        if plays(value.key, "pipeline") and not plays(final_step(value).key, "transformer"):
            self.fail(name, "must be a pipeline of transformers, without a classifier")
        return value


def _what(value: object) -> str:
    """What a value is, for messages (a class name, never a repr)."""
    return value.name if isinstance(value, Plain) else f"a {type(value).__name__}"


def rows_for(n_classes: int, multinomial: bool = False) -> int:
    """One neuron for two classes (unless multinomial), else one per class."""
    return n_classes if (multinomial or n_classes > 2) else 1
