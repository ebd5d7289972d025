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

from .._core.validation import (
    check_classes,
    check_indicator,
    check_same_classes,
    check_sample_weight,
    class_weighted,
    is_label_matrix,
)
from ..engine.orders import random_source
from ..engine.targets import TargetCoding

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

    def _encode(self, y):
        """Labels as the neurons read them (the coding's one rule: class indices, or the
        checked 0/1 label matrix), refusing labels outside ``classes_``."""
        self._check_label_form(y)
        return self._coding.encode(y)

    def _sample_weight(self, sample_weight, target, n_samples, *, allow_balanced=True):
        """Per-sample update steps: ``sample_weight`` times the class weights."""
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
        return class_weighted(sample_weight, self.class_weight, self.classes_, target)

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

    def _partial_fit_classes(self, classes, first_call, y=None):
        """``(classes_, multilabel_)`` that ``partial_fit`` learns: the classes are
        required and checked on the first call and, when given later, the same as then.
        A label matrix ``y`` (multilabel) has its own classes, its columns ``0 .. M-1``:
        ``classes`` may be left out, or be them."""
        if first_call and y is not None and is_label_matrix(y):
            labels, multilabel = self._classes_of(y)
            if classes is not None and not np.array_equal(np.unique(classes), labels):
                raise ValueError(
                    f"classes={np.unique(classes).tolist()!r}, but y is a label matrix of "
                    f"{labels.shape[0]} columns (multilabel), whose classes are "
                    f"{labels.tolist()!r}: pass those, or classes=None."
                )
            return labels, multilabel
        if first_call:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit: give every "
                    "label the model will see, e.g. classes=np.unique(y_all)."
                )
            return check_classes(np.asarray(classes), type(self).__name__), False
        if classes is not None:
            check_same_classes(classes, self.classes_, "the first partial_fit call")
        return self.classes_, self._multilabel

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
