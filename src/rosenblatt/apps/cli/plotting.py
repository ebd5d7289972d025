"""``rosenblatt plot``: decision boundary, mistakes per epoch, a training animation, or
the 0-1 loss and its surrogates (``--losses``, no data)."""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from typing import Annotated

from ..._core.config import TEACHING_BIAS_INPUT
from ..._core.files import check_writable
from ._common import (
    auto,
    err_console,
    final_estimator,
    is_text_model,
    load_model,
    parse_label_column,
)
from ._options import (
    Algorithm,
    BiasInput,
    Data,
    Eta,
    FeatureMap,
    Format,
    Header,
    Kind,
    LabelColumn,
    Losses,
    MaxIter,
    Mode,
    Model,
    Output,
    Seed,
    Size,
    ZeroBased,
    more_help,
)

KINDS = ("boundary", "mistakes", "animation")
_SIZE = re.compile(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*")
_STILL = (".png", ".svg", ".pdf", ".jpg", ".jpeg")
_EXTENSIONS = {"boundary": _STILL, "mistakes": _STILL, "animation": (".gif",), "losses": _STILL}


@dataclass
class PlotResult:
    path: str
    kind: str
    model: str  # the class drawn, "trace" for the animation, or the losses drawn


def _kind(kind, output):
    ext = os.path.splitext(output)[1].lower()
    if kind is None:
        kind = "animation" if ext == ".gif" else "boundary"
    if kind not in KINDS:
        raise ValueError(f"unknown plot kind {kind!r}; choose one of {', '.join(KINDS)}")
    _check_extension(kind, output)
    return kind


def _check_extension(kind, output):
    ext = os.path.splitext(output)[1].lower()
    if ext not in _EXTENSIONS[kind]:
        raise ValueError(
            f"{output}: a {kind} plot is written as "
            f"{' or '.join(_EXTENSIONS[kind])}, not {ext or 'no extension'!r}"
        )


def parse_size(text: str | None) -> tuple[int, int] | None:
    """``--size WIDTHxHEIGHT``: the image's width and height in pixels, or None.

    Examples
    --------
    >>> parse_size("800x600"), parse_size(None)
    ((800, 600), None)
    """
    if text is None:
        return None
    from ..plot import PIXEL_RANGE

    low, high = PIXEL_RANGE
    match = _SIZE.fullmatch(text)
    if match is None or not all(low <= int(side) <= high for side in match.groups()):
        raise ValueError(
            f"--size takes WIDTHxHEIGHT in pixels, each from {low} to {high}, "
            f"such as 800x600; got {text!r}"
        )
    return int(match[1]), int(match[2])


def _still_figure(size):
    """A figure for a still image and the dpi to save it at (``size``: pixels or None)."""
    from ..plot import STILL_SIZE, new_figure, pixel_figure_size

    figsize, dpi = (STILL_SIZE, 100) if size is None else pixel_figure_size(*size)
    fig, ax = new_figure(*figsize)
    return fig, ax, dpi


def _model(model_path, data, algorithm, epochs, eta, seed, feature_map=False):
    """A saved model, or one trained here on the data (on the notes' quadratic features
    with ``feature_map``: a pipeline of :func:`rosenblatt.theory.notes_feature_map` and
    the learner, so that it draws in the plane)."""
    from sklearn.exceptions import ConvergenceWarning

    from .train import make_estimator

    if model_path:
        model, _ = load_model(model_path)
        if is_text_model(model):
            raise ValueError(f"{model_path}: a text model; plots draw numeric 2-D data")
        return model
    estimator = make_estimator(algorithm, epochs=epochs, eta=eta, seed=seed)
    if feature_map:
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import FunctionTransformer

        from ...theory import notes_feature_map

        estimator = make_pipeline(FunctionTransformer(notes_feature_map), estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(data.X, data.y)


def make_plot(
    data_path: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    kind: str | None = None,
    model_path: str | os.PathLike[str] | None = None,
    algorithm: str = "perceptron",
    max_iter: int | None = None,
    eta: float = 1.0,
    seed: int = 0,
    mode: str = "online",
    bias_input: float = TEACHING_BIAS_INPUT,
    label_column: str | int | None = None,
    zero_based: bool | str = "auto",
    header: bool | str = "auto",
    format: str | None = None,
    size: tuple[int, int] | None = None,
    feature_map: bool = False,
) -> PlotResult:
    """Draw one figure of ``data_path`` into ``output`` (PNG, SVG, PDF, JPEG; GIF animation).

    The axes of the boundary and the animation are named after the data's
    columns when the CSV file has a header.

    Parameters
    ----------
    data_path : str
        Labelled numeric data; two features for the boundary and the animation.
    output : str
        The file to write; its extension picks the format. Checked before the data
        are read: a folder that does not exist or cannot be written fails at once.
    kind : {"boundary", "mistakes", "animation"}, default=None
        None: "animation" for a ``.gif`` output, else "boundary".
    model_path : str, default=None
        Draw this saved model; otherwise train ``algorithm`` on the data.
    algorithm, max_iter, eta, seed
        The model trained when there is no ``model_path`` (``max_iter=None``: the
        estimator's own default; the animation then runs at most 100 epochs).
    mode, bias_input
        The animation's training mode and constant input (the perceptron's worked
        example in the lecture notes, the modified OR problem, uses -1).
    label_column : str or int, default=None
    zero_based : bool or "auto", default="auto"
        svmlight: whether feature indices start at 0.
    header : bool or "auto", default="auto"
        CSV: whether the first row is a header.
    format : {"csv", "svmlight", "tsv"}, default=None
        The data's format when its name does not say it (standard input, ``.txt``).
    size : (int, int), default=None
        The image's width and height in pixels (see
        :func:`rosenblatt.apps.plot.pixel_figure_size`); default 600 x 450 for a
        still image, 520 x 360 for the animation. A ``.svg`` or ``.pdf`` gets
        the same size in inches at the dpi that pixel size implies.
    feature_map : bool, default=False
        Train on the notes' quadratic features ``(x1, x2, x1 x2, x1^2, x2^2)``
        (:func:`rosenblatt.theory.notes_feature_map`): the boundary is a conic of
        the plane, and XOR is learnt. Boundary and mistakes plots of a model trained
        here.

    Returns
    -------
    PlotResult
    """
    from ...data.io import read_data
    from ..plot import animate_training, plot_decision_boundary, plot_mistakes, save_figure

    output = os.fspath(output)
    check_writable(output)  # before the data are read and a model trained
    kind = _kind(kind, output)
    if feature_map and (kind == "animation" or model_path):
        raise ValueError(
            "--feature-map trains the model drawn on the notes' features; it draws boundary "
            "and mistakes plots without --model (the animation draws lines of the plane)"
        )
    data = read_data(
        data_path,
        label_column=label_column,
        zero_based=zero_based,
        header=header,
        format=format,
    )
    assert data.y is not None  # read_data reads the labels unless told not to
    if data.is_text:
        raise ValueError(f"{data.path}: plots draw numeric data, not text")
    X = data.X.toarray() if hasattr(data.X, "toarray") else data.X
    if (kind in ("boundary", "animation") or feature_map) and X.shape[1] != 2:
        raise ValueError(
            f"{data.path}: has {X.shape[1]} features; the {kind} plot draws 2-D "
            "data (two feature columns)"
        )
    if kind == "animation":
        animate_training(
            X,
            data.y,
            output,
            mode=mode,
            eta=eta,
            bias_input=bias_input,
            max_iter=100 if max_iter is None else max_iter,
            size=size,
            feature_names=data.feature_names,
        )
        return PlotResult(output, kind, "trace")
    data.X = X
    model = _model(model_path, data, algorithm, max_iter, eta, seed, feature_map)
    name = type(final_estimator(model)).__name__
    if kind == "mistakes" and not hasattr(final_estimator(model), "mistakes_per_epoch_"):
        raise ValueError(
            f"{name} does not learn epoch by epoch, so it has no mistakes per "
            "epoch; use a perceptron (--algorithm perceptron, averaged, voted, "
            "kernel)"
        )
    fig, ax, dpi = _still_figure(size)
    mapped = " on (x1, x2, x1 x2, x1², x2²)" if feature_map else ""
    if kind == "boundary":
        plot_decision_boundary(
            model,
            X,
            data.y,
            ax=ax,
            feature_names=data.feature_names,
            title=f"{name}{mapped}: decision boundary",
        )
    else:
        plot_mistakes(final_estimator(model), ax=ax, title=f"Mistakes per epoch{mapped}")
    save_figure(fig, output, dpi=dpi)
    return PlotResult(output, kind, name + (" on the notes' features" if feature_map else ""))


def make_losses_plot(
    output: str | os.PathLike[str], *, size: tuple[int, int] | None = None
) -> PlotResult:
    """Draw the 0-1 loss and its surrogates against the margin into ``output``.

    The figure of :func:`rosenblatt.apps.plot.plot_losses`, for margins
    ``z`` in [-2, 2]; no data and no model.

    Parameters
    ----------
    output : str
        The image to write: ``.png``, ``.svg``, ``.pdf`` or ``.jpg``.
    size : (int, int), default=None
        The image's width and height in pixels; 600 x 450 when None.

    Returns
    -------
    PlotResult
    """
    from ...theory.losses import LOSSES
    from ..plot import plot_losses, save_figure

    output = os.fspath(output)
    check_writable(output)
    _check_extension("losses", output)
    fig, ax, dpi = _still_figure(size)
    plot_losses(ax=ax)
    save_figure(fig, output, dpi=dpi)
    return PlotResult(output, "losses", ", ".join(LOSSES))


# plot's own words on the options it shares
_Data = Annotated[
    str | None,
    more_help(
        Data,
        "Labelled and numeric (not text), with 2 features except for mistakes; none with --losses.",
    ),
]
_Output = Annotated[
    str, more_help(Output, "An image: .png, .svg, .pdf or .jpg, or .gif for the animation.")
]
_Model = Annotated[str | None, more_help(Model, "Draw it instead of training one.")]
_Algorithm = Annotated[str, more_help(Algorithm, "The one trained when no --model is given.")]
_MaxIter = Annotated[
    int | None, more_help(MaxIter, "Default: the estimator's max_iter; 100 for the animation.")
]
_FeatureMap = Annotated[
    bool, more_help(FeatureMap, "Boundary and mistakes plots, without --model.")
]
_Mode = Annotated[str, more_help(Mode, "For the animation.")]
_BiasInput = Annotated[float, more_help(BiasInput, "For the animation.")]


def command(
    data: _Data = None,
    *,  # --output is required, DATA not
    output: _Output,
    kind: Kind = None,
    losses: Losses = False,
    model: _Model = None,
    algorithm: _Algorithm = "perceptron",
    max_iter: _MaxIter = None,
    eta: Eta = 1.0,
    seed: Seed = 0,
    feature_map: _FeatureMap = False,
    mode: _Mode = "online",
    bias_input: _BiasInput = TEACHING_BIAS_INPUT,
    size: Size = None,
    label_column: LabelColumn = None,
    zero_based: ZeroBased = None,
    header: Header = None,
    data_format: Format = None,
) -> None:
    """Plot the decision boundary with its margin, mistakes per epoch, a training GIF, or
    the surrogate losses."""
    _run(**locals())


def _run(
    data: str | None,
    *,
    output: str,
    kind: str | None,
    losses: bool,
    model: str | None,
    algorithm: str,
    max_iter: int | None,
    eta: float,
    seed: int,
    feature_map: bool,
    mode: str,
    bias_input: float,
    size: str | None,
    label_column: str | None,
    zero_based: bool | None,
    header: bool | None,
    data_format: str | None,
) -> None:
    """What ``rosenblatt plot`` does with its options: draw the figure asked for, then say
    where it went."""
    pixels = parse_size(size)  # a bad --size fails before the data are read
    if losses:
        if data is not None:
            raise ValueError(f"--losses draws no data; give either {data} or --losses")
        result = make_losses_plot(output, size=pixels)
    elif data is None:
        raise ValueError(
            "plot needs DATA, a labelled data file (- for standard input), or --losses"
        )
    else:
        result = make_plot(
            data,
            output,
            kind=kind,
            model_path=model,
            algorithm=algorithm,
            max_iter=max_iter,
            eta=eta,
            seed=seed,
            mode=mode,
            bias_input=bias_input,
            label_column=parse_label_column(label_column),
            zero_based=auto(zero_based),
            header=auto(header),
            format=data_format,
            size=pixels,
            feature_map=feature_map,
        )
    err_console.print(
        f"wrote the {result.kind} plot ({result.model}) to {result.path}", markup=False
    )
