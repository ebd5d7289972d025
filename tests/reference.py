"""Plain-Python reference implementations: the compiled kernels must reproduce them.

Written for clarity, not speed: explicit loops over patterns and features, the
weight vector after every presentation kept in a list, the vote and the average
computed by their definitions. Weights are augmented: ``w[-1]`` multiplies the
constant input ``bias_input`` (0 when there is no intercept).
"""

from __future__ import annotations

import math

import numpy as np

from rosenblatt._core.kernel_constants import LANES


def _augment(x, bias_input):
    return [float(v) for v in x] + [float(bias_input)]


def _dot(w, x):
    """``w . x``: the features summed in LANES (8) interleaved partial sums (feature j into
    sum j % LANES) combined pairwise, as the kernels do; then the constant input."""
    partial = [0.0] * LANES
    for j in range(len(x) - 1):
        partial[j % LANES] += x[j] * w[j]
    while len(partial) > 1:  # pairwise: (p0 + p1) + (p2 + p3), ...
        partial = [partial[k] + partial[k + 1] for k in range(0, len(partial), 2)]
    return partial[0] + w[-1] * x[-1]


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

    Returns a dict with the final augmented weights ``w``, ``mistakes`` per epoch,
    ``mistake_weight`` and ``presented_weight`` per epoch (the summed sample weights
    of the epoch's mistakes and of its presentations, in presentation order: what the
    stop rule divides) and ``history``: the weights after every presentation
    (zero-weight samples are not presented). With ``stop`` the run ends after the
    first error-free epoch (``mistakes`` has an entry per epoch run), and ``history``
    still covers every epoch of ``orders``: what running them all gives (the voted
    and averaged perceptrons are defined over all T epochs).
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    w = [0.0] * (d + 1)
    history, mistakes, mistake_weight, presented_weight = [], [], [], []
    for order in orders:
        wrong, wrong_weight, weight = 0, 0.0, 0.0
        for i in order:
            if sw[i] == 0:
                continue
            x = _augment(X[i], bias_input)
            if y[i] * _dot(w, x) <= 0:
                _axpy(eta * sw[i] * y[i], x, w)
                wrong += 1
                wrong_weight += sw[i]
            weight += sw[i]
            history.append(list(w))
        mistakes.append(wrong)
        mistake_weight.append(wrong_weight)
        presented_weight.append(weight)
        if stop and wrong == 0:
            _run_to_the_end(history, list(w), orders, sw, len(mistakes))
            break
    return {
        "w": np.array(w),
        "mistakes": mistakes,
        "mistake_weight": mistake_weight,
        "presented_weight": presented_weight,
        "history": np.array(history),
    }


def batch(X, y, n_epochs, eta=1.0, bias_input=1.0, sample_weight=None, order=None):
    """Batch perceptron (seed 003, remark 2): one summed update per epoch; ``mistakes``,
    ``mistake_weight`` and ``presented_weight`` per epoch as :func:`online` counts them."""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    order = range(n) if order is None else order
    w = [0.0] * (d + 1)
    mistakes, mistake_weight, presented_weight = [], [], []
    for _ in range(n_epochs):
        delta = [0.0] * (d + 1)
        wrong, wrong_weight, weight = 0, 0.0, 0.0
        for i in order:
            if sw[i] == 0:
                continue
            x = _augment(X[i], bias_input)
            if y[i] * _dot(w, x) <= 0:
                _axpy(eta * sw[i] * y[i], x, delta)
                wrong += 1
                wrong_weight += sw[i]
            weight += sw[i]
        _axpy(1.0, delta, w)
        mistakes.append(wrong)
        mistake_weight.append(wrong_weight)
        presented_weight.append(weight)
        if wrong == 0:
            break
    return {
        "w": np.array(w),
        "mistakes": mistakes,
        "mistake_weight": mistake_weight,
        "presented_weight": presented_weight,
    }


def averaged(X, y, orders, **kwargs):
    """The explicit average of the weight vectors ``w_0 .. w_T``: the initial (zero) one
    and the one after every presentation, ``T + 1`` in all (CIML Algorithm 7's return
    value; :func:`algorithm7` computes it the notes' way)."""
    run = online(X, y, orders, **kwargs)
    start = np.zeros((1, run["history"].shape[1]))
    run["average"] = np.vstack([start, run["history"]]).mean(axis=0)
    return run


