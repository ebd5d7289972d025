"""Training epochs of the dual (kernel) perceptron, and its voted score.

The dual form of the perceptron (the lecture notes' remarks on dual variables): the
weight vector is a combination of the training patterns, ``w = sum_j alpha_j y_j
phi(x_j)``, so the perceptron can be run on the dual variables ``alpha`` with the
patterns entering only through a kernel ``K(x_j, x_i) = phi(x_j) . phi(x_i)``. Every
function here is a pure function of arrays and scalars;
:mod:`rosenblatt.engine.dual` allocates the state and
:func:`rosenblatt.engine.train` drives the epochs.

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
- The epoch counts, per problem, its prediction mistakes, their summed sample
  weight and the summed weight of the presentations (the ``Updates`` bundle): the
  stop rule watches the weighted mistake fraction, by the weight the update uses.
- ``n_seen[p]`` counts presentations. ``coef_acc[p, i] += c * delta`` with ``c``
  the count before the presentation plus one (the notes' example counter, which
  CIML Algorithm 7 starts at 1), so ``coef - coef_acc / (n_seen + 1)`` is the
  average of the dual coefficients ``alpha_0 .. alpha_T``, the initial ones and
  those after every presentation (the averaged perceptron). Each update is also
  written to the ``Updates`` bundle (sample, ``delta = eta * sw * y``, ``t``): the
  voted perceptron rebuilds every intermediate hypothesis and its survival count
  from them.
"""

import math

import numpy as np
from numba import njit

from .bundles import Budget, Coefficients, DualRule, Problems, Table, Updates  # noqa: F401

# Budget policies (Budget.policy): how a problem's support set is kept within Budget.size.
UNBOUNDED, STOP, RANDOM, FORGETRON, PROJECT = 0, 1, 2, 3, 4


@njit(cache=True, inline="always")
def _record(updates, p, i, delta, now):
    """Write an update of problem ``p`` into this epoch's record."""
    k = updates.n_upd[p]
    updates.sample[p, k] = i
    updates.delta[p, k] = delta
    updates.time[p, k] = now
    updates.n_upd[p] = k + 1


@njit(cache=True)
def _keep_coefficients(updates, p, pos, coef):
    """A trace's copy of problem ``p``'s coefficients after the presentation at ``pos``."""
    for j in range(coef.shape[1]):
        updates.history[p, pos, j] = coef[p, j]


@njit(cache=True, inline="always")
def _change(state, p, j, delta):
    """``alpha_j y_j += delta`` for sample ``j`` of problem ``p``, its accumulator with it."""
    state.coef[p, j] += delta
    state.coef_acc[p, j] += (state.n_seen[p] + 1) * delta  # Algorithm 7's c, from 1


@njit(cache=True, inline="always")
def _join(state, p, i, delta):
    """Sample ``i`` joins problem ``p``'s support vectors with coefficient ``delta``."""
    state.sv[p, state.n_sv[p]] = i
    state.n_sv[p] += 1
    _change(state, p, i, delta)


@njit(cache=True)
def _evict(state, p, r):
    """Remove the support vector at position ``r`` of problem ``p``'s join order; the
    others keep their order."""
    j = state.sv[p, r]
    _change(state, p, j, -state.coef[p, j])
    state.coef[p, j] = 0.0  # exactly: a zero coefficient means "not a support vector"
    for q in range(r, state.n_sv[p] - 1):
        state.sv[p, q] = state.sv[p, q + 1]
    state.n_sv[p] -= 1


