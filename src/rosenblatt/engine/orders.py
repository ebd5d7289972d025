"""Which order patterns are presented in, epoch by epoch.

``shuffle=True`` (the default) gives a fresh random order every epoch, as the
lecture notes ask, in whichever of two forms reads memory best:

- ``"full"``: a uniform random permutation, ``rng.permutation(n_samples)``. Rows
  are read in random places, which costs several times the arithmetic once the
  data no longer fits in cache.
- ``"block"``: the rows are cut into chunks of 32 consecutive rows; every epoch
  the chunks are permuted, taken 4 at a time as blocks of 128 rows, and the rows
  of each block are shuffled; the next block is prefetched while the current one
  trains. Still a fresh random permutation every epoch, read at close to
  streaming speed; only rows of the same 32-row chunk always stay close.

``True`` picks ``"full"`` up to 32,768 samples, where random access is cheap, and
``"block"`` above. The choice depends on the number of samples only, so dense and
CSR copies of the same data see the same orders. The mistake bound holds for any
order, so both modes keep it. If rows are stored sorted by class, block
shuffling mixes a little less than a full one (32-row chunks stay together); the
estimators warn when labels look sorted and the block mode is in use.
"""

from __future__ import annotations

import ctypes
import numbers
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .._core.config import CHUNK_ROWS, CHUNKS_PER_BLOCK, FULL_SHUFFLE_MAX_SAMPLES, LOOKAHEAD
from .kernels.bundles import Draws

# a training state's random source as plain data, in the one form (the model files' too)

if TYPE_CHECKING:  # pragma: no cover
    from .._core.typing import RandomStateLike

__all__ = [
    "CHUNK_ROWS",
    "CHUNKS_PER_BLOCK",
    "FULL_SHUFFLE_MAX_SAMPLES",
    "LOOKAHEAD",
    "CompiledOrders",
    "EpochOrders",
    "compiled_orders",
    "draw_seeds",
    "epoch_order",
    "labels_look_sorted",
    "random_source",
    "recorded_orders",
    "resolve_mode",
    "seed_from",
    "splitter_seed",
]

# LOOKAHEAD: a full shuffle needs the order's rows prefetched; a block shuffle
# streams the next block instead, which is enough for dense rows (prefetching
# ahead as well made them about 5 % slower), but CSR rows ran about 1.2x faster
# with both (the sparse benchmark's block-shuffled epochs then cost what a
# storage-order epoch does).


def random_source(random_state: RandomStateLike) -> np.random.RandomState | np.random.Generator:
    """The generator every random draw of a fit comes from.

    ``None``, an int or a ``RandomState`` give a ``numpy.random.RandomState``
    (scikit-learn's ``check_random_state``); a ``numpy.random.Generator`` is used
    as it is. Both kinds serve every draw below.

    Examples
    --------
    >>> same = np.random.RandomState(3).permutation(4)
    >>> bool((random_source(3).permutation(4) == same).all())
    True
    >>> type(random_source(np.random.default_rng(0))).__name__
    'Generator'
    """
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return random_state
    if isinstance(random_state, numbers.Integral):  # as check_random_state, without sklearn
        return np.random.RandomState(random_state)
    # imported here: reading a saved state (the command line's predictor) needs no sklearn
    from sklearn.utils import check_random_state

    return check_random_state(random_state)


def seed_from(rng: np.random.RandomState | np.random.Generator) -> int:
    """A 63-bit seed drawn from ``rng`` (a RandomState or a Generator)."""
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(1, 2**63 - 1, dtype=np.int64))
    return int(rng.randint(1, 2**63 - 1, dtype=np.int64))


def draw_seeds(rng: np.random.RandomState | np.random.Generator, size: int) -> np.ndarray:
    """``size`` seeds in ``[0, 2**31 - 1)`` for tasks that draw on their own (Dask partitions)."""
    if isinstance(rng, np.random.Generator):
        return rng.integers(0, 2**31 - 1, size=size)
    return rng.randint(0, 2**31 - 1, size=size)


def splitter_seed(rng: np.random.RandomState | np.random.Generator) -> int | np.random.RandomState:
    """What scikit-learn's splitters take as ``random_state`` for draws from ``rng``:
    the RandomState itself, or an int drawn from a Generator (which they refuse)."""
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(2**32))
    return rng


def resolve_mode(shuffle: bool | str, n_samples: int) -> str:
    """Map the ``shuffle`` parameter to "none", "full" or "block"."""
    if shuffle is False:
        return "none"
    if shuffle is True:
        return "block" if n_samples > FULL_SHUFFLE_MAX_SAMPLES else "full"
    return shuffle