def algorithm7(X, y, orders, eta=1.0, bias_input=1.0, state=None):
    """CIML Algorithm 7 (AVERAGEDPERCEPTRONTRAIN) as the notes write it, line by line.

    ``w, b`` start at 0, the cached ``u, beta`` at 0 and the example counter ``c`` at 1;
    each presentation ``(x, y)`` (epoch after epoch, in ``orders``) with ``y (w . x + b)
    <= 0`` adds ``y x`` to ``w``, ``y`` to ``b``, ``y c x`` to ``u`` and ``y c`` to
    ``beta``; ``c`` grows by one whatever happens. It returns ``w - u / c`` and ``b -
    beta / c``. Two liberties, which are the notes' algorithm at ``eta=1``,
    ``bias_input=1``: the update is scaled by ``eta``, and ``b`` is kept as the weight
    ``w0`` of a constant input ``bias_input`` (``b = w0 * bias_input``; ``beta`` likewise).
    The activation is summed in the kernels' order (:func:`_dot`), the only freedom float
    arithmetic leaves.

    ``state`` continues an earlier call (``partial_fit``, a warm start): pass the
    returned ``state``. Returns a dict with the averaged augmented weights
    ``average`` (``[w_1 .. w_d, w0]``), the last ones ``w``, ``u``, ``c`` and ``state``.
    """
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    if state is None:
        w, w0, u, u0, c = [0.0] * d, 0.0, [0.0] * d, 0.0, 1  # lines 1-3
    else:
        w, w0, u, u0, c = (list(state[0]), state[1], list(state[2]), state[3], state[4])
    for order in orders:  # line 4: for iter = 1 .. MaxIter
        for i in order:  # line 5: for all (x, y) in D
            x = _augment(X[i], bias_input)
            if y[i] * _dot(w + [w0], x) <= 0:  # line 6: y (w . x + b) <= 0
                step = eta * y[i]
                for k in range(d):
                    w[k] += step * x[k]  # line 7: w <- w + y x
                w0 += step * bias_input  # line 8: b <- b + y
                for k in range(d):
                    u[k] += step * c * x[k]  # line 9: u <- u + y c x
                u0 += step * c * bias_input  # line 10: beta <- beta + y c
            c += 1  # line 12: c <- c + 1, update or not
    average = [w[k] - u[k] / c for k in range(d)] + [w0 - u0 / c]  # line 15
    return {
        "average": np.array(average),
        "w": np.array(w + [w0]),
        "u": np.array(u + [u0]),
        "c": c,
        "state": (w, w0, u, u0, c),
    }


def sign(a):
    """The library's hard limiter: +1 when a > 0, else -1 (a zero score is wrong for both)."""
    return np.where(np.asarray(a) > 0, 1, -1)


def voted_decision(history, X_test, bias_input=1.0):
    """The explicit vote: each presentation's weight vector votes sign(w . x) once.

    The notes give the voted perceptron as a formula, not as an algorithm: ``h(x) =
    sign(sum_t h_t(x)) = sign(sum_k c_k h_{w_k}(x))`` (seed 000), ``h_t`` the classifier
    after presentation ``t``; this is that sum, over ``history``, divided by its length."""
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
    :func:`online`, which counts ``mistake_weight`` and ``presented_weight`` alike).
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    W = [[0.0] * (d + 1) for _ in range(n_classes)]
    history, mistakes, mistake_weight, presented_weight = [], [], [], []
    for order in orders:
        wrong, wrong_weight, weight = 0, 0.0, 0.0
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
                wrong_weight += sw[i]
            weight += sw[i]
            history.append([list(row) for row in W])
        mistakes.append(wrong)
        mistake_weight.append(wrong_weight)
        presented_weight.append(weight)
        if wrong == 0:
            _run_to_the_end(history, [list(row) for row in W], orders, sw, len(mistakes))
            break
    return {
        "W": np.array(W),
        "mistakes": mistakes,
        "mistake_weight": mistake_weight,
        "presented_weight": presented_weight,
        "history": np.array(history),
    }


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
    """The explicit average of alpha over the initial (zero) one and the one after every
    presentation: CIML Algorithm 7 in the dual."""
    run = dual_online(K, y, orders, **kwargs)
    start = np.zeros((1, run["history"].shape[1]))
    run["average"] = np.vstack([start, run["history"]]).mean(axis=0)
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


