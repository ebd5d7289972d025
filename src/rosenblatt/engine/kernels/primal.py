"""The primal training epoch: Rosenblatt's rule on explicit weights, written once.

:func:`primal_epoch` presents the patterns of one epoch to the neurons of a
model and updates their state in place. Its inputs come as a few typed bundles
(namedtuples built by :mod:`rosenblatt.engine.primal`), so every field has a
name and two arrays of the same type cannot be swapped by position:

``Rows(X, csr)``
    A dense matrix as ``X`` with ``csr=None``, or a CSR matrix as
    ``csr=(data, indices, indptr)`` with an empty ``X`` (see :mod:`._rows`).
``Targets(target, positive, sample_weight)``
    The class index of every sample; the class index each state row answers
    +1 for (one-vs-rest); the sample weights. A zero-weight sample is neither
    presented nor counted. A layer of independent neurons with several labels per
    sample (multilabel) takes instead the (n_samples, n_labels) int8 label matrix
    as ``target`` and the column each row reads as ``positive``: row ``s`` answers
    +1 where ``target[i, positive[s]]`` is not 0.
``Schedule(order, stream, lookahead)``
    The epoch's presentation order and the prefetch hints of :mod:`.order`,
    which change timing, never results.
``Weights(W, w0, U, U0, counts)``
    The weights ``W`` (n_rows, n_features) and ``w0``, the weight of the
    constant input ``bias_input`` (the intercept is ``w0 * bias_input``); the
    averaging accumulators ``U``, ``U0`` (zero columns / length unless
    averaging); ``counts``, the presentations each row has seen (one shared count
    for the multinomial model).
``Record(n_rec, sample, coef, time, true, pred, activation)`` or None
    Where updates go, when there is a record (the voted perceptron, traces):
    state row ``s`` writes from index ``s * n_samples`` on, and ``n_rec[s]``
    counts them; ``true``/``pred`` hold the classes of a multinomial update;
    a non-empty ``activation`` (a trace) gets ``y (w . x + w0 s)`` of every
    presentation, in order. Empty arrays when unused.
``Rule(eta, bias_input, batch, average, step, C)``
    The scalars of the update; ``step`` the rule's code (``bundles.STEPS``: Rosenblatt's,
    or the passive-aggressive family's, whose aggressiveness bound is ``C``).
``Tally(mistakes, mistake_weight, presented_weight, overflow)``
    What the epoch counts, zeroed by the caller: the mistakes of each state row
    (one in all for the multinomial model), the summed sample weight of the
    presentations each row erred on, and (one entry) the summed sample weight of
    the presentations. The stop rule watches their ratio, the weighted mistake
    fraction: the weight it sums is the one that scales the update. ``overflow``
    (one entry) counts the scores that were not finite (an inf or a NaN: the
    weights or the features beyond the float range): such a score answers no
    mistake test truly, so the engine refuses the epoch (its caller reads it).
``Scratch(delta, delta0, scores, wrong_row, step)``
    Working memory, zeroed: the batch sums ``delta`` (n_rows, n_features, or
    (n_rows, 0) outside batch mode) and ``delta0`` (n_rows,), the multinomial
    scores (n_rows,), and the rows a pattern updates with their steps (at least 2
    entries each). Allocated by the caller: numba compiles its own ``np.zeros``
    for every call signature, which made up a third of the first compile.

Rosenblatt's rule (the lecture notes' update condition and batch mode): a pattern
with target ``y`` triggers an update when ``y * (w . x + w0 * bias_input) <= 0``,
which adds ``eta * sample_weight * y`` times the augmented pattern to the weights
(online) or to the epoch's sum, applied at its end (batch). Averaging also adds
``c * delta`` to ``U``, ``c`` the notes' example counter (the presentations
before this one, plus one: CIML Algorithm 7 starts it at 1), so ``W - U / (counts
+ 1)`` is Algorithm 7's return value, the average of the weights ``w_0 .. w_T``
(the initial ones and those after every presentation). The multinomial model (one
vector per class) errs when another class scores at least as high as the true one;
the true class then gets ``+eta * sample_weight * x`` and the strongest rival (lowest
index on ties) ``-eta * sample_weight * x``.

``layout`` is a compile-time constant: ``SINGLE`` (one neuron, every binary
problem: its rows are taken once per epoch rather than per pattern, which is
10-15 % faster), ``ONE_VS_REST`` (independent neurons, each pattern read once
for all of them) or ``MULTINOMIAL`` (None); each is its own numba type, so
each compiles to its own loop with the others' code dropped. The pattern loop
with its prefetching, the update and the record are written once; only the
test of which rows err on a pattern differs, binary or multinomial. How a row's
target ``y`` is read off the labels is the other compile-time choice, by the
dimension of ``target`` (part of its numba type): a class index per sample
(binary, one-vs-rest) or a row of the label matrix (multilabel, with the SINGLE
and ONE_VS_REST layouts); a 1-D ``target`` compiles to the very code it did
before the label matrix existed.
"""

