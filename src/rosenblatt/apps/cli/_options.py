"""Every option of the command line, declared once; the commands' signatures use them.

Each option is an ``Annotated`` alias: its type, names, help, metavar and check in one
``typer.Option`` declaration, shared by every command that takes the option::

    def command(data: Data, eta: Eta = 1.0, seed: Seed = 0) -> None: ...

The default stays in the command's signature (typer takes an ``Annotated`` parameter's
default from there). A command with more to say about an option than its help does adds
its own sentence with :func:`more_help`, keeping everything else of the one declaration::

    _IdColumn = Annotated[list[str] | None, more_help(IdColumn, "Written beside each...")]

Two names stand for two options each, declared apart: ``--shuffle`` (on or off in trace and
the playground, full, block or none in train) and ``-o`` (``--output``, and demo's
``--output-dir``). ``tests/test_cli_options.py`` holds every other name to one declaration,
and every command to the options it had (names, defaults, types).
"""

from __future__ import annotations

from copy import copy
from typing import Annotated, Any, get_args

import typer
from typer.models import ParameterInfo

from ..._core.config import DEFAULT_CHECKPOINT_ROWS
from ._common import check_chunk_size
from ._estimators import ALGORITHMS

__all__ = [
    "Aggressiveness",
    "Algorithm",
    "Algorithms",
    "BiasInput",
    "Budget",
    "BudgetPolicy",
    "Cache",
    "Calibrate",
    "Checkpoint",
    "CheckpointEvery",
    "ChunkSize",
    "ClassWeight",
    "Data",
    "Degree",
    "Dtype",
    "EarlyStopping",
    "Eta",
    "Export",
    "FeatureMap",
    "Folds",
    "Format",
    "FormatForModel",
    "Gamma",
    "Header",
    "Host",
    "IdColumn",
    "Ignore",
    "IgnoreForModel",
    "InterceptScaling",
    "Json",
    "Kernel",
    "Kind",
    "LabelColumn",
    "Log",
    "Losses",
    "MaxIter",
    "MaxProjectionError",
    "MaxSamples",
    "Mode",
    "Model",
    "MultiClass",
    "NFeatures",
    "NJobs",
    "NoBrowser",
    "Onnx",
    "Output",
    "OutputDir",
    "Plus",
    "Port",
    "Compare",
    "Exercises",
    "LessonData",
    "Out",
    "Prediction",
    "Preset",
    "Proba",
    "Quiet",
    "Report",
    "Resume",
    "Scale",
    "Scores",
    "Seed",
    "Shuffle",
    "ShuffleOrder",
    "Size",
    "Stream",
    "StrictFeatures",
    "Tol",
    "ZeroBased",
    "more_help",
]


def more_help(option: Any, more: str) -> Any:
    """The declaration of ``option`` (an alias of this module, or a ``typer.Option`` itself)
    with a command's own sentence ``more`` after its help; its names, metavar and check stay.

    Use it as the metadata of an ``Annotated`` parameter (the shared declaration itself is
    left as it is, for the other commands).

    Examples
    --------
    >>> more_help(Eta, "For --export.").help
    'Learning rate. For --export.'
    >>> Eta.__metadata__[0].help
    'Learning rate.'
    """
    if isinstance(option, ParameterInfo):
        declared = option
    else:
        (declared,) = [m for m in get_args(option)[1:] if isinstance(m, ParameterInfo)]
    extended = copy(declared)
    extended.help = f"{declared.help} {more}"
    return extended