# ---------------------------------------------------------------- the compiled kernels, one by one
# References of the kernels of rosenblatt.engine.kernels (see its registry, which
# names each by string, and tests/test_kernel_registry.py): plain loops over the same arrays,
# in the same example order, returning new arrays instead of updating in place.


def zero_state(rows, d, *, average=False, multinomial=False):
    """The untrained ``(W, w0, U, U0, counts)`` :func:`primal_epoch` starts from: ``rows``
    units of ``d`` weights (averaging sums when ``average``), the presentations counted
    once for a multinomial model, per unit else."""
    return (
        np.zeros((rows, d)),
        np.zeros(rows),
        np.zeros((rows, d if average else 0)),
        np.zeros(rows if average else 0),
        np.zeros(1 if multinomial else rows, dtype=np.int64),
    )


def primal_epoch(
    X,
    target,
    positive,
    sample_weight,
    order,
    state,
    slots,
    eta=1.0,
    bias_input=1.0,
    batch=False,
    average=False,
    multinomial=False,
    step="perceptron",
    C=1.0,
    present=None,
):
    """One epoch of :func:`rosenblatt.engine.kernels.primal.primal_epoch` on dense float64 rows.

    ``present`` (multinomial): the rows (classes) that exist, default all of them; the
    rival is the strongest of the others among them, none when the true class is alone
    (no mistake, no update): a class held out of the model can be neither predicted nor
    updated (the masked run of classes that appear mid-stream, :func:`partial_fits`).

    ``step``: Rosenblatt's (an update when ``y a <= 0``, by ``eta``), or the
    passive-aggressive family's (:func:`pa_step`: an update when ``y a < 1``; a multinomial
    model's true class ahead of its rival by less than 1).

    ``target`` holds each sample's class index, or (multilabel) is the
    (n_samples, n_labels) 0/1 label matrix, row ``s`` answering +1 where column
    ``positive[s]`` is 1. ``state`` is ``(W, w0, U, U0, counts)`` (U, U0 empty
    unless ``average``);
    returns ``(W, w0, U, U0, counts)`` after the epoch, the mistakes (one per
    state row, or one in all for ``multinomial``), the patterns presented, the
    updates ``(row, sample, coef, time)`` of each row in order (multinomial: one
    per mistake, on row 0, with the true class and the rival appended), the
    activations ``y (w . x + w0 s)`` of the last trained row per presentation, the
    summed sample weight of each row's mistakes (as the mistakes), the summed
    sample weight of the presentations, each summed in presentation order, and the
    number of scores that were not finite (inf or NaN).
    """
    X = np.asarray(X, dtype=float)
    W, w0, U, U0, counts = (np.array(part, copy=True) for part in state)
    W_, U_ = [list(map(float, row)) for row in W], [list(map(float, row)) for row in U]
    n_rows, d = W.shape
    delta = [[0.0] * d for _ in range(n_rows)]
    delta0 = [0.0] * n_rows
    mistakes = [0] * (1 if multinomial else n_rows)
    mistake_weight = [0.0] * len(mistakes)
    updates, activations = [], []
    presented, presented_weight, overflow = 0, 0.0, 0
    for i in order:
        if sample_weight[i] == 0.0:
            continue
        x = [float(v) for v in X[i]] + [float(bias_input)]
        wrong = []
        if multinomial:
            scores = [_dot(W_[c] + [float(w0[c])], x) for c in range(n_rows)]
            overflow += sum(not math.isfinite(score) for score in scores)
            true = int(target[i])
            rival = None
            for c in range(n_rows) if present is None else present:
                if c != true and (rival is None or scores[c] > scores[rival]):
                    rival = c
            margin = math.inf if rival is None else scores[true] - scores[rival]
            if (margin <= 0.0) if step == "perceptron" else (margin < 1.0):
                tau = eta
                if step != "perceptron":
                    tau = pa_step(step, 1.0 - margin, 2.0 * sqnorm(x), C)
                wrong = [(true, tau * sample_weight[i]), (rival, -tau * sample_weight[i])]
                mistakes[0] += 1
                mistake_weight[0] += sample_weight[i]
        else:
            for s in slots:
                if np.ndim(target) == 2:  # a label matrix: the row's own column
                    y = 1.0 if target[i][positive[s]] != 0 else -1.0
                else:
                    y = 1.0 if target[i] == positive[s] else -1.0
                a = y * _dot(W_[s] + [float(w0[s])], x)
                activations.append(a)
                overflow += not math.isfinite(a)
                if (a <= 0.0) if step == "perceptron" else (a < 1.0):
                    coef = eta * sample_weight[i] * y
                    if step != "perceptron":
                        coef = pa_step(step, 1.0 - a, sqnorm(x), C) * sample_weight[i] * y
                    wrong.append((s, coef))
                    mistakes[s] += 1
                    mistake_weight[s] += sample_weight[i]
        for u, (s, coef) in enumerate(wrong):
            now = int(counts[0 if multinomial else s]) + presented
            if batch:
                _axpy(coef, x[:-1], delta[s])
                delta0[s] += coef * bias_input
            else:
                _axpy(coef, x[:-1], W_[s])
                w0[s] += coef * bias_input
                if average:  # Algorithm 7's u += y c x, c = now + 1 counting from 1
                    _axpy(coef * (now + 1), x[:-1], U_[s])
                    U0[s] += coef * (now + 1) * bias_input
            if not multinomial:
                updates.append((s, i, coef, now))
            elif u == 0:
                updates.append((0, i, coef, now, s, wrong[1][0]))
        presented += 1
        presented_weight += sample_weight[i]
    for s in range(n_rows) if multinomial else slots:
        if batch:
            for j in range(d):
                W_[s][j] += delta[s][j]
            w0[s] += delta0[s]
        if not multinomial:
            counts[s] += presented
    if multinomial:
        counts[0] += presented
    state = (np.array(W_).reshape(W.shape), w0, np.array(U_).reshape(U.shape), U0, counts)
    return (
        state,
        mistakes,
        presented,
        updates,
        activations,
        mistake_weight,
        presented_weight,
        overflow,
    )