import math

from numba import njit, types
from numba.extending import overload, register_jitable

from . import stop_rule
from ._prefetch import prefetch
from ._rows import (
    EXTENT_AHEAD,
    prefetch_extent,
    prefetch_row,
    row_axpy,
    row_axpy2,
    row_dot,
    row_sqnorm,
)
from .bundles import (  # noqa: F401 (the bundles and layouts, re-exported with the loop)
    MULTINOMIAL,
    ONE_VS_REST,
    PA1,
    PA2,
    PERCEPTRON,
    SINGLE,
    Draws,
    Limits,
    OneVsRest,
    Progress,
    Record,
    Rows,
    Rule,
    Schedule,
    Scratch,
    Single,
    Tally,
    Targets,
    Weights,
)
from .order import shuffled_order


def _kind(layout):
    """The layout class behind a numba type (``Single``, ``OneVsRest``, or None)."""
    return getattr(layout, "instance_class", None)


# ---------------------------------------------------------------------- rows in place
def _row(M, s):
    """Row ``s`` of ``M``; a row already taken once per epoch (1-D) is itself."""


@overload(_row, inline="always")
def _row_impl(M, s):
    if M.ndim == 1:
        return lambda M, s: M
    return lambda M, s: M[s]


def _rows_of(layout, M, s):
    """``M`` for the epoch: its row ``s`` taken once (SINGLE), else ``M`` itself."""


@overload(_rows_of, inline="always")
def _rows_of_impl(layout, M, s):
    if _kind(layout) is Single:
        return lambda layout, M, s: M[s]
    return lambda layout, M, s: M


def _slot_count(layout, slots):
    """How many state rows train: the constant 1 for SINGLE, so the loop unrolls."""


@overload(_slot_count, inline="always")
def _slot_count_impl(layout, slots):
    if _kind(layout) is Single:
        return lambda layout, slots: 1
    return lambda layout, slots: slots.shape[0]


# ---------------------------------------------------------------------- the targets
def _label(target, i):
    """What the neurons read of sample ``i``: its class index (1-D ``target``), or
    ``i`` itself, the row of the label matrix (2-D, multilabel)."""


@overload(_label, inline="always")
def _label_impl(target, i):
    if target.ndim == 1:
        return lambda target, i: target[i]
    return lambda target, i: i


def _prefetch_label(target, i):
    """Ask for where sample ``i``'s label is (its entry, or its row of the label matrix)."""


@overload(_prefetch_label, inline="always")
def _prefetch_label_impl(target, i):
    if target.ndim == 1:
        return lambda target, i: prefetch(target, i)
    return lambda target, i: prefetch(target[i], 0)


def _sign(target, label, positive, s):
    """Row ``s``'s target ``y`` for a sample read as ``label`` (see :func:`_label`)."""


@overload(_sign, inline="always")
def _sign_impl(target, label, positive, s):
    if target.ndim == 1:
        return lambda target, label, positive, s: 1.0 if label == positive[s] else -1.0
    return lambda target, label, positive, s: 1.0 if target[label, positive[s]] != 0 else -1.0


# ---------------------------------------------------------------------- the step
@njit(cache=True, inline="always")
def _pa_step(kind, loss, sq, C):
    """The passive-aggressive step ``tau`` for a hinge loss ``loss`` on a pattern of squared
    norm ``sq`` (Crammer et al. 2006): PA ``loss / sq``, PA-I that but at most ``C``, PA-II
    ``loss / (sq + 1 / (2 C))``; no step on a pattern of norm 0 (PA, PA-I: it has no
    direction to move along)."""
    if kind == PA2:
        return loss / (sq + 0.5 / C)
    if sq <= 0.0:
        return 0.0
    tau = loss / sq
    if kind == PA1 and tau > C:
        return C
    return tau


