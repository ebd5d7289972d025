"""Training epochs of the linear perceptron family (Rosenblatt's rule, one place).

Every function here is a pure function of arrays and scalars. The estimator
wrappers in :mod:`rosenblatt.linear` turn options into flags, allocate state and
loop over epochs; these kernels run one epoch over the given presentation order.

Conventions shared by both kernels
----------------------------------
- ``W`` (n_neurons, n_features) and ``w0`` (n_neurons,) are the weights and the
  weight of the appended constant input ``bias_input``; the intercept is
  ``w0 * bias_input``.
- A pattern triggers an update when ``y * (w . x + w0 * bias_input) <= 0``
  (seed 003, remark 1). The update adds ``eta * sample_weight * y`` times the
  augmented pattern.
- Samples with zero weight are skipped: not presented, not counted.
- ``counts`` holds, per neuron, how many patterns have been presented so far.
  With ``average`` set, ``U += t * delta`` and ``U0 += t * delta0`` where ``t`` is
  the count *before* the presentation; then the average of the weight vector
  after every presentation is ``W - U / counts`` (see ``averaged_weights``).
- With ``record`` set, every update is written to the ``rec_*`` arrays
  (sample, coefficient, presentations before it), from which the voted
  perceptron rebuilds every intermediate weight vector and its survival count.
  One-vs-rest state row ``s`` writes its updates from ``rec_*[s * n]`` on and
  their number to ``n_rec[s]``.
- ``stream`` and ``lookahead`` are prefetch hints (see :mod:`.order`): they
  change timing, never results.
"""

import numpy as np
from numba import njit

from ._rows import EXTENT_AHEAD, prefetch_extent, prefetch_row, row_axpy, row_dot


@njit(cache=True, nogil=True)
def _one_neuron_epoch(
    X, csr, target, positive, s, sample_weight, order, stream, lookahead, W, w0, bias_input, eta,
    batch, average, U, U0, t,
    record, n_rec, rec_sample, rec_coef, rec_time, delta, delta0,
):
    """``ovr_epoch`` for one neuron (every binary problem); returns its mistakes.

    Class ``positive`` is the neuron's +1, every other class its -1.

    The rule is written out here and in ``ovr_epoch`` rather than shared through a
    helper: numba's inlining of a helper that takes arrays, or a call to one,
    made the loop 10-15 % slower, and so does taking the neuron's row of ``W``
    on every pattern instead of once.
    """
    n_samples = order.shape[0]
    w = W[s]
    d = delta[s] if batch else w
    u = U[s] if average else w
    t_s = t[s]
    wrong = 0
    for pos in range(n_samples):
        # prefetch ahead, written out in each loop: the same lines as an inlined
        # helper taking the arrays cost float32 block-shuffled epochs about 1.8x
        if lookahead > 0:
            if pos + lookahead < n_samples:
                prefetch_row(X, csr, order[pos + lookahead])
            if pos + 2 * lookahead < n_samples:
                prefetch_extent(csr, order[pos + 2 * lookahead])
        if stream.shape[0] > 0:
            if stream[pos] >= 0:
                prefetch_row(X, csr, stream[pos])
            if csr is not None:  # pruned when the dense loop is compiled
                if pos + EXTENT_AHEAD < n_samples and stream[pos + EXTENT_AHEAD] >= 0:
                    prefetch_extent(csr, stream[pos + EXTENT_AHEAD])
        i = order[pos]
        if sample_weight[i] == 0.0:
            continue
        y = 1.0 if target[i] == positive else -1.0
        if y * (row_dot(X, csr, i, w) + w0[s] * bias_input) <= 0.0:
            coef = eta * sample_weight[i] * y
            if batch:
                row_axpy(coef, X, csr, i, d)
                delta0[s] += coef * bias_input
            else:
                row_axpy(coef, X, csr, i, w)
                w0[s] += coef * bias_input
                if average:
                    row_axpy(coef * t_s, X, csr, i, u)
                    U0[s] += coef * t_s * bias_input
            if record:
                slot = s * n_samples + n_rec[s]
                rec_sample[slot] = i
                rec_coef[slot] = coef
                rec_time[slot] = t_s
                n_rec[s] += 1
            wrong += 1
        t_s += 1
    t[s] = t_s
    return wrong