# ---------------------------------------------------------------------------- the data
Data = Annotated[
    str,
    typer.Argument(
        metavar="DATA",
        help="A data file: .csv, .svm/.libsvm/.svmlight or .tsv (label<TAB>text); "
        "- : standard input.",
    ),
]
_FORMAT = typer.Option(
    "--format",
    "-f",
    help="The data's format: csv, svmlight (or libsvm) or tsv (label<TAB>text); default: "
    "from the extension (.gz decompressed).",
)
Format = Annotated[
    str | None,
    more_help(
        _FORMAT,
        "Needed for standard input (DATA is -) and for names like iris.data or a9a.txt.",
    ),
]
#: ``--format`` of a model's input (predict, evaluate), whose format the model may know
FormatForModel = Annotated[
    str | None,
    more_help(
        _FORMAT,
        "Otherwise (standard input, DATA is -, or names like iris.data): the format the "
        "model was trained on, or, where it cannot tell, the one DATA's first lines are in.",
    ),
]
LabelColumn = Annotated[
    str | None,
    typer.Option("--label-column", help="CSV: label column by header name or 0-based index."),
]
# repeatable: read it with _common.id_columns_of
IdColumn = Annotated[
    list[str] | None,
    typer.Option(
        "--id-column",
        metavar="NAME|INDEX",
        help="CSV: a column (header name or 0-based index) that identifies each row, not "
        "read as a feature; repeat for more (each column once).",
    ),
]
# comma-separated: read it with _common.names_option
Ignore = Annotated[
    str | None,
    typer.Option(
        "--ignore",
        metavar="NAME,...",
        help="CSV: columns (header names, comma-separated) that are neither features nor the "
        "label: dropped.",
    ),
]
#: ``--ignore`` of a model's input (predict, evaluate)
IgnoreForModel = Annotated[
    str | None, more_help(Ignore, "An unknown column is otherwise an error.")
]
Header = Annotated[
    bool | None,
    typer.Option(
        "--header/--no-header",
        help="CSV: the first row is / is not a header (default: detected; a header when it "
        "cannot be data).",
    ),
]
NFeatures = Annotated[
    int | None,
    typer.Option(
        "--n-features",
        min=1,
        help="svmlight: the number of features (a larger index is an error); default: the "
        "largest index in DATA. Standard input (DATA is -) needs it: it is read once, as it "
        "comes.",
    ),
]
ZeroBased = Annotated[
    bool | None,
    typer.Option(
        "--zero-based/--one-based",
        help="svmlight: feature indices start at 0 / at 1 (default: zero-based when an index "
        "0 occurs in the file, else one-based; a model's input: as its training file).",
    ),
]
# checked as it is parsed, before DATA is opened, by the rule the readers keep
ChunkSize = Annotated[
    int,
    typer.Option(
        "--chunk-size",
        callback=check_chunk_size,
        help="Lines of DATA read at a time: memory holds one such block.",
    ),
]
StrictFeatures = Annotated[
    bool,
    typer.Option(
        "--strict-features",
        help="svmlight: refuse a feature index beyond the model's features (by default such "
        "features are ignored, as their weights are 0, and a note on standard error counts "
        "the rows that held one).",
    ),
]

# ---------------------------------------------------------------------------- models and output
Model = Annotated[str, typer.Option("--model", "-m", help="A model saved by `rosenblatt train`.")]
Output = Annotated[str, typer.Option("--output", "-o", help="The file to write.")]
Json = Annotated[
    bool, typer.Option("--json", help="Print the result as one JSON object on standard output.")
]
Quiet = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="No progress bar, table or notes on standard error."),
]

# ---------------------------------------------------------------------------- training
_ALGORITHM = typer.Option(
    "--algorithm", "-a", help=f"{', '.join(ALGORITHMS[:-1])} or {ALGORITHMS[-1]}."
)
Algorithm = Annotated[str, _ALGORITHM]
#: ``--algorithm`` repeated: several algorithms (cross-validate compares them)
Algorithms = Annotated[list[str], more_help(Algorithm, "Repeat to compare several.")]
MaxIter = Annotated[int | None, typer.Option("--max-iter", help="Most passes over the data.")]
Eta = Annotated[float, typer.Option("--eta", help="Learning rate.")]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the shuffling.")]
Scale = Annotated[bool, typer.Option("--scale/--no-scale", help="Standardise numeric features.")]
NJobs = Annotated[int | None, typer.Option("--n-jobs", help="Jobs run at once (-1: all cores).")]
# the notes' trainers (trace, the playground): on or off; train's estimators: ShuffleOrder
Shuffle = Annotated[bool, typer.Option("--shuffle", help="A fresh random order each epoch.")]
Mode = Annotated[str, typer.Option("--mode", help="online (incremental) or batch.")]
BiasInput = Annotated[
    float,
    typer.Option(
        "--bias-input",
        help="The constant input appended to every pattern (the lecture notes' -1 by default, "
        "as in their worked example, the modified OR problem).",
    ),
]
FeatureMap = Annotated[
    bool,
    typer.Option(
        "--feature-map",
        help="Train on the notes' features (x1, x2, x1 x2, x1^2, x2^2): the boundary is a "
        "conic, and XOR is learnt.",
    ),
]

