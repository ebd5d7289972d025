"""Every compiled kernel the package calls from Python, in one list.

Each entry names a kernel (``module.function`` under :mod:`rosenblatt.engine.kernels`, or
``textparse.function``: the readers' compiled parsers, which live beside them in
:mod:`rosenblatt.data.readers.textparse`),
the plain-Python reference it must reproduce (a function of ``tests/reference.py``,
named by string: the package does not import its tests) and the variants that
compile it: small problems run through the very code paths a user reaches (the
estimators, the engine, the readers), so that the compiled signatures are the ones
users hit, read-only views and all. ``rosenblatt warmup``
(:func:`rosenblatt.engine.warmup.warm_up`) runs every variant once, and
``tests/test_kernel_registry.py`` checks every kernel against its reference.

A variant often compiles several kernels (fitting a voted perceptron runs the
epoch, the scores and the vote): kernels list the variants that reach them, and
a variant shared by several kernels has one name, so the warm-up runs it once.

Loading this module loads neither numba nor the estimators; they load when a
kernel or a variant is asked for.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

__all__ = ["ELSEWHERE", "INLINED_HELPERS", "KERNELS", "Kernel", "Variant", "kernel", "module_path"]

#: ``(what, run)``: a name for ``rosenblatt warmup``'s progress, and a call that runs it.
Variant = tuple[str, Callable[[], Any]]


# Modules of compiled kernels that live outside this package, beside the code that runs them.
ELSEWHERE = {"textparse": "rosenblatt.data.readers.textparse"}


def module_path(module: str) -> str:
    """The full name of the module a kernel name's ``module`` part names."""
    return ELSEWHERE.get(module, f"{__package__}.{module}")


@dataclass(frozen=True)
class Kernel:
    """One compiled kernel, its reference and what compiles it.

    Attributes
    ----------
    name : str
        ``module.function`` under :mod:`rosenblatt.engine.kernels`, e.g. ``"primal.primal_epoch"``
        (the parsers' module, ``textparse``, is in ``ELSEWHERE``).
    reference : str
        The plain-Python reference, ``"reference.<function>"`` in ``tests/reference.py``.
    variants : callable
        Yields the ``(what, run)`` variants that compile the kernel for every
        signature a user reaches.
    """

    name: str
    reference: str
    variants: Callable[[], Iterator[Variant]]

    @property
    def function(self) -> Any:
        """The compiled function (a numba dispatcher); importing it loads numba."""
        module, function = self.name.split(".")
        return getattr(importlib.import_module(module_path(module)), function)

    def warm_up(self) -> list[tuple[str, float]]:
        """Run every variant of this kernel; return each one's name and seconds."""
        done = []
        for what, run in self.variants():
            start = time.perf_counter()
            run()
            done.append((what, time.perf_counter() - start))
        return done


# ------------------------------------------------------------------------ the variants
def _problems():
    rng = np.random.RandomState(0)
    X = rng.randn(40, 5)
    binary = (X[:, 0] + X[:, 1] > 0).astype(int)
    three = np.digitize(X[:, 0], [-0.4, 0.4])
    return X, binary, three


def _labels(X):
    """A label matrix of three labels (multilabel): several labels per sample."""
    return (X[:, :3] > 0).astype(int)


def _fit(estimator: Any, data: Any, y: Any) -> Any:
    """Fit ``estimator`` and score ``data``: training and prediction both compile."""
    return estimator.fit(data, y).decision_function(data)


def _linear_variants(classes=("Perceptron", "VotedPerceptron")) -> Iterator[Variant]:
    """Every estimator (plain, voted: no record and record), dtype, layout, target (class
    indices, a label matrix) and dense/CSR form."""
    import scipy.sparse as sp

    from ...estimators import linear

    X, binary, three = _problems()
    for dtype in (np.float64, np.float32):
        for sparse in (False, True):
            data = X.astype(dtype)
            data = sp.csr_matrix(data) if sparse else data
            name = f"{np.dtype(dtype).name} {'CSR' if sparse else 'dense'}"
            for cls in (linear.Perceptron, linear.VotedPerceptron):
                if cls.__name__ not in classes:
                    continue
                for y, multi_class, threads, layout in (
                    (binary, "ovr", None, "one neuron"),
                    (three, "ovr", None, "one-vs-rest"),
                    (three, "multinomial", None, "multinomial"),
                    (_labels(X), "ovr", None, "multilabel"),
                    # a thread per neuron: the one-neuron layout reading a label matrix
                    (_labels(X), "ovr", 3, "multilabel, a neuron per thread"),
                ):
                    estimator = cls(
                        max_iter=2, random_state=0, multi_class=multi_class, n_jobs=threads
                    )
                    yield f"{cls.__name__}, {layout}, {name}", partial(_fit, estimator, data, y)


def _int64_indices() -> Iterator[Variant]:
    """CSR rows with int64 indices (more than 2**31 nonzeros), on a tiny problem."""
    import scipy.sparse as sp

    from ..primal import Batch, PrimalRule, PrimalState
    from .bundles import Rows

    X, binary, _ = _problems()
    for dtype in (np.float64, np.float32):
        csr = sp.csr_matrix(X.astype(dtype))
        batch = Batch(csr, binary, np.ones(X.shape[0]))
        batch.rows = Rows(
            batch.rows.X, (csr.data, csr.indices.astype(np.int64), csr.indptr.astype(np.int64))
        )
        state = PrimalState.allocate(2, X.shape[1], dtype)
        order = (np.arange(X.shape[0]), np.empty(0, dtype=np.int64), 0)
        run = partial(state.epoch, batch, PrimalRule(), order, np.ones(1, dtype=bool))
        yield f"int64 CSR indices, {np.dtype(dtype).name}", run