@njit(cache=True, nogil=True)
def ovr_epoch(
    X, csr,
    target, positive, neurons, slots, sample_weight, order, stream, lookahead, W, w0,
    bias_input, eta, batch, average, U, U0, counts,
    record, n_rec, rec_sample, rec_coef, rec_time,
    mistakes,
):
    """One epoch of independent binary neurons (one-vs-rest), online or batch.

    ``target`` holds each sample's class index; neuron ``k``'s target is +1 for
    class ``positive[k]`` and -1 for the others. Neuron
    ``neurons[q]`` trains the state row ``s = slots[q]`` of ``W``, ``w0``, ``U``,
    ``U0``, ``counts``, ``n_rec`` and ``mistakes``; ``mistakes`` and ``n_rec``
    must come in zeroed. A thread given its own copy of a group's rows
    (``slots = 0, 1, ...``) shares no cache line with another thread's.

    Each pattern is read once and presented to every neuron in turn: the neurons
    are independent, so this gives what training them one after the other
    would, for a K-th of the memory traffic. In batch mode the updates of the
    epoch are summed with the weights held fixed and applied at its end (seed 003,
    remark 2).
    """
    n_features = W.shape[1]
    n_samples = order.shape[0]
    n_trained = neurons.shape[0]
    # the batch accumulators are only needed (and only allocated) in batch mode
    delta = np.zeros((W.shape[0] if batch else 0, n_features), dtype=W.dtype)
    delta0 = np.zeros(W.shape[0])
    t = counts.copy()
    if n_trained == 1:
        mistakes[slots[0]] += _one_neuron_epoch(
            X, csr, target, positive[neurons[0]], slots[0], sample_weight, order, stream,
            lookahead, W, w0, bias_input, eta, batch, average, U, U0, t,
            record, n_rec, rec_sample, rec_coef, rec_time, delta, delta0)
    else:
        answers = positive[neurons]  # the class each trained neuron says +1 to
        presented = 0  # patterns presented so far this epoch, the same for every neuron
        for pos in range(n_samples):
            # prefetch ahead (written out: see _one_neuron_epoch)
            if lookahead > 0:
                if pos + lookahead < n_samples:
                    prefetch_row(X, csr, order[pos + lookahead])
                if pos + 2 * lookahead < n_samples:
                    prefetch_extent(csr, order[pos + 2 * lookahead])
            if stream.shape[0] > 0:
                if stream[pos] >= 0:
                    prefetch_row(X, csr, stream[pos])
                if csr is not None:  # pruned when the dense loop is compiled
                    if pos + EXTENT_AHEAD < n_samples and stream[pos + EXTENT_AHEAD] >= 0:
                        prefetch_extent(csr, stream[pos + EXTENT_AHEAD])
            i = order[pos]
            if sample_weight[i] == 0.0:
                continue
            label = target[i]
            for q in range(n_trained):
                s = slots[q]
                y = 1.0 if label == answers[q] else -1.0
                # W[s] in place, not bound to a name: binding a row view per pattern
                # and neuron made this loop about 15 % slower
                if y * (row_dot(X, csr, i, W[s]) + w0[s] * bias_input) <= 0.0:
                    coef = eta * sample_weight[i] * y
                    now = t[s] + presented
                    if batch:
                        row_axpy(coef, X, csr, i, delta[s])
                        delta0[s] += coef * bias_input
                    else:
                        row_axpy(coef, X, csr, i, W[s])
                        w0[s] += coef * bias_input
                        if average:
                            row_axpy(coef * now, X, csr, i, U[s])
                            U0[s] += coef * now * bias_input
                    if record:
                        slot = s * n_samples + n_rec[s]
                        rec_sample[slot] = i
                        rec_coef[slot] = coef
                        rec_time[slot] = now
                        n_rec[s] += 1
                    mistakes[s] += 1
            presented += 1
        for q in range(n_trained):
            t[slots[q]] += presented
    for q in range(n_trained):
        s = slots[q]
        if batch:
            for j in range(n_features):
                W[s, j] += delta[s, j]
            w0[s] += delta0[s]
        counts[s] = t[s]