# ---------------------------------------------------------------------------- train's own
Stream = Annotated[
    bool,
    typer.Option(
        "--stream",
        help="Train chunk by chunk, for files larger than memory (perceptron, averaged, voted). "
        "DATA - reads standard input once, in chunks, in constant memory (with --format; "
        "svmlight also with --zero-based or --one-based and --n-features): one pass unless "
        "--max-iter says more, the later passes reading a cache of its rows; classes may "
        "appear at any row.",
    ),
]
Calibrate = Annotated[
    str | None,
    typer.Option(
        "--calibrate",
        help="sigmoid or isotonic: calibrate the scores into probabilities on 5 held-out "
        "folds, for `predict --proba` (isotonic wants a thousand samples or more); online: "
        "learn the probabilities with the model, sample by sample (online Platt scaling "
        "with calibeating; the iterative algorithms, also with --stream).",
    ),
]
Checkpoint = Annotated[
    str | None,
    typer.Option(
        "--checkpoint",
        help="With --stream: write a checkpoint here (atomically) every --checkpoint-every "
        "rows and when training ends; after a crash, --resume it.",
    ),
]
CheckpointEvery = Annotated[
    int | None,
    typer.Option(
        "--checkpoint-every",
        metavar="ROWS",
        help=f"Rows between checkpoints (default {DEFAULT_CHECKPOINT_ROWS:,}).",
    ),
]
Resume = Annotated[
    str | None,
    typer.Option(
        "--resume",
        help="With --stream: go on from this checkpoint (same DATA and options), writing "
        "the next ones to it unless --checkpoint names another file. The model is the one "
        "an uninterrupted run gives, byte for byte. Standard input cannot be resumed.",
    ),
]
Cache = Annotated[
    str | None,
    typer.Option(
        "--cache",
        help="With --stream: keep the binary cache of the parsed file in this folder and "
        "reuse it next time, while the file and the reading options stay the same "
        "(default: a temporary cache, deleted at the end). Standard input: its rows' "
        "cache goes there and stays (default: a temporary folder beside the model, only "
        "for more than one pass).",
    ),
]

# ------------------------------------------------------- the estimators' options (train's)
# _estimators.OPTION_USERS says which algorithms take each; --n-jobs is NJobs above
ClassWeight = Annotated[
    str | None,
    typer.Option("--class-weight", help="balanced: weigh classes inversely to their size."),
]
InterceptScaling = Annotated[
    str | None,
    typer.Option("--intercept-scaling", help="The constant input (a number, or auto)."),
]
# a value where trace and the playground take a flag (Shuffle): two options of one name
ShuffleOrder = Annotated[
    str | None,
    typer.Option("--shuffle", help="full, block or none (default: the estimator's)."),
]
MultiClass = Annotated[
    str | None, typer.Option("--multi-class", help="Several classes: ovr or multinomial.")
]
EarlyStopping = Annotated[
    bool,
    typer.Option("--early-stopping", help="Stop when a held-out tenth stops improving."),
]
Tol = Annotated[
    str | None,
    typer.Option(
        "--tol",
        help="Stop when the epochs' weighted mistake fraction stops improving by this much "
        "(default: the estimator's 1e-3); none: to the first error-free epoch or --max-iter.",
    ),
]
Kernel = Annotated[str | None, typer.Option("--kernel", help="rbf, poly, linear or sigmoid.")]
Gamma = Annotated[str | None, typer.Option("--gamma", help="Kernel coefficient, scale or auto.")]
Degree = Annotated[int | None, typer.Option("--degree", help="Degree of the poly kernel.")]
Prediction = Annotated[
    str | None,
    typer.Option("--prediction", help="kernel, projectron: last, averaged (default) or voted."),
]
Budget = Annotated[
    int | None,
    typer.Option(
        "--budget",
        help="kernel, projectron: the most support vectors the model keeps "
        "(projectron: 300 by default).",
    ),
]
BudgetPolicy = Annotated[
    str | None,
    typer.Option(
        "--budget-policy",
        help="kernel, with --budget: stop (default), random or forgetron; random and "
        "forgetron need --prediction last.",
    ),
]
MaxProjectionError = Annotated[
    str | None,
    typer.Option(
        "--max-projection-error",
        help="projectron: the largest squared projection error that projects (default 0.1).",
    ),
]
Plus = Annotated[
    bool,
    typer.Option("--plus", help="projectron: Projectron++, also learning from margin errors."),
]
Aggressiveness = Annotated[
    float | None,
    typer.Option(
        "--C", help="pa1, pa2: the bound C of the passive-aggressive steps (default 1.0)."
    ),
]

