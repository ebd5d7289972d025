"""What a valid fitted model is: the invariants of every class a model file may hold.

A model file is a trust boundary. Its checksums catch damage, and its decoder builds
only allow-listed values, but a crafted file can still give a class values that do
not agree with each other (weights narrower than the features, a training state of
another kind, class indices past the end of an array) and the compiled loops trust
the shapes they are given. So every class that :func:`rosenblatt.load` can build
declares here what its fitted state must satisfy: shapes that agree with each other
and with ``n_features_in_`` and ``classes_``, dtypes, finite values, index ranges,
sorted breakpoints, flags that match the arrays, and, where the public attributes are
read off a training state of the engine, that they are exactly what the state gives.

The checks run on the decoded file (:class:`Plain`), before any estimator is built, so
no estimator method, numpy broadcast or compiled loop sees a value that breaks them;
the command line's numpy-only predictor runs the very same checks. A violation is a
:class:`BrokenInvariant` naming the class, the attribute and what is wrong, which the
loader reports as a :class:`~rosenblatt.exceptions.ModelFileError`.

The package, by job: :mod:`.roles` (the classes by registry key and role),
:mod:`.checker` (the checker language), :mod:`.models` (the check a class's record
declares), :mod:`.estimators`, :mod:`.transformers`, :mod:`.states` (random sources and
training states). What a file may name of each class (its parameters, its fitted
attributes) is in its record, :mod:`rosenblatt.persistence.records`.

This package imports numpy alone (scipy only to check a sparse matrix), so that
reading a model for prediction imports neither scikit-learn nor numba.
"""

from .checker import Plain, column_indices, is_column_selector
from .models import check_model
from .states import check_dual_state, check_primal_state
from .transformers import (
    MAX_POLYNOMIAL_DEGREE,
    output_width,
    polynomial_degrees,
    polynomial_width,
)

__all__ = [
    "MAX_POLYNOMIAL_DEGREE",
    "Plain",
    "check_model",
    "check_dual_state",
    "check_primal_state",
    "column_indices",
    "is_column_selector",
    "output_width",
    "polynomial_degrees",
    "polynomial_width",
]
