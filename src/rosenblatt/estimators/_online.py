"""What every perceptron that learns online shares: labels, weights, classes, history.

The linear perceptrons (:mod:`rosenblatt.estimators._base`) and the kernel perceptron
(:mod:`rosenblatt.estimators.kernel`) keep different training states (primal, dual) but
check their batches, weigh their samples, draw their ``partial_fit`` orders and
keep their epoch record the same way; this mixin is that one way.

Labels come as a 1-D ``y`` of class labels, or as scikit-learn's multilabel
indicator matrix, (n_samples, M) of 0/1: the lecture notes' layer of ``M``
independent neurons, trained in one pass over the data (``multilabel_``, with
``classes_ = 0 .. M-1`` as scikit-learn's multilabel classifiers set it). Which
neuron answers +1 for which sample is the target coding's
(:class:`~rosenblatt.engine.targets.TargetCoding`), as for every other kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.classes import new_classes, unseen_labels
from .._core.validation import (
    check_classes,
    check_indicator,
    check_same_classes,
    check_sample_weight,
    class_weighted,
    is_label_matrix,
)
from ..engine.orders import random_source
from ..engine.targets import Growth, TargetCoding

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import MatrixLike

INDEX_DTYPE = np.int64


class OnlineLearnerMixin:
    """Label encoding, sample weights, ``partial_fit`` classes and orders, history.

    Used by estimators with ``classes_``, ``class_weight``, ``random_state`` and a
    ``training_state_`` whose ``rng`` keeps the order stream of ``partial_fit``.
    """

    max_iter: int
    warm_start: bool
    mistakes_per_epoch_: list[int]
    partial_fit: Callable[..., Any]
    classes_: Any
    class_weight: Any
    training_state_: Any

    @property
    def _multinomial(self) -> bool:
        """One vector per class (the linear perceptrons' ``multi_class="multinomial"``)."""
        return False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # an indicator y trains a layer of independent neurons (never the multinomial model)
        tags.classifier_tags.multi_label = not self._multinomial
        return tags

    # ------------------------------------------------------------------ labels
    @property
    def _multilabel(self) -> bool:
        """Whether the model learnt a label matrix (files from before it: no)."""
        return bool(getattr(self, "multilabel_", False))

    @property
    def _coding(self) -> TargetCoding:
        """How ``classes_`` become the neurons' ±1 targets, and scores labels."""
        return TargetCoding.for_classes(
            self.classes_, multinomial=self._multinomial, multilabel=self._multilabel
        )

    def _classes_of(self, y):
        """``(classes_, multilabel_)`` of a model that starts learning from ``y``: the
        distinct labels of a 1-D ``y``, or the label columns ``0 .. M-1`` of an
        (n_samples, M) indicator matrix."""
        if is_label_matrix(y):
            self._check_multilabel_allowed()
            return np.arange(check_indicator(y).shape[1]), True
        return check_classes(y, type(self).__name__), False

    def _check_multilabel_allowed(self):
        if self._multinomial:
            raise ValueError(
                f"{type(self).__name__}(multi_class='multinomial') picks one class per "
                "sample (the highest score), but y is a label matrix (multilabel: a sample "
                "may have several labels). Use multi_class='ovr': one independent neuron "
                "per label."
            )

    def _check_label_form(self, y):
        """A fitted model goes on learning the kind of ``y`` it learnt: class labels,
        or a label matrix of the same columns."""
        if is_label_matrix(y) == self._multilabel:
            return
        if self._multilabel:
            raise ValueError(
                f"{type(self).__name__} was fitted on a label matrix of "
                f"{self.classes_.shape[0]} labels (multilabel); y must be the same "
                f"(n_samples, {self.classes_.shape[0]}) 0/1 matrix, got shape "
                f"{np.shape(y)}. Refit (warm_start=False) to learn class labels."
            )
        raise ValueError(
            f"{type(self).__name__} was fitted on class labels {self.classes_.tolist()!r}; "
            f"y of shape {np.shape(y)} is a label matrix (multilabel). Refit "
            "(warm_start=False) to learn a label matrix."
        )

    def _encode(self, y, coding=None):
        """Labels as the neurons read them (the coding's one rule: class indices, or the
        checked 0/1 label matrix), refusing labels outside ``classes_`` (or ``coding``'s:
        the classes a batch is about to add, :meth:`_coding_for`)."""
        self._check_label_form(y)
        return (self._coding if coding is None else coding).encode(y)

    def _sample_weight(
        self, sample_weight, target, n_samples, *, allow_balanced=True, classes=None
    ):
        """Per-sample update steps: ``sample_weight`` times the class weights (of
        ``classes``, the indices of ``target``; default ``classes_``)."""
        sample_weight = check_sample_weight(sample_weight, n_samples, np.float64)
        if self.class_weight is None:
            return sample_weight
        if self._multilabel:
            return self._label_matrix_weights(sample_weight)
        if self.class_weight == "balanced" and not allow_balanced:
            raise ValueError(
                "class_weight='balanced' needs the whole class distribution, which "
                "partial_fit does not see; pass a dict of class weights instead."
            )
        classes = self.classes_ if classes is None else classes
        return class_weighted(sample_weight, self.class_weight, classes, target)

    def _label_matrix_weights(self, sample_weight):
        """``class_weight`` with a label matrix: weighting a class weighs its samples,
        and a sample of several labels has no one class; only weights that change
        nothing (a dict of ones) are taken."""
        trivial = isinstance(self.class_weight, dict) and all(
            w == 1 for w in self.class_weight.values()
        )
        if not trivial:
            raise ValueError(
                f"class_weight={self.class_weight!r} weighs the samples of each class, "
                "but with a label matrix (multilabel) a sample may have several labels or "
                "none. Use class_weight=None, and sample_weight to weigh samples."
            )
        return sample_weight

    def _first_classes(self, classes, y):
        """``(classes_, multilabel_, fixed)`` of a model that starts learning with a
        ``partial_fit`` of ``y``: the ``classes`` given, sorted, which are then fixed (a label
        outside them is refused), or, without them, the labels of ``y`` (``classes=None`` is
        ``classes=np.unique(y)``, but a later label adds a class). A label matrix ``y``
        (multilabel) has its own classes, its columns ``0 .. M-1``: ``classes`` may be left
        out, or be them."""
        if is_label_matrix(y):
            labels, multilabel = self._classes_of(y)
            if classes is not None and not np.array_equal(np.unique(classes), labels):
                raise ValueError(
                    f"classes={np.unique(classes).tolist()!r}, but y is a label matrix of "
                    f"{labels.shape[0]} columns (multilabel), whose classes are "
                    f"{labels.tolist()!r}: pass those, or classes=None."
                )
            return labels, multilabel, False
        if classes is None:
            return check_classes(y, type(self).__name__), False, False
        return check_classes(np.asarray(classes), type(self).__name__), False, True

    def _coding_for(self, y=None, classes=None):
        """``(coding, growth)``: the coding a fitted model learns ``y`` with, and how its
        outputs carry over (None: no class joins). Changes nothing: the caller takes it
        (:meth:`_take_classes`) once the rest of the batch is checked, so that a refused
        batch leaves the model as it was.

        ``classes`` given again must hold every class of the model and may add more; ``y``'s
        labels must then be among them. Without them, a label the model has not seen adds a
        class, unless its classes are fixed (given on the first ``partial_fit``): then it is
        refused, as is every label outside a label matrix's columns."""
        if y is not None and is_label_matrix(y) or self._multilabel:
            if classes is not None:
                check_same_classes(classes, self.classes_, "the label matrix's columns")
            return self._coding, None
        fixed = self.training_state_.fixed_classes
        new = new_classes(self.classes_, y, classes, fixed=fixed, owner=type(self).__name__)
        if new.size == 0:
            return self._coding, None
        self._check_can_grow(new)
        return self._coding.grow(new)

    def _check_can_grow(self, new):
        """Refuse classes a model cannot take (a learner's own limits)."""

    def _take_classes(self, coding: TargetCoding | None, growth: Growth | None) -> None:
        """The classes of ``coding`` become the model's, its training state grown by
        ``growth`` (:meth:`_coding_for`'s); nothing when ``growth`` is None."""
        if coding is None or growth is None:
            return
        self.classes_ = coding.classes
        self.training_state_.grow(growth)

    def add_classes(self, classes: Any) -> Any:
        """Add classes to the fitted model before any of their samples comes.

        A new class gets a unit starting at zero (its weights, and its presentations as a
        one-vs-rest neuron), as a batch holding its label would add it; ``classes_`` stays
        sorted. Classes the model has are left as they are. Classes fixed by
        ``partial_fit(classes=...)`` can be extended this way too (declaring them is the
        caller's choice).

        Parameters
        ----------
        classes : array-like of shape (n_new,)

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from rosenblatt import Perceptron
        >>> clf = Perceptron().partial_fit([[0.0, 1.0], [1.0, 0.0]], [0, 1])
        >>> clf.add_classes([2]).classes_, clf.coef_.shape
        (array([0, 1, 2]), (3, 2))
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "training_state_")
        given = np.asarray(classes)
        new = unseen_labels(self.classes_, given, type(self).__name__)
        if self._multilabel and new.size:
            self._coding.grow(new)  # the coding's refusal: a label matrix's columns stay
        if new.size:
            self._check_can_grow(new)
            self._take_classes(*self._coding.grow(new))
            self._classes_added()
        return self

    def _classes_added(self):
        """Bring the fitted attributes up to the grown state (the learner's own)."""

    def _order_source(self, state):
        """Where ``partial_fit`` draws its orders from: the caller's generator, else the
        stream a seed started, kept in the state so that it survives a save."""
        if isinstance(self.random_state, (np.random.RandomState, np.random.Generator)):
            return self.random_state
        if state.rng is None:  # the first partial_fit since fit (or ever)
            state.rng = random_source(self.random_state)
        return state.rng

    def _forget_history(self):
        self.n_iter_ = 0
        self.n_mistakes_ = 0
        self.mistakes_per_epoch_ = []
        self.converged_ = False

    def _keep_history(self, history, append=False):
        """Record the epochs of ``history``: instead of the record so far, or after it."""
        if not append:
            self._forget_history()
        self.n_iter_ += history.n_iter
        self.n_mistakes_ += history.n_mistakes
        self.mistakes_per_epoch_ = list(self.mistakes_per_epoch_) + history.mistakes_per_epoch
        self.converged_ = bool(history.converged)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """Predict class labels (a zero score goes to the first class, as in training).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,), or (n_samples, n_labels) of 0/1 (int64)
            The class of each sample; for a model fitted on a label matrix
            (multilabel), the indicator matrix: 1 where a label's neuron (or dual
            problem) scores > 0.

        Examples
        --------
        Two labels per sample, "x is positive" and "y is positive", learnt by two
        independent dual problems:

        >>> import numpy as np
        >>> from rosenblatt.estimators.kernel import KernelPerceptron
        >>> X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
        >>> Y = (X > 0).astype(int)
        >>> clf = KernelPerceptron(kernel="linear", random_state=0).fit(X, Y)
        >>> clf.predict(X)
        array([[1, 1],
               [1, 0],
               [0, 1],
               [0, 0]])
        """
        scores = self.decision_function(X)  # type: ignore[attr-defined]  # the learner's own
        return self._coding.decode(scores)
