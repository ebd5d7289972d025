"""Target coding: how class labels become what the neurons train on, and back.

One rule, written here once, for every classifier, figure and trace of the
library: with the classes sorted (as ``classes_`` holds them),

- **binary** (two classes): one neuron, whose target is +1 for ``classes[1]``
  and -1 for ``classes[0]``;
- **one-vs-rest** (``K`` classes): ``K`` independent neurons, neuron ``k``
  answering +1 for ``classes[k]`` and -1 for every other class;
- **multinomial** (``K`` classes): one weight vector per class, trained on the
  class index itself (the true class against its strongest rival), not on ±1.
- **multilabel** (``M`` labels): the lecture notes' layer of ``M`` independent
  neurons, each sample tagged with any number of labels (scikit-learn's
  ``(n_samples, M)`` 0/1 indicator matrix, ``classes = 0 .. M-1``): neuron ``m``
  answers +1 where column ``m`` is 1, -1 where it is 0.

The ±1 targets come as one row per neuron, shape ``(n_outputs, n_samples)``, so
the multilabel layer fits the same shape as one-vs-rest: only how a row is read
off the labels differs (one-vs-rest: the sample's class is the neuron's; multilabel:
the sample's entry in the neuron's column is 1).

Sign convention at 0: training counts ``y * f(x) <= 0`` as a mistake, so a zero
score is right for neither class; :meth:`TargetCoding.decode` gives it to the
first class (``classes[0]``, the -1 side), and a tie between class scores to the
lowest class index, as :func:`numpy.argmax` does. A multilabel neuron's zero score
is a 0 in its column, by the same rule.

The compiled loops take arrays, never this object: :attr:`TargetCoding.positives`
is the class index each neuron answers +1 for (multilabel: the column it reads), and
``engine/kernels/primal.py`` derives ``y = +1 if label == positives[s] else -1`` from
it, or ``y = +1 if labels[i, positives[s]] != 0 else -1`` from the encoded matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.classes import outside_classes
from .._core.validation import check_indicator, label_indices
from .numpy_decision import labels_from_scores

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike

__all__ = [
    "BINARY",
    "MULTILABEL",
    "MULTINOMIAL",
    "ONE_VS_REST",
    "Growth",
    "TargetCoding",
    "fixed_classes_of",
]

BINARY = "binary"
ONE_VS_REST = "one-vs-rest"
MULTINOMIAL = "multinomial"
MULTILABEL = "multilabel"


class TargetCoding:
    """Labels to neuron targets, and scores back to labels, for sorted ``classes``.

    Build one with :meth:`binary`, :meth:`one_vs_rest`, :meth:`multinomial`,
    :meth:`multilabel` or :meth:`for_classes` (the estimators' choice: one neuron
    for two classes).

    Parameters
    ----------
    classes : array-like of shape (n_classes,)
        The distinct class labels, sorted (``np.unique`` order, as ``classes_``);
        for a multilabel coding the label columns ``0 .. M-1``.
    kind : {"binary", "one-vs-rest", "multinomial", "multilabel"}

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    kind : str
    positives : ndarray of shape (n_outputs,), int64
        The class index each output answers +1 for (``[1]`` for a binary neuron,
        ``0 .. K-1`` otherwise; for the multinomial model, the class of each row;
        multilabel: the indicator column each neuron reads).

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

    A layer of three independent neurons, each sample tagged with any of the labels:

    >>> layer = TargetCoding.multilabel(3)
    >>> Y = np.array([[1, 0, 1], [0, 0, 0]])
    >>> layer.signed(Y)
    array([[ 1., -1.],
           [-1., -1.],
           [ 1., -1.]])
    >>> layer.decode(np.array([[0.5, 0.0, -1.0], [2.0, 3.0, 0.1]]))  # a zero score: 0
    array([[1, 0, 0],
           [1, 1, 1]])
    """

    def __init__(self, classes: ArrayLike, kind: str) -> None:
        classes = np.asarray(classes)
        if kind not in (BINARY, ONE_VS_REST, MULTINOMIAL, MULTILABEL):
            raise ValueError(f"unknown target coding {kind!r}")
        if classes.ndim != 1 or classes.shape[0] < 2:
            raise ValueError(f"a target coding needs at least two classes; got {classes!r}")
        if kind == BINARY and classes.shape[0] != 2:
            raise ValueError(
                f"a binary coding has two classes; got {classes.shape[0]}: {classes.tolist()!r}"
            )
        if kind == MULTILABEL and not np.array_equal(classes, np.arange(classes.shape[0])):
            raise ValueError(
                f"a multilabel coding's classes are its label columns 0 .. M-1; got "
                f"{classes.tolist()!r}"
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
    def multilabel(cls, n_labels: int) -> TargetCoding:
        """One neuron per column of an ``(n_samples, n_labels)`` indicator matrix:
        neuron ``m`` answers +1 where column ``m`` is 1 (classes ``0 .. n_labels-1``)."""
        return cls(np.arange(n_labels), MULTILABEL)

    @classmethod
    def for_classes(
        cls, classes: ArrayLike, *, multinomial: bool = False, multilabel: bool = False
    ) -> TargetCoding:
        """The estimators' coding: multilabel or multinomial if asked, else one neuron
        for two classes and one-vs-rest for more.

        Examples
        --------
        >>> TargetCoding.for_classes([0, 1]).kind, TargetCoding.for_classes([0, 1, 2]).kind
        ('binary', 'one-vs-rest')
        >>> TargetCoding.for_classes([0, 1], multilabel=True).n_outputs  # one per label
        2
        """
        classes = np.asarray(classes)
        if multilabel:
            if multinomial:
                raise ValueError(
                    "the multinomial model picks one class per sample; a label matrix "
                    "tags a sample with several: it trains independent neurons"
                )
            return cls(classes, MULTILABEL)
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

    @property
    def is_multilabel(self) -> bool:
        """Whether a sample may carry several labels (an indicator matrix)."""
        return self.kind == MULTILABEL

    def positive(self, k: int = 0) -> Any:
        """The class label output ``k`` answers +1 for (its row, multinomial; its
        column, multilabel)."""
        return self.classes[self.positives[k]].item()

    # ------------------------------------------------------------------ labels in
    def encode(self, y: ArrayLike) -> np.ndarray:
        """The class index of each label of ``y`` (int64); a ValueError for a label
        outside ``classes``.

        Multilabel: ``y`` is the (n_samples, M) indicator matrix (dense or sparse),
        checked and returned as C-ordered int8 0/1, what the compiled loop reads.
        """
        if self.kind == MULTILABEL:
            return check_indicator(y, n_labels=self.n_classes)
        y = np.asarray(y)
        index = label_indices(self.classes, y)
        if np.any(index < 0):
            raise ValueError(outside_classes(np.unique(y[index < 0]), self.classes))
        return index.astype(np.int64)

    def signs(self, target: ArrayLike) -> np.ndarray:
        """±1 targets of each output from class indices: shape (n_outputs, n_samples),
        +1.0 where the sample's class is the output's positive class (multilabel:
        ``target`` is :meth:`encode`'s matrix, +1.0 where the output's column is 1)."""
        self._check_signed()
        target = np.asarray(target)
        if self.kind == MULTILABEL:
            return np.where(target.T[self.positives] != 0, 1.0, -1.0)
        return np.where(target[np.newaxis, :] == self.positives[:, np.newaxis], 1.0, -1.0)

    def signed(self, y: ArrayLike) -> np.ndarray:
        """±1 targets of each output from labels: shape (n_outputs, n_samples).

        Labels outside ``classes`` are -1 for every output (the rest). Multilabel:
        ``y`` is the indicator matrix, checked as :meth:`encode` checks it.
        """
        self._check_signed()
        if self.kind == MULTILABEL:
            return self.signs(self.encode(y))
        y = np.asarray(y)
        labels = self.classes[self.positives]
        return np.where(y[np.newaxis, :] == labels[:, np.newaxis], 1.0, -1.0)

    def _check_signed(self) -> None:
        if self.kind == MULTINOMIAL:
            raise ValueError(
                "the multinomial model trains on class indices (encode), not on ±1 targets"
            )

    # ------------------------------------------------------------------ classes that appear
    def grow(self, labels: ArrayLike) -> tuple[TargetCoding, Growth]:
        """The coding once ``labels`` (new, distinct, of the classes' kind) join the
        classes, and how each output of the grown coding carries over from this one.

        The classes stay sorted, so a grown model has the layout of one given every
        class up front. Each old output keeps its weights; a new class's output starts
        at zero. Two classes have one neuron, which scores the second class: grown to
        more, that neuron becomes the second class's one-vs-rest neuron as it is, and
        the first class's neuron is its negation, exactly the neuron that learning
        "first class against the rest" on the same presentations gives (a mistake and
        its step are those of the negated neuron, with the target's sign turned).

        Examples
        --------
        >>> coding, growth = TargetCoding.binary(np.array([1, 3])).grow([2])
        >>> coding.kind, coding.classes.tolist()
        ('one-vs-rest', [1, 2, 3])
        >>> growth.source.tolist(), growth.sign.tolist(), growth.class_map.tolist()
        ([0, -1, 0], [-1.0, 1.0, 1.0], [0, 2])
        >>> TargetCoding.multinomial(np.array([0, 2])).grow([1])[1].source.tolist()
        [0, -1, 1]
        """
        if self.kind == MULTILABEL:
            raise ValueError(
                "a label matrix's classes are its columns 0 .. M-1: a model fitted on one "
                "takes the same columns, and gains no class"
            )
        labels = np.asarray(labels)
        classes = np.concatenate([self.classes, labels])
        classes.sort(kind="stable")
        if labels.size == 0 or np.any(classes[1:] == classes[:-1]):
            raise ValueError(
                f"new classes must be labels not among {self.classes.tolist()!r}, each once; "
                f"got {labels.tolist()!r}"
            )
        class_map = np.searchsorted(classes, self.classes).astype(np.int64)
        grown = TargetCoding(classes, MULTINOMIAL if self.kind == MULTINOMIAL else ONE_VS_REST)
        source = np.full(grown.n_outputs, -1, dtype=np.int64)
        sign = np.ones(grown.n_outputs)
        if self.kind == BINARY:  # the neuron scores classes[1]; classes[0]'s is its negation
            source[class_map] = 0
            sign[class_map[0]] = -1.0
        else:
            source[class_map] = np.arange(self.n_outputs)
        return grown, Growth(class_map, source, sign)

    # ------------------------------------------------------------------ labels out
    def decode(self, scores: ArrayLike) -> np.ndarray:
        """Labels from scores: a 1-D score > 0 is ``classes[1]`` (0 and below the first
        class), else the class of the largest column (the lowest index on ties).

        A multinomial model of two classes scores with one column (class 1 minus
        class 0), decoded as a binary score. Multilabel: ``scores`` (n_samples, M)
        give the indicator matrix, 1 where a score is > 0 (0 for a zero score, as
        the binary rule gives it to the first class).
        """
        return labels_from_scores(self.classes, np.asarray(scores), multilabel=self.is_multilabel)

    def __repr__(self) -> str:
        return f"TargetCoding({self.kind!r}, classes={self.classes.tolist()!r})"


@dataclass(frozen=True)
class Growth:
    """How a model's outputs carry over when classes join its classes
    (:meth:`TargetCoding.grow`): what every part of a training state kept per output (the
    rows of the weights, the dual problems, the per-unit counts of a run) follows.

    Attributes
    ----------
    class_map : ndarray of int64, shape (n_old_classes,)
        The new index of each old class (the classes stay sorted).
    source : ndarray of int64, shape (n_outputs,)
        For each output of the grown coding, the old output it goes on from; -1 for a
        new class's output, which starts at zero (weights, counts, updates).
    sign : ndarray of float64, shape (n_outputs,)
        +1, or -1 where an output is the negation of its source (the first class's neuron
        of a grown binary model).
    """

    class_map: np.ndarray
    source: np.ndarray
    sign: np.ndarray

    def rows(self, part: np.ndarray, fill: Any = 0, *, signed: bool = True) -> np.ndarray:
        """``part`` (one row per old output, or a 1-D array of them) laid out for the
        grown outputs: each row its source's (times its sign for float rows, unless
        ``signed`` is False: what no sign turns, as a count of damage), ``fill`` for a new
        output. A negated zero stays ``+0.0``, as a sum started at zero keeps it.

        Examples
        --------
        >>> growth = Growth(np.array([0, 2]), np.array([0, -1, 0]), np.array([-1.0, 1, 1]))
        >>> growth.rows(np.array([[0.0, 2.5]])).tolist()
        [[0.0, -2.5], [0.0, 0.0], [0.0, 2.5]]
        >>> growth.rows(np.array([7]), fill=0).tolist()
        [7, 0, 7]
        """
        part = np.asarray(part)
        out = np.full((self.source.shape[0], *part.shape[1:]), fill, dtype=part.dtype)
        kept = self.source >= 0
        out[kept] = part[self.source[kept]]
        if signed and part.dtype.kind == "f":
            flip = self.sign < 0
            out[flip] = -out[flip] + 0.0  # + 0.0: -0.0 is +0.0, as an untouched weight is
        return out


def fixed_classes_of(meta: Any) -> bool:
    """Whether a training state's plain form (``to_state``'s ``meta``) says its classes are
    fixed: ``True`` where it says so, absent otherwise (classes that grow, and every state
    from before the key); anything else is refused.

    Examples
    --------
    >>> fixed_classes_of({"fixed_classes": True}), fixed_classes_of({})
    (True, False)
    """
    fixed = meta.get("fixed_classes", False)
    if fixed is not True and fixed is not False:
        raise ValueError(f"fixed_classes must be true or false; got {fixed!r:.20}")
    return fixed