def partial_fits(batches, n_classes, orders, *, multinomial=False, average=False, **rule):
    """``partial_fit`` calls on ``batches`` (each ``(X, target)``, ``target`` the class
    index of each sample among ``n_classes`` sorted classes) given every class up front, a
    class held out (masked) before the call that first holds it: multinomial, its row can be
    neither the rival nor updated (:func:`primal_epoch`'s ``present``); one-vs-rest (two
    classes: the one neuron, class 1's), its neuron is not trained, nor are presentations
    counted for it. What a model whose classes appear mid-stream must equal, bit for bit.

    ``orders``: each call's presentation order; ``rule``: :func:`primal_epoch`'s ``eta``,
    ``bias_input``, ``batch``, ``step``, ``C``. Returns ``(state, mistakes)``: the final
    ``(W, w0, U, U0, counts)`` of every class's row and the mistakes of each call (every
    unit's, summed).
    """
    d = np.shape(batches[0][0])[1]
    rows = n_classes if multinomial or n_classes > 2 else 1
    state = zero_state(rows, d, average=average, multinomial=multinomial)
    seen, mistakes = set(), []
    for (X, target), order in zip(batches, orders):
        seen |= {int(t) for t in target}
        present = sorted(seen)
        units = present if rows > 1 else [0]
        state, wrong, *_ = primal_epoch(
            X,
            target,
            np.arange(rows) if rows > 1 else np.array([1]),
            np.ones(len(target)),
            order,
            state,
            units,
            average=average,
            multinomial=multinomial,
            present=present,
            **rule,
        )
        mistakes.append(int(sum(wrong)))
    return state, mistakes