_recorders = threading.local()


@contextmanager
def recorded_orders() -> Iterator[list[np.ndarray]]:
    """Keep a copy of every epoch order handed out in this thread while the block runs.

    What a consumer asks instead of replaying a fit's random draws (the playground
    shows the orders a :class:`~rosenblatt.estimators.kernel.KernelPerceptron` fit presented).

    Yields
    ------
    list of ndarray of int64
        The orders, in the order they were handed out (by :func:`epoch_order` and
        :class:`EpochOrders`).

    Examples
    --------
    >>> with recorded_orders() as orders:
    ...     _ = epoch_order(None, 3, "none")
    >>> [o.tolist() for o in orders]
    [[0, 1, 2]]
    """
    previous = getattr(_recorders, "orders", None)
    orders: list[np.ndarray] = []
    _recorders.orders = orders
    try:
        yield orders
    finally:
        _recorders.orders = previous


def _recorded(schedule):
    """``schedule`` (order, stream, lookahead), its order copied to the recorder if any."""
    orders = getattr(_recorders, "orders", None)
    if orders is not None:
        orders.append(np.array(schedule[0], copy=True))  # buffers are reused next epoch
    return schedule


def epoch_order(
    rng: Any,  # RandomState or Generator; unused (may be None) for mode "none"
    n_samples: int,
    mode: str,
    out: tuple[np.ndarray, np.ndarray] | None = None,
    sparse: bool = False,
) -> tuple[np.ndarray, np.ndarray, int]:
    """One epoch's order, the rows to stream ahead (or empty), and the lookahead.

    Parameters
    ----------
    rng : numpy.random.RandomState or numpy.random.Generator
        The fit's random source; "full" draws ``rng.permutation(n_samples)``,
        "block" draws one 63-bit seed for the compiled generator.
    n_samples : int
    mode : {"none", "full", "block"}
    out : tuple of two ndarrays of int64, default=None
        Buffers of length ``n_samples`` to fill with the order and the stream and
        return, so that an epoch loop can reuse them: fresh memory costs a page
        fault per 4 KiB on first touch, about a third of making a block order.
    sparse : bool, default=False
        Whether the rows are CSR rows; changes the lookahead, never the order.

    Returns
    -------
    order : ndarray of int64
    stream : ndarray of int64
        Row to prefetch at each position (-1: none); empty when not streaming.
    lookahead : int
        How many positions ahead the kernels prefetch.
    """
    no_stream = np.empty(0, dtype=np.int64)
    if out is None:
        out = np.empty(n_samples, dtype=np.int64), np.empty(n_samples, dtype=np.int64)
    order, stream = out
    if mode == "none":
        order[:] = np.arange(n_samples)
        return _recorded((order, no_stream, 0))
    if mode == "full":
        order[:] = np.arange(n_samples)
        rng.shuffle(order)  # what rng.permutation(n_samples) draws
        return _recorded((order, no_stream, LOOKAHEAD))
    return _recorded(_block_order(n_samples, _block_seed(rng), out, sparse))


def _block_seed(rng):
    return seed_from(rng)


def _block_order(n_samples, seed, out, sparse):
    from .kernels.loader import compiled_kernel

    block_order = compiled_kernel("order.block_order")

    order, stream = out
    block_order(n_samples, CHUNK_ROWS, CHUNKS_PER_BLOCK, seed, order, stream)
    return order, stream, LOOKAHEAD if sparse else 0


