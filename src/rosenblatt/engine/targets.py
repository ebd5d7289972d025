"""Target coding: how class labels become what the neurons train on, and back.

One rule, written here once, for every classifier, figure and trace of the
library: with the classes sorted (as ``classes_`` holds them),

- **binary** (two classes): one neuron, whose target is +1 for ``classes[1]``
  and -1 for ``classes[0]``;
- **one-vs-rest** (``K`` classes): ``K`` independent neurons, neuron ``k``
  answering +1 for ``classes[k]`` and -1 for every other class;
- **multinomial** (``K`` classes): one weight vector per class, trained on the
  class index itself (the true class against its strongest rival), not on ±1.

The ±1 targets come as one row per neuron, shape ``(n_outputs, n_samples)``, so
a layer of independent outputs with several labels per sample (multilabel) fits
the same shape: only how a row is read off the labels differs.

Sign convention at 0: training counts ``y * f(x) <= 0`` as a mistake, so a zero
score is right for neither class; :meth:`TargetCoding.decode` gives it to the
first class (``classes[0]``, the -1 side), and a tie between class scores to the
lowest class index, as :func:`numpy.argmax` does.

The compiled loops take arrays, never this object: :attr:`TargetCoding.positives`
is the class index each neuron answers +1 for, and ``engine/kernels/primal.py`` derives
``y = +1 if label == positives[s] else -1`` from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.validation import label_indices
from .numpy_decision import labels_from_scores

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike

__all__ = ["BINARY", "MULTINOMIAL", "ONE_VS_REST", "TargetCoding"]

BINARY = "binary"
ONE_VS_REST = "one-vs-rest"
MULTINOMIAL = "multinomial"


class TargetCoding:
    """Labels to neuron targets, and scores back to labels, for sorted ``classes``.

    Build one with :meth:`binary`, :meth:`one_vs_rest`, :meth:`multinomial` or
    :meth:`for_classes` (the estimators' choice: one neuron for two classes).

    Parameters
    ----------
    classes : array-like of shape (n_classes,)
        The distinct class labels, sorted (``np.unique`` order, as ``classes_``).
    kind : {"binary", "one-vs-rest", "multinomial"}

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    kind : str
    positives : ndarray of shape (n_outputs,), int64
        The class index each output answers +1 for (``[1]`` for a binary neuron,
        ``0 .. K-1`` otherwise; for the multinomial model, the class of each row).

    Examples
    --------
    >>> import numpy as np
    >>> coding = TargetCoding.binary(np.array(["ham", "spam"]))
    >>> coding.positive(0)
    'spam'
    >>> coding.signed(np.array(["spam", "ham", "spam"]))
    array([[ 1., -1.,  1.]])
    >>> coding.decode(np.array([0.5, 0.0, -2.0])).tolist()  # a zero score: the first class
    ['spam', 'ham', 'ham']
    >>> ovr = TargetCoding.one_vs_rest(np.array([0, 1, 2]))
    >>> ovr.signs(ovr.encode(np.array([2, 0])))
    array([[-1.,  1.],
           [-1., -1.],
           [ 1., -1.]])
    """

    def __init__(self, classes: ArrayLike, kind: str) -> None:
        classes = np.asarray(classes)
        if kind not in (BINARY, ONE_VS_REST, MULTINOMIAL):
            raise ValueError(f"unknown target coding {kind!r}")
        if classes.ndim != 1 or classes.shape[0] < 2:
            raise ValueError(f"a target coding needs at least two classes; got {classes!r}")
        if kind == BINARY and classes.shape[0] != 2:
            raise ValueError(
                f"a binary coding has two classes; got {classes.shape[0]}: {classes.tolist()!r}"
            )
        self.classes = classes
        self.kind = kind
        if kind == BINARY:
            self.positives = np.array([1], dtype=np.int64)
        else:
            self.positives = np.arange(classes.shape[0], dtype=np.int64)

    # ------------------------------------------------------------------ builders
    @classmethod
    def binary(cls, classes: ArrayLike) -> TargetCoding:
        """One neuron: +1 for ``classes[1]``, -1 for ``classes[0]``."""
        return cls(classes, BINARY)

    @classmethod
    def one_vs_rest(cls, classes: ArrayLike) -> TargetCoding:
        """One neuron per class: neuron ``k`` answers +1 for ``classes[k]``."""
        return cls(classes, ONE_VS_REST)

    @classmethod
    def multinomial(cls, classes: ArrayLike) -> TargetCoding:
        """One weight vector per class, trained on the class index."""
        return cls(classes, MULTINOMIAL)

    @classmethod
    def for_classes(cls, classes: ArrayLike, *, multinomial: bool = False) -> TargetCoding:
        """The estimators' coding: multinomial if asked, else one neuron for two
        classes and one-vs-rest for more.

        Examples
        --------
        >>> TargetCoding.for_classes([0, 1]).kind, TargetCoding.for_classes([0, 1, 2]).kind
        ('binary', 'one-vs-rest')
        """
        classes = np.asarray(classes)
        if multinomial:
            return cls.multinomial(classes)
        return cls.binary(classes) if classes.shape[0] == 2 else cls.one_vs_rest(classes)

    # ------------------------------------------------------------------ facts
    @property
    def n_classes(self) -> int:
        return int(self.classes.shape[0])

    @property
    def n_outputs(self) -> int:
        """The neurons (state rows) the coding trains: 1 for binary, else one per class."""
        return int(self.positives.shape[0])

    def positive(self, k: int = 0) -> Any:
        """The class label output ``k`` answers +1 for (its row, multinomial)."""
        return self.classes[self.positives[k]].item()

    # ------------------------------------------------------------------ labels in
    def encode(self, y: ArrayLike) -> np.ndarray:
        """The class index of each label of ``y`` (int64); a ValueError for a label
        outside ``classes``."""
        y = np.asarray(y)
        index = label_indices(self.classes, y)
        if np.any(index < 0):
            unknown = np.unique(y[index < 0])
            raise ValueError(
                f"labels {unknown.tolist()!r} are not among the classes {self.classes.tolist()!r}"
            )
        return index.astype(np.int64)

    def signs(self, target: ArrayLike) -> np.ndarray:
        """±1 targets of each output from class indices: shape (n_outputs, n_samples),
        +1.0 where the sample's class is the output's positive class."""
        self._check_signed()
        target = np.asarray(target)
        return np.where(target[np.newaxis, :] == self.positives[:, np.newaxis], 1.0, -1.0)

    def signed(self, y: ArrayLike) -> np.ndarray:
        """±1 targets of each output from labels: shape (n_outputs, n_samples).

        Labels outside ``classes`` are -1 for every output (the rest).
        """
        self._check_signed()
        y = np.asarray(y)
        labels = self.classes[self.positives]
        return np.where(y[np.newaxis, :] == labels[:, np.newaxis], 1.0, -1.0)

    def _check_signed(self) -> None:
        if self.kind == MULTINOMIAL:
            raise ValueError(
                "the multinomial model trains on class indices (encode), not on ±1 targets"
            )

    # ------------------------------------------------------------------ labels out
    def decode(self, scores: ArrayLike) -> np.ndarray:
        """Labels from scores: a 1-D score > 0 is ``classes[1]`` (0 and below the first
        class), else the class of the largest column (the lowest index on ties).

        A multinomial model of two classes scores with one column (class 1 minus
        class 0), decoded as a binary score.
        """
        return labels_from_scores(self.classes, np.asarray(scores))

    def __repr__(self) -> str:
        return f"TargetCoding({self.kind!r}, classes={self.classes.tolist()!r})"
