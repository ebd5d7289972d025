"""Tuning constants, in one place (see DESIGN.md).

Each section belongs to one part of the package; append new sections at the end. The few
constants compiled into the kernels and parsers are in :mod:`.kernel_constants` instead, one
of the kernels' library sources: editing this file leaves the library built at install valid.
"""

from types import MappingProxyType

# ---------------------------------------------------------------------- data file readers
#: Samples per chunk when a data file is streamed (``fit_stream``, ``train --stream``).
DEFAULT_CHUNK_SIZE = 10_000

#: Bytes a scan reads at a time: whole lines of this many bytes are split and checked
#: together, so a scan holds about this much of the file (plus one line) in memory.
SCAN_BLOCK_BYTES = 1 << 20

#: Bytes decompressed at a time when a ``.gz`` data file is copied to a temporary file
#: for streaming (chunks need random access, which a gzip stream does not give).
GZIP_COPY_BYTES = 1 << 20

#: Prefix of those temporary files (they are removed with the scan result, or at exit).
GZIP_TEMP_PREFIX = "rosenblatt-"

#: Characters a CSV field may hold at most (Python's csv module's default field size limit,
#: which the quoted fields it reads are held to; the readers hold every field to it, so
#: that a file reads the same whatever reads it). A longer field is refused, naming its
#: line and column: it is most often a quoted field whose closing quote is missing.
CSV_FIELD_LIMIT = 131_072

#: Numeric class labels must be smaller than this in magnitude: below 2**53 every whole
#: number is exact as a float64; beyond, distinct labels would merge into one class.
MAX_LABEL_MAGNITUDE = 2**53

# ---------------------------------------------------------------------- training engine
# Python reads these when it runs and passes them to the compiled loops as arguments (the
# constants the loops read when they are compiled are in kernel_constants.py).

#: Rows of the consecutive chunks that block shuffling keeps together.
CHUNK_ROWS = 32
#: Chunks per block: a block of CHUNK_ROWS * CHUNKS_PER_BLOCK rows is shuffled and
#: streamed into cache while the previous block trains.
CHUNKS_PER_BLOCK = 4
#: ``shuffle=True`` draws a uniform permutation up to this many samples, blocks above.
FULL_SHUFFLE_MAX_SAMPLES = 32_768
#: The linear perceptrons' constant input on sparse rows with ``intercept_scaling="auto"``:
#: the intercept moves by eta * 0.1**2 per update, scikit-learn's intercept decay on sparse
#: data (dense rows: 1.0, the lecture notes' bias input).
SPARSE_INTERCEPT_SCALING = 0.1
#: Positions ahead the loops prefetch the rows of the order itself (a full shuffle
#: needs it; CSR rows also run about 1.2x faster with it under a block shuffle).
LOOKAHEAD = 4

#: Elements of the (updates x test points) score block the voted perceptron holds at once.
VOTE_BLOCK_ELEMENTS = 4_000_000
#: Kernel values computed per call when the dual perceptron fills its kernel table
#: (about 8 MB of float64).
KERNEL_BLOCK_VALUES = 1 << 20
# Presentations per block of a kernel perceptron on a budget whose Gram matrix does not fit
# its cache: each block computes its samples' values against the support vectors and each
# other, block x (n_support + block) values, instead of a column over every sample for
# each sample that joins (which an evicting budget pays again and again).
BUDGET_BLOCK = 256
#: Test kernel values a KernelPerceptron prediction holds at once (32 MB of float64).
PREDICT_BLOCK_ELEMENTS = 1 << 22
#: A mixed state up to this many bytes travels inside each Dask task; larger ones as
#: the result of one task (see distributed.py).
INLINE_STATE_BYTES = 1 << 20

# ---------------------------------------------------------------------- theory, plots, CLI
#: Slack below this counts as zero when listing the patterns that violate the LP.
SLACK_TOLERANCE = 1e-9
#: HiGHS's ``small_matrix_value``: it reads a constraint coefficient below this as 0
HIGHS_SMALLEST = 1e-9
#: A constraint of the hard-margin QP counts as active (a support vector) within this.
ACTIVE_TOLERANCE = 1e-6
#: Hard-margin QPs of more variables than this go straight to the interior-point solver
#: (Clarabel): HiGHS's active set gives up once its null space passes its
#: ``qp_nullspace_limit`` (4,000), and only after long work: 2,500 SMS as 5,711 tf-idf
#: features took it 255 s to give up, Clarabel 1.0 s to solve (2-core Xeon, 2026-11-28).
QP_ACTIVE_SET_MAX_VARIABLES = 4_000
#: The mistake bound is rounded up by this relative amount so that float rounding in R
#: and gamma can never push it below its exact value; within it of an integer, it is
#: that integer (it bounds a count).
BOUND_PAD = 1e-9
#: Grid points per axis when a figure shades decision regions.
PLOT_GRID_POINTS = 300
#: Hashed features of streamed text (``.tsv``) when ``n_features`` is not given.
DEFAULT_HASH_FEATURES = 2**20
#: Epochs every iterative algorithm gets in ``rosenblatt demo``.
DEMO_EPOCHS = 100
#: ``rosenblatt trace`` refuses larger data by default: its table has a row per presentation.
TRACE_MAX_SAMPLES = 50
TRACE_MAX_FEATURES = 10
#: svmlight files whose indices make more features than this are refused (the weight
#: vector of 2**26 features takes 512 MB); ``n_features=`` or the environment variable
#: ``ROSENBLATT_MAX_FEATURES`` raises it.
SVMLIGHT_MAX_FEATURES = 2**26
#: ``rosenblatt trace`` prints at most this many rows (presentations): more epochs are cut.
TRACE_MAX_ROWS = 5_000
#: :func:`rosenblatt.theory.trace.trace` keeps every weight vector: it refuses longer runs.
TRACE_MAX_PRESENTATIONS = 2_000_000