class EpochOrders:
    """Successive epochs' orders, the next one made while the current one trains.

    Each call returns what successive calls of ``epoch_order(rng, n_samples,
    mode, sparse=sparse)`` return. In block mode, as soon as an order is handed out the next is
    built on a helper thread (the compiled generator releases the GIL, so on a
    second core it costs the epoch nothing: about 0.6 ms per 160,000 rows). Its
    seed is drawn from ``rng`` at once, in the calling thread, so results never
    depend on timing; ``rng`` ends one draw further on than the epochs used.
    Use as a context manager, which stops the helper thread.

    Parameters
    ----------
    rng : numpy.random.RandomState or numpy.random.Generator
    n_samples : int
    mode : {"none", "full", "block"}
    ahead : bool, default=True
        Build the next block order in the background; False for a single epoch, or
        when every core trains (a helper thread would then take a core from them).
    sparse : bool, default=False
        Whether the rows are CSR rows (see ``epoch_order``).
    """

    def __init__(self, rng, n_samples, mode, ahead=True, sparse=False):
        self._rng, self._n_samples, self._mode, self._sparse = rng, n_samples, mode, sparse
        pairs = 2 if (ahead and mode == "block") else 1
        self._buffers = [
            (np.empty(n_samples, dtype=np.int64), np.empty(n_samples, dtype=np.int64))
            for _ in range(pairs)
        ]
        self._pool = ThreadPoolExecutor(max_workers=1) if pairs == 2 else None
        self._next = None

    def _submit(self, out):
        return self._pool.submit(
            _block_order, self._n_samples, _block_seed(self._rng), out, self._sparse
        )

    def __call__(self):
        """The next epoch's (order, stream, lookahead), as ``epoch_order`` returns them."""
        if self._pool is None:
            return epoch_order(
                self._rng, self._n_samples, self._mode, out=self._buffers[0], sparse=self._sparse
            )
        if self._next is None:
            self._next = self._submit(self._buffers[0])
        current = self._next.result()
        # the other pair of buffers is free: the epoch that used it has ended
        self._buffers.reverse()
        self._next = self._submit(self._buffers[0])
        return _recorded(current)

    def close(self) -> None:
        """Stop the helper thread (what leaving the ``with`` block does)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class CompiledOrders(NamedTuple):
    """The orders of a run of epochs in one compiled call (:func:`compiled_orders`).

    Attributes
    ----------
    draws : Draws
        What the compiled loop takes: an order buffer, and the bit generator's
        ``next_uint32`` and state as addresses (0: no draws, storage order).
    lock : context manager
        The bit generator's lock (numpy's methods hold it while they draw): hold it
        while the compiled loop runs.
    source : object
        The bit generator the addresses point into, kept alive with them (None without).
    """

    draws: Draws
    lock: AbstractContextManager[Any]
    source: Any


def compiled_orders(rng: Any, n_samples: int, mode: str) -> CompiledOrders | None:
    """The orders of a run of epochs in one compiled call, as :class:`EpochOrders` would
    hand them out one by one; None where the compiled loop cannot draw them.

    The compiled loop (:func:`rosenblatt.engine.kernels.order.shuffled_order`) draws a
    "full" order from ``rng``'s own bit generator, in place, through the C function numpy
    exposes for it: the draws ``rng.shuffle`` makes, and ``rng`` ends where the epochs'
    ``rng.shuffle`` calls would leave it. "none" needs no draw. None for a "block" order
    (made on a helper thread while an epoch trains, from a seed drawn in Python), for a
    source without numpy's C interface, for more than ``2**32`` samples, and while
    :func:`recorded_orders` keeps every order handed out.

    Parameters
    ----------
    rng : numpy.random.RandomState or numpy.random.Generator
    n_samples : int
    mode : {"none", "full", "block"}

    Returns
    -------
    CompiledOrders or None

    Examples
    --------
    >>> draws = compiled_orders(np.random.RandomState(0), 5, "full").draws
    >>> draws.order.shape, draws.next_uint32 != 0, draws.lookahead == LOOKAHEAD
    ((5,), True, True)
    >>> compiled_orders(None, 5, "none").draws.next_uint32
    0
    >>> compiled_orders(np.random.RandomState(0), 40_000, "block") is None
    True
    """
    if getattr(_recorders, "orders", None) is not None or n_samples >= 2**32:
        return None
    order, stream = np.empty(n_samples, dtype=np.int64), np.empty(0, dtype=np.int64)
    if mode == "none":
        return CompiledOrders(Draws(order, stream, 0, 0, 0), nullcontext(), None)
    if mode != "full":
        return None
    # a RandomState keeps its bit generator under a private name (numpy has no public one)
    source: Any = rng.bit_generator if isinstance(rng, np.random.Generator) else None
    source = getattr(rng, "_bit_generator", source)
    try:
        c = source.ctypes
        next_uint32 = ctypes.cast(c.next_uint32, ctypes.c_void_p).value
        lock, state = source.lock, int(c.state_address)
    except (AttributeError, TypeError):
        return None
    if not next_uint32 or not state:
        return None
    return CompiledOrders(Draws(order, stream, LOOKAHEAD, next_uint32, state), lock, source)


def labels_look_sorted(target: np.ndarray) -> bool:
    """True when consecutive labels agree far more often than in a random order."""
    if target.shape[0] < 1000:
        return False
    same = np.mean(target[1:] == target[:-1])
    counts = np.bincount(target)
    counts = counts[counts > 0]
    expected = np.sum((counts / target.shape[0]) ** 2)
    return same > expected + 0.5 * (1 - expected)