@njit(cache=True)
def _forget(values, slot_of, row_of, p, state, budget, rule):
    """The self-tuned Forgetron's step once a new support vector overfills the budget
    (Dekel, Shalev-Shwartz and Singer 2008): shrink every coefficient by the largest
    ``phi`` in (0, 1] that keeps the damage ``Q`` within ``15/32`` of the mistakes so
    far, then remove the oldest support vector. Coefficients are taken in units of
    ``eta``, so that the learning rate keeps only scaling ``f``."""
    eta = rule.eta
    oldest = state.sv[p, 0]
    row = row_of[oldest]
    fr = 0.0  # f(x_oldest) with the new support vector
    for q in range(state.n_sv[p]):
        j = state.sv[p, q]
        fr += state.coef[p, j] * (values[row, slot_of[j]] + rule.s2)
    beta, fr = state.coef[p, oldest] / eta, fr / eta
    a = beta * beta - 2.0 * beta * fr
    b = 2.0 * abs(beta)
    c = budget.forget_q[p] - 15.0 / 32.0 * budget.errors[p]
    d = b * b - 4.0 * a * c
    phi = 1.0
    if a > 0.0 or (a < 0.0 and d > 0.0 and (-b - np.sqrt(abs(d))) / (2.0 * a) > 1.0):
        phi = min(1.0, (-b + np.sqrt(d)) / (2.0 * a))
    elif a == 0.0 and b > 0.0:
        phi = min(1.0, -c / b)
    if phi <= 0.0:  # nothing may stay (the damage allowance is spent exactly): all leave
        while state.n_sv[p] > 0:
            _evict(state, p, 0)
        return
    if phi < 1.0:
        for q in range(state.n_sv[p]):
            j = state.sv[p, q]
            _change(state, p, j, (phi - 1.0) * state.coef[p, j])
    e = abs(beta * phi)
    budget.forget_q[p] += e * e + 2.0 * e - 2.0 * e * np.sign(beta) * (phi * fr)
    _evict(state, p, 0)


@njit(cache=True)
def _projection(values, slot_of, row, i, p, state, budget, s2):
    """Project ``phi(x_i)`` on the span of problem ``p``'s support vectors: writes the
    coordinates ``d = K^-1 k`` to ``budget.proj`` and returns ``(|delta|^2, K'(x_i, x_i))``,
    the squared distance of ``phi(x_i)`` from the span and its squared norm."""
    m = state.n_sv[p]
    kinv, d, k = budget.kinv[p], budget.proj, budget.proj[m:]
    kii = values[row, slot_of[i]] + s2
    for q in range(m):
        k[q] = values[row, slot_of[state.sv[p, q]]] + s2
    distance = kii
    for q in range(m):
        t = 0.0
        for u in range(m):
            t += kinv[q, u] * k[u]
        d[q] = t
    for q in range(m):
        distance -= k[q] * d[q]
    return max(distance, 0.0), kii  # max: rounding must not make a distance negative


@njit(cache=True)
def _grow_inverse(p, state, budget, distance):
    """Append the new support vector to ``K^-1`` of problem ``p`` (a rank-one update;
    ``budget.proj`` holds its coordinates ``d`` in the old span)."""
    m = state.n_sv[p]
    kinv, d = budget.kinv[p], budget.proj
    for q in range(m):
        for u in range(m):
            kinv[q, u] += d[q] * d[u] / distance
        kinv[q, m] = -d[q] / distance
        kinv[m, q] = -d[q] / distance
    kinv[m, m] = 1.0 / distance