def primal_epochs(
    X,
    target,
    positive,
    sample_weight,
    orders,
    state,
    unit_stops=True,
    tol=None,
    patience=10,
    multinomial=False,
    **rule,
):
    """A run of :func:`primal_epoch` epochs, the stop rule after each, as
    :func:`rosenblatt.engine.kernels.primal.primal_epochs` runs them (with ``orders``, one
    per epoch it may run).

    Every state row is a unit (the multinomial model: one unit of every row); an epoch
    trains the rows of the units still learning. After it each unit that trained counts
    it; a unit stops after its first epoch without a mistake (``unit_stops``) or, for a
    model that errs as a whole, every unit after the first epoch without any; with
    ``tol``, the run ends when the weighted mistake fractions (the summed weight of the
    mistakes over that of the presentations) meet :func:`plateau_stop`. An epoch whose
    scores were not finite ends the run uncounted.

    Returns a dict: ``state``, ``mistakes`` (per epoch counted), ``presented`` (by the
    last epoch run), ``status`` ("running", "converged", "plateaued" or "overflowed"),
    ``active`` and ``trained`` per unit, and ``updates``, each epoch's as
    :func:`primal_epoch` gives them.
    """
    n_rows = np.asarray(state[0]).shape[0]
    n_units = 1 if multinomial else n_rows
    active, trained = [True] * n_units, [0] * n_units
    history, fractions, updates, presented = [], [], [], 0
    status = "running"
    for order in orders:
        slots = list(range(n_rows)) if multinomial else [u for u in range(n_units) if active[u]]
        run = primal_epoch(
            X, target, positive, sample_weight, order, state, slots, multinomial=multinomial, **rule
        )
        state, mistakes, presented, changes, _, weights, weight, overflow = run
        if overflow:
            status = "overflowed"
            break
        updates.append(changes)
        trained = [t + a for t, a in zip(trained, active)]
        history.append(sum(mistakes))
        if unit_stops:
            active = [a and m > 0 for a, m in zip(active, mistakes)]
        elif sum(mistakes) == 0:
            active = [False] * n_units
        if not any(active):
            status = "converged"
            break
        if tol is not None:  # (summed in order: numpy's pairwise sum too, below 8 units)
            fractions.append(sum(weights) / weight if weight > 0 else 0.0)
            if plateau_stop(fractions, tol, patience) == len(fractions):
                status = "plateaued"
                break
    return {
        "state": state,
        "mistakes": history,
        "presented": presented,
        "status": status,
        "active": active,
        "trained": trained,
        "updates": updates,
    }


def linear_scores(X, coef, intercept):
    """``scores[i, k] = x_i . coef_k + intercept_k``, summed as training sums it (:func:`_dot`)."""
    X = np.asarray(X, dtype=float)
    out = np.zeros((X.shape[0], len(coef)))
    for i in range(X.shape[0]):
        for k in range(len(coef)):
            out[i, k] = _dot(list(coef[k]) + [float(intercept[k])], list(X[i]) + [1.0])
    return out


def binary_vote(inner, pattern, coef, bias, weights):
    """Each hypothesis (the zero one, then one after each update) votes its survival count,
    + when its score is positive, else -; the score is summed update by update."""
    out = np.zeros(len(inner))
    for q in range(len(inner)):
        f, vote = 0.0, -weights[0]
        for j in range(len(coef)):
            f += inner[q][pattern[j]] * coef[j] + bias[j]
            vote += weights[j + 1] if f > 0.0 else -weights[j + 1]
        out[q] = vote
    return out


def multinomial_vote(inner, pattern, coef, bias, rec_true, rec_pred, weights, n_classes):
    """Each hypothesis votes its survival count for its highest-scoring class (lowest on ties)."""
    votes = np.zeros((len(inner), n_classes))
    for q in range(len(inner)):
        scores = [0.0] * n_classes
        for j in range(len(coef) + 1):
            if j > 0:
                step = inner[q][pattern[j - 1]] * coef[j - 1] + bias[j - 1]
                scores[rec_true[j - 1]] += step
                scores[rec_pred[j - 1]] -= step
            if weights[j] > 0:
                best = max(range(n_classes), key=lambda k: (scores[k], -k))
                votes[q, best] += weights[j]
    return votes


def sqnorm(x):
    """``||x||^2`` of an augmented pattern: its features' squares summed in order, then the
    constant input's (the kernels' ``row_sqnorm`` plus ``bias_input ** 2``)."""
    total = 0.0
    for value in x[:-1]:
        total += value * value
    return total + x[-1] * x[-1]


def pa_step(step, loss, sq, C):
    """Crammer et al. (2006)'s step for the hinge loss ``loss`` of a pattern of squared norm
    ``sq``: PA ``loss / sq``, PA-I at most ``C``, PA-II ``loss / (sq + 1 / (2 C))``; no step
    for a pattern of norm 0 (PA, PA-I)."""
    if step == "pa2":
        return loss / (sq + 0.5 / C)
    if sq <= 0.0:
        return 0.0
    return min(C, loss / sq) if step == "pa1" else loss / sq


