"""The classes a model that learns online adds when a batch brings labels never seen.

One rule for every learner with ``partial_fit`` (issue 44): a label outside the classes
is added (sorted into ``classes_``) unless the classes were given up front, when it is
refused with :func:`outside_classes`' message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .validation import check_same_classes, class_labels, distinct_labels, label_indices

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike

__all__ = ["new_classes", "outside_classes", "unseen_labels"]


def unseen_labels(classes: np.ndarray, y: ArrayLike, estimator_name: str) -> np.ndarray:
    """The labels of ``y`` that are not among ``classes`` (sorted, each once, of the
    classes' type), checked as class labels of the classes' kind: the classes a model that
    learns its classes adds when ``y`` comes.

    Examples
    --------
    >>> unseen_labels(np.array([0, 2]), [2, 5, 0, 5.0], "Perceptron")
    array([5])
    >>> unseen_labels(np.array(["ham", "spam"]), ["ham", "eggs"], "Perceptron")
    array(['eggs'], dtype='<U4')
    >>> unseen_labels(np.array([0, 1]), ["ham"], "Perceptron")
    Traceback (most recent call last):
    ...
    ValueError: Perceptron: y holds the label 'ham', text, but the classes [0, 1] are \
numbers; give labels of the classes' kind.
    """
    y = np.asarray(y)
    unseen = distinct_labels(y[label_indices(classes, y) < 0])
    if unseen.size == 0:
        return unseen.astype(classes.dtype)
    unseen = class_labels(unseen, estimator_name)
    kinds = {"i": "numbers", "u": "numbers", "f": "numbers", "b": "booleans"}
    have, given = (kinds.get(a.dtype.kind, "text") for a in (classes, unseen))
    if have != given:
        label = unseen[0].item()
        raise ValueError(
            f"{estimator_name}: y holds the label {label!r}, "
            f"{'text' if given == 'text' else given[:-1]}, but the classes "
            f"{classes.tolist()!r} are {have}; give labels of the classes' kind."
        )
    if classes.dtype.kind in "iub" and unseen.dtype.kind == "f":  # whole numbers (checked)
        return unseen.astype(classes.dtype)
    return unseen


def new_classes(
    classes: np.ndarray,
    y: ArrayLike | None = None,
    given: ArrayLike | None = None,
    *,
    fixed: bool,
    owner: str,
) -> np.ndarray:
    """The classes a fitted model of ``classes`` adds when it goes on learning ``y`` (sorted,
    of the classes' type; empty: none), or the refusal: the one rule of classes that
    appear, for every learner that learns online.

    ``given`` (a later call's ``classes``) must hold every one of ``classes`` and may add
    more; ``y``'s labels must then be among them. Without it, a label of ``y`` not among
    ``classes`` is added, unless the classes are ``fixed`` (given up front): refused.

    Examples
    --------
    >>> new_classes(np.array([0, 1]), [1, 2, 2], fixed=False, owner="Perceptron")
    array([2])
    >>> new_classes(np.array([0, 1]), [1], [0, 1, 5], fixed=True, owner="Perceptron")
    array([5])
    >>> new_classes(np.array([0, 1]), [1, 2], fixed=True, owner="Perceptron")
    Traceback (most recent call last):
    ...
    ValueError: y contains labels [2] that are not among the classes [0, 1] (classes_), \
fixed when they were given: add new ones with add_classes, or give them in `classes` with \
the model's, or fit again.
    """
    added = np.empty(0, dtype=classes.dtype)
    if given is not None:
        distinct = np.unique(np.asarray(given))
        added = unseen_labels(classes, distinct, owner)
        if distinct.size - added.size < classes.size:  # given again: every class, and more
            check_same_classes(
                distinct, classes, "the fitted model (classes given again may add some)"
            )
    if y is None:
        return added
    known = np.sort(np.concatenate([classes, added]))
    unseen = unseen_labels(known, y, owner)
    if unseen.size and (given is not None or fixed):
        raise ValueError(outside_classes(unseen, known))
    return np.sort(np.concatenate([added, unseen]))


def outside_classes(labels: np.ndarray, classes: np.ndarray) -> str:
    """What is wrong with ``labels`` outside a model's fixed ``classes``, and what to do."""
    return (
        f"y contains labels {labels.tolist()!r} that are not among the classes "
        f"{classes.tolist()!r} (classes_), fixed when they were given: add new ones with "
        "add_classes, or give them in `classes` with the model's, or fit again."
    )
