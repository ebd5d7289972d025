"""``rosenblatt plot``: decision boundary, mistakes per epoch, or a training animation."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

import typer

from ._common import (
    auto,
    console,
    final_estimator,
    header_option,
    is_text_model,
    load_model,
    parse_label_column,
    zero_based_option,
)

KINDS = ("boundary", "mistakes", "animation")
_STILL = (".png", ".svg", ".pdf", ".jpg", ".jpeg")
_EXTENSIONS = {"boundary": _STILL, "mistakes": _STILL, "animation": (".gif",)}


@dataclass
class PlotResult:
    path: str
    kind: str
    model: str  # the class drawn, or "trace" for the animation


def _kind(kind, output):
    ext = os.path.splitext(output)[1].lower()
    if kind is None:
        kind = "animation" if ext == ".gif" else "boundary"
    if kind not in KINDS:
        raise ValueError(f"unknown plot kind {kind!r}; choose one of {', '.join(KINDS)}")
    if ext not in _EXTENSIONS[kind]:
        raise ValueError(
            f"{output}: a {kind} plot is written as "
            f"{' or '.join(_EXTENSIONS[kind])}, not {ext or 'no extension'!r}"
        )
    return kind


def _model(model_path, data, algorithm, epochs, eta, seed):
    """A saved model, or one trained here on the data."""
    from sklearn.exceptions import ConvergenceWarning

    from .train import make_estimator

    if model_path:
        model, _ = load_model(model_path)
        if is_text_model(model):
            raise ValueError(f"{model_path}: a text model; plots draw numeric 2-D data")
        return model
    estimator = make_estimator(algorithm, epochs=epochs, eta=eta, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(data.X, data.y)


def make_plot(
    data_path,
    output,
    *,
    kind=None,
    model_path=None,
    algorithm="perceptron",
    epochs=100,
    eta=1.0,
    seed=0,
    mode="online",
    bias_input=1.0,
    label_column=None,
    zero_based="auto",
    header="auto",
) -> PlotResult:
    """Draw one figure of ``data_path`` into ``output`` (PNG or SVG; GIF for the animation).

    Parameters
    ----------
    data_path : str
        Labelled numeric data; two features for the boundary and the animation.
    output : str
        The file to write; its extension picks the format.
    kind : {"boundary", "mistakes", "animation"}, default=None
        None: "animation" for a ``.gif`` output, else "boundary".
    model_path : str, default=None
        Draw this saved model; otherwise train ``algorithm`` on the data.
    algorithm, epochs, eta, seed
        The model trained when there is no ``model_path``.
    mode, bias_input
        The animation's training mode and constant input (seed 003 uses -1).
    label_column : str or int, default=None
    zero_based : bool or "auto", default="auto"
        svmlight: whether feature indices start at 0.
    header : bool or "auto", default="auto"
        CSV: whether the first row is a header.

    Returns
    -------
    PlotResult
    """
    from ..io import read_data
    from ..plot import animate_training, plot_decision_boundary, plot_mistakes, save_figure

    output = os.fspath(output)
    kind = _kind(kind, output)
    data = read_data(data_path, label_column=label_column, zero_based=zero_based, header=header)
    if data.is_text:
        raise ValueError(f"{data.path}: plots draw numeric data, not text")
    X = data.X.toarray() if hasattr(data.X, "toarray") else data.X
    if kind in ("boundary", "animation") and X.shape[1] != 2:
        raise ValueError(
            f"{data.path}: has {X.shape[1]} features; the {kind} plot draws 2-D "
            "data (two feature columns)"
        )
    if kind == "animation":
        animate_training(
            X, data.y, output, mode=mode, eta=eta, bias_input=bias_input, max_iter=epochs
        )
        return PlotResult(output, kind, "trace")
    data.X = X
    model = _model(model_path, data, algorithm, epochs, eta, seed)
    name = type(final_estimator(model)).__name__
    if kind == "boundary":
        ax = plot_decision_boundary(model, X, data.y)
    else:
        if not hasattr(final_estimator(model), "mistakes_per_epoch_"):
            raise ValueError(
                f"{name} does not learn epoch by epoch, so it has no mistakes per "
                "epoch; use a perceptron (--algorithm perceptron, averaged, voted, "
                "kernel)"
            )
        ax = plot_mistakes(final_estimator(model))
    save_figure(ax.figure, output)
    return PlotResult(output, kind, name)


def command(
    data: str = typer.Argument(
        ..., metavar="DATA", help="Labelled numeric data (2 features except for mistakes)."
    ),
    output: str = typer.Option(
        ...,
        "--output",
        "-o",
        help="Image to write: .png, .svg, .pdf or .jpg, or .gif for the animation.",
    ),
    kind: str | None = typer.Option(
        None,
        "--kind",
        help="boundary, mistakes or animation (default: animation for .gif, else boundary).",
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help="Draw this saved model instead of training one."
    ),
    algorithm: str = typer.Option(
        "perceptron", "--algorithm", "-a", help="Algorithm trained when no --model is given."
    ),
    epochs: int = typer.Option(100, "--epochs", help="Most epochs of training."),
    eta: float = typer.Option(1.0, "--eta", help="Learning rate."),
    seed: int = typer.Option(0, "--seed", help="Seed of the shuffling."),
    mode: str = typer.Option("online", "--mode", help="Animation: online or batch."),
    bias_input: float = typer.Option(
        1.0, "--bias-input", help="Animation: the constant input (seed 003 uses -1)."
    ),
    label_column: str | None = typer.Option(
        None, "--label-column", help="CSV: label column by header name or 0-based index."
    ),
    zero_based: bool | None = zero_based_option(),
    header: bool | None = header_option(),
) -> None:
    """Plot the decision boundary with its margin, mistakes per epoch, or a training GIF."""
    result = make_plot(
        data,
        output,
        kind=kind,
        model_path=model,
        algorithm=algorithm,
        epochs=epochs,
        eta=eta,
        seed=seed,
        mode=mode,
        bias_input=bias_input,
        label_column=parse_label_column(label_column),
        zero_based=auto(zero_based),
        header=auto(header),
    )
    console.print(f"wrote the {result.kind} plot ({result.model}) to {result.path}")
