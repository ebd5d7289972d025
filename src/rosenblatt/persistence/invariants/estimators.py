"""The invariants of rosenblatt's classifiers (linear, kernel, baselines, calibrated)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.sparse import is_sparse
from ..._core.validation import BrokenInvariant, is_finite
from .checker import Checker, final_step, rows_for
from .roles import with_role
from .transformers import output_width

# ---------------------------------------------------------------------- classifiers
_EPOCH_RECORD = ("n_iter_", "n_mistakes_", "mistakes_per_epoch_", "converged_")


def _neurons(c, classes, multinomial=False):
    """The rows (neurons, dual problems) a model of ``classes`` has: one per column of a
    label matrix when ``multilabel_`` says it learnt one (its classes then are the
    columns ``0 .. M-1``, and the layer is of independent neurons), else one for two
    classes and one per class for more (or multinomial). Files from before
    ``multilabel_`` learnt class labels."""
    if "multilabel_" not in c.values or not c.boolean("multilabel_"):
        return rows_for(classes.shape[0], multinomial)
    if classes.dtype.kind not in "iu" or not np.array_equal(classes, np.arange(classes.shape[0])):
        c.fail("classes_", "must be the label columns 0 .. M-1 of a multilabel model")
    if multinomial:
        c.fail("multilabel_", "is True, but a multinomial model has one class per sample")
    return classes.shape[0]


def _epoch_record(c):
    c.integer("n_iter_")
    c.integer("n_mistakes_", high=2**63 - 1)
    c.counts("mistakes_per_epoch_")
    c.boolean("converged_")


def check_linear_perceptron(
    c: Checker, *, averaged: Any, voted: bool, initial: bool = True, parameter: str = ""
) -> dict:
    """A linear perceptron's state, of the kind and shape its parameters and classes say;
    returns its public weights (``coef_``, ``intercept_``, and the voted one's
    ``n_vectors_``), read off the state as ``fit`` reads them (``initial``: the average
    includes the initial weights, see ``PrimalState.weights``). ``averaged`` is the class's
    kind, or the value of its ``parameter`` that says it (then checked to be a bool)."""
    if parameter and not isinstance(averaged, bool):
        c.fail(parameter, "must be True or False")
    required = ("classes_", "n_features_in_", "intercept_scaling_", "training_state_")
    if not c.fitted(*required, *_EPOCH_RECORD):
        return {}
    from ...engine.primal import PrimalState, constant_input

    classes = c.classes()
    n_features = c.n_features()
    state = c.values["training_state_"]
    if type(state) is not PrimalState:
        c.fail("training_state_", f"must be a PrimalState; it is a {type(state).__name__}")
    multinomial = c.param("multi_class") == "multinomial"
    if state.multinomial != multinomial:
        c.fail("training_state_", f"is {'not ' * multinomial}multinomial, unlike multi_class")
    rows = _neurons(c, classes, multinomial)
    if state.n_rows != rows or state.n_features != n_features:
        c.fail(
            "training_state_",
            f"has {state.n_rows} rows of {state.n_features} features; {classes.shape[0]} "
            f"classes of {n_features} features need {rows} rows",
        )
    if state.averaged != averaged or (state.votes is not None) != voted:
        c.fail("training_state_", "is not the state of this kind of perceptron")
    scaling = c.number("intercept_scaling_", nonzero=True)
    fit_intercept = c.param("fit_intercept")
    if not isinstance(fit_intercept, bool):
        c.fail("fit_intercept", "must be True or False")
    _epoch_record(c)
    bias_input = constant_input(fit_intercept, scaling)
    coef, intercept = state.public_weights(averaged, bias_input, initial)
    derived = {"coef_": coef, "intercept_": intercept}
    if voted:
        if state.votes.bias_input != bias_input:
            c.fail("training_state_", "votes with another constant input than the model's")
        derived["n_vectors_"] = state.votes.n_vectors()
    return derived


def check_kernel_perceptron(c: Checker) -> dict:
    """A kernel perceptron's state, of the budget, kernel and shape its parameters and
    classes say, with support vectors as many as it has; returns what ``fit`` reads off
    the state (``support_``, ``dual_coef_``, ``intercept_``, the update record)."""
    required = (
        "classes_",
        "n_features_in_",
        "training_state_",
        "gamma_",
        "support_",
        "support_vectors_",
        *_EPOCH_RECORD,
    )
    if not c.fitted(*required):
        return {}
    from ...engine.dual import DualState
    from ...engine.primal import constant_input

    classes = c.classes()
    n_features = c.n_features()
    state = c.values["training_state_"]
    if type(state) is not DualState:
        c.fail("training_state_", f"must be a DualState; it is a {type(state).__name__}")
    problems = _neurons(c, classes)
    if state.n_units != problems:
        c.fail("training_state_", f"has {state.n_units} problems; {classes.shape[0]} classes")
    estimator = _kernel_parameters(c)
    prediction = c.param("prediction")
    fit_intercept = c.param("fit_intercept")
    if prediction not in ("last", "averaged", "voted") or not isinstance(fit_intercept, bool):
        c.fail("prediction", "or fit_intercept is not one of the values the class takes")
    _budget_matches(c, estimator, state)
    scaling = c.param("intercept_scaling")
    if fit_intercept and (not isinstance(scaling, (int, float)) or not is_finite(scaling)):
        c.fail("intercept_scaling", "must be a finite number")
    s2 = constant_input(fit_intercept, scaling) ** 2
    slots, derived = state.fitted(prediction == "averaged", s2)
    if np.any(derived["update_support_"] < 0):
        c.fail("training_state_", "records updates on samples that are not support vectors")
    support = derived.pop("support_")
    c.same("support_", support)  # the rows the support vectors are, in the state's order
    vectors = c.values["support_vectors_"]
    if c.param("kernel") == "precomputed":
        c.array("support_vectors_", shape=(0, 0))
        if support.size and support.max() >= n_features:
            c.fail("support_", f"indexes kernel columns beyond the {n_features} training samples")
    elif is_sparse(vectors):
        if vectors.format != "csr" or vectors.shape != (support.shape[0], n_features):
            c.fail("support_vectors_", f"must be CSR of shape ({support.shape[0]}, {n_features})")
        if not vectors.has_canonical_format:  # as fit keeps them: sorted, no duplicates
            c.fail("support_vectors_", "must have sorted column indices, each once per row")
        c.array("support_vectors_", value=vectors.data)
    else:
        c.array("support_vectors_", shape=(support.shape[0], n_features))
    _epoch_record(c)
    return derived


def _kernel_parameters(c):
    """The class's own parameter constraints (prediction computes the kernel from them),
    a named kernel (a file holds no code), and ``gamma_`` a float exactly where it has one.
    Returns an unfitted estimator of the class with those parameters."""
    from ..._core.validation import check_args
    from ...estimators.kernel import KERNEL_PARAMS, KernelPerceptron
    from ...estimators.projectron import Projectron

    cls = Projectron if c.model.key.endswith(".Projectron") else KernelPerceptron
    constraints = cls._parameter_constraints
    params = {name: value for name, value in c.model.params.items() if name in constraints}
    try:
        check_args(cls.__name__, {n: constraints[n] for n in params}, params, "parameter")
    except ValueError as exc:
        raise BrokenInvariant(str(exc)) from None
    estimator = cls(**params)
    kernel = c.param("kernel", "rbf")
    if not isinstance(kernel, str):
        c.fail("kernel", "must name a kernel: a model file holds no functions")
    gamma = c.values["gamma_"]
    if "gamma" in KERNEL_PARAMS[kernel]:
        if not isinstance(gamma, (float, np.floating)) or not is_finite(gamma):
            c.fail("gamma_", f"must be the finite float gamma of the {kernel} kernel")
    elif gamma is not None:
        c.fail("gamma_", f"must be None: the {kernel} kernel has no gamma")
    return estimator


def _budget_matches(c, estimator, state):
    """The training state's budget is the one the parameters give (a Stoptron's file
    cannot hold a state that grows without bound, nor the reverse)."""
    from ...engine.budget import budget_of

    try:
        want = budget_of(estimator.get_params(), state.n_units)
    except ValueError as exc:
        raise BrokenInvariant(str(exc)) from None
    have = state.budget
    facts = ("policy", "size", "threshold", "plus")
    if (want is None and have.policy is not None) or (
        want is not None and any(getattr(want, f) != getattr(have, f) for f in facts)
    ):
        c.fail("training_state_", "holds a budget other than the parameters give")


def _one_vs_rest_linear(c, rows):
    """``coef_`` (rows, n_features) and ``intercept_`` (rows,), finite floats."""
    n_features = c.n_features()
    c.array("coef_", shape=(rows, n_features))
    c.array("intercept_", shape=(rows,))


def check_centroid(c: Checker) -> None:
    if not c.fitted("classes_", "n_features_in_", "centroids_", "coef_", "intercept_"):
        return
    classes = c.classes()
    n_features = c.n_features()
    centroids = c.array("centroids_", shape=(classes.shape[0], n_features))
    nearest = c.param("multi_class") == "nearest" and classes.shape[0] > 2
    _one_vs_rest_linear(c, classes.shape[0] if nearest else rows_for(classes.shape[0]))
    if nearest:  # the nearest class mean, written as linear scores
        c.same("coef_", centroids.copy())
        c.same("intercept_", -0.5 * np.einsum("kj,kj->k", centroids, centroids))


def check_linear_program(c: Checker) -> None:
    required = ("classes_", "n_features_in_", "coef_", "intercept_", "total_slack_")
    if not c.fitted(*required, "separable_"):
        return
    rows = rows_for(c.classes().shape[0])
    _one_vs_rest_linear(c, rows)
    c.array("total_slack_", shape=(rows,), low=0.0)
    c.boolean("separable_")


def check_calibrated(c: Checker) -> None:
    if not c.fitted("classes_", "estimators_", "calibrators_"):
        return
    classes = c.classes()
    # documents in (a text pipeline calibrated) have no feature count
    n_features = c.n_features() if "n_features_in_" in c.values else None
    folds, maps = c.values["estimators_"], c.values["calibrators_"]
    if not isinstance(folds, list) or not folds:
        c.fail("estimators_", "must be a non-empty list of fitted classifiers")
    if not isinstance(maps, list) or len(maps) != len(folds):
        c.fail("calibrators_", f"must hold one list of maps per fold ({len(folds)})")
    method = c.param("method")
    if "estimator" in c.model.params and c.param("estimator") is not None:
        c.estimator(c.param("estimator"), "estimator", with_role("classifier"))
    for k, (fold, fold_maps) in enumerate(zip(folds, maps)):
        where = f"estimators_[{k}]"
        fold = c.estimator(fold, where, with_role("classifier"))
        fold_classes = final_step(fold).fitted.get("classes_")
        if not isinstance(fold_classes, np.ndarray) or not np.isin(fold_classes, classes).all():
            c.fail(where, "is not fitted on the model's classes")
        if n_features is not None and output_width(fold, inputs=True) != n_features:
            c.fail(where, f"does not take the model's {n_features} features")
        expected = 1 if classes.shape[0] == 2 else fold_classes.shape[0]
        if not isinstance(fold_maps, list) or len(fold_maps) != expected:
            c.fail(f"calibrators_[{k}]", f"must hold {expected} calibration map(s)")
        for j, mapping in enumerate(fold_maps):
            _calibration_map(c, f"calibrators_[{k}][{j}]", mapping, method)


def _calibration_map(c, name, mapping, method):
    if method == "sigmoid" and isinstance(mapping, dict) and set(mapping) == {"a", "b"}:
        for part in ("a", "b"):
            value = mapping[part]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                c.fail(f"{name}[{part!r}]", "must be a number")
            if not is_finite(value):
                c.fail(f"{name}[{part!r}]", "must be finite")
        return
    if method == "isotonic" and isinstance(mapping, dict) and set(mapping) == {"x", "y"}:
        x = c.array(f"{name}['x']", value=mapping["x"], ndim=1, increasing=True)
        c.array(f"{name}['y']", value=mapping["y"], shape=(max(x.shape[0], 1),), low=0.0)
        if mapping["y"].max() > 1.0:
            c.fail(f"{name}['y']", "holds probabilities above 1")
        return
    wanted = "{'a', 'b'} (sigmoid)" if method == "sigmoid" else "{'x', 'y'} (isotonic)"
    c.fail(name, f"must be a calibration map {wanted} for method={method!r}")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and is_finite(value)


def check_online_calibrated(c: Checker) -> None:
    """The maps of online calibration: one per class scored (one for two classes), each
    ``(a, b)`` inside the ball of ``radius``, a symmetric positive definite Newton
    matrix, and per bin a count and a sum of outcomes between 0 and the count; the
    estimator one that learns online, fitted on the same classes and features (or
    not fitted at all, before its first update)."""
    required = ("classes_", "n_features_in_", "estimator_", "platt_", "newton_")
    if not c.fitted(*required, "bin_sums_", "bin_counts_", *_EPOCH_RECORD):
        return
    classes = c.classes()
    n_features = c.n_features()
    n_maps = rows_for(classes.shape[0])
    if c.param("estimator") is not None:
        c.estimator(c.param("estimator"), "estimator", with_role("online"), "an online classifier")
    role = "an online classifier"
    learner = c.estimator(c.values["estimator_"], "estimator_", with_role("online"), role)
    if learner.fitted:
        learnt = learner.fitted.get("classes_")
        if not isinstance(learnt, np.ndarray) or not np.array_equal(learnt, classes):
            c.fail("estimator_", "is not fitted on the model's classes")
        if learner.fitted.get("n_features_in_") != n_features:
            c.fail("estimator_", f"does not take the model's {n_features} features")
    radius = c.param("radius")
    platt = c.array("platt_", shape=(n_maps, 2))
    outside = np.hypot(platt[:, 0], platt[:, 1]) > (radius if _number(radius) else 0) * (1 + 1e-9)
    if np.any(outside):
        c.fail("platt_", f"holds (a, b) outside the ball of radius {radius}")
    newton = c.array("newton_", shape=(n_maps, 2, 2))
    if not np.array_equal(newton, np.transpose(newton, (0, 2, 1))):
        c.fail("newton_", "holds matrices that are not symmetric")
    det = newton[:, 0, 0] * newton[:, 1, 1] - newton[:, 0, 1] * newton[:, 1, 0]
    if np.any(newton[:, 0, 0] <= 0) or np.any(det <= 0):
        c.fail("newton_", "holds matrices that are not positive definite")
    n_bins = c.param("n_bins")
    bins = (n_maps, n_bins if isinstance(n_bins, int) else None)
    counts = c.array("bin_counts_", shape=bins, low=0.0)
    sums = c.array("bin_sums_", shape=counts.shape, low=0.0)
    if np.any(sums > counts):
        c.fail("bin_sums_", "holds more outcomes in a bin than its count")
    if "fixed_classes_" in c.values and c.values["fixed_classes_"] is not True:
        c.fail("fixed_classes_", "must be True where it is (absent: classes that grow)")
    _epoch_record(c)