@njit(cache=True)
def dual_epoch(table, order, start, p, problems, state, updates, rule, budget):
    """Present ``order[start:]`` to dual problem ``p``, updating its state in place.

    Bundles (built by :mod:`rosenblatt.engine.dual`): ``Table(values, slot_of,
    row_of, until)`` with ``values[row_of[i], slot_of[j]] = K(x_j, x_i)``, valid for
    the presentations before position ``until`` of ``order``; ``Problems(Y, sample_weight)``,
    the ±1 targets of every problem; ``Coefficients(coef, coef_acc, sv, n_sv,
    n_seen)``; ``Updates(mistakes, mistake_weight, presented_weight, sample, delta,
    time, n_upd, activation, history, overflow)``, where this epoch's mistakes (with their
    summed sample weight, and that of the presentations) and updates of each problem go, and
    for a trace (when ``activation`` has columns) ``y f(x)`` of every presentation
    and every coefficient after it (``history[p, pos]``), by its position in
    ``order``; ``overflow[p]`` counts the scores ``f`` that were not finite (the
    engine refuses such an epoch); ``DualRule(eta, s2)``;
    ``Budget(policy, size, draws, kinv, proj, forget_q, errors, threshold, plus)``:
    how the support set is bounded (:mod:`rosenblatt.engine.dual`'s ``Budget``
    explains each policy and field).

    Returns ``table.until`` when the presentations before it are done, or the
    position of a presentation that needs the caller first (state untouched for
    it): a sample without a kernel slot that must get one, or a projection with
    ``kinv`` full.
    """
    values, slot_of, row_of = table.values, table.slot_of, table.row_of
    Y, sample_weight = problems.Y, problems.sample_weight
    coef, sv, n_sv, n_seen = state.coef, state.sv, state.n_sv, state.n_seen
    eta, s2 = rule.eta, rule.s2
    policy = budget.policy
    n = table.until
    for pos in range(start, n):
        i = order[pos]
        row = row_of[i]
        weight = sample_weight[i]
        if weight == 0.0:
            if updates.activation.shape[1] > 0:
                _keep_coefficients(updates, p, pos, coef)
            continue
        f = 0.0
        for r in range(n_sv[p]):
            j = sv[p, r]
            f += coef[p, j] * (values[row, slot_of[j]] + s2)
        y = Y[p, i]
        if updates.activation.shape[1] > 0:  # a trace (the playground) asks for every y f
            updates.activation[p, pos] = y * f
        if not math.isfinite(f):  # no test of a NaN or inf is true: counted, refused
            updates.overflow[p] += 1
        mistake = y * f <= 0.0
        # Projectron++ also learns from a margin error, 0 < y f < 1 in units of eta
        if mistake or (budget.plus and y * f < eta):
            delta = eta * weight * y
            joins = coef[p, i] == 0.0 and delta != 0.0  # alpha_i = 0: not a support vector
            full = n_sv[p] >= budget.size
            if policy == PROJECT:  # a full budget projects: K^-1 needs no more room
                if slot_of[i] < 0 or (n_sv[p] >= budget.kinv.shape[1] and not full):
                    return pos
            elif policy == STOP:
                if joins and full:  # the Stoptron: a full budget learns nothing new
                    delta, joins = 0.0, False
                elif joins and slot_of[i] < 0:
                    return pos
            elif joins and slot_of[i] < 0:
                return pos
            if mistake:
                updates.mistakes[p] += 1
                updates.mistake_weight[p] += weight
                budget.errors[p] += 1
            now = n_seen[p]
            if policy == PROJECT:
                distance, kii = _projection(values, slot_of, row, i, p, state, budget, s2)
                if mistake and joins and distance > budget.threshold and not full:
                    _grow_inverse(p, state, budget, distance)
                    _join(state, p, i, delta)
                    _record(updates, p, i, delta, now)
                else:
                    tau = 1.0
                    if not mistake:  # Projectron++'s step on a margin error
                        loss = 1.0 - y * f / eta
                        norm = max(kii - distance, 0.0)
                        room = loss - distance / budget.threshold
                        tau = 0.0
                        if room > 0.0 and norm > 0.0:
                            tau = min(min(loss / norm, 1.0), 2.0 * room / norm)
                    for r in range(n_sv[p]):
                        _change(state, p, sv[p, r], tau * delta * budget.proj[r])
            elif delta != 0.0:
                if joins:
                    if policy == RANDOM and full:  # Cavallanti et al.: evict one at random
                        _evict(state, p, min(int(budget.draws[pos] * n_sv[p]), n_sv[p] - 1))
                    _join(state, p, i, delta)
                    if policy == FORGETRON and n_sv[p] > budget.size:
                        _forget(values, slot_of, row_of, p, state, budget, rule)
                else:
                    _change(state, p, i, delta)
                if coef[p, i] != 0.0:  # the Forgetron may have removed i at once
                    _record(updates, p, i, delta, now)
        n_seen[p] += 1
        updates.presented_weight[p] += weight
        if updates.activation.shape[1] > 0:
            _keep_coefficients(updates, p, pos, coef)
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
