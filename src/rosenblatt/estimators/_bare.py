"""The linear learners without scikit-learn's base classes: what ``rosenblatt train`` fits.

Each public class of :mod:`rosenblatt.estimators.linear` and
:mod:`rosenblatt.estimators.passive_aggressive` is the learner of the same name here with
scikit-learn's ``ClassifierMixin`` and ``BaseEstimator`` added: its parameters, training,
fitted attributes and predictions are these, written once. Importing scikit-learn's base
classes costs about a second and a half (``sklearn.base`` imports scipy.stats and pandas),
longer than the command line's whole training on a small file, so the command line fits
the learner here where nothing else in the model needs scikit-learn (numeric columns,
no scaler, no calibration) and saves it as its class
(:attr:`rosenblatt.persistence.records.Record.bare`): the same model file, which
:func:`rosenblatt.load` reads back as the estimator.

A learner here has no ``get_params``, ``set_params``, ``score`` or estimator tags, and
takes the readers' input (float64 rows of finite numbers, dense or CSR, and 1-D labels):
anything else is for the estimators of :mod:`rosenblatt`.

>>> import numpy as np
>>> import rosenblatt
>>> from rosenblatt.estimators import _bare
>>> X, y = np.array([[-1.0, -1], [1, -1], [-1, 1], [1, 1]]), np.array([-1, 1, 1, 1])
>>> bare = _bare.Perceptron(shuffle=False).fit(X, y)
>>> estimator = rosenblatt.Perceptron(shuffle=False).fit(X, y)
>>> bare.coef_, bare.n_iter_, bool((bare.coef_ == estimator.coef_).all())
(array([[1., 1.]]), 2, True)
>>> isinstance(estimator, _bare.Perceptron)
True
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .._core.validation import BOOL, Interval, Options, check_fitted, validate
from ._base import BaseLinearPerceptron

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import MatrixLike, RandomStateLike

__all__ = ["AveragedPerceptron", "PassiveAggressive", "Perceptron", "VotedPerceptron"]


class Perceptron(BaseLinearPerceptron):
    """:class:`rosenblatt.Perceptron` without scikit-learn's base classes (see there)."""

    _parameter_constraints = {
        **BaseLinearPerceptron._parameter_constraints,
        "mode": [Options(("online", "batch"))],
    }

    def __init__(
        self,
        *,
        mode: str = "online",
        eta: float = 1.0,
        fit_intercept: bool = True,
        intercept_scaling: float | str = 1.0,
        max_iter: int = 1000,
        shuffle: bool | str = True,
        random_state: RandomStateLike = None,
        multi_class: str = "ovr",
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        n_iter_no_change: int = 10,
        tol: float | None = 1e-3,
        class_weight: dict | str | None = None,
        warm_start: bool = False,
        verbose: int = 0,
        n_jobs: int | None = None,
        on_epoch: Callable | None = None,
    ):
        super().__init__(
            eta=eta,
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            max_iter=max_iter,
            shuffle=shuffle,
            random_state=random_state,
            multi_class=multi_class,
            early_stopping=early_stopping,
            validation_fraction=validation_fraction,
            n_iter_no_change=n_iter_no_change,
            tol=tol,
            class_weight=class_weight,
            warm_start=warm_start,
            verbose=verbose,
            n_jobs=n_jobs,
            on_epoch=on_epoch,
        )
        self.mode = mode


class AveragedPerceptron(BaseLinearPerceptron):
    """:class:`rosenblatt.AveragedPerceptron` without scikit-learn's base classes (see there)."""

    _averaged = True


class VotedPerceptron(BaseLinearPerceptron):
    """:class:`rosenblatt.VotedPerceptron` without scikit-learn's base classes (see there)."""

    _voted = True

    def _set_public_weights(self):
        super()._set_public_weights()
        self.n_vectors_ = self.training_state_.votes.n_vectors()

    # ------------------------------------------------------------------ the vote table
    @property
    def voted_coef_(self) -> np.ndarray | list[np.ndarray]:
        """The weight vector ``w_k`` of every hypothesis (see the class docstring)."""
        return self._vote_table(0)

    @property
    def voted_intercept_(self) -> np.ndarray | list[np.ndarray]:
        """The intercept ``b_k`` of every hypothesis (see the class docstring)."""
        return self._vote_table(1)

    @property
    def votes_(self) -> np.ndarray | list[np.ndarray]:
        """The survival count ``c_k`` of every hypothesis (see the class docstring)."""
        return self._vote_table(2)

    def _vote_table(self, part):
        """One part of :meth:`~rosenblatt.engine.votes.VoteRecord.vectors` per voter:
        the array for one neuron or the multinomial model, else a list."""
        check_fitted(self, "training_state_")
        state = self.training_state_
        record = state.votes
        tables = [
            record.vectors(
                k,
                state.n_features,
                state.counts,
                state.dtype,
                n_classes=self.classes_.shape[0],
                coef=part == 0,
            )[part]
            for k in range(len(record.voters))
        ]
        return tables[0] if len(tables) == 1 else tables

    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Survival-weighted vote, normalised to ``[-1, 1]``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
            For a model fitted on a label matrix, (n_samples, n_labels): each
            label's neuron's vote.
        """
        check_fitted(self, "training_state_")
        X = validate(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        votes = self.training_state_.vote(X, self.classes_.shape[0])
        if self._multinomial and self.classes_.shape[0] == 2:
            return votes[:, 1] - votes[:, 0]
        return votes.ravel() if votes.shape[1] == 1 else votes


class PassiveAggressive(BaseLinearPerceptron):
    """:class:`rosenblatt.PassiveAggressive` without scikit-learn's base classes (see there)."""

    _parameter_constraints = {
        **{
            name: constraint
            for name, constraint in BaseLinearPerceptron._parameter_constraints.items()
            if name != "eta"
        },
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "variant": [Options(("pa", "pa1", "pa2"))],
        "average": [BOOL],
    }
    _average_initial = False  # scikit-learn's averaged SGD: the mean of w_1 .. w_T

    def __init__(
        self,
        *,
        C: float = 1.0,
        variant: str = "pa1",
        average: bool = False,
        fit_intercept: bool = True,
        intercept_scaling: float | str = 1.0,
        max_iter: int = 1000,
        shuffle: bool | str = True,
        random_state: RandomStateLike = None,
        multi_class: str = "ovr",
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        n_iter_no_change: int = 10,
        tol: float | None = 1e-3,
        class_weight: dict | str | None = None,
        warm_start: bool = False,
        verbose: int = 0,
        n_jobs: int | None = None,
        on_epoch: Callable | None = None,
    ):
        self.C = C
        self.variant = variant
        self.average = average
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.multi_class = multi_class
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.on_epoch = on_epoch

    @property
    def _averaged(self) -> bool:  # type: ignore[override]
        return bool(self.average)

    def _step(self) -> tuple[str, float, float]:
        """The passive-aggressive step of ``variant``, bounded by ``C`` (no learning rate)."""
        return self.variant, 1.0, self.C