def _primal_variants() -> Iterator[Variant]:
    yield from _linear_variants()
    yield from _int64_indices()


def _voted_variants() -> Iterator[Variant]:
    yield from _linear_variants(classes=("VotedPerceptron",))


def _kernel_variants(predictions=("last", "voted")) -> Iterator[Variant]:
    """The kernel perceptron: dense and CSR patterns, rbf and poly, last and voted."""
    import scipy.sparse as sp

    from ...estimators.kernel import KernelPerceptron

    X, _, three = _problems()
    for sparse in (False, True):
        data = sp.csr_matrix(X) if sparse else X
        for prediction in ("last", "voted"):
            if prediction not in predictions:
                continue
            for kind in ("rbf", "poly"):
                estimator = KernelPerceptron(
                    kernel=kind, prediction=prediction, max_iter=2, random_state=0
                )
                yield (
                    f"KernelPerceptron {kind}, {prediction}, {'CSR' if sparse else 'dense'}",
                    partial(_fit, estimator, data, three),
                )


def _last_kernel_variants() -> Iterator[Variant]:
    yield from _kernel_variants(predictions=("last",))


def _voted_kernel_variants() -> Iterator[Variant]:
    yield from _kernel_variants(predictions=("voted",))


def _block_shuffle() -> Iterator[Variant]:
    from .loader import compiled_kernel

    block_order = compiled_kernel("order.block_order")
    n = 300
    yield (
        "block shuffle",
        lambda: block_order(n, 32, 4, 1, np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)),
    )


def _numbers() -> Iterator[Variant]:
    """The number converter on its own, as the tests (and a program) call it: a read-only buffer."""
    from .loader import compiled_kernel

    number = compiled_kernel("textparse.number")
    buf = np.frombuffer(b"-1.25e-3", dtype=np.uint8)
    yield "decimal numbers", lambda: number(buf, 0, buf.shape[0])


def _parsers() -> Iterator[Variant]:
    from ...data.readers import compile_parsers

    yield "svmlight and CSV parsers", compile_parsers


# ------------------------------------------------------------------------ the registry
#: Every compiled kernel called from Python, in warm-up order (the parsers last).
KERNELS: tuple[Kernel, ...] = (
    Kernel("primal.primal_epoch", "reference.primal_epoch", _primal_variants),
    Kernel("scores.linear_scores", "reference.linear_scores", _linear_variants),
    Kernel("votes.binary_vote", "reference.binary_vote", _voted_variants),
    Kernel("votes.multinomial_vote", "reference.multinomial_vote", _voted_variants),
    Kernel("dual.dual_epoch", "reference.dual_epoch", _kernel_variants),
    Kernel("gram.dense_block", "reference.gram_block", _kernel_variants),
    Kernel("gram.sparse_block", "reference.gram_block", _kernel_variants),
    Kernel("gram.squared_norms", "reference.squared_norms", _kernel_variants),
    Kernel("dual.ordered_scores", "reference.ordered_scores", _last_kernel_variants),
    Kernel("dual.voted_scores", "reference.voted_scores", _voted_kernel_variants),
    Kernel("order.block_order", "reference.block_order", _block_shuffle),
    Kernel("textparse.number", "reference.number", _numbers),
    Kernel("textparse.svmlight_block", "reference.svmlight_block", _parsers),
    Kernel("textparse.csv_block", "reference.csv_block", _parsers),
    Kernel("textparse.dedupe", "reference.dedupe", _parsers),
)

#: The other ``@njit`` functions of the package, and why they have no entry: each is
#: compiled into (and checked through) the kernels that call it.
INLINED_HELPERS: dict[str, str] = {
    "_rows._combine": "inlined into primal_epoch and linear_scores (row_dot)",
    "primal._keep": "inlined into primal_epoch (the record)",
    "dual._record": "inlined into dual_epoch (the record)",
    "dual._change": "inlined into dual_epoch (a coefficient and its accumulator)",
    "dual._keep_coefficients": "called only from dual_epoch (a trace's coefficients)",
    "dual._join": "inlined into dual_epoch (a new support vector)",
    "dual._evict": "called only from dual_epoch (the random and Forgetron budgets)",
    "dual._forget": "called only from dual_epoch (the Forgetron budget)",
    "dual._projection": "called only from dual_epoch (the Projectron)",
    "dual._grow_inverse": "called only from dual_epoch (the Projectron)",
    "gram._finish": "inlined into dense_block and sparse_block",
    "order._splitmix64": "inlined into block_order",
    "order._below": "inlined into block_order",
    "order._shuffle_in_place": "called only from block_order",
    "textparse._mul128": "inlined into the parsers (number parsing)",
    "textparse._leading_zeros": "inlined into the parsers (number parsing)",
    "textparse._eisel_lemire": "called only from the parsers (number parsing)",
    "textparse._prefix": "called only from the parsers (number parsing)",
    "textparse._blank": "inlined into the parsers",
    "textparse._line_end": "inlined into the parsers",
    "textparse._index": "inlined into svmlight_block",
    "textparse._token_end": "inlined into svmlight_block",
    "textparse._strippable": "inlined into csv_block",
    "textparse._same": "inlined into dedupe",
}


def kernel(name: str) -> Kernel:
    """The registry entry of ``name`` (``module.function``)."""
    for entry in KERNELS:
        if entry.name == name:
            return entry
    raise KeyError(name)