# ------------------------------------------------------------- parsing and the stream cache
#: Files (or blocks) of at least this many bytes are parsed by the compiled parsers of
#: ``engine/kernels/textparse.py``; smaller ones by the Python reader, which gives the same
#: result without loading numba (``rosenblatt predict`` on a small file stays quick).
COMPILED_PARSE_MIN_BYTES = 1 << 18
#: Rows between two checkpoints of streamed training (``fit_stream(checkpoint=...)``,
#: ``train --stream --checkpoint``): one is written after the chunk that reaches it.
DEFAULT_CHECKPOINT_ROWS = 1_000_000

#: Epochs of streamed training when none are given (``fit_stream``, ``train --stream``):
#: each later epoch reads the binary cache, and training stops earlier on convergence.
DEFAULT_STREAM_EPOCHS = 5
#: Epochs of streamed training on standard input when none are given: it is read once, so
#: one pass; more passes write its rows to a cache as they come (as Vowpal Wabbit's ``-c``)
#: and read that for the epochs after the first.
DEFAULT_STDIN_EPOCHS = 1
#: Prefix of the temporary cache folder of standard input's rows (beside the model when
#: the command line trains on it; removed at the end).
STDIN_CACHE_PREFIX = ".rosenblatt-stdin-cache-"
#: Version of the binary cache's layout; a kept cache of another version is rebuilt.
CACHE_FORMAT_VERSION = 1
#: Prefix of temporary cache folders (removed with their schema, or at exit).
CACHE_TEMP_PREFIX = "rosenblatt-cache-"
#: Write buffer of each cache file.
CACHE_WRITE_BYTES = 1 << 20

# ---------------------------------------------------------------------- probabilities
#: The calibrations on held-out folds of ``calibrated``, ``train --calibrate`` and the
#: model files' rule (CalibratedClassifier's ``method``).
CALIBRATION_METHODS = ("sigmoid", "isotonic")
#: ``calibrated``'s (and ``train --calibrate``'s) method that learns online with the estimator.
ONLINE_CALIBRATION = "online"
#: Most bins of online calibration's tracking (a model file's bound too).
MAX_CALIBRATION_BINS = 10_000

# ---------------------------------------------------------------------- model files
# Loading reads these when it runs: raise one (``rosenblatt._core.config.MODEL_MAX_... = n``)
# before ``load`` to read a larger model you trust.
#: A model file's members may inflate to at most this many bytes each (zip bombs).
MODEL_MAX_MEMBER_BYTES = 1 << 30
#: The model file itself, and all its members inflated together, may not exceed this.
MODEL_MAX_TOTAL_BYTES = 2 << 30
#: Largest ``n_features`` of a HashingVectorizer a model file may hold (rosenblatt's
#: default for streamed text is DEFAULT_HASH_FEATURES, 2**20).
MODEL_MAX_HASH_FEATURES = 2**26

#: The constant input of the teaching tools (``rosenblatt.trace``, ``rosenblatt trace``,
#: ``plot``'s animation, the playground): the lecture notes' threshold input, so that their
#: worked example comes out with the defaults, the same from Python as from the command line.
TEACHING_BIAS_INPUT = -1.0

# ---------------------------------------------------------------------- estimators' parameters
#: The parameters that change what training shows (its callbacks, its per-epoch lines),
#: never what it learns, each with the value that shows nothing: the one list of them. A
#: checkpoint holds a resumed run to every other parameter and the run shows what the
#: caller asks for (``training.checkpoint.model_params``); online calibration's inner
#: estimator trains quietly (its updates are no epochs of the model).
DISPLAY_PARAMETERS = MappingProxyType({"on_epoch": None, "verbose": 0})

# ---------------------------------------------------------------------- the service
# `rosenblatt serve` (rosenblatt.apps.serve): the bounds that keep a busy service answering
#: The largest request body read; a larger one gets 413 (about 40,000 rows of 20 numbers).
SERVE_MAX_BODY_BYTES = 8 << 20
#: Requests the service holds at once (reading, waiting for the writer, answering); one
#: more gets 503 with Retry-After: the answer a client can act on, before memory runs out.
SERVE_MAX_REQUESTS = 256
#: Learn (and save) requests waiting for the one writer, and the bytes of their rows; a
#: request beyond either gets 503 with Retry-After.
SERVE_LEARN_QUEUE = 128
SERVE_LEARN_QUEUE_BYTES = 64 << 20
#: Learn requests the writer applies to one copy of the model and writes to the log with one
#: fsync (a group commit): each is still learnt on its own, in arrival order.
SERVE_GROUP_REQUESTS = 64
#: The recent predictions whose rows the service keeps, so that their labels may come later
#: (``/learn`` with prediction ids): at most this many rows, and this many bytes of them.
SERVE_RECENT_ROWS = 100_000
SERVE_RECENT_BYTES = 64 << 20
#: The bytes of learning the log holds before the writer saves the served file (and starts
#: the log afresh): what a restart replays at most, about.
SERVE_LOG_MAX_BYTES = 64 << 20
#: What a 503 asks the client to wait (seconds) before it sends the request again.
SERVE_RETRY_AFTER_SECONDS = 1
#: The service's port when none is given.
SERVE_DEFAULT_PORT = 8765
