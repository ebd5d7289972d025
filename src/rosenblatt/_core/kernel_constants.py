"""Constants the compiled code reads when numba compiles it (see DESIGN.md).

They are compiled into the kernels and the parsers, so this file is one of the kernels'
library sources (``engine/kernels/sources.txt``): a change to it makes the library built at
install stale (``pip install -e .`` rebuilds it) and drops numba's cache of the compiled code.
The tuning constants that Python code reads when it runs are in :mod:`.config`; editing those
leaves the library valid.
"""

# ---------------------------------------------------------------------- training loops
#: The partial sums of every dot product: feature ``j`` goes to sum ``j % LANES``, and the
#: sums combine pairwise. The compiled loops (``engine/kernels/_simd``), the numpy predictor
#: (``engine/numpy_decision``) and the plain references (``tests/reference.py``) all read it,
#: so a training pattern scores, everywhere, the very bits it scored in training.
LANES = 8
#: Lines of a dense row worth prefetching by hand; the hardware streams the rest.
MAX_PREFETCH_LINES = 16
#: Nonzeros of a CSR row prefetched, however many the row has (a fixed count compiles
#: to straight-line code; a loop to the row's end was mispredicted on nearly every row).
SPARSE_PREFETCH_ENTRIES = 32
#: How far ahead in the stream the row extents (CSR indptr) are fetched.
EXTENT_AHEAD = 16

# ---------------------------------------------------------------------- compiled parsers
#: What a compiled block parser (``engine/kernels/textparse``) returns when the caller's arrays
#: are too small for the block.
FULL = -2