# ---------------------------------------------------------------------------- predict's own
Scores = Annotated[
    bool,
    typer.Option(
        "--scores",
        help="Also print the decision values: one per sample for two classes (positive: the "
        "second class), one per class otherwise.",
    ),
]
Proba = Annotated[
    bool,
    typer.Option(
        "--proba",
        help="Also print the probability of every class (a model trained with --calibrate); "
        "the columns are named on standard error.",
    ),
]

# ---------------------------------------------------------------------------- cross-validate's
Folds = Annotated[int, typer.Option("--folds", help="Number of folds (stratified, shuffled).")]

# ---------------------------------------------------------------------------- plot's
Kind = Annotated[
    str | None,
    typer.Option(
        "--kind",
        help="boundary, mistakes or animation (default: animation for .gif, else boundary).",
    ),
]
Losses = Annotated[
    bool,
    typer.Option(
        "--losses",
        help="Draw the 0-1 loss and its surrogates (perceptron, hinge, squared, logistic) "
        "against the margin z = t f(x) instead; takes no DATA, and only -o and --size apply.",
    ),
]
Size = Annotated[
    str | None,
    typer.Option(
        "--size",
        metavar="WIDTHxHEIGHT",
        help="Image size in pixels, e.g. 800x600, each side from 300 to 10000 (default "
        "600x450; 520x360 for a .gif). The text keeps its share of the image; .svg and .pdf "
        "get the same proportions.",
    ),
]

# ---------------------------------------------------------------------------- trace's
MaxSamples = Annotated[
    int, typer.Option("--max-samples", help="Refuse data with more samples than this.")
]

# ---------------------------------------------------------------------------- export's
Onnx = Annotated[
    str,
    typer.Option("--onnx", help="Where to write the ONNX graph; it appears once complete."),
]
Dtype = Annotated[
    str,
    typer.Option(
        "--dtype",
        help="float32 or float64: the type of the graph's input rows and float outputs "
        "(it computes in the model's own precision either way).",
    ),
]

# ---------------------------------------------------------------------------- demo's
# -o, as --output elsewhere: two options of one short name
OutputDir = Annotated[
    str,
    typer.Option("--output-dir", "-o", help="Folder for the HTML report and its figures."),
]
Report = Annotated[bool, typer.Option("--report/--no-report", help="Write the HTML report.")]

# ---------------------------------------------------------------------------- playground's
Host = Annotated[str, typer.Option("--host", help="Address to listen on.")]
Port = Annotated[int, typer.Option("--port", help="Port to listen on (0: any free port).")]
NoBrowser = Annotated[bool, typer.Option("--no-browser", help="Do not open a browser.")]
Export = Annotated[
    str | None,
    typer.Option(
        "--export",
        metavar="DIR",
        help="Write a static copy of a preset's runs to DIR instead of serving.",
    ),
]
Preset = Annotated[
    str,
    typer.Option(
        "--preset", help="A playground preset: or, and, xor, blobs, moons or tiny-margin."
    ),
]

# ---------------------------------------------------------------------------- lesson's
Out = Annotated[
    str,
    typer.Option("--out", metavar="LESSON.ipynb", help="The Jupyter notebook to write."),
]
LessonData = Annotated[
    str | None,
    typer.Option(
        "--data",
        metavar="CSV",
        help="Your points instead of a preset: two features and a label per row (or the "
        "notes' table a/a x_1 x_2 x_0 t), read as the playground's upload reads them.",
    ),
]
Compare = Annotated[
    str | None,
    typer.Option(
        "--compare",
        metavar="A,B",
        help="Learners beside the perceptron: perceptron, averaged, voted, kernel, "
        "budgeted-kernel.",
    ),
]
Exercises = Annotated[
    bool,
    typer.Option("--exercises", help="Add exercise cells whose answers the library checks."),
]

# ---------------------------------------------------------------------------- serve's
Log = Annotated[
    str | None,
    typer.Option(
        "--log",
        metavar="PATH",
        help="The learning log, written before a request is answered and replayed after a "
        "crash (default: the model's path with .log added).",
    ),
]
