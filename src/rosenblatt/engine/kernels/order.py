"""Presentation orders for shuffled epochs, generated in compiled code.

``shuffled_order`` draws what numpy's ``shuffle`` of ``arange(n)`` draws (both
``RandomState.shuffle`` and ``Generator.shuffle``: Fisher-Yates, each index from numpy's
``random_interval``), from the run's own random source: its bit generator's
``next_uint32``, called through the C function numpy exposes for it
(``bit_generator.ctypes``), on its state in place. So a run of epochs in one compiled
call presents the orders the epoch driver's ``rng.shuffle`` would, and leaves the
source where those calls would.

``block_order`` cuts the rows into chunks of a few consecutive rows, permutes the
chunks, groups them into blocks and shuffles the rows of each block: every epoch
is a fresh random permutation of all rows in which only rows of the same small
chunk stay close. Memory is read a block at a time, so the rows of the next
block can be streamed into cache (``stream``) while the current one trains.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, inline="always")
def _splitmix64(state):
    """One step of SplitMix64: returns (new_state, 64 random bits)."""
    state = (state + np.uint64(0x9E3779B97F4A7C15)) & _MASK
    z = state
    z = ((z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _MASK
    z = ((z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _MASK
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _below(state, bound):
    """A random integer in [0, bound) and the new state."""
    state, bits = _splitmix64(state)
    return state, np.int64((bits >> np.uint64(11)) * (1.0 / 9007199254740992.0) * bound)


@njit(cache=True)
def _shuffle_in_place(values, start, stop, state):
    for k in range(stop - 1, start, -1):  # Fisher-Yates
        state, r = _below(state, k - start + 1)
        j = start + r
        values[k], values[j] = values[j], values[k]
    return state


@njit(cache=True, nogil=True)
def block_order(n_samples, chunk_rows, chunks_per_block, seed, order, stream):
    """Fill ``order`` with a block-shuffled permutation of ``range(n_samples)``.

    ``stream[pos]`` is a row of the next block (in storage order within each of
    its chunks) to prefetch while position ``pos`` is trained on, or -1.
    """
    n_chunks = (n_samples + chunk_rows - 1) // chunk_rows
    chunks = np.arange(n_chunks)
    state = _shuffle_in_place(chunks, 0, n_chunks, np.uint64(seed))
    stream[:] = -1
    start = previous_start = 0
    for c in range(0, n_chunks, chunks_per_block):
        # the block's rows, shuffled as they are written (inside-out Fisher-Yates)
        size = 0
        for b in range(c, min(c + chunks_per_block, n_chunks)):
            first = chunks[b] * chunk_rows
            for row in range(first, min(first + chunk_rows, n_samples)):
                state, r = _below(state, size + 1)
                order[start + size] = order[start + r]
                order[start + r] = row
                size += 1
        # while the previous block trains, stream this one, in storage order
        if start > 0:
            pos = previous_start
            for b in range(c, min(c + chunks_per_block, n_chunks)):
                first = chunks[b] * chunk_rows
                for row in range(first, min(first + chunk_rows, n_samples)):
                    if pos < start:
                        stream[pos] = row
                    pos += 1
        previous_start = start
        start += size


@intrinsic
def _next_uint32(typingctx, function, state):
    """``function(state)``: a bit generator's ``next_uint32`` (the address of its C function)
    on its state (the address numpy gives), as ``uint32_t (*)(void *)``."""
    signature = types.uint32(types.int64, types.int64)

    def codegen(context, builder, sig, args):
        pointer = ir.IntType(8).as_pointer()
        kind = ir.FunctionType(ir.IntType(32), [pointer])
        call = builder.inttoptr(args[0], kind.as_pointer())
        return builder.call(call, [builder.inttoptr(args[1], pointer)])

    return signature, codegen


@njit(cache=True, inline="always")
def _interval(next_uint32, state, top):
    """numpy's ``random_interval(bitgen, top)`` for ``top < 2**32``: a uniform integer in
    ``[0, top]``, the draws masked to the smallest all-ones mask above ``top`` and retried
    while above it."""
    if top == 0:
        return 0
    mask = top
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    while True:
        value = np.int64(_next_uint32(next_uint32, state)) & mask
        if value <= top:
            return value


@njit(cache=True)
def shuffled_order(order, next_uint32, state):
    """Fill ``order`` with ``arange(n)`` shuffled as numpy's ``shuffle`` does it, drawing from
    the bit generator at ``state`` through its ``next_uint32`` (``n`` below ``2**32``)."""
    n = order.shape[0]
    for i in range(n):
        order[i] = i
    for i in range(n - 1, 0, -1):
        j = _interval(next_uint32, state, i)
        order[i], order[j] = order[j], order[i]