def passive_aggressive(X, y, orders, step="pa1", C=1.0, average=False):
    """scikit-learn's ``SGDClassifier(loss="hinge", penalty=None, learning_rate=step,
    eta0=C, fit_intercept=False)`` transcribed for labels in {-1, +1}: ``tau`` from the
    hinge loss ``max(0, 1 - y w.x)``, then ``w += tau y x``; with ``average``, the mean of
    the weights after every presentation (its averaged SGD). Plain sums, in order."""
    w = [0.0] * len(X[0])
    total, t = [0.0] * len(w), 0
    for order in orders:
        for i in order:
            x = [float(v) for v in X[i]]
            p = sum(a * b for a, b in zip(w, x))
            loss = max(0.0, 1.0 - y[i] * p)
            sq = sum(v * v for v in x)
            if step == "pa1" and sq == 0.0:
                continue  # scikit-learn skips the sample
            tau = pa_step(step, loss, sq, C) * y[i]
            w = [a + tau * b for a, b in zip(w, x)]
            t += 1
            total = [a + b for a, b in zip(total, w)]
    return [a / t for a in total] if average else w


def dual_epoch(
    K,
    Y,
    sample_weight,
    order,
    p,
    coef,
    coef_acc,
    sv,
    n_seen,
    eta=1.0,
    s2=0.0,
    budget=None,
):
    """One epoch of dual problem ``p`` with every kernel value known (``K[i][j] = K(x_j, x_i)``).

    Scores sum over the support vectors in the order they joined (``sv``); returns
    ``coef, coef_acc, sv, n_seen`` after the epoch, the updates ``(sample, delta,
    time)`` in order, the prediction mistakes, ``y f(x)`` of every presentation by
    its position in ``order`` (None for a zero-weight sample), problem ``p``'s
    coefficients after every presentation (a trace's record), the summed sample
    weight of the prediction mistakes and that of the presentations (in order), and
    the number of scores that were not finite (inf or NaN).

    ``budget``: None, or a dict with ``policy`` ("stop", "random", "forgetron",
    "project"), ``size``, and what the policy carries, updated in place: ``draws``
    (a uniform number per position of ``order``), ``errors`` and ``forget_q`` (lists,
    one entry per problem), ``kinv`` (a list per problem of the rows of the inverse
    kernel matrix of the support vectors), ``threshold`` and ``plus``.
    """
    coef, coef_acc = np.array(coef, dtype=float), np.array(coef_acc, dtype=float)
    sv, n_seen = [list(row) for row in sv], list(n_seen)
    b = budget or {"policy": None, "size": 2**62, "errors": [0] * len(sv), "plus": False}
    policy = b["policy"]
    updates, mistakes = [], 0
    mistake_weight, presented_weight, overflow = 0.0, 0.0, 0
    activation = [None] * len(order)
    history = []

    def change(j, delta):
        coef[p, j] += delta
        coef_acc[p, j] += (n_seen[p] + 1) * delta  # Algorithm 7's c, counting from 1

    def evict(r):
        j = sv[p].pop(r)
        change(j, -coef[p, j])
        coef[p, j] = 0.0

    for pos, i in enumerate(order):
        history.append(coef[p])  # replaced by the coefficients after the presentation
        if sample_weight[i] == 0.0:
            history[pos] = coef[p].copy()
            continue
        f = 0.0
        for j in sv[p]:
            f += coef[p, j] * (K[i][j] + s2)
        y = Y[p][i]
        activation[pos] = y * f
        overflow += not math.isfinite(f)
        mistake = y * f <= 0.0
        if not (mistake or (b["plus"] and y * f < eta)):
            n_seen[p] += 1
            presented_weight += sample_weight[i]
            history[pos] = coef[p].copy()
            continue
        delta = eta * sample_weight[i] * y
        joins = coef[p, i] == 0.0
        full = len(sv[p]) >= b["size"]
        if mistake:
            mistakes += 1
            mistake_weight += sample_weight[i]
            b["errors"][p] += 1
        now = n_seen[p]
        if policy == "project":
            m, kinv = len(sv[p]), b["kinv"][p]
            k = [K[i][j] + s2 for j in sv[p]]
            kii = K[i][i] + s2
            d = [sum(kinv[q][u] * k[u] for u in range(m)) for q in range(m)]
            distance = kii
            for q in range(m):
                distance -= k[q] * d[q]
            distance = max(distance, 0.0)
            if mistake and joins and distance > b["threshold"] and not full:
                for q in range(m):
                    for u in range(m):
                        kinv[q][u] += d[q] * d[u] / distance
                    kinv[q].append(-d[q] / distance)
                kinv.append([-d[q] / distance for q in range(m)] + [1.0 / distance])
                sv[p].append(i)
                change(i, delta)
                updates.append((i, delta, now))
            else:
                tau = 1.0
                if not mistake:
                    loss = 1.0 - y * f / eta
                    norm = max(kii - distance, 0.0)
                    room = loss - distance / b["threshold"]
                    tau = min(min(loss / norm, 1.0), 2.0 * room / norm) if room > 0 < norm else 0.0
                for q, j in enumerate(list(sv[p])):
                    change(j, tau * delta * d[q])
        elif policy == "stop" and joins and full:
            pass  # the Stoptron: a full budget learns nothing new
        else:
            if joins:
                if policy == "random" and full:
                    evict(min(int(b["draws"][pos] * len(sv[p])), len(sv[p]) - 1))
                sv[p].append(i)
                change(i, delta)
                if policy == "forgetron" and len(sv[p]) > b["size"]:
                    r = sv[p][0]
                    fr = sum(coef[p, j] * (K[r][j] + s2) for j in sv[p])
                    beta, fr = coef[p, r] / eta, fr / eta
                    qa, qb = beta * beta - 2.0 * beta * fr, 2.0 * abs(beta)
                    qc = b["forget_q"][p] - 15.0 / 32.0 * b["errors"][p]
                    disc = qb * qb - 4.0 * qa * qc
                    phi = 1.0
                    if qa > 0.0 or (
                        qa < 0.0 and disc > 0.0 and (-qb - np.sqrt(abs(disc))) / (2.0 * qa) > 1.0
                    ):
                        phi = min(1.0, (-qb + np.sqrt(disc)) / (2.0 * qa))
                    elif qa == 0.0 and qb > 0.0:
                        phi = min(1.0, -qc / qb)
                    if phi <= 0.0:  # the allowance is spent: every support vector leaves
                        while sv[p]:
                            evict(0)
                        n_seen[p] += 1
                        presented_weight += sample_weight[i]
                        history[pos] = coef[p].copy()
                        continue
                    if phi < 1.0:
                        for j in sv[p]:
                            change(j, (phi - 1.0) * coef[p, j])
                    e = abs(beta * phi)
                    b["forget_q"][p] += e * e + 2.0 * e - 2.0 * e * np.sign(beta) * (phi * fr)
                    evict(0)
            else:
                change(i, delta)
            if coef[p, i] != 0.0:
                updates.append((i, delta, now))
        n_seen[p] += 1
        presented_weight += sample_weight[i]
        history[pos] = coef[p].copy()
    return (
        coef,
        coef_acc,
        sv,
        n_seen,
        updates,
        mistakes,
        activation,
        history,
        mistake_weight,
        presented_weight,
        overflow,
    )


