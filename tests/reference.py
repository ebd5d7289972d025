"""Plain-Python reference implementations: the compiled kernels must reproduce them.

Written for clarity, not speed: explicit loops over patterns and features, the
weight vector after every presentation kept in a list, the vote and the average
computed by their definitions. Weights are augmented: ``w[-1]`` multiplies the
constant input ``bias_input`` (0 when there is no intercept).
"""

from __future__ import annotations

import numpy as np


def _augment(x, bias_input):
    return [float(v) for v in x] + [float(bias_input)]


def _dot(w, x):
    """``w . x``: the features summed in 8 interleaved partial sums (feature j into
    sum j % 8) combined pairwise, as the kernels do; then the constant input."""
    partial = [0.0] * 8
    for j in range(len(x) - 1):
        partial[j % 8] += x[j] * w[j]
    p = partial
    total = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]))
    return total + w[-1] * x[-1]


def _axpy(coef, x, w):
    for j in range(len(w)):
        w[j] += coef * x[j]


def _presentations(orders, sw):
    """Presentations of each epoch's order (zero-weight samples are not presented)."""
    return [sum(1 for i in order if sw[i] != 0) for order in orders]


def _run_to_the_end(history, final, orders, sw, epochs_run):
    """Freund & Schapire run all T epochs: after an error-free epoch nothing changes,
    so the final weights are what every remaining presentation sees."""
    remaining = sum(_presentations(orders[epochs_run:], sw))
    history.extend([final] * remaining)


def online(X, y, orders, eta=1.0, bias_input=1.0, sample_weight=None, stop=True):
    """Online perceptron on ±1 labels over the given per-epoch orders.

    Returns a dict with the final augmented weights ``w``, ``mistakes`` per epoch
    and ``history``: the weights after every presentation (zero-weight samples are
    not presented). With ``stop`` the run ends after the first error-free epoch
    (``mistakes`` has an entry per epoch run), and ``history`` still covers every
    epoch of ``orders``: what running them all gives (the voted and averaged
    perceptrons are defined over all T epochs).
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    w = [0.0] * (d + 1)
    history, mistakes = [], []
    for order in orders:
        wrong = 0
        for i in order:
            if sw[i] == 0:
                continue
            x = _augment(X[i], bias_input)
            if y[i] * _dot(w, x) <= 0:
                _axpy(eta * sw[i] * y[i], x, w)
                wrong += 1
            history.append(list(w))
        mistakes.append(wrong)
        if stop and wrong == 0:
            _run_to_the_end(history, list(w), orders, sw, len(mistakes))
            break
    return {"w": np.array(w), "mistakes": mistakes, "history": np.array(history)}


def batch(X, y, n_epochs, eta=1.0, bias_input=1.0, sample_weight=None, order=None):
    """Batch perceptron (seed 003, remark 2): one summed update per epoch."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    order = range(n) if order is None else order
    w = [0.0] * (d + 1)
    mistakes = []
    for _ in range(n_epochs):
        delta = [0.0] * (d + 1)
        wrong = 0
        for i in order:
            if sw[i] == 0:
                continue
            x = _augment(X[i], bias_input)
            if y[i] * _dot(w, x) <= 0:
                _axpy(eta * sw[i] * y[i], x, delta)
                wrong += 1
        _axpy(1.0, delta, w)
        mistakes.append(wrong)
        if wrong == 0:
            break
    return {"w": np.array(w), "mistakes": mistakes}


def averaged(X, y, orders, **kwargs):
    """The explicit average of the weight vector after every presentation."""
    run = online(X, y, orders, **kwargs)
    run["average"] = run["history"].mean(axis=0)
    return run


def sign(a):
    """The library's hard limiter: +1 when a > 0, else -1 (a zero score is wrong for both)."""
    return np.where(np.asarray(a) > 0, 1, -1)


def voted_decision(history, X_test, bias_input=1.0):
    """The explicit vote: each presentation's weight vector votes sign(w . x) once."""
    X_test = np.asarray(X_test, dtype=float)
    total = np.zeros(X_test.shape[0])
    for w in history:
        for q in range(X_test.shape[0]):
            total[q] += sign(_dot(list(w), _augment(X_test[q], bias_input)))
    return total / len(history)


def one_vs_rest(X, labels, classes, orders, method=online, **kwargs):
    """One independent binary run per class on the same orders."""
    runs = []
    for c in classes:
        y = np.where(np.asarray(labels) == c, 1, -1)
        runs.append(method(X, y, orders, **kwargs))
    return runs


