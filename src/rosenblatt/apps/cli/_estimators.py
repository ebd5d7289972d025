"""Building the estimator of ``rosenblatt train`` (and ``crossval``, ``plot``) from the
command line's options, and the model (pipeline) it is fitted in."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.validation import validate_params
from ...engine.overflow import check_squares
from ...persistence.records import by_cli, cli_parameters, parameters_of

if TYPE_CHECKING:  # pragma: no cover
    from ...data.readers import Data
    from ...engine.driver import EpochReport

# The learners of the command line, read off their records: ``--algorithm`` names, those
# that run epochs (``--max-iter``), and those that train on a stream (``train --stream``,
# chunk by chunk: the engine's primal learners)
ALGORITHMS = tuple(by_cli())
ITERATIVE = tuple(name for name, r in by_cli().items() if "max_iter" in parameters_of(r.key))
ONLINE = tuple(name for name, r in by_cli().items() if r.state == "primal")

# the parameters every learner's command line sets by its own options (--eta, --seed,
# --max-iter) or never (a callback); each other parameter of a learner is an option of `train`
# for the algorithms whose class takes it (--kernel for kernel and projectron, ...)
_COMMON = frozenset({"eta", "random_state", "max_iter", "on_epoch", "verbose", "warm_start"})
OPTION_USERS = {
    name: tuple(cli for cli, r in by_cli().items() if name in parameters_of(r.key))
    for name in sorted(set().union(*(parameters_of(r.key) for r in by_cli().values())) - _COMMON)
}


def _option_value(name, value, algorithm):
    """A command-line option's text as the estimator's parameter value."""
    if name == "class_weight" and value != "balanced":
        raise ValueError(f"--class-weight takes 'balanced'; got {value!r}")
    if name == "shuffle":
        if value not in ("full", "block", "none"):
            raise ValueError(f"--shuffle takes full, block or none; got {value!r}")
        if by_cli()[algorithm].state == "dual":  # the kernel learners shuffle or not
            if value == "block":
                raise ValueError("the kernel perceptron shuffles fully or not at all: full, none")
            return value == "full"
        return False if value == "none" else value
    if name == "tol" and value == "none":
        return None  # the notes' rule: to the first error-free epoch or --max-iter
    if name in ("intercept_scaling", "gamma", "tol", "max_projection_error") and value not in (
        "auto",
        "scale",
    ):
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"--{name.replace('_', '-')} takes a number; got {value!r}") from None
    return value


def make_estimator(
    algorithm: str = "perceptron",
    *,
    epochs: int | None = None,
    eta: float = 1.0,
    seed: int = 0,
    on_epoch: Callable[[EpochReport], Any] | None = None,
    options: dict[str, Any] | None = None,
    bare: bool = False,
) -> Any:
    """The estimator behind ``--algorithm`` (``on_epoch`` goes to the iterative ones).

    ``options`` maps estimator parameters to the command line's values (None: not
    given); each applies to the algorithms :data:`OPTION_USERS` lists. ``epochs``
    None keeps the estimator's own ``max_iter``, so the command line and the
    Python API train alike by default. ``bare``: the algorithm's learner without
    scikit-learn's base classes where it has one (the linear learners,
    :mod:`rosenblatt.estimators._bare`), which trains and saves as the estimator without
    importing scikit-learn: for a model that needs nothing else of it.

    Examples
    --------
    >>> make_estimator("averaged", epochs=5)
    AveragedPerceptron(max_iter=5, random_state=0)
    >>> make_estimator("kernel", options={"kernel": "poly", "degree": 2, "gamma": "0.5"})
    KernelPerceptron(degree=2, gamma=0.5, kernel='poly', random_state=0)
    >>> type(make_estimator("pa2", bare=True)).__module__
    'rosenblatt.estimators._bare'
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    params = {}
    for name, value in (options or {}).items():
        if value is None or value is False and name in ("early_stopping", "plus"):
            continue
        if algorithm not in OPTION_USERS[name]:
            flag = "--" + name.replace("_", "-")
            raise ValueError(
                f"{flag} applies to --algorithm {' or '.join(OPTION_USERS[name])}, not {algorithm}"
            )
        params[name] = _option_value(name, value, algorithm)
    record = by_cli()[algorithm]
    takes = parameters_of(record.key)
    params.update(cli_parameters(algorithm))  # pa1: variant="pa1"
    common = {"eta": eta, "random_state": seed, "on_epoch": on_epoch, "max_iter": epochs}
    params.update({k: v for k, v in common.items() if k in takes and v is not None})
    estimator = (record.load_bare() if bare and record.bare else record.load())(**params)
    # the estimator's own constraints, now rather than at fit (after the data are read);
    # its error names the option (``_words.OPTIONS``)
    validate_params(estimator)
    if record.state == "dual":  # and the budget's rule across parameters (prediction, policy)
        from ...engine.budget import budget_of

        budget_of(estimator.get_params(), 1)
    return estimator


def text_features() -> list[tuple[str, Any]]:
    """The vectorizer steps of a text model: tf-idf word weights.

    tf-idf rather than the lecture notes' tf/df weights (term frequency over document
    frequency): on the SMS spam corpus it scores about four points higher
    (``examples/spam_filter.py`` compares both).
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    return [("vectorizer", TfidfVectorizer())]


def model_for(data: Data, estimator: Any, *, scale: bool = True, bare: bool = False) -> Any:
    """The unfitted model that ``train`` fits on ``data`` (a :class:`rosenblatt.data.io.Data`).

    Text gets the vectorizer steps before ``estimator``; numeric features get a
    ``StandardScaler`` (scaling sparse rows without centring them) unless ``scale``
    is False; the result is a scikit-learn ``Pipeline``, or ``estimator`` alone. ``bare``:
    dense numeric features get the stand-ins for the scaler and the pipeline
    (:mod:`rosenblatt.estimators._bare_steps`: the same values and model file, without
    importing scikit-learn) around a learner of :mod:`rosenblatt.estimators._bare`.
    """
    if not data.is_text and not scale:
        return estimator
    if not data.is_text:
        check_squares(data.X, "Standardising (StandardScaler)")  # else its variances are inf
    if bare and not data.is_text and isinstance(data.X, np.ndarray):
        from ...estimators import _bare_steps

        return _bare_steps.Pipeline(
            [("scaler", _bare_steps.StandardScaler()), ("classifier", estimator)]
        )
    from sklearn.pipeline import Pipeline

    if data.is_text:
        return Pipeline(text_features() + [("classifier", estimator)])
    import scipy.sparse as sp
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler(with_mean=not sp.issparse(data.X))
    return Pipeline([("scaler", scaler), ("classifier", estimator)])
