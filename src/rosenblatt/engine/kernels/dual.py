"""Training epochs of the dual (kernel) perceptron, and its voted score.

The dual form of the perceptron (the lecture notes' remarks on dual variables): the
weight vector is a combination of the training patterns, ``w = sum_j alpha_j y_j
phi(x_j)``, so the perceptron can be run on the dual variables ``alpha`` with the
patterns entering only through a kernel ``K(x_j, x_i) = phi(x_j) . phi(x_i)``. Every
function here is a pure function of arrays and scalars;
:mod:`rosenblatt.engine.dual` allocates the state and
:func:`rosenblatt.engine.run_epochs` drives the epochs.

Conventions
-----------
- The intercept is the weight of a constant input ``s`` (``intercept_scaling``)
  appended to ``phi(x)``, exactly as in the linear perceptron. In the dual this
  adds ``s**2`` to every kernel value, ``K'(x, z) = K(x, z) + s**2``; the kernels
  take ``s2 = s**2`` (0 without an intercept) and add it term by term.
- Kernel values are read from ``table[i, slot_of[j]] = K(x_j, x_i)``. With the
  Gram matrix cached, every sample owns a slot; computed on the fly, only the
  samples that have been updated on do. A mistake on a sample without a slot
  stops the epoch so the caller can compute that sample's kernel column.
- ``coef[p, j]`` holds ``alpha_j y_j`` of problem ``p`` (one-vs-rest: one dual
  problem per class). ``f(x_i) = sum_r coef[p, sv_r] K'(x_{sv_r}, x_i)`` is summed
  over the support vectors in the order they became support vectors, so the
  cached and on-the-fly paths add the same numbers in the same order.
- An update happens when ``y_i f(x_i) <= 0`` (the lecture notes' update condition)
  and adds ``eta * sample_weight_i`` to ``alpha_i``. Zero-weight samples are
  skipped: not presented, not counted.
- ``n_seen[p]`` counts presentations. ``coef_acc[p, i] += t * delta`` with ``t``
  the count before the presentation, so ``coef - coef_acc / n_seen`` is the
  average of the dual coefficients after every presentation (the averaged
  perceptron, CIML Algorithm 7). Each update is also written to the ``Updates``
  bundle (sample, ``delta = eta * sw * y``, ``t``): the voted perceptron rebuilds
  every intermediate hypothesis and its survival count from them.
"""

from numba import njit

from .bundles import Coefficients, DualRule, Problems, Table, Updates  # noqa: F401


@njit(cache=True)
def dual_epoch(table, order, start, p, problems, state, updates, rule):
    """Present ``order[start:]`` to dual problem ``p``, updating its state in place.

    Bundles (built by :mod:`rosenblatt.engine.dual`): ``Table(values, slot_of)``
    with ``values[i, slot_of[j]] = K(x_j, x_i)``; ``Problems(Y, sample_weight)``,
    the ±1 targets of every problem; ``Coefficients(coef, coef_acc, sv, n_sv,
    n_seen)``; ``Updates(mistakes, sample, delta, time, n_upd)``, where this
    epoch's updates of each problem go; ``DualRule(eta, s2)``.

    Returns ``order.shape[0]`` when the epoch is done, or the position of a
    mistake on a sample that has no kernel slot yet (state untouched for it:
    give the sample a slot and call again from that position).
    """
    values, slot_of = table.values, table.slot_of
    Y, sample_weight = problems.Y, problems.sample_weight
    coef, coef_acc, sv, n_sv, n_seen = (
        state.coef,
        state.coef_acc,
        state.sv,
        state.n_sv,
        state.n_seen,
    )
    eta, s2 = rule.eta, rule.s2
    n = order.shape[0]
    for pos in range(start, n):
        i = order[pos]
        weight = sample_weight[i]
        if weight == 0.0:
            continue
        f = 0.0
        for r in range(n_sv[p]):
            j = sv[p, r]
            f += coef[p, j] * (values[i, slot_of[j]] + s2)
        y = Y[p, i]
        if y * f <= 0.0:
            if slot_of[i] < 0:
                return pos
            delta = eta * weight * y
            # alpha only grows, so a zero coefficient means "not a support vector yet"
            if coef[p, i] == 0.0 and delta != 0.0:
                sv[p, n_sv[p]] = i
                n_sv[p] += 1
            coef[p, i] += delta
            coef_acc[p, i] += n_seen[p] * delta
            k = updates.n_upd[p]
            updates.sample[p, k] = i
            updates.delta[p, k] = delta
            updates.time[p, k] = n_seen[p]
            updates.n_upd[p] = k + 1
            updates.mistakes[p] += 1
        n_seen[p] += 1
    return n


@njit(cache=True)
def ordered_scores(K, coef, ptr, columns, s2, out):
    """``out[q, p] = sum_r coef[p, c] (K[q, c] + s2)`` over ``c = columns[r]``,
    ``ptr[p] <= r < ptr[p + 1]``: each problem's support vectors in the order
    training summed them, so a training point scores exactly what it did there."""
    for p in range(coef.shape[0]):
        for q in range(K.shape[0]):
            f = 0.0
            for r in range(ptr[p], ptr[p + 1]):
                c = columns[r]
                f += coef[p, c] * (K[q, c] + s2)
            out[q, p] = f


@njit(cache=True)
def voted_scores(kernel, upd_column, upd_delta, weights, s2, out):
    """Survival-weighted vote of every hypothesis of one dual problem.

    ``kernel[q, c]`` is ``K(x_q, v_c)`` for test point ``q`` and support vector
    ``c``; update ``k`` added ``upd_delta[k]`` times ``K'(v_{upd_column[k]}, .)``.
    ``weights[0]`` is the survival count of the initial (zero) hypothesis and
    ``weights[k + 1]`` that of the hypothesis after update ``k``. A hypothesis
    votes +1 when its score is positive and -1 otherwise (a zero score is wrong
    for both classes, as in training). Writes the unnormalised vote to ``out``.
    """
    for q in range(kernel.shape[0]):
        f = 0.0
        vote = -weights[0]
        for k in range(upd_column.shape[0]):
            f += upd_delta[k] * (kernel[q, upd_column[k]] + s2)
            if f > 0.0:
                vote += weights[k + 1]
            else:
                vote -= weights[k + 1]
        out[q] = vote
