"""The model a kernel perceptron learns: a kernel expansion over its support vectors.

:class:`KernelExpansionMixin` is what :class:`~rosenblatt.estimators.kernel.KernelPerceptron`
(and :class:`~rosenblatt.estimators.projectron.Projectron`) know of their model beside
their parameters and their training: the kernel (its function, gamma, the constant
input's square), the samples training goes on with (new ones before the support vectors
so far), the fitted attributes read off the engine's
:class:`~rosenblatt.engine.dual.DualState`, and the scores.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._core.validation import validate
from ..engine.dual import Kernel
from ..engine.primal import constant_input
from ._kernel_helpers import dual_scores, resolve_gamma, same_rows, stacked

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import MatrixLike
    from ..engine.targets import TargetCoding

__all__ = ["KernelExpansionMixin"]


class KernelExpansionMixin:
    """The kernel, the growing samples, the fitted attributes and the scores of a kernel
    perceptron (with its parameters ``kernel``, ``gamma``, ``coef0``, ``degree``,
    ``kernel_params``, ``fit_intercept``, ``intercept_scaling`` and ``prediction``)."""

    kernel: Any
    gamma: Any
    gamma_: float | None
    coef0: float
    degree: int
    kernel_params: dict | None
    fit_intercept: bool
    intercept_scaling: float
    prediction: str
    training_state_: Any
    support_vectors_: Any
    _coding: TargetCoding

    # ------------------------------------------------------------------ the kernel
    def _check_gamma_kept(self):
        """Training that goes on keeps the kernel its coefficients were learnt with."""
        if isinstance(self.gamma, numbers.Real) and self.gamma_ is not None:
            if float(self.gamma) != self.gamma_:
                raise ValueError(
                    f"gamma={self.gamma!r} differs from gamma_={self.gamma_!r}, the gamma "
                    "this model was trained with; continued training (partial_fit, "
                    "warm_start=True) keeps the kernel of its support vectors. Set gamma "
                    "back, or fit from scratch with warm_start=False."
                )

    @property
    def _s2(self):
        return constant_input(self.fit_intercept, self.intercept_scaling) ** 2

    @property
    def _n_problems(self):
        return self._coding.n_outputs

    def _resolve_gamma(self, X):
        return resolve_gamma(self.kernel, self.gamma, X)

    def _kernel_function(self):
        if callable(self.kernel) or self.kernel == "precomputed":
            return Kernel(self.kernel, params=self.kernel_params)
        return Kernel(self.kernel, gamma=self.gamma_, coef0=self.coef0, degree=self.degree)

    def _targets(self, target):
        """±1 targets, one row per dual problem (``target``: class indices, or the
        label matrix, as the coding encodes them)."""
        return self._coding.signs(target)

    # ------------------------------------------------------------------ the samples
    def _grown(self, X):
        """The state and its samples' patterns when training goes on with new samples
        ``X``: ``X`` first, then the support vectors learnt so far."""
        state = self.training_state_.extended(X.shape[0])
        return state, stacked(X, self.support_vectors_)

    def _continued(self, X):
        """What a warm-started ``fit`` trains: the previous state on the data it was
        trained on, else (as ``partial_fit``) the new samples before its support vectors."""
        if self._trained_on(X):
            return self.training_state_, X
        if self.kernel == "precomputed":  # no patterns to compute new kernel values from
            raise ValueError(
                "With kernel='precomputed', warm_start=True goes on training on the same "
                "samples: pass their kernel matrix again, or fit with warm_start=False."
            )
        return self._grown(X)

    def _trained_on(self, X):
        """Whether ``X`` holds the samples of the state, in its order (a fit's data)."""
        state = self.training_state_
        n = X.shape[0]
        if state.n_samples != n or not np.array_equal(state.index, np.arange(n)):
            return False
        # the model depends on the support vectors alone: the other rows may differ
        return self.kernel == "precomputed" or same_rows(X[state.support()], self.support_vectors_)

    # ------------------------------------------------------------------ fitted
    def _classes_added(self):
        """The fitted attributes of the grown state: new problems hold no support vector,
        so the support vectors stay those kept."""
        _, attributes = self.training_state_.fitted(self.prediction == "averaged", self._s2)
        for name, value in attributes.items():
            setattr(self, name, value)

    def _set_fitted(self, patterns, state):
        self.training_state_ = state
        # slots: the state's samples that are support vectors, in data order
        slots, attributes = state.fitted(self.prediction == "averaged", self._s2)
        for name, value in attributes.items():
            setattr(self, name, value)
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = patterns[slots]

    # ------------------------------------------------------------------ predict
    def decision_function(self, X: MatrixLike) -> np.ndarray:
        """Score of each sample; its sign (two classes) or argmax gives the class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Patterns (float32 or float64), or for ``kernel="precomputed"`` their
            (n_samples, n_training_samples) kernel values against the training samples.

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
            ``f(x)``, summed over the support vectors in training's order, or for
            ``prediction="voted"`` the survival-weighted vote normalised to ``[-1, 1]``;
            (n_samples, n_labels) for a model fitted on a label matrix.
        """
        check_is_fitted(self)
        X = validate(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        scores = dual_scores(self, self._kernel_function(), self._s2, X)
        return scores.ravel() if scores.shape[1] == 1 else scores