def gram_block(A, B, kind, gamma=1.0, coef0=0.0, degree=3, sparse=False):
    """``K(a_i, b_j)`` pair by pair, each dot product (or squared distance, for rbf) summed
    over the features in increasing order; ``kind`` 0 linear, 1 poly, 2 rbf, 3 sigmoid.

    ``sparse``: the squared distance of CSR rows, ``|a|^2 + |b|^2 - 2 a.b`` (each summed
    in column order), as the CSR kernel computes it."""
    import math

    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    out = np.zeros((A.shape[0], B.shape[0]))
    norms_a, norms_b = squared_norms(A), squared_norms(B)
    for i in range(A.shape[0]):
        for j in range(B.shape[0]):
            value = 0.0
            for k in range(A.shape[1]):
                if kind == 2 and not sparse:
                    d = A[i, k] - B[j, k]
                    value += d * d
                else:
                    value += A[i, k] * B[j, k]
            if kind == 2 and sparse:
                value = (norms_a[i] + norms_b[j]) - 2.0 * value
            if kind == 1:
                base, value = gamma * value + coef0, 1.0
                for _ in range(degree):
                    value *= base
            elif kind == 2:
                value = math.exp(-gamma * max(value, 0.0))
            elif kind == 3:
                value = math.tanh(gamma * value + coef0)
            out[i, j] = value
    return out


def squared_norms(rows):
    """Each row's squared norm, summed over its nonzeros in column order."""
    out = []
    for row in rows:
        total = 0.0
        for v in row:
            if v != 0.0:
                total += v * v
        out.append(total)
    return np.array(out)


def ordered_scores(K, coef, columns_of, s2=0.0):
    """``out[q, p] = sum coef[p, c] (K[q, c] + s2)`` over the columns ``columns_of[p]`` of
    problem ``p``, in their order."""
    out = np.zeros((len(K), len(coef)))
    for p in range(len(coef)):
        for q in range(len(K)):
            for c in columns_of[p]:
                out[q, p] += coef[p][c] * (K[q][c] + s2)
    return out


