"""``rosenblatt trace``: the lecture notes' step-by-step table for a small data file."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated

from ..._core.config import (
    TEACHING_BIAS_INPUT,
    TRACE_MAX_FEATURES,
    TRACE_MAX_ROWS,
    TRACE_MAX_SAMPLES,
)
from ._common import auto, console, err_console, parse_label_column
from ._options import (
    BiasInput,
    Data,
    Eta,
    Format,
    Header,
    LabelColumn,
    MaxIter,
    MaxSamples,
    Mode,
    Seed,
    Shuffle,
    ZeroBased,
    more_help,
)

if TYPE_CHECKING:  # pragma: no cover
    from ...theory.trace import Trace

MAX_SAMPLES, MAX_FEATURES = TRACE_MAX_SAMPLES, TRACE_MAX_FEATURES


def trace_data(
    data_path: str | os.PathLike[str],
    *,
    mode: str = "online",
    eta: float = 1.0,
    bias_input: float = TEACHING_BIAS_INPUT,
    epochs: int = 100,
    shuffle: bool = False,
    seed: int = 0,
    label_column: str | int | None = None,
    max_samples: int = MAX_SAMPLES,
    zero_based: bool | str = "auto",
    header: bool | str = "auto",
    format: str | None = None,
) -> Trace:
    """Run :func:`rosenblatt.theory.trace.trace` on a small labelled data file.

    The table has one row per pattern presentation, so larger data are refused
    rather than flooding the terminal. ``zero_based`` (svmlight), ``header``
    (CSV) and ``format`` are passed to the reader.

    Returns
    -------
    rosenblatt.theory.trace.Trace
    """
    from ...data.io import read_data
    from ...theory.trace import trace

    data = read_data(
        data_path,
        label_column=label_column,
        zero_based=zero_based,
        header=header,
        format=format,
    )
    if data.is_text:
        raise ValueError(
            f"{data.path}: trace shows numeric patterns; text has thousands of "
            "word features. Use a small .csv or .svm file."
        )
    assert data.y is not None and data.n_features is not None  # numeric, read labelled
    if data.n_samples > max_samples or data.n_features > MAX_FEATURES:
        raise ValueError(
            f"{data.path}: {data.n_samples} samples x {data.n_features} features is too large "
            f"to trace (at most {max_samples} samples and {MAX_FEATURES} features): the table "
            "has a row per pattern presentation. Trace a small sample of the data, or raise "
            "--max-samples."
        )
    X = data.X.toarray() if hasattr(data.X, "toarray") else data.X
    epochs = capped_epochs(epochs, data.n_samples)
    return trace(
        X,
        data.y,
        mode=mode,
        eta=eta,
        bias_input=bias_input,
        shuffle=shuffle,
        max_iter=epochs,
        random_state=seed,
    )


def capped_epochs(epochs: int, n_samples: int) -> int:
    """The epochs whose table fits :data:`TRACE_MAX_ROWS` rows (at least one)."""
    return max(1, min(int(epochs), TRACE_MAX_ROWS // max(n_samples, 1)))


# trace's own words on the options it shares
_Data = Annotated[str, more_help(Data, "Small, labelled and numeric (two classes).")]
_MaxIter = Annotated[int, more_help(MaxIter, "Epochs, as trace's max_iter.")]


def command(
    data: _Data,
    mode: Mode = "online",
    eta: Eta = 1.0,
    bias_input: BiasInput = TEACHING_BIAS_INPUT,
    epochs: _MaxIter = 100,
    shuffle: Shuffle = False,
    seed: Seed = 0,
    label_column: LabelColumn = None,
    max_samples: MaxSamples = MAX_SAMPLES,
    zero_based: ZeroBased = None,
    header: Header = None,
    data_format: Format = None,
) -> None:
    """Print the lecture notes' table: the weights before and after every pattern presentation."""
    _run(**locals())


def _run(
    data: str,
    *,
    mode: str,
    eta: float,
    bias_input: float,
    epochs: int,
    shuffle: bool,
    seed: int,
    label_column: str | None,
    max_samples: int,
    zero_based: bool | None,
    header: bool | None,
    data_format: str | None,
) -> None:
    """What ``rosenblatt trace`` does with its options: print the table, with a note on
    standard error when it stops short of the epochs asked for."""
    result = trace_data(
        data,
        mode=mode,
        eta=eta,
        bias_input=bias_input,
        epochs=epochs,
        shuffle=shuffle,
        seed=seed,
        label_column=parse_label_column(label_column),
        max_samples=max_samples,
        zero_based=auto(zero_based),
        header=auto(header),
        format=data_format,
    )
    console.print(str(result), markup=False, highlight=False, soft_wrap=True)
    if not result.converged and result.n_epochs < epochs:  # a note: standard error
        err_console.print(
            f"note: the table stops after {result.n_epochs} epochs ({TRACE_MAX_ROWS:,} rows at "
            f"most), not the {epochs} asked for; trace a smaller sample for more epochs.",
            markup=False,
            highlight=False,
        )