# ---------------------------------------------------------------------- the record
@njit(cache=True, inline="always")
def _keep(record, s, n_samples, i, coef, now):
    """Write an update into state row ``s``'s part of the record; return its index.

    Only reached on a recorded mistake, so reading the arrays out of the bundle
    here costs the loop nothing.
    """
    slot = s * n_samples + record.n_rec[s]
    record.sample[slot] = i
    record.coef[slot] = coef
    record.time[slot] = now
    record.n_rec[s] += 1
    return slot


# ---------------------------------------------------------------------- the epoch
@njit(cache=True, nogil=True)
def primal_epoch(rows, targets, schedule, weights, record, rule, scratch, slots, tally, layout):
    """One epoch over ``schedule.order`` for the state rows ``slots``; in place.

    ``slots`` holds the state rows to train (SINGLE: one; MULTINOMIAL: all of
    them, ``0 .. n_rows - 1``). ``tally`` (one entry per state row; one in all
    for MULTINOMIAL) must come in zeroed and gets each trained row's mistakes and
    their summed sample weight, and the summed weight of the presentations.
    Returns the number of patterns presented. In batch mode the epoch's updates
    are summed with the weights held fixed and applied at its end (the lecture
    notes' batch mode).
    """
    X, csr = rows.X, rows.csr
    target, positive, sample_weight = targets.target, targets.positive, targets.sample_weight
    order, stream, lookahead = schedule.order, schedule.stream, schedule.lookahead
    W_all, w0, U_all, U0, counts = weights.W, weights.w0, weights.U, weights.U0, weights.counts
    eta, bias_input, batch, average = rule.eta, rule.bias_input, rule.batch, rule.average
    step_kind, C = rule.step, rule.C
    tracing = False
    if record is not None:
        tracing = record.activation.shape[0] > 0
    n_samples = order.shape[0]
    n_rows, n_features = W_all.shape
    delta_all, delta0, scores = scratch.delta, scratch.delta0, scratch.scores
    wrong_row, step = scratch.wrong_row, scratch.step
    mistakes, mistake_weight = tally.mistakes, tally.mistake_weight
    layout_counts_each = layout is not None  # one count per row, or one shared
    s0 = slots[0]
    W = _rows_of(layout, W_all, s0)
    U = _rows_of(layout, U_all, s0)
    delta = _rows_of(layout, delta_all, s0)
    presented = 0
    presented_weight = 0.0  # summed here, not in the bundle: no store per pattern
    # one neuron (always SINGLE, a constant there) counts its mistakes in registers, stored
    # once at the end: a read-modify-write of the tally per mistake chained the patterns
    alone = _slot_count(layout, slots) == 1
    own_mistakes = 0
    own_weight = 0.0
    for pos in range(n_samples):
        # prefetch ahead, written out here rather than in a helper taking the arrays:
        # as an inlined helper the same lines cost float32 block-shuffled epochs 1.8x
        if lookahead > 0:
            if pos + lookahead < n_samples:
                prefetch_row(X, csr, order[pos + lookahead])
            if pos + 2 * lookahead < n_samples:
                prefetch_extent(csr, order[pos + 2 * lookahead])
        if stream.shape[0] > 0:
            if stream[pos] >= 0:
                prefetch_row(X, csr, stream[pos])
                # and its label and weight: read in the block's order, they missed the
                # caches about once a chunk each (float32 epochs about 8 % faster)
                _prefetch_label(target, stream[pos])
                prefetch(sample_weight, stream[pos])
            if csr is not None:  # pruned when the dense loop is compiled
                if pos + EXTENT_AHEAD < n_samples and stream[pos + EXTENT_AHEAD] >= 0:
                    prefetch_extent(csr, stream[pos + EXTENT_AHEAD])
        i = order[pos]
        weight = sample_weight[i]  # read once: the stores below may alias it for LLVM
        if weight == 0.0:
            continue
        # Which rows err on the pattern, and by how much each moves. Written in the
        # loop, not in helpers: an inlined helper taking the arrays below cost
        # reference counting on every pattern (epochs 2-3x slower), and one applying
        # the update cost float32 epochs 20-30 %. The layout not compiled is folded away.
        n_wrong = 0
        sq = -1.0  # the pattern's squared norm, once a passive-aggressive step needs it
        if layout is None:  # multinomial
            for c in range(n_rows):
                scores[c] = row_dot(X, csr, i, W_all[c]) + w0[c] * bias_input
                if not math.isfinite(scores[c]):
                    tally.overflow[0] += 1
            true = _label(target, i)  # (typed for a label matrix too, never run with one)
            rival = -1
            for c in range(n_rows):
                if c != true and (rival < 0 or scores[c] > scores[rival]):
                    rival = c
            if step_kind == PERCEPTRON:
                wrong = scores[rival] >= scores[true]
            else:  # a margin error: the true class ahead by less than 1
                wrong = scores[true] - scores[rival] < 1.0
            if wrong:
                tau = eta
                if step_kind != PERCEPTRON:  # ||Phi(x, true) - Phi(x, rival)||^2 = 2 ||x||^2
                    sq = 2.0 * (row_sqnorm(X, csr, i) + bias_input * bias_input)
                    tau = _pa_step(step_kind, 1.0 - (scores[true] - scores[rival]), sq, C)
                wrong_row[0], step[0] = true, tau * weight
                wrong_row[1], step[1] = rival, -tau * weight
                n_wrong = 2
                mistakes[0] += 1
                mistake_weight[0] += weight
        else:
            label = _label(target, i)
            for q in range(_slot_count(layout, slots)):
                s = slots[q]
                y = _sign(target, label, positive, s)
                # the row of s in place, not bound to a name: binding a row view per
                # pattern and neuron made the one-vs-rest loop about 15 % slower
                a = y * (row_dot(X, csr, i, _row(W, s)) + w0[s] * bias_input)
                if record is not None:
                    if tracing:
                        record.activation[presented] = a
                if not math.isfinite(a):  # no test of a NaN or inf is true: counted, refused
                    tally.overflow[0] += 1
                if step_kind == PERCEPTRON:
                    wrong = a <= 0.0
                else:  # a margin error: a hinge loss 1 - a above 0
                    wrong = a < 1.0
                if wrong:
                    coef = eta * weight * y
                    if step_kind != PERCEPTRON:
                        if sq < 0.0:  # the augmented pattern's, once for every row
                            sq = row_sqnorm(X, csr, i) + bias_input * bias_input
                        coef = _pa_step(step_kind, 1.0 - a, sq, C) * weight * y
                    wrong_row[n_wrong], step[n_wrong] = s, coef
                    n_wrong += 1
                    if alone:
                        own_mistakes += 1
                        own_weight += weight
                    else:
                        mistakes[s] += 1
                        mistake_weight[s] += weight
        # the update, the same for every layout (online, or summed for batch mode)
        for u in range(n_wrong):
            s = wrong_row[u]
            coef = step[u]
            now = counts[s if layout_counts_each else 0] + presented
            if batch:
                row_axpy(coef, X, csr, i, _row(delta, s))
                delta0[s] += coef * bias_input
            elif average:  # and Algorithm 7's u += y c x, beta += y c, with c = now + 1,
                # in the same pass over the row (its indices and values read once)
                row_axpy2(coef, coef * (now + 1), X, csr, i, _row(W, s), _row(U, s))
                w0[s] += coef * bias_input
                U0[s] += coef * (now + 1) * bias_input
            else:
                row_axpy(coef, X, csr, i, _row(W, s))
                w0[s] += coef * bias_input
            if record is not None:
                if layout_counts_each:
                    _keep(record, s, n_samples, i, coef, now)
                elif u == 0:  # multinomial: one entry per mistake, true class and rival
                    slot = _keep(record, 0, n_samples, i, coef, now)
                    record.true[slot] = s
                    record.pred[slot] = wrong_row[1]
        presented += 1
        presented_weight += weight
    tally.presented_weight[0] += presented_weight
    if alone and layout_counts_each:
        mistakes[s0] += own_mistakes
        mistake_weight[s0] += own_weight
    # the end of the epoch: apply the batch sums, advance the presentation counts
    for q in range(_slot_count(layout, slots)):
        s = slots[q]
        if batch:
            for j in range(n_features):
                W_all[s, j] += delta_all[s, j]
            w0[s] += delta0[s]
        if layout_counts_each:
            counts[s] += presented
    if not layout_counts_each:
        counts[0] += presented
    return presented


