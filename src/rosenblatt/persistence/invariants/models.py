"""What a model file may name (parameters, fitted attributes) and each class's
invariants by its registry key: :func:`check_model` checks a decoded model against them."""

from __future__ import annotations

from collections.abc import Callable

from .checker import Checker, Plain
from .estimators import (
    check_calibrated,
    check_centroid,
    check_kernel_perceptron,
    check_linear_perceptron,
    check_linear_program,
    check_online_calibrated,
)
from .roles import KEYS, STATELESS
from .transformers import (
    COMPONENTS,
    check_column_transformer,
    check_count_vectorizer,
    check_feature_union,
    check_function_transformer,
    check_hashing_vectorizer,
    check_max_abs_scaler,
    check_min_max_scaler,
    check_normalizer,
    check_one_hot_encoder,
    check_pca,
    check_pipeline,
    check_polynomial_features,
    check_robust_scaler,
    check_simple_imputer,
    check_standard_scaler,
    check_tfdf_transformer,
    check_tfidf_transformer,
    check_tfidf_vectorizer,
    check_truncated_svd,
)

# ---------------------------------------------------------------------- what a file may name
_KERNEL_PARAMETERS = (
    "cache_size class_weight coef0 degree eta fit_intercept gamma intercept_scaling "
    "kernel kernel_params max_iter n_iter_no_change on_epoch prediction random_state "
    "shuffle tol verbose warm_start"
)
_LINEAR_PARAMETERS = (
    "class_weight early_stopping eta fit_intercept intercept_scaling max_iter multi_class "
    "n_iter_no_change n_jobs on_epoch random_state shuffle tol validation_fraction verbose "
    "warm_start"
)
_COUNT_PARAMETERS = (
    "analyzer binary decode_error dtype encoding input lowercase max_df max_features min_df "
    "ngram_range preprocessor stop_words strip_accents token_pattern tokenizer vocabulary"
)
_IDF_PARAMETERS = "norm smooth_idf sublinear_tf use_idf"
# The constructor parameters of each class, as this rosenblatt and the scikit-learn it
# supports name them: a file naming another is refused before anything is built, by
# load() and by the command line's predictor alike (tests/test_invariants.py checks
# these against the installed signatures).
PARAMETERS = {
    key: frozenset(names.split())
    for key, names in {
        "rosenblatt.Perceptron": _LINEAR_PARAMETERS + " mode",
        "rosenblatt.AveragedPerceptron": _LINEAR_PARAMETERS,
        "rosenblatt.VotedPerceptron": _LINEAR_PARAMETERS,
        "rosenblatt.KernelPerceptron": _KERNEL_PARAMETERS + " budget budget_policy",
        "rosenblatt.Projectron": _KERNEL_PARAMETERS + " budget max_projection_error plus",
        "rosenblatt.CentroidClassifier": "multi_class",
        "rosenblatt.LinearProgramClassifier": "fit_intercept",
        "rosenblatt.CalibratedClassifier": "cv ensemble estimator method n_jobs",
        "rosenblatt.OnlineCalibratedClassifier": (
            "batch_size calibeating estimator gamma n_bins radius rho"
        ),
        "rosenblatt.TfDfTransformer": "norm",
        "sklearn.pipeline.Pipeline": "memory steps transform_input verbose",
        "sklearn.feature_extraction.text.CountVectorizer": _COUNT_PARAMETERS,
        "sklearn.feature_extraction.text.TfidfVectorizer": (
            _COUNT_PARAMETERS + " " + _IDF_PARAMETERS
        ),
        "sklearn.feature_extraction.text.TfidfTransformer": _IDF_PARAMETERS,
        "sklearn.feature_extraction.text.HashingVectorizer": (
            "alternate_sign analyzer binary decode_error dtype encoding input lowercase "
            "n_features ngram_range norm preprocessor stop_words strip_accents token_pattern "
            "tokenizer"
        ),
        "sklearn.preprocessing.StandardScaler": "copy with_mean with_std",
        "sklearn.preprocessing.MinMaxScaler": "clip copy feature_range",
        "sklearn.preprocessing.MaxAbsScaler": "clip copy",
        "sklearn.preprocessing.Normalizer": "copy norm",
        "sklearn.preprocessing.RobustScaler": (
            "copy quantile_range unit_variance with_centering with_scaling"
        ),
        "sklearn.preprocessing.PolynomialFeatures": "degree include_bias interaction_only order",
        "sklearn.preprocessing.OneHotEncoder": (
            "categories drop dtype feature_name_combiner handle_unknown max_categories "
            "min_frequency sparse_output"
        ),
        "sklearn.preprocessing.FunctionTransformer": (
            "accept_sparse check_inverse feature_names_out func inv_kw_args inverse_func "
            "kw_args validate"
        ),
        "sklearn.impute.SimpleImputer": (
            "add_indicator copy fill_value keep_empty_features missing_values strategy"
        ),
        "sklearn.decomposition.PCA": (
            "copy iterated_power n_components n_oversamples power_iteration_normalizer "
            "random_state svd_solver tol whiten"
        ),
        "sklearn.decomposition.TruncatedSVD": (
            "algorithm n_components n_iter n_oversamples power_iteration_normalizer "
            "random_state tol"
        ),
        "sklearn.compose.ColumnTransformer": (
            "n_jobs remainder sparse_threshold transformer_weights transformers verbose "
            "verbose_feature_names_out"
        ),
        "sklearn.pipeline.FeatureUnion": (
            "n_jobs transformer_list transformer_weights verbose verbose_feature_names_out"
        ),
    }.items()
}

