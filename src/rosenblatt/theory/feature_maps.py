"""The lecture notes' feature map for XOR: ``(x1, x2) -> (x1, x2, x1 x2, x1^2, x2^2)``.

The notes' fix for the perceptron's limits (seed 000, "Perceptron: limitations"): XOR is
not linearly separable in the plane, but it is in these five features, where a line is a
conic of the plane. This is the one copy of that map: ``examples/lecture.py``,
``examples/xor_feature_maps.py``, ``rosenblatt plot --feature-map`` and the playground's
"quadratic features" all call it. Unlike scikit-learn's ``PolynomialFeatures(2)`` it adds
no constant column (the perceptron's bias input is the constant) and keeps the notes'
order of the features.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._core.sparse import is_sparse

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import MatrixLike

__all__ = ["NOTES_FEATURE_NAMES", "notes_feature_map"]

#: The names of the map's five features, in its order (the playground's labels).
NOTES_FEATURE_NAMES = ("x1", "x2", "x1*x2", "x1^2", "x2^2")


def notes_feature_map(X: MatrixLike) -> np.ndarray:
    """The lecture notes' quadratic map ``(x1, x2) -> (x1, x2, x1 x2, x1^2, x2^2)``.

    A line in these five features is a conic in the plane, so XOR, which no line
    of the plane separates, becomes linearly separable (the notes'
    "mega-feature" ``x1 x2``). No constant column is added.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, 2)
        Two features, ``x1`` and ``x2`` (a sparse matrix is made dense).

    Returns
    -------
    ndarray of float64, shape (n_samples, 5)
        The columns :data:`~rosenblatt.theory.feature_maps.NOTES_FEATURE_NAMES` names.

    Raises
    ------
    ValueError
        When ``X`` does not have exactly two columns.

    Examples
    --------
    >>> from rosenblatt.theory import notes_feature_map
    >>> notes_feature_map([[2.0, 3.0]]).tolist()
    [[2.0, 3.0, 6.0, 4.0, 9.0]]

    With it a linear perceptron learns XOR:

    >>> from rosenblatt import Perceptron
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, -1]
    >>> Perceptron(shuffle=False).fit(notes_feature_map(X), y).score(notes_feature_map(X), y)
    1.0
    """
    X = X.toarray() if is_sparse(X) else X
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(
            "notes_feature_map maps two features (x1, x2); got X of shape "
            f"{X.shape}. Give the two columns of a 2-D problem."
        )
    x1, x2 = X[:, 0], X[:, 1]
    return np.column_stack([x1, x2, x1 * x2, x1**2, x2**2])
