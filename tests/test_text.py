"""TfDfTransformer: the seed 003 weighting W(i, d) = tf(i, d) / df(i)."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from rosenblatt.estimators.linear import Perceptron
from rosenblatt.estimators.text import TfDfTransformer

DOCS = ["free offer free", "lecture cs", "free lecture notes lecture"]


def test_exact_weights_on_a_tiny_corpus():
    vectorizer = CountVectorizer()
    counts = vectorizer.fit_transform(DOCS)
    assert vectorizer.get_feature_names_out().tolist() == [
        "cs",
        "free",
        "lecture",
        "notes",
        "offer",
    ]
    tfdf = TfDfTransformer(norm=None).fit(counts)
    assert tfdf.df_.tolist() == [1, 2, 2, 1, 1]
    expected = np.array(
        [
            [0, 2 / 2, 0, 0, 1 / 1],  # "free" twice in a document, in 2 documents
            [1 / 1, 0, 1 / 2, 0, 0],
            [0, 1 / 2, 2 / 2, 1 / 1, 0],
        ]
    )
    W = tfdf.transform(counts)
    assert sp.issparse(W) and W.format == "csr"
    assert_allclose(W.toarray(), expected)
    normalised = TfDfTransformer().fit_transform(counts)
    assert_allclose(
        normalised.toarray(), expected / np.linalg.norm(expected, axis=1, keepdims=True)
    )
    assert_allclose(TfDfTransformer(norm=None).fit_transform(counts.toarray()), expected)


def test_unseen_terms_weigh_nothing_and_negative_counts_are_refused():
    tfdf = TfDfTransformer(norm=None).fit(np.array([[1, 0], [2, 0]]))
    assert_allclose(tfdf.transform(np.array([[3, 5]])), [[1.5, 0.0]])
    with pytest.raises(ValueError, match="Negative values"):
        tfdf.transform(np.array([[-1, 0]]))


def test_pipeline_from_raw_text():
    texts = [
        "free offer now",
        "win free cash",
        "lecture at noon",
        "notes for the lecture",
        "free prize claim",
        "cs lecture notes",
    ]
    labels = [1, 1, 0, 0, 1, 0]
    model = make_pipeline(CountVectorizer(), TfDfTransformer(), Perceptron(random_state=0))
    model.fit(texts, labels)
    assert model.score(texts, labels) == 1.0
    assert model.predict(["claim your free cash"]).tolist() == [1]
    names = model[:-1].get_feature_names_out()
    assert names.tolist() == model[0].get_feature_names_out().tolist()


@parametrize_with_checks([TfDfTransformer(), TfDfTransformer(norm=None)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