def multinomial(X, target, n_classes, orders, eta=1.0, bias_input=1.0, sample_weight=None):
    """Multinomial perceptron: on a mistake, +eta x to the true class, -eta x to the rival.

    The rival is the highest-scoring other class (the lowest index on ties); a
    mistake is a rival scoring at least as high as the true class. Stops after the
    first error-free epoch; ``history`` covers every epoch of ``orders`` (see
    :func:`online`).
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    W = [[0.0] * (d + 1) for _ in range(n_classes)]
    history, mistakes = [], []
    for order in orders:
        wrong = 0
        for i in order:
            if sw[i] == 0:
                continue
            x = _augment(X[i], bias_input)
            scores = [_dot(W[k], x) for k in range(n_classes)]
            true = int(target[i])
            rival = None
            for k in range(n_classes):
                if k != true and (rival is None or scores[k] > scores[rival]):
                    rival = k
            if scores[rival] >= scores[true]:
                _axpy(eta * sw[i], x, W[true])
                _axpy(-eta * sw[i], x, W[rival])
                wrong += 1
            history.append([list(row) for row in W])
        mistakes.append(wrong)
        if wrong == 0:
            _run_to_the_end(history, [list(row) for row in W], orders, sw, len(mistakes))
            break
    return {"W": np.array(W), "mistakes": mistakes, "history": np.array(history)}


def multinomial_voted_predict(history, X_test, bias_input=1.0):
    """Each presentation's weight matrix votes for its argmax class (lowest index on ties)."""
    X_test = np.asarray(X_test, dtype=float)
    n_classes = history.shape[1]
    votes = np.zeros((X_test.shape[0], n_classes))
    for W in history:
        for q in range(X_test.shape[0]):
            x = _augment(X_test[q], bias_input)
            scores = [_dot(list(W[k]), x) for k in range(n_classes)]
            votes[q, int(np.argmax(scores))] += 1
    return np.argmax(votes, axis=1)


# ---------------------------------------------------------------- the dual (kernel) perceptron
# Plain-Python reference of the dual (kernel) perceptron: the compiled epochs must match it.
#
# Written for clarity, not speed: the dual coefficients after every presentation
# are kept in a list, the average and the vote are computed by their definitions
# (no running sums, no survival bookkeeping). Kernel matrices are plain arrays
# with ``K[j][i] = K(x_j, x_i)``; the intercept is the constant input ``s`` appended
# to every pattern, i.e. ``s**2`` added to every kernel value.


def _score(alpha, y, K, i, s2):
    """f(x_i) = sum_j alpha_j y_j (K(x_j, x_i) + s**2), summed over j in index order."""
    total = 0.0
    for j in range(len(alpha)):
        if alpha[j] != 0.0:
            total += alpha[j] * y[j] * (K[j][i] + s2)
    return total


def dual_online(K, y, orders, eta=1.0, s2=1.0, sample_weight=None, stop=True):
    """Dual perceptron on ±1 labels over the given per-epoch presentation orders.

    Returns a dict: ``alpha`` (final), ``mistakes`` per epoch and ``history``, the
    alpha vector after every presentation (zero-weight samples are not presented).
    With ``stop`` the run ends after the first error-free epoch; ``history`` still
    covers every epoch of ``orders`` (see :func:`online`).
    """
    K = np.asarray(K, dtype=float)
    n = K.shape[0]
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    alpha = [0.0] * n
    history, mistakes = [], []
    for order in orders:
        wrong = 0
        for i in order:
            if sw[i] == 0:
                continue
            if y[i] * _score(alpha, y, K, i, s2) <= 0:
                alpha[i] += eta * sw[i]
                wrong += 1
            history.append(list(alpha))
        mistakes.append(wrong)
        if stop and wrong == 0:
            _run_to_the_end(history, list(alpha), orders, sw, len(mistakes))
            break
    return {"alpha": np.array(alpha), "mistakes": mistakes, "history": np.array(history)}


def dual_averaged(K, y, orders, **kwargs):
    """The explicit average of alpha after every presentation."""
    run = dual_online(K, y, orders, **kwargs)
    run["average"] = run["history"].mean(axis=0)
    return run


def dual_decision(alpha, y, K_test, s2=1.0):
    """f(x_q) for every test point; ``K_test[q][j] = K(x_q, x_j)``."""
    K_test = np.asarray(K_test, dtype=float)
    out = np.zeros(K_test.shape[0])
    for q in range(K_test.shape[0]):
        for j in range(len(alpha)):
            out[q] += alpha[j] * y[j] * (K_test[q][j] + s2)
    return out


def dual_voted_decision(history, y, K_test, s2=1.0):
    """The explicit vote: the hypothesis after each presentation votes once,
    +1 when its score is positive, else -1; normalised by the number of votes."""
    total = np.zeros(np.asarray(K_test).shape[0])
    for alpha in history:
        total += np.where(dual_decision(alpha, y, K_test, s2) > 0, 1.0, -1.0)
    return total / len(history)


def dual_one_vs_rest(K, labels, classes, orders, method=dual_online, **kwargs):
    """One independent binary dual run per class on the same orders (with its ±1 y)."""
    runs = []
    for c in classes:
        y = np.where(np.asarray(labels) == c, 1.0, -1.0)
        run = method(K, y, orders, **kwargs)
        run["y"] = y
        runs.append(run)
    return runs