_EPOCHS = "n_iter_ n_mistakes_ mistakes_per_epoch_ converged_"
_INPUT = "n_features_in_ feature_names_in_"
_KERNEL_FITTED = (
    f"{_INPUT} classes_ multilabel_ gamma_ training_state_ support_ support_vectors_ dual_coef_ "
    "intercept_ n_presented_ update_support_ update_coef_ update_time_ update_ptr_ " + _EPOCHS
)
_LINEAR_FITTED = (
    f"{_INPUT} classes_ multilabel_ intercept_scaling_ training_state_ coef_ intercept_ {_EPOCHS}"
)
# The fitted attributes each class may have (those it sets in fit; a fitted model has
# all that its invariants require): any other name is refused, as above.
FITTED = {
    key: frozenset(names.split())
    for key, names in {
        "rosenblatt.Perceptron": _LINEAR_FITTED,
        "rosenblatt.AveragedPerceptron": _LINEAR_FITTED,
        "rosenblatt.VotedPerceptron": _LINEAR_FITTED + " n_vectors_",
        "rosenblatt.KernelPerceptron": _KERNEL_FITTED,
        "rosenblatt.Projectron": _KERNEL_FITTED,
        "rosenblatt.CentroidClassifier": f"{_INPUT} classes_ centroids_ coef_ intercept_",
        "rosenblatt.LinearProgramClassifier": (
            f"{_INPUT} classes_ coef_ intercept_ total_slack_ separable_"
        ),
        "rosenblatt.CalibratedClassifier": (f"{_INPUT} classes_ estimators_ calibrators_"),
        "rosenblatt.OnlineCalibratedClassifier": (
            f"{_INPUT} classes_ estimator_ platt_ newton_ bin_sums_ bin_counts_ {_EPOCHS}"
        ),
        "rosenblatt.TfDfTransformer": f"{_INPUT} df_",
        "sklearn.feature_extraction.text.CountVectorizer": "vocabulary_ fixed_vocabulary_",
        "sklearn.feature_extraction.text.TfidfVectorizer": "vocabulary_ fixed_vocabulary_ idf_",
        "sklearn.feature_extraction.text.TfidfTransformer": f"{_INPUT} idf_",
        "sklearn.preprocessing.StandardScaler": f"{_INPUT} n_samples_seen_ mean_ var_ scale_",
        "sklearn.preprocessing.MinMaxScaler": (
            f"{_INPUT} n_samples_seen_ scale_ min_ data_min_ data_max_ data_range_"
        ),
        "sklearn.preprocessing.MaxAbsScaler": f"{_INPUT} n_samples_seen_ max_abs_ scale_",
        "sklearn.preprocessing.Normalizer": _INPUT,
        "sklearn.preprocessing.RobustScaler": f"{_INPUT} center_ scale_",
        "sklearn.preprocessing.PolynomialFeatures": f"{_INPUT} n_output_features_",
        "sklearn.preprocessing.OneHotEncoder": f"{_INPUT} categories_ drop_idx_",
        "sklearn.preprocessing.FunctionTransformer": _INPUT,
        "sklearn.impute.SimpleImputer": f"{_INPUT} statistics_ indicator_",
        "sklearn.decomposition.PCA": (
            f"{_INPUT} {COMPONENTS} mean_ n_components_ n_samples_ noise_variance_"
        ),
        "sklearn.decomposition.TruncatedSVD": f"{_INPUT} {COMPONENTS}",
        "sklearn.compose.ColumnTransformer": (
            f"{_INPUT} transformers_ sparse_output_ output_indices_"
        ),
        **dict.fromkeys(STATELESS, ""),  # a container's parts hold its fitted state
    }.items()
}


