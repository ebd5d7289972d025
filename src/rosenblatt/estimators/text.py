"""Term weighting for document classification (the lecture notes): W(i, d) = tf(i, d) / df(i)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.preprocessing import normalize
from sklearn.utils.validation import check_is_fitted

from .._core.validation import Options, validate, validate_params

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import ArrayLike, MatrixLike


class TfDfTransformer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Weight a count matrix by ``W(i, d) = tf(i, d) / df(i)`` (the lecture notes' tf/df).

    ``tf(i, d)`` is how often word ``i`` occurs in document ``d`` (the input
    count) and ``df(i)`` the number of training documents that contain it: a
    word that is frequent in one document matters for it, a word that occurs in
    many documents (a stopword) matters little overall. It is the lecture notes' plain
    ratio; scikit-learn's :class:`~sklearn.feature_extraction.text.TfidfTransformer`
    uses the logarithmic ``tf * (1 + log(n / df))`` instead. Use it after
    :class:`~sklearn.feature_extraction.text.CountVectorizer` in a pipeline.

    Parameters
    ----------
    norm : {"l2", None}, default="l2"
        Scale each weighted document to unit Euclidean length. Without it a
        document's length grows with its number of words, and a perceptron
        updates more on long documents and needs more updates to converge
        (Novikoff's bound grows with the largest ``|x|**2``); with it every
        document lies on the unit sphere and only its mix of words counts.

    Attributes
    ----------
    df_ : ndarray of shape (n_features,)
        Number of training documents containing each term. Terms absent from
        every training document get weight 0.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from rosenblatt.estimators.text import TfDfTransformer
    >>> counts = np.array([[2, 1, 0], [0, 1, 1]])
    >>> tfdf = TfDfTransformer(norm=None).fit(counts)
    >>> tfdf.df_
    array([1., 2., 1.])
    >>> tfdf.transform(counts)
    array([[2. , 0.5, 0. ],
           [0. , 0.5, 1. ]])

    In a pipeline, on raw text:

    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.pipeline import make_pipeline
    >>> docs = ["free offer free", "lecture notes", "free lecture"]
    >>> X = make_pipeline(CountVectorizer(), TfDfTransformer()).fit_transform(docs)
    >>> X.format, X.shape
    ('csr', (3, 4))
    """

    _parameter_constraints = {"norm": [Options(("l2", None))]}

    def __init__(self, *, norm="l2"):
        self.norm = norm

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True  # counts
        return tags

    def fit(self, X: MatrixLike, y: ArrayLike | None = None) -> TfDfTransformer:
        """Learn the document frequency of every term.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_documents, n_terms)
            Term counts (non-negative).
        y : None
            Ignored.

        Returns
        -------
        self
        """
        validate_params(self)
        X = self._check(X, reset=True)
        if sp.issparse(X):
            df = np.bincount(X.indices[X.data != 0], minlength=X.shape[1])
        else:
            df = np.count_nonzero(X, axis=0)
        self.df_ = df.astype(np.float64)
        return self

    def transform(self, X: MatrixLike) -> Any:
        """Return ``tf / df`` (CSR for sparse input), l2-normalised if ``norm="l2"``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_documents, n_terms)
            Term counts.

        Returns
        -------
        {ndarray, csr_matrix} of shape (n_documents, n_terms)
        """
        check_is_fitted(self)
        X = self._check(X, reset=False)
        inverse = np.zeros_like(self.df_)
        np.divide(1.0, self.df_, out=inverse, where=self.df_ > 0)
        if sp.issparse(X):
            W = X.multiply(inverse[np.newaxis, :]).tocsr()  # multiply by a row keeps sparsity
        else:
            W = X * inverse
        if self.norm is not None:
            W = normalize(W, norm=self.norm, copy=False)
        return W

    def _check(self, X, reset):
        X = validate(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=reset)
        values = X.data if sp.issparse(X) else X
        if values.size and values.min() < 0:
            raise ValueError(
                "Negative values in data passed to TfDfTransformer: it weights term "
                "counts, which cannot be negative; pass the output of a CountVectorizer."
            )
        return X
