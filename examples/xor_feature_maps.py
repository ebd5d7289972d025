"""XOR and feature maps: what a linear perceptron cannot learn, and two fixes.

XOR is the classic pattern set that no line separates, so the perceptron cycles
through its epochs for ever (the lecture notes' limits of the perceptron). A
nonlinear feature map fixes it: the notes' map ``(x1, x2, x1 x2, x1^2, x2^2)``
makes the product ``x1 * x2`` a feature, and XOR is linear in it. The map can be
explicit, :func:`rosenblatt.theory.notes_feature_map` in front of the linear
Perceptron (no constant column: the perceptron's bias input is the constant), or
implicit, a polynomial kernel of degree 2 in the dual form (the lecture notes'
dual variables): ``(gamma x . z + 1)**2`` is the inner product of (scaled)
degree-2 monomials, computed without ever forming them.

Run with ``python examples/xor_feature_maps.py``.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from rosenblatt.estimators.kernel import KernelPerceptron
from rosenblatt.estimators.linear import Perceptron
from rosenblatt.theory import notes_feature_map

X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
y = np.array([0, 1, 1, 0])


def models():
    """The three ways of attacking XOR, by row name."""
    return {
        "Perceptron (linear)": Perceptron(max_iter=100, random_state=0),
        "notes_feature_map + Perceptron": make_pipeline(
            FunctionTransformer(notes_feature_map), Perceptron(random_state=0)
        ),
        "KernelPerceptron(kernel='poly', degree=2)": KernelPerceptron(
            kernel="poly", degree=2, random_state=0
        ),
    }


def main(verbose=True):
    """Fit each model on the four XOR patterns; print and return the rows.

    Returns
    -------
    list of dict
        ``model``, ``predictions`` (on the four patterns), ``training_accuracy``,
        ``converged`` (an epoch without mistakes was reached) and ``epochs``.
    """
    rows = []
    for name, model in models().items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # the linear one never converges
            model.fit(X, y)
        perceptron = model[-1] if hasattr(model, "steps") else model
        rows.append(
            dict(
                model=name,
                predictions=model.predict(X).tolist(),
                training_accuracy=model.score(X, y),
                converged=bool(perceptron.converged_),
                epochs=int(perceptron.n_iter_),
            )
        )
    if verbose:
        print(f"XOR: patterns {X.tolist()}, labels {y.tolist()}")
        print(f"{'model':<42} {'predictions':<13} {'accuracy':>8} {'converged':>9} {'epochs':>6}")
        for r in rows:
            print(
                f"{r['model']:<42} {str(r['predictions']):<13} {r['training_accuracy']:>8.2f} "
                f"{str(r['converged']):>9} {r['epochs']:>6}"
            )
    return rows


if __name__ == "__main__":
    main()
