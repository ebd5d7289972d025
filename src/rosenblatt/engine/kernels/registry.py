"""Every compiled kernel the package calls from Python, in one list.

Each entry names a kernel (``module.function`` under :mod:`rosenblatt.engine.kernels`; the
readers' compiled parsers are ``textparse``'s, which the data layer calls down here),
the plain-Python reference it must reproduce (a function of ``tests/reference.py``,
named by string: the package does not import its tests); ``tests/test_kernel_registry.py``
checks every kernel against its reference. What compiles each kernel for every signature
a user reaches (small problems run through the estimators and the readers) lives above,
where those are known: :mod:`rosenblatt.estimators.warmup`.

Loading this module loads no numba; it loads when a kernel's function is asked for.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

__all__ = ["INLINED_HELPERS", "KERNELS", "Kernel", "kernel", "module_path"]


def module_path(module: str) -> str:
    """The full name of the module a kernel name's ``module`` part names."""
    return f"{__package__}.{module}"


@dataclass(frozen=True)
class Kernel:
    """One compiled kernel, its reference and what compiles it.

    Attributes
    ----------
    name : str
        ``module.function`` under :mod:`rosenblatt.engine.kernels`, e.g. ``"primal.primal_epoch"``.
    reference : str
        The plain-Python reference, ``"reference.<function>"`` in ``tests/reference.py``.
    """

    name: str
    reference: str

    @property
    def function(self) -> Any:
        """The compiled function (a numba dispatcher); importing it loads numba."""
        module, function = self.name.split(".")
        return getattr(importlib.import_module(module_path(module)), function)


# ------------------------------------------------------------------------ the registry
#: Every compiled kernel called from Python, in warm-up order (the parsers last).
KERNELS: tuple[Kernel, ...] = (
    Kernel("primal.primal_epoch", "reference.primal_epoch"),
    Kernel("primal.primal_epochs", "reference.primal_epochs"),
    Kernel("scores.linear_scores", "reference.linear_scores"),
    Kernel("votes.binary_vote", "reference.binary_vote"),
    Kernel("votes.multinomial_vote", "reference.multinomial_vote"),
    Kernel("dual.dual_epoch", "reference.dual_epoch"),
    Kernel("gram.dense_block", "reference.gram_block"),
    Kernel("gram.sparse_block", "reference.gram_block"),
    Kernel("gram.squared_norms", "reference.squared_norms"),
    Kernel("dual.ordered_scores", "reference.ordered_scores"),
    Kernel("dual.voted_scores", "reference.voted_scores"),
    Kernel("order.block_order", "reference.block_order"),
    Kernel("textparse.number", "reference.number"),
    Kernel("textparse.svmlight_block", "reference.svmlight_block"),
    Kernel("textparse.csv_block", "reference.csv_block"),
    Kernel("textparse.dedupe", "reference.dedupe"),
)

#: The other ``@njit`` functions of the package, and why they have no entry: each is
#: compiled into (and checked through) the kernels that call it. (The stop rule,
#: :mod:`.stop_rule`, is plain Python that ``primal_epochs`` compiles in: no ``@njit``.)
INLINED_HELPERS: dict[str, str] = {
    "_rows._combine": "inlined into primal_epoch and linear_scores (row_dot)",
    "_rows._unsigned": "inlined into primal_epoch (row_axpy, row_axpy2 on CSR rows)",
    "primal._keep": "inlined into primal_epoch (the record)",
    "primal._pa_step": "inlined into primal_epoch (the passive-aggressive step)",
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
    "order._interval": "inlined into shuffled_order (numpy's random_interval)",
    "order.shuffled_order": "called only from primal_epochs (each epoch's order)",
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
