"""One record per class a model file may hold: everything persistence, ONNX and the command
line need of it, declared once.

A :class:`Record` says of a class: its key (the name a model file gives it, its public
import path), where it lives, the roles it plays in a model (what a pipeline may end with,
what learns online, what turns documents into features, ...), the fitted attributes a file
holds and those rebuilt from them on load, the invariants its fitted state must keep, the
parameter values a file may give it where those need checking, its command-line name, how
it scores (the numpy predictor and the ONNX graph are built from that), and the engine state
it trains. Every list the package keeps of its classes is read off :data:`RECORDS`: the
registry of classes a file may name, their locations, parameters and fitted names, the
roles, the linear classes of the numpy predictor, the classes ONNX exports, the command
line's algorithms. A class's constructor parameters are read from its signature (the
generated list :data:`PARAMETERS_FILE`, checked against the installed classes by
``tests/test_invariants.py``), never typed again.

Adding a learner is one record here (and its class, and its rule in the engine): see README's
"Adding a learner".

>>> record_of("rosenblatt.Perceptron").cli, record_of("rosenblatt.Perceptron").scoring
('perceptron', 'linear')
>>> [r.cli for r in RECORDS if r.cli][:3]
['perceptron', 'averaged', 'voted']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from .._core.lazy import import_module
from . import rules
from . import sklearn_derived as private
from .invariants import estimators as learners
from .invariants import states, transformers

__all__ = [
    "PARAMETERS_FILE",
    "RECORDS",
    "ROLES",
    "Record",
    "by_cli",
    "cli_parameters",
    "key_of_bare",
    "keys_with",
    "parameters_of",
    "record_of",
    "record_of_class",
    "scored_as",
    "write_parameters",
]

#: The constructor parameters of every class of :data:`RECORDS` by where it is defined
#: (``module:Name``), as their signatures name them (written by :func:`write_parameters`;
#: ``tests/test_invariants.py`` checks it): read without importing the classes, so that
#: reading a model for prediction imports neither scikit-learn nor numba.
PARAMETERS_FILE = Path(__file__).with_name("parameters.json")

#: The roles a class plays in a model
ROLES = {
    "final": "a pipeline may end with it (a classifier of the package, or a calibrated one)",
    "classifier": "a calibrated model's folds may be it",
    "online": "online calibration may hold it: it learns online (partial_fit)",
    "vectorizer": "documents in, features out: only a pipeline's first step",
    "transformer": "features in, features out (vectorizers too: documents in)",
    "container": "a transformer made of parts (ColumnTransformer, FeatureUnion)",
    "union": "a container whose parts are side by side (transformer_list)",
    "identity": "what fit makes of a 'passthrough' part",
    "standardizer": "the numpy predictor applies it before a linear model (mean_, scale_)",
    "pipeline": "a sequence of steps",
    "stateless": "no fitted attributes of its own (its parts hold them)",
    "calibrated": "probabilities from a classifier it holds",
    "state": "a training state of the engine (to_state / from_state)",
}

_EPOCHS = "n_iter_ n_mistakes_ mistakes_per_epoch_ converged_"
_INPUT = "n_features_in_ feature_names_in_"
# the engine's learners: a file holds their state and the facts no state knows (the
# classes, the input, the epochs run); their public weights are rebuilt from the state
_LINEAR = f"{_INPUT} classes_ multilabel_ intercept_scaling_ training_state_ {_EPOCHS}"
_LINEAR_DERIVED = "coef_ intercept_"
# (a kernel learner's file keeps support_ beside the support vectors: it names the rows they
# are, and must be the state's; a reordered index of the state's samples would else pair the
# rows with other coefficients)
_KERNEL = (
    f"{_INPUT} classes_ multilabel_ gamma_ training_state_ support_ support_vectors_ {_EPOCHS}"
)
_KERNEL_DERIVED = (
    "dual_coef_ intercept_ n_presented_ update_support_ update_coef_ update_time_ update_ptr_"
)


@dataclass(frozen=True)
class Record:
    """What the package knows of one class a model file may hold.

    Attributes
    ----------
    key : str
        The class's name in a model file: its public import path (``rosenblatt.X``,
        scikit-learn's own path, the engine's states by their module).
    location : tuple of (str, str) or None
        ``(module, class name)`` that defines it, imported only to build it; None for a
        scikit-learn class, found at its key.
    roles : frozenset of str
        Of :data:`ROLES`.
    fitted : str
        The fitted attributes (space-separated) a file may hold.
    derived : str
        The fitted attributes a file never holds: rebuilt on load from those it holds (the
        public weights of the engine's state), by the check.
    check : callable(Checker) -> dict or None
        The invariants of its fitted state (``persistence.invariants``); returns the ``derived``
        attributes, rebuilt from the checked values. An engine state's: callable(meta, arrays),
        the layout its ``from_state`` reads.
    rules : mapping or None
        The parameter values a file may give it (``persistence.rules``), where those need checks.
    properties : tuple of str
        Fitted properties kept behind a private attribute, saved beside the attributes.
    private : callable(estimator) or None
        What to derive of scikit-learn's private attributes once built
        (``persistence.sklearn_derived``).
    saving : callable(estimator, where) or None
        Refuses, when saving, fitted state the format cannot see.
    width : callable(Plain, fitted) or None
        The features it gives, where that is not the count it takes.
    cli : str, mapping or None
        Its ``--algorithm`` name on the command line, or names with the parameters each
        sets (``{"pa1": {"variant": "pa1"}, ...}``).
    scoring : {"linear", "voted", "dual", "calibrated", "online-calibrated", "tf-df"} or None
        How it turns rows into scores (or features): the numpy predictor and the ONNX
        graph of each kind are built from this one description (``linear``: ``X @ coef_.T
        + intercept_``; ``voted``: the survival-weighted vote of the engine's record;
        ``dual``: the kernel expansion; the calibrated kinds: their folds' or their one
        learner's scores through the maps; ``tf-df``: the notes' tf/df weights).
    state : {"primal", "dual"} or None
        The engine state it trains (``training_state_``).
    bare : tuple of (str, str) or None
        ``(module, class name)`` of the class's learner without scikit-learn's base
        classes (:mod:`rosenblatt.estimators._bare`), which the class adds them to; for
        scikit-learn's ``StandardScaler`` and ``Pipeline``, their stand-ins
        (:mod:`rosenblatt.estimators._bare_steps`): what the command line fits where
        nothing else in the model needs scikit-learn, and saves as this class
        (:func:`key_of_bare`).
    """

    key: str
    location: tuple[str, str] | None
    roles: frozenset[str]
    fitted: str = ""
    derived: str = ""
    check: Callable[..., Any] | None = None
    rules: Mapping[str, Any] | None = None
    properties: tuple[str, ...] = ()
    private: Callable[[Any], None] | None = None
    saving: Callable[[Any, str], None] | None = None
    width: Callable[[Any, Any], Any] | None = None
    cli: str | Mapping[str, Mapping[str, Any]] | None = None
    scoring: str | None = None
    state: str | None = None
    bare: tuple[str, str] | None = None
    fitted_names: frozenset[str] = field(init=False)
    derived_names: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        unknown = self.roles - set(ROLES)
        if unknown:
            raise ValueError(f"{self.key}: unknown roles {sorted(unknown)}")
        object.__setattr__(self, "fitted_names", frozenset(self.fitted.split()))
        object.__setattr__(self, "derived_names", frozenset(self.derived.split()))

    @property
    def name(self) -> str:
        """The class's name (``Perceptron``)."""
        return self.key.rpartition(".")[2] if self.location is None else self.location[1]

    def module_and_name(self) -> tuple[str, str]:
        """Where the class is defined."""
        if self.location is not None:
            return self.location
        module, _, name = self.key.rpartition(".")
        return module, name

    def load(self) -> type:
        """The class itself (importing its module: first imports one thread at a time)."""
        module, name = self.module_and_name()
        return getattr(import_module(module), name)

    def load_bare(self) -> type:
        """The class's learner without scikit-learn's base classes (``bare``; importing
        its module, which imports no scikit-learn)."""
        if self.bare is None:
            raise ValueError(f"{self.key} has no learner without scikit-learn's base classes")
        module, name = self.bare
        return getattr(import_module(module), name)


def _ours(key, module, roles, fitted="", derived="", bare=False, **more) -> Record:
    name = key.rpartition(".")[2]
    location = (f"rosenblatt.{module}", name)
    bare_location = ("rosenblatt.estimators._bare", name) if bare else None
    return Record(key, location, frozenset(roles), fitted, derived, bare=bare_location, **more)


def _sklearn(key, roles, fitted="", **more) -> Record:
    return Record(key, None, frozenset(roles), fitted, **more)


#: where the stand-ins for scikit-learn's steps that ``rosenblatt train`` fits are (Record.bare)
_STEPS = ("rosenblatt.estimators._bare_steps",)
_LEARNER = ("final", "classifier")
_SCALER = ("transformer",)
_VECTORIZER = ("vectorizer", "transformer")

#: Every class a model file may hold, in the order the registry lists them.
RECORDS: tuple[Record, ...] = (
    # ------------------------------------------------------------------ the learners
    _ours(
        "rosenblatt.Perceptron",
        "estimators.linear",
        (*_LEARNER, "online"),
        _LINEAR,
        _LINEAR_DERIVED,
        check=lambda c: learners.check_linear_perceptron(c, averaged=False, voted=False),
        cli="perceptron",
        bare=True,
        scoring="linear",
        state="primal",
    ),
    _ours(
        "rosenblatt.AveragedPerceptron",
        "estimators.linear",
        (*_LEARNER, "online"),
        _LINEAR,
        _LINEAR_DERIVED,
        check=lambda c: learners.check_linear_perceptron(c, averaged=True, voted=False),
        cli="averaged",
        bare=True,
        scoring="linear",
        state="primal",
    ),
    _ours(
        "rosenblatt.VotedPerceptron",
        "estimators.linear",
        (*_LEARNER, "online"),
        _LINEAR,
        _LINEAR_DERIVED + " n_vectors_",
        check=lambda c: learners.check_linear_perceptron(c, averaged=False, voted=True),
        cli="voted",
        bare=True,
        scoring="voted",
        state="primal",
    ),
    _ours(
        "rosenblatt.PassiveAggressive",
        "estimators.passive_aggressive",
        (*_LEARNER, "online"),
        _LINEAR,
        _LINEAR_DERIVED,
        check=lambda c: learners.check_linear_perceptron(
            c, averaged=c.param("average"), voted=False, initial=False, parameter="average"
        ),
        cli={name: {"variant": name} for name in ("pa", "pa1", "pa2")},
        bare=True,
        scoring="linear",
        state="primal",
    ),
    _ours(
        "rosenblatt.KernelPerceptron",
        "estimators.kernel",
        (*_LEARNER, "online"),
        _KERNEL,
        _KERNEL_DERIVED,
        check=learners.check_kernel_perceptron,
        cli="kernel",
        scoring="dual",
        state="dual",
    ),
    _ours(
        "rosenblatt.Projectron",
        "estimators.projectron",
        (*_LEARNER, "online"),
        _KERNEL,
        _KERNEL_DERIVED,
        check=learners.check_kernel_perceptron,
        cli="projectron",
        scoring="dual",
        state="dual",
    ),
    _ours(
        "rosenblatt.CentroidClassifier",
        "estimators.baselines",
        _LEARNER,
        f"{_INPUT} classes_ centroids_ coef_ intercept_",
        check=learners.check_centroid,
        cli="centroid",
        scoring="linear",
    ),
    _ours(
        "rosenblatt.LinearProgramClassifier",
        "estimators.baselines",
        _LEARNER,
        f"{_INPUT} classes_ coef_ intercept_ total_slack_ separable_",
        check=learners.check_linear_program,
        cli="lp",
        scoring="linear",
    ),
    _ours(
        "rosenblatt.CalibratedClassifier",
        "estimators.calibration",
        ("final", "calibrated"),
        f"{_INPUT} classes_ estimators_ calibrators_",
        check=learners.check_calibrated,
        rules=rules.CALIBRATED,
        scoring="calibrated",
    ),
    _ours(
        "rosenblatt.OnlineCalibratedClassifier",
        "estimators._online_calibration",
        ("final", "calibrated"),
        f"{_INPUT} classes_ fixed_classes_ estimator_ platt_ newton_ bin_sums_ bin_counts_ "
        f"{_EPOCHS}",
        check=learners.check_online_calibrated,
        rules=rules.ONLINE_CALIBRATED,
        scoring="online-calibrated",
    ),
    # ------------------------------------------------------------------ containers
    _sklearn(
        "sklearn.pipeline.Pipeline",
        ("pipeline", "stateless", "classifier"),
        check=transformers.check_pipeline,
        bare=_STEPS + ("Pipeline",),
    ),
    # ------------------------------------------------------------------ transformers
    _sklearn(
        "sklearn.feature_extraction.text.CountVectorizer",
        _VECTORIZER,
        "vocabulary_ fixed_vocabulary_",
        check=transformers.check_count_vectorizer,
        rules=rules.COUNT_VECTORIZER,
    ),
    _sklearn(
        "sklearn.feature_extraction.text.TfidfVectorizer",
        _VECTORIZER,
        "vocabulary_ fixed_vocabulary_ idf_",
        check=transformers.check_tfidf_vectorizer,
        saving=private.refuse_tfidf_without_idf,
        rules=rules.TFIDF_VECTORIZER,
        properties=("idf_",),
    ),
    _sklearn(
        "sklearn.feature_extraction.text.HashingVectorizer",
        (*_VECTORIZER, "stateless"),
        check=transformers.check_hashing_vectorizer,
        rules=rules.HASHING_VECTORIZER,
    ),
    _ours(
        "rosenblatt.TfDfTransformer",
        "estimators.text",
        _SCALER,
        f"{_INPUT} df_",
        check=transformers.check_tfdf_transformer,
        rules=rules.TFDF_TRANSFORMER,
        scoring="tf-df",
    ),
    _sklearn(
        "sklearn.feature_extraction.text.TfidfTransformer",
        _SCALER,
        f"{_INPUT} idf_",
        check=transformers.check_tfidf_transformer,
        rules=rules.TFIDF_TRANSFORMER,
    ),
    _sklearn(
        "sklearn.preprocessing.StandardScaler",
        (*_SCALER, "standardizer"),
        f"{_INPUT} n_samples_seen_ mean_ var_ scale_",
        check=transformers.check_standard_scaler,
        bare=_STEPS + ("StandardScaler",),
    ),
    _sklearn(
        "sklearn.preprocessing.MinMaxScaler",
        _SCALER,
        f"{_INPUT} n_samples_seen_ scale_ min_ data_min_ data_max_ data_range_",
        check=transformers.check_min_max_scaler,
    ),
    _sklearn(
        "sklearn.preprocessing.MaxAbsScaler",
        _SCALER,
        f"{_INPUT} n_samples_seen_ max_abs_ scale_",
        check=transformers.check_max_abs_scaler,
    ),
    _sklearn(
        "sklearn.preprocessing.Normalizer",
        _SCALER,
        _INPUT,
        check=transformers.check_normalizer,
    ),
    _sklearn(
        "sklearn.preprocessing.RobustScaler",
        _SCALER,
        f"{_INPUT} center_ scale_",
        check=transformers.check_robust_scaler,
        rules=rules.ROBUST_SCALER,
    ),
    _sklearn(
        "sklearn.preprocessing.PolynomialFeatures",
        _SCALER,
        f"{_INPUT} n_output_features_",
        check=transformers.check_polynomial_features,
        width=transformers.polynomial_width_of,
        rules=rules.POLYNOMIAL_FEATURES,
        private=private.polynomial_degrees_of,
    ),
    _sklearn(
        "sklearn.preprocessing.OneHotEncoder",
        _SCALER,
        f"{_INPUT} categories_ drop_idx_",
        check=transformers.check_one_hot_encoder,
        width=transformers.one_hot_width,
        rules=rules.ONE_HOT_ENCODER,
        private=private.encoder_groups,
    ),
    _sklearn(
        "sklearn.preprocessing.FunctionTransformer",  # what fit makes of 'passthrough'
        (*_SCALER, "identity"),
        _INPUT,
        check=transformers.check_function_transformer,
        rules=rules.FUNCTION_TRANSFORMER,
    ),
    _sklearn(
        "sklearn.impute.SimpleImputer",
        _SCALER,
        f"{_INPUT} statistics_ indicator_",
        check=transformers.check_simple_imputer,
        width=transformers.imputed_width,
        rules=rules.SIMPLE_IMPUTER,
        private=private.imputer_dtypes,
    ),
    _sklearn(
        "sklearn.decomposition.PCA",
        _SCALER,
        f"{_INPUT} {transformers.COMPONENTS} mean_ n_components_ n_samples_ noise_variance_",
        check=transformers.check_pca,
        width=transformers.components_width,
        rules=rules.PCA,
        private=private.pca_solver,
    ),
    _sklearn(
        "sklearn.decomposition.TruncatedSVD",
        _SCALER,
        f"{_INPUT} {transformers.COMPONENTS}",
        check=transformers.check_truncated_svd,
        width=transformers.components_width,
        rules=rules.TRUNCATED_SVD,
    ),
    _sklearn(
        "sklearn.compose.ColumnTransformer",
        (*_SCALER, "container"),
        f"{_INPUT} transformers_ sparse_output_ output_indices_",
        check=transformers.check_column_transformer,
        width=transformers.column_width,
        rules=rules.COLUMN_TRANSFORMER,
        private=private.column_selection,
    ),
    _sklearn(
        "sklearn.pipeline.FeatureUnion",
        (*_SCALER, "container", "union", "stateless"),
        check=transformers.check_feature_union,
        rules=rules.FEATURE_UNION,
    ),
    # ------------------------------------------------------------------ engine states
    Record(
        "rosenblatt.engine.primal.PrimalState",
        ("rosenblatt.engine.primal", "PrimalState"),
        frozenset({"state"}),
        check=states.check_primal_state,
    ),
    Record(
        "rosenblatt.engine.dual.DualState",
        ("rosenblatt.engine.dual", "DualState"),
        frozenset({"state"}),
        check=states.check_dual_state,
    ),
)

_BY_KEY = {record.key: record for record in RECORDS}
_BY_LOCATION = {record.location: record for record in RECORDS if record.location is not None}
_BY_BARE = {record.bare: record for record in RECORDS if record.bare is not None}
if len(_BY_KEY) != len(RECORDS):  # pragma: no cover - a record declared twice
    raise RuntimeError("a class has two records")


def record_of(key: str) -> Record:
    """The record of the class registered as ``key`` (KeyError if none)."""
    return _BY_KEY[key]


def keys_with(role: str, *, without: str | None = None) -> tuple[str, ...]:
    """The keys of the classes that play ``role`` (and not ``without``), in order.

    Examples
    --------
    >>> keys_with("vectorizer")[0]
    'sklearn.feature_extraction.text.CountVectorizer'
    """
    if role not in ROLES:
        raise KeyError(role)
    return tuple(
        r.key for r in RECORDS if role in r.roles and (without is None or without not in r.roles)
    )


def key_of_bare(cls: type) -> str | None:
    """The key of the class whose learner without scikit-learn's base classes is exactly
    ``cls`` (``Record.bare``), or None: found by where ``cls`` is defined, so that
    nothing is imported (scikit-learn least of all).

    Examples
    --------
    >>> from rosenblatt.estimators import _bare
    >>> key_of_bare(_bare.VotedPerceptron), key_of_bare(int)
    ('rosenblatt.VotedPerceptron', None)
    """
    record = _BY_BARE.get((cls.__module__, cls.__qualname__))
    return None if record is None or record.load_bare() is not cls else record.key


def record_of_class(cls: type) -> Record | None:
    """The record of exactly ``cls`` (not of a subclass), or None: found by where the class
    is defined, so that nothing is imported.

    Examples
    --------
    >>> from rosenblatt.engine.primal import PrimalState
    >>> record_of_class(PrimalState).key
    'rosenblatt.engine.primal.PrimalState'
    """
    return _BY_LOCATION.get((cls.__module__, cls.__qualname__))


def scored_as(*kinds: str) -> tuple[Record, ...]:
    """The records whose ``scoring`` is one of ``kinds``."""
    return tuple(r for r in RECORDS if r.scoring in kinds)


def by_cli() -> dict[str, Record]:
    """The learners of the command line by their ``--algorithm`` name."""
    return {name: r for r in RECORDS if r.cli is not None for name in _cli_names(r)}


def cli_parameters(name: str) -> dict[str, Any]:
    """The parameters the ``--algorithm`` name ``name`` sets (``pa1``: ``variant="pa1"``).

    Examples
    --------
    >>> cli_parameters("pa2"), cli_parameters("perceptron")
    ({'variant': 'pa2'}, {})
    """
    cli = by_cli()[name].cli
    return {} if isinstance(cli, str) else dict(cli[name])  # type: ignore[index]


def _cli_names(record: Record) -> tuple[str, ...]:
    return (record.cli,) if isinstance(record.cli, str) else tuple(record.cli or ())


def _where(record: Record) -> str:
    """A class's entry in :data:`PARAMETERS_FILE`: where it is defined, ``module:Name``."""
    return ":".join(record.module_and_name())


@cache
def _parameters() -> dict[str, frozenset[str]]:
    return {
        where: frozenset(names) for where, names in json.loads(PARAMETERS_FILE.read_text()).items()
    }


def parameters_of(key: str) -> frozenset[str]:
    """The constructor parameters of the class registered as ``key``, as its signature names
    them (from :data:`PARAMETERS_FILE`).

    Examples
    --------
    >>> sorted(parameters_of("sklearn.preprocessing.StandardScaler"))
    ['copy', 'with_mean', 'with_std']
    """
    return _parameters().get(_where(record_of(key)), frozenset())


def signature_parameters() -> dict[str, list[str]]:
    """The constructor parameters of every recorded estimator, read off the installed
    classes' signatures (what :data:`PARAMETERS_FILE` must hold)."""
    import inspect

    return {
        _where(r): sorted(inspect.signature(r.load()).parameters)
        for r in RECORDS
        if "state" not in r.roles
    }


def write_parameters(path: Path = PARAMETERS_FILE) -> dict[str, list[str]]:
    """Write :data:`PARAMETERS_FILE` from the installed classes: after a class's parameters
    change, ``python -c "from rosenblatt.persistence.records import write_parameters;
    write_parameters()"``."""
    found = signature_parameters()
    path.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    _parameters.cache_clear()
    return found