# ---------------------------------------------------------------------- a run of epochs
# the stop rule is plain Python (the epoch driver runs it as it is): compiled in here
for _rule in (
    stop_rule._block_sum,
    stop_rule.summed,
    stop_rule.weighted_fraction,
    stop_rule.stale_for,
    stop_rule.end_epoch,
):
    register_jitable(_rule)


def _epoch_record(record, epoch, size):
    """Epoch ``epoch``'s part of a run's record (each epoch writes ``size`` entries from
    ``epoch * size`` on, and counts them in its row of ``n_rec``), or None without one."""


@overload(_epoch_record, inline="always")
def _epoch_record_impl(record, epoch, size):
    if isinstance(record, types.NoneType):
        return lambda record, epoch, size: None

    def part(record, epoch, size):
        labelled = record.true.shape[0] > 0  # multinomial: the classes of each update
        start, stop = epoch * size, (epoch + 1) * size
        return Record(
            record.n_rec[epoch],
            record.sample[start:stop],
            record.coef[start:stop],
            record.time[start:stop],
            record.true[start:stop] if labelled else record.true,
            record.pred[start:stop] if labelled else record.pred,
            record.activation,
        )

    return part


@njit(cache=True, nogil=True)
def primal_epochs(
    rows,
    targets,
    draws,
    weights,
    record,
    rule,
    scratch,
    slots,
    tally,
    layout,
    progress,
    limits,
    history,
):
    """Epochs of :func:`primal_epoch`, one after another, the stop rule after each; in place.

    What the epoch driver does around each epoch, done here for a whole run: each epoch's
    order (``draws``: ``arange(n)`` shuffled from the run's random source, see
    :func:`.order.shuffled_order`, or, with ``next_uint32 == 0``, ``arange(n)`` itself),
    the units still learning (``progress.active``: their state rows train; every row of
    the multinomial model), the epoch's count and :func:`.stop_rule.end_epoch`.

    ``history`` (int64, one entry per epoch this call may run) gets each epoch's mistakes;
    ``record`` (or None) holds each epoch's updates in its own part, as
    :func:`primal_epoch` writes them (``n_rec`` one row per epoch); ``slots`` is working
    memory of one entry per state row; ``tally`` is this call's, zeroed before every
    epoch (after the last it holds that epoch's count).

    Returns
    -------
    (epochs, presented, status)
        The epochs completed, the patterns the last one presented, and how the run
        stands (:mod:`.stop_rule`'s codes). ``OVERFLOWED``: the epoch after the ones
        completed met a score beyond the float range (``tally.overflow`` counts them);
        it ran, but it is not counted, and the caller refuses it.
    """
    order = draws.order
    n_samples = order.shape[0]
    for i in range(n_samples):
        order[i] = i
    n_units = progress.active.shape[0]
    n_rows = weights.W.shape[0]
    size = n_samples * n_rows
    schedule = Schedule(order, draws.stream, draws.lookahead)
    presented = 0
    for epoch in range(history.shape[0]):
        if draws.next_uint32 != 0:
            shuffled_order(order, draws.next_uint32, draws.state)
        trained = 0
        for u in range(n_rows):
            if layout is None or progress.active[u]:  # multinomial: one unit of every row
                slots[trained] = u
                trained += 1
        tally.mistakes[:] = 0
        tally.mistake_weight[:] = 0.0
        tally.presented_weight[0] = 0.0
        scratch.delta[:] = 0
        scratch.delta0[:] = 0.0
        presented = primal_epoch(
            rows,
            targets,
            schedule,
            weights,
            _epoch_record(record, epoch, size),
            rule,
            scratch,
            slots[:trained],
            tally,
            layout,
        )
        if tally.overflow[0] > 0:
            return epoch, presented, stop_rule.OVERFLOWED
        mistakes = tally.mistakes[:n_units]
        history[epoch] = mistakes.sum()
        status = stop_rule.end_epoch(
            progress, mistakes, tally.mistake_weight[:n_units], tally.presented_weight[0], limits
        )
        if status != stop_rule.RUNNING:
            return epoch + 1, presented, status
    return history.shape[0], presented, stop_rule.RUNNING