def voted_scores(kernel, upd_column, upd_delta, weights, s2=0.0):
    """The survival-weighted vote of the dual hypotheses (see :func:`binary_vote`)."""
    out = np.zeros(len(kernel))
    for q in range(len(kernel)):
        f, vote = 0.0, -weights[0]
        for k in range(len(upd_column)):
            f += upd_delta[k] * (kernel[q][upd_column[k]] + s2)
            vote += weights[k + 1] if f > 0.0 else -weights[k + 1]
        out[q] = vote
    return out


_MASK64 = (1 << 64) - 1


def _splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def _below(state, bound):
    state, bits = _splitmix64(state)
    return state, int((bits >> 11) * (1.0 / 9007199254740992.0) * bound)


def block_order(n_samples, chunk_rows, chunks_per_block, seed):
    """The block shuffle by its definition: SplitMix64 draws, chunks permuted by Fisher-Yates,
    each block's rows shuffled inside out; ``stream`` the next block's rows in storage order."""
    n_chunks = (n_samples + chunk_rows - 1) // chunk_rows
    chunks = list(range(n_chunks))
    state = seed
    for k in range(n_chunks - 1, 0, -1):
        state, r = _below(state, k + 1)
        chunks[k], chunks[r] = chunks[r], chunks[k]
    order, stream = [0] * n_samples, [-1] * n_samples
    start = previous_start = 0
    for c in range(0, n_chunks, chunks_per_block):
        block_rows = [
            row
            for b in chunks[c : c + chunks_per_block]
            for row in range(b * chunk_rows, min(b * chunk_rows + chunk_rows, n_samples))
        ]
        for size, row in enumerate(block_rows):
            state, r = _below(state, size + 1)
            order[start + size] = order[start + r]
            order[start + r] = row
        if start > 0:
            for offset, row in enumerate(block_rows[: start - previous_start]):
                stream[previous_start + offset] = row
        previous_start = start
        start += len(block_rows)
    return order, stream


def number(text):
    """``(0, float(text))`` for a decimal number of the parsers' grammar, else ``(1, 0.0)``
    (deferred to ``float()``)."""
    import re

    grammar = r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?"
    if re.fullmatch(grammar, text) is None:
        return 1, 0.0
    value = float(text)
    return (0, value) if np.isfinite(value) else (1, 0.0)


def svmlight_block(text, labelled=True):
    """Rows of plain svmlight lines ``label index:value ...``: the label text, the indices
    and the values of each row, and the line each row came from (blank lines have no row)."""
    rows = []
    for k, line in enumerate(text.split("\n")):
        tokens = line.split("#")[0].split()
        if not tokens:
            continue
        label = tokens.pop(0) if labelled else None
        pairs = [token.split(":") for token in tokens if not token.startswith("qid:")]
        rows.append((label, [int(i) for i, _ in pairs], [float(v) for _, v in pairs], k))
    return rows


def csv_block(text, label_column=-1):
    """Rows of plain CSV lines: the label text (``label_column``, or none for -1) and the
    float cells of the other columns, and the line each row came from."""
    rows = []
    for k, line in enumerate(text.split("\n")):
        if not line.strip():
            continue
        cells = line.split(",")
        label = cells.pop(label_column).strip() if label_column >= 0 else None
        rows.append((label, [float(cell) for cell in cells], k))
    return rows


def dedupe(strings):
    """Each distinct string's id in order of first appearance; the first row of each id."""
    ids, firsts, seen = [], [], {}
    for r, value in enumerate(strings):
        if value not in seen:
            seen[value] = len(firsts)
            firsts.append(r)
        ids.append(seen[value])
    return ids, firsts


# ---------------------------------------------------------------- the stop rule
def plateau_stop(values, tol, patience):
    """The 1-based epoch at which ``tol`` and ``n_iter_no_change`` (``patience``) end a run
    whose epochs give ``values`` (lower is better): the first epoch ending ``patience``
    epochs in a row that did not beat the best before them by more than ``tol``; None
    when no epoch does."""
    best, stale = float("inf"), 0
    for epoch, value in enumerate(values, start=1):
        stale = stale + 1 if value > best - tol else 0
        best = min(best, value)
        if stale >= patience:
            return epoch
    return None