# What the fitted state of each class a model file may hold must be, by its registry key
# (its role in a model is in .roles). persistence.REGISTRY is these keys.
_CHECKS = {
    "rosenblatt.Perceptron": lambda c: check_linear_perceptron(c, averaged=False, voted=False),
    "rosenblatt.AveragedPerceptron": lambda c: check_linear_perceptron(
        c, averaged=True, voted=False
    ),
    "rosenblatt.VotedPerceptron": lambda c: check_linear_perceptron(c, averaged=False, voted=True),
    "rosenblatt.KernelPerceptron": check_kernel_perceptron,
    "rosenblatt.Projectron": check_kernel_perceptron,
    "rosenblatt.CentroidClassifier": check_centroid,
    "rosenblatt.LinearProgramClassifier": check_linear_program,
    "rosenblatt.CalibratedClassifier": check_calibrated,
    "rosenblatt.OnlineCalibratedClassifier": check_online_calibrated,
    "sklearn.pipeline.Pipeline": check_pipeline,
    "sklearn.feature_extraction.text.CountVectorizer": check_count_vectorizer,
    "sklearn.feature_extraction.text.TfidfVectorizer": check_tfidf_vectorizer,
    "sklearn.feature_extraction.text.HashingVectorizer": check_hashing_vectorizer,
    "rosenblatt.TfDfTransformer": check_tfdf_transformer,
    "sklearn.feature_extraction.text.TfidfTransformer": check_tfidf_transformer,
    "sklearn.preprocessing.StandardScaler": check_standard_scaler,
    "sklearn.preprocessing.MinMaxScaler": check_min_max_scaler,
    "sklearn.preprocessing.MaxAbsScaler": check_max_abs_scaler,
    "sklearn.preprocessing.Normalizer": check_normalizer,
    "sklearn.preprocessing.RobustScaler": check_robust_scaler,
    "sklearn.preprocessing.PolynomialFeatures": check_polynomial_features,
    "sklearn.preprocessing.OneHotEncoder": check_one_hot_encoder,
    "sklearn.preprocessing.FunctionTransformer": check_function_transformer,
    "sklearn.impute.SimpleImputer": check_simple_imputer,
    "sklearn.decomposition.PCA": check_pca,
    "sklearn.decomposition.TruncatedSVD": check_truncated_svd,
    "sklearn.compose.ColumnTransformer": check_column_transformer,
    "sklearn.pipeline.FeatureUnion": check_feature_union,
}
INVARIANTS: dict[str, Callable[[Checker], None]] = {key: _CHECKS[key] for key in KEYS}


def check_model(model: Plain) -> None:
    """Check ``model`` against its class's declared invariants (the estimators it holds
    have been checked as they were read).

    Raises
    ------
    BrokenInvariant
        Naming the class, the attribute and what is wrong.
    """
    INVARIANTS[model.key](Checker(model))
