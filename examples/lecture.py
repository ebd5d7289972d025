"""A lecture from the notes, slide by slide: what each slide would show, computed.

The lecture notes in order, every number from the library:

1. the modified OR problem, trained by hand: the online trace (bias input -1);
2. the same in batch mode;
3. the three mistake bounds of the convergence proofs;
4. linear separability as a linear program (OR is separable, XOR is not);
5. XOR through the notes' feature map (x1, x2, x1 x2, x1^2, x2^2);
6. the centroid method (with the midpoint done right);
7. the kernel perceptron (the dual form) on XOR;
8. the averaged and the voted perceptron against the last weights, on noisy data;
9. the surrogate losses against the 0-1 loss.

Run with ``python examples/lecture.py`` (the test suite runs it too).
"""

import warnings

import numpy as np
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from rosenblatt import AveragedPerceptron, Perceptron, VotedPerceptron, theory, trace
from rosenblatt.estimators.baselines import CentroidClassifier
from rosenblatt.estimators.kernel import KernelPerceptron
from rosenblatt.theory import losses

# the notes' modified OR problem (seed 003): pattern 1 has t = -1, the others t = +1
OR_X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]])
OR_Y = np.array([-1, 1, 1, 1])
XOR_Y = np.array([-1, 1, 1, -1])


def vec(values):
    """A vector as the slides write it: ``(1, 1, -1)``, 4 significant digits."""
    return "(" + ", ".join(f"{v + 0.0:.4g}" for v in np.ravel(values)) + ")"


def slide(number, title, out):
    """A slide's title, as a line of its own."""
    out(f"\n--- {number}. {title} " + "-" * max(3, 60 - len(title)))


def or_traces(out):
    slide(1, "The modified OR problem, incremental mode (eta = 1, bias input -1)", out)
    online = trace(OR_X, OR_Y)  # the notes' conventions are the defaults
    out(online.table())
    out(
        f"w = {vec(online.weights[-1])} after {online.n_updates} updates, "
        f"converged in epoch {online.n_epochs}"
    )
    slide(2, "Batch mode: one update per epoch, the sum over the mistakes", out)
    batch = trace(OR_X, OR_Y, mode="batch")
    out(batch.table())
    out(f"w = {vec(batch.weights[-1])} after {batch.n_epochs} epochs")
    return {
        "online": online.weights[-1].tolist(),
        "batch": batch.weights[-1].tolist(),
        "online_updates": online.n_updates,
    }


def bounds(out):
    slide(3, "How many mistakes at most: the three bounds", out)
    b = theory.mistake_bounds(OR_X, OR_Y)
    geometric = theory.max_margin(OR_X, OR_Y).margin
    out(f"the separator's geometric margin {geometric:.4g} (of the best w . x + b: no bound)")
    out(
        f"the augmented margin gamma = {b.margin:.4g} of (x, bias input), R = {b.radius:.4g}, "
        f"beta = {b.beta:.4g}"
    )
    out(f"the normalized margin gamma/R = {b.unit_norm_margin:.4g} (patterns scaled to |x| <= 1)")
    out(
        f"Block-Novikoff (R/gamma)^2 = {b.novikoff:.4g}; the notes' proof beta/gamma^2 = "
        f"{b.notes:.4g}; 1/(gamma/R)^2 with |x| <= 1: {b.unit_norm:.4g}"
    )
    return {"novikoff": b.novikoff, "notes": b.notes, "unit_norm": b.unit_norm}


def separability(out):
    slide(4, "Linear separability as a linear program", out)
    or_lp = theory.is_linearly_separable(OR_X, OR_Y)
    xor_lp = theory.is_linearly_separable(OR_X, XOR_Y)
    out(
        f"OR: separable = {or_lp.separable}; XOR: separable = {xor_lp.separable}, "
        f"least total slack {xor_lp.total_slack:.4g}"
    )
    return {"or": bool(or_lp.separable), "xor": bool(xor_lp.separable)}


def xor_feature_map(out):
    slide(5, "XOR through the notes' map (x1, x2, x1 x2, x1^2, x2^2)", out)
    Z = theory.notes_feature_map(OR_X)
    separable = bool(theory.is_linearly_separable(Z, XOR_Y))
    clf = Perceptron(shuffle=False, intercept_scaling=-1).fit(Z, XOR_Y)
    names = ", ".join(theory.NOTES_FEATURE_NAMES)
    out(f"features ({names}); separable now: {separable}")
    out(
        f"the perceptron: w = {vec(clf.coef_)}, b = {clf.intercept_[0]:g}, "
        f"{clf.n_mistakes_} mistakes, training accuracy {clf.score(Z, XOR_Y):.2f}"
    )
    return {"separable": separable, "accuracy": float(clf.score(Z, XOR_Y))}


def centroid(out):
    slide(6, "The centroid method: the nearer class mean", out)
    clf = CentroidClassifier().fit(OR_X, OR_Y)
    means = ", ".join(vec(mean) for mean in clf.centroids_)
    out(
        f"class means {means}; f(x) = {vec(clf.coef_)} . x + {clf.intercept_[0]:.4g}; "
        f"training accuracy {clf.score(OR_X, OR_Y):.2f}"
    )
    return {"accuracy": float(clf.score(OR_X, OR_Y))}


def kernel(out):
    slide(7, "The dual form: a kernel perceptron learns XOR", out)
    clf = KernelPerceptron(kernel="poly", degree=2, shuffle=False, prediction="last")
    clf.fit(OR_X, XOR_Y)
    out(
        f"polynomial kernel of degree 2: dual coefficients {vec(clf.dual_coef_)} on "
        f"support vectors {clf.support_.tolist()}; predictions {clf.predict(OR_X).tolist()}"
    )
    return {"accuracy": float(clf.score(OR_X, XOR_Y)), "converged": bool(clf.converged_)}


def averaged_against_last(out):
    slide(8, "The last vector jumps, the average does not: noisy data", out)
    X, y = make_classification(
        n_samples=600, n_features=10, n_informative=4, flip_y=0.15, class_sep=0.8, random_state=3
    )
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=3)
    scores = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # noise: no epoch is error-free
        for model in (Perceptron, AveragedPerceptron, VotedPerceptron):
            clf = model(max_iter=10, random_state=0, tol=None).fit(X_train, y_train)
            scores[model.__name__] = float(clf.score(X_test, y_test))
    for name, score in scores.items():
        out(f"{name:<20} test accuracy {score:.3f}")
    return scores


def surrogate_losses(out):
    slide(9, "The 0-1 loss and its surrogates, by the margin z = t f(x)", out)
    z = np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    out(f"{'z':>26} " + " ".join(f"{v:>6g}" for v in z))
    table = {}
    for name, loss in losses.LOSSES.items():
        values = loss(z)
        table[name] = values.tolist()
        label = f"{name}: {losses.FORMULAS[name]}"
        out(f"{label:>26} " + " ".join(f"{v:>6.3g}" for v in values))
    out(
        f"on or above the 0-1 loss everywhere: {', '.join(losses.UPPER_BOUNDS)} "
        "(the logistic one in bits); the perceptron loss is not"
    )
    return table


def main(verbose=True):
    """Print every slide (when ``verbose``) and return what each one computed, by slide."""
    out = print if verbose else (lambda *args: None)
    return {
        "traces": or_traces(out),
        "bounds": bounds(out),
        "separability": separability(out),
        "feature_map": xor_feature_map(out),
        "centroid": centroid(out),
        "kernel": kernel(out),
        "averaging": averaged_against_last(out),
        "losses": surrogate_losses(out),
    }


if __name__ == "__main__":
    main()
