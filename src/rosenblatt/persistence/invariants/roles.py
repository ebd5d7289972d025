"""The classes a model file may hold, by registry key and by the role each plays in a
model: what a pipeline may end with, what a calibrated model's folds may be, what turns
documents into features, what transforms features, what a container may hold.

The tables of :mod:`.models` are keyed by these names, and the checks of a model that
holds others (:mod:`.checker`, :mod:`.estimators`, :mod:`.transformers`) ask a nested
model's role by them, without importing the tables.
"""

from __future__ import annotations

PIPELINE = "sklearn.pipeline.Pipeline"
UNION = "sklearn.pipeline.FeatureUnion"
IDENTITY = "sklearn.preprocessing.FunctionTransformer"  # what fit makes of 'passthrough'
CALIBRATED = "rosenblatt.CalibratedClassifier"
ONLINE_CALIBRATED = "rosenblatt.OnlineCalibratedClassifier"
HASHING_VECTORIZER = "sklearn.feature_extraction.text.HashingVectorizer"

# what a pipeline may end with
FINAL_STEPS = (
    "rosenblatt.Perceptron",
    "rosenblatt.AveragedPerceptron",
    "rosenblatt.VotedPerceptron",
    "rosenblatt.KernelPerceptron",
    "rosenblatt.Projectron",
    "rosenblatt.CentroidClassifier",
    "rosenblatt.LinearProgramClassifier",
    CALIBRATED,
    ONLINE_CALIBRATED,
)
# what a calibrated model's folds may be: a classifier, or a pipeline ending in one
CLASSIFIERS = (
    *(key for key in FINAL_STEPS if key not in (CALIBRATED, ONLINE_CALIBRATED)),
    PIPELINE,
)
# what online calibration may hold: a classifier that learns online (partial_fit)
ONLINE_LEARNERS = (
    "rosenblatt.Perceptron",
    "rosenblatt.AveragedPerceptron",
    "rosenblatt.VotedPerceptron",
    "rosenblatt.KernelPerceptron",
    "rosenblatt.Projectron",
)
# documents in, features out: only a pipeline's first step
VECTORIZERS = (
    "sklearn.feature_extraction.text.CountVectorizer",
    "sklearn.feature_extraction.text.TfidfVectorizer",
    HASHING_VECTORIZER,
)
# features in, features out (vectorizers too: documents in)
TRANSFORMERS = (
    *VECTORIZERS,
    "rosenblatt.TfDfTransformer",
    "sklearn.feature_extraction.text.TfidfTransformer",
    "sklearn.preprocessing.StandardScaler",
    "sklearn.preprocessing.MinMaxScaler",
    "sklearn.preprocessing.MaxAbsScaler",
    "sklearn.preprocessing.Normalizer",
    "sklearn.preprocessing.RobustScaler",
    "sklearn.preprocessing.PolynomialFeatures",
    "sklearn.preprocessing.OneHotEncoder",
    IDENTITY,
    "sklearn.impute.SimpleImputer",
    "sklearn.decomposition.PCA",
    "sklearn.decomposition.TruncatedSVD",
    # containers: transformers of their own, whose parts are PARTS
    "sklearn.compose.ColumnTransformer",
    UNION,
)
# what a ColumnTransformer or FeatureUnion may hold: a transformer, or a pipeline of them
PARTS = (*TRANSFORMERS, PIPELINE)
# every class a model file may hold, in the order persistence.REGISTRY lists them
KEYS = (*FINAL_STEPS, PIPELINE, *TRANSFORMERS)
# the classes without fitted attributes of their own (a container's parts hold its state)
STATELESS = (PIPELINE, HASHING_VECTORIZER, UNION)
