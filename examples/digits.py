"""Handwritten digits (10 classes) with the linear perceptrons and the kernel perceptron.

scikit-learn's 8x8 digits, stratified 75/25 split (``random_state=0``). Ten
classes are learnt one-vs-rest (the lecture notes' one neuron per class: a
single layer of M neurons) or multinomially (one weight vector per class, a
mistake moves the true class's vector towards the pattern and the winning
rival's away). The classes are not linearly separable in pixel space, so the
linear perceptrons run their 1000 epochs without converging; the RBF kernel
perceptron separates the training set within a few epochs.

The KernelPerceptron runs with its defaults (RBF kernel, ``gamma`` by
scikit-learn's "scale" rule, 1 / (n_features * X.var())), once for each
prediction rule: the last dual coefficients, their average over all
presentations (the default, which 5-fold cross-validation on the training split
also prefers), and the survival-weighted vote. scikit-learn's Perceptron and SVC
(same kernel and gamma, maximum margin) are reference rows.

Run with ``python examples/digits.py``.
"""

import warnings

from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from rosenblatt.estimators.kernel import KernelPerceptron
from rosenblatt.estimators.linear import AveragedPerceptron, Perceptron


def models(random_state=0):
    """The classifiers compared, by row name; the last two are scikit-learn references."""
    return {
        "Perceptron (one-vs-rest)": Perceptron(random_state=random_state),
        "Perceptron (multinomial)": Perceptron(
            multi_class="multinomial", random_state=random_state
        ),
        "AveragedPerceptron": AveragedPerceptron(random_state=random_state),
        **{
            f"KernelPerceptron ({prediction})": KernelPerceptron(
                prediction=prediction, random_state=random_state
            )
            for prediction in ("last", "averaged", "voted")
        },
        "sklearn Perceptron (ref.)": SklearnPerceptron(random_state=random_state),
        "sklearn SVC (ref.)": SVC(),
    }


def _describe(model):
    """Epochs and settings worth printing next to the accuracy."""
    if isinstance(model, KernelPerceptron):
        return model.n_iter_, f"gamma={model.gamma_:.2g}, {model.support_.size} support vectors"
    if isinstance(model, SVC):
        return None, ""
    converged = getattr(model, "converged_", None)
    return model.n_iter_, "" if converged is None else f"converged={converged}"


def main(random_state=0, verbose=True):
    """Train and score every model; print and return the rows.

    Returns
    -------
    list of dict
        ``model``, ``accuracy`` (test), ``epochs`` and ``notes``.
    """
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, stratify=y, random_state=0
    )
    rows = []
    for name, model in models(random_state).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X_train, y_train)
        epochs, notes = _describe(model)
        rows.append(
            dict(model=name, accuracy=model.score(X_test, y_test), epochs=epochs, notes=notes)
        )
    if verbose:
        print(f"digits: {X_train.shape[0]} training, {X_test.shape[0]} test images, 10 classes")
        print(f"{'model':<30} {'accuracy':>8} {'epochs':>6}  notes")
        for r in rows:
            epochs = "" if r["epochs"] is None else r["epochs"]
            print(f"{r['model']:<30} {r['accuracy']:>8.4f} {epochs:>6}  {r['notes']}")
    return rows


if __name__ == "__main__":
    main()