@njit(cache=True, nogil=True)
def multinomial_epoch(
    X, csr,
    target, sample_weight, order, stream, lookahead, W, w0, bias_input, eta, batch,
    average, U, U0, counts,
    record, rec_true, rec_pred, rec_sample, rec_coef, rec_time,
):
    """One epoch of the multinomial perceptron (one weight vector per class).

    ``target`` holds class indices. A pattern is a mistake when some other class
    scores at least as high as the true one (the multi-class form of
    ``y * a <= 0``); then ``eta * sample_weight * x`` is added to the true class's
    vector and subtracted from the highest-scoring other class (lowest index on
    ties). Returns ``(n_mistakes, n_recorded)``.
    """
    n_classes, n_features = W.shape
    scores = np.zeros(n_classes)
    delta = np.zeros((n_classes, n_features if batch else 0), dtype=W.dtype)
    delta0 = np.zeros(n_classes)
    t = counts[0]
    n_wrong = 0
    n_rec = 0
    n_samples = order.shape[0]
    for pos in range(n_samples):
        # prefetch ahead (written out: see _one_neuron_epoch)
        if lookahead > 0:
            if pos + lookahead < n_samples:
                prefetch_row(X, csr, order[pos + lookahead])
            if pos + 2 * lookahead < n_samples:
                prefetch_extent(csr, order[pos + 2 * lookahead])
        if stream.shape[0] > 0:
            if stream[pos] >= 0:
                prefetch_row(X, csr, stream[pos])
            if csr is not None:  # pruned when the dense loop is compiled
                if pos + EXTENT_AHEAD < n_samples and stream[pos + EXTENT_AHEAD] >= 0:
                    prefetch_extent(csr, stream[pos + EXTENT_AHEAD])
        i = order[pos]
        if sample_weight[i] == 0.0:
            continue
        for k in range(n_classes):
            scores[k] = row_dot(X, csr, i, W[k]) + w0[k] * bias_input
        true = target[i]
        rival = -1
        for k in range(n_classes):
            if k != true and (rival < 0 or scores[k] > scores[rival]):
                rival = k
        if scores[rival] >= scores[true]:
            coef = eta * sample_weight[i]
            if batch:
                row_axpy(coef, X, csr, i, delta[true])
                row_axpy(-coef, X, csr, i, delta[rival])
                delta0[true] += coef * bias_input
                delta0[rival] -= coef * bias_input
            else:
                row_axpy(coef, X, csr, i, W[true])
                row_axpy(-coef, X, csr, i, W[rival])
                w0[true] += coef * bias_input
                w0[rival] -= coef * bias_input
                if average:
                    row_axpy(coef * t, X, csr, i, U[true])
                    row_axpy(-coef * t, X, csr, i, U[rival])
                    U0[true] += coef * t * bias_input
                    U0[rival] -= coef * t * bias_input
            if record:
                rec_true[n_rec] = true
                rec_pred[n_rec] = rival
                rec_sample[n_rec] = i
                rec_coef[n_rec] = coef
                rec_time[n_rec] = t
                n_rec += 1
            n_wrong += 1
        t += 1
    if batch:
        for k in range(n_classes):
            for j in range(n_features):
                W[k, j] += delta[k, j]
            w0[k] += delta0[k]
    counts[:] = t
    return n_wrong, n_rec


@njit(cache=True)
def multinomial_vote(contrib, rec_true, rec_pred, counts, votes):
    """Survival-weighted vote of every intermediate multinomial weight matrix.

    ``contrib`` (n_updates, n_test) holds the score increment of update j on each
    test point (its inner product and intercept part); update j adds it to the true class's score and subtracts it
    from the rival's. ``counts`` (n_updates + 1) are the survival counts of the
    initial matrix and of the matrix after each update. ``votes`` (n_test,
    n_classes) is filled with the vote weights; the initial scores are zero.
    """
    n_updates, n_test = contrib.shape
    n_classes = votes.shape[1]
    scores = np.zeros(n_classes)
    for q in range(n_test):
        scores[:] = 0.0
        for j in range(n_updates + 1):
            if j > 0:
                u = j - 1
                scores[rec_true[u]] += contrib[u, q]
                scores[rec_pred[u]] -= contrib[u, q]
            if counts[j] > 0:
                best = 0
                for k in range(1, n_classes):
                    if scores[k] > scores[best]:
                        best = k
                votes[q, best] += counts[j]
