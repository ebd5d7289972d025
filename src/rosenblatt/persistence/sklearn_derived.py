"""The private attributes of scikit-learn transformers that a model file never stores (each
class's record names what it derives here).

scikit-learn's ``transform`` reads a few private attributes that ``fit`` derives
from the public fitted state and the parameters. A model file stores public state
only (checked against the declared invariants before anything is built), so after
loading these are derived again here, the way ``fit`` derives them. This is the one
module that writes another library's private names: the privacy guard test names
it as its exception, and a scikit-learn release that renames them fails the
pipeline round-trip tests (``tests/test_persistence_pipelines.py``).
"""

from __future__ import annotations

from typing import Any

from .invariants import column_indices, polynomial_degrees, polynomial_width

__all__ = [
    "column_selection",
    "encoder_groups",
    "imputer_dtypes",
    "pca_solver",
    "polynomial_degrees_of",
    "refuse_tfidf_without_idf",
]


def polynomial_degrees_of(model: Any) -> None:
    """PolynomialFeatures: its degree bounds and full output count."""
    n = model.n_features_in_
    degrees = polynomial_degrees(model.degree)
    assert degrees is not None, "the record's invariants refuse such a degree before this runs"
    model._min_degree, model._max_degree = degrees
    model._n_out_full = polynomial_width(
        n, 0, model._max_degree, model.interaction_only, model.include_bias
    )


def encoder_groups(model: Any) -> None:
    """OneHotEncoder without infrequent categories or a dropped one: its groups."""
    n = len(model.categories_)
    model._infrequent_enabled = False  # min_frequency and max_categories are None
    model._infrequent_indices = model._default_to_infrequent_mappings = [None] * n
    model._drop_idx_after_grouping = None  # drop is None
    model._n_features_outs = [len(categories) for categories in model.categories_]


def imputer_dtypes(model: Any) -> None:
    """SimpleImputer: the dtypes it fits and fills with, its statistics'."""
    model._fit_dtype = model._fill_dtype = model.statistics_.dtype


def column_selection(model: Any) -> None:
    """ColumnTransformer: each part's input columns and the remainder."""
    names = getattr(model, "feature_names_in_", None)
    indices = {
        name: column_indices(columns, model.n_features_in_, names)
        for name, _, columns in model.transformers_
    }
    model._columns = [columns for _, _, columns in model.transformers]
    remaining = model.transformers_[-1][2] if "remainder" in indices else []
    indices.setdefault("remainder", [])
    model._transformer_to_input_indices = indices
    model._remainder = ("remainder", model.remainder, remaining)


def pca_solver(model: Any) -> None:
    """PCA: the solver its fit used, as its parameter names it."""
    model._fit_svd_solver = model.svd_solver


def refuse_tfidf_without_idf(model: Any, where: str) -> None:
    """Refuse fitted state that lives only in private attributes the format cannot see: a
    fitted ``TfidfVectorizer(use_idf=False)`` keeps its transformer in one."""
    if not model.use_idf and hasattr(model, "vocabulary_"):
        raise TypeError(
            f"Cannot save {where}: a fitted TfidfVectorizer(use_idf=False) keeps its "
            "transformer in a private attribute that a model file does not store. Use "
            "CountVectorizer followed by TfidfTransformer(use_idf=False) instead (the same "
            "features), fit again and save."
        )
