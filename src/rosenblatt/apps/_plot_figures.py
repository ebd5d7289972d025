"""Figures, their sizes and files, and the drawing helpers :mod:`rosenblatt.apps.plot`'s
still figures and animation share (re-exported by :mod:`rosenblatt.apps.plot`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.sparse import is_sparse

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure
    from matplotlib.legend import Legend

    from .._core.typing import MatrixLike

#: the design size (inches) of the still figures and of the animation's frames
STILL_SIZE = (6.0, 4.5)
ANIMATION_SIZE = (6.5, 4.5)

#: the smallest and the largest side of an image, in pixels (:func:`pixel_figure_size`)
PIXEL_RANGE = (300, 10_000)  # the titles and legends fit down to 300
_MIN_DPI = 72.0  # 1 point = 1 pixel: 10-point tick labels stay 10 pixels tall

# Drawing order, bottom to top: the maximum-margin hyperplane lies under the
# model's own lines, so a perceptron line that coincides with it stays visible.
Z_MAX_MARGIN, Z_CLOSEST, Z_BOUNDARY, Z_POINTS, Z_SUPPORT = 1.5, 2.0, 2.5, 3.0, 4.0


def new_figure(width: float = 6.0, height: float = 4.5, ncols: int = 1) -> tuple[Figure, Any]:
    """A figure on the Agg canvas (no pyplot, no global state) and its axes.

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : Axes, or an array of ``ncols`` Axes

    Examples
    --------
    >>> fig, ax = new_figure(4, 3)
    >>> fig.get_size_inches().tolist()
    [4.0, 3.0]
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols)
    return fig, axes


def pixel_figure_size(
    width: int, height: int, design: tuple[float, float] = STILL_SIZE
) -> tuple[tuple[float, float], float]:
    """The figure size (inches) and dpi that make an image of ``width x height`` pixels.

    The dpi is chosen so that the ``design`` size just fits the image, and the
    figure is stretched along the other side: the text keeps its share of the
    image, so a title is as easy to read in a 2000-pixel image shown scaled down as
    in a 600-pixel one. Small images are drawn at no less than 72 dpi instead
    (10-point text 10 pixels tall); there the drawing shrinks and the text does not.

    Parameters
    ----------
    width, height : int
        The image's size in pixels, each within ``PIXEL_RANGE``.
    design : (float, float), default=STILL_SIZE
        The size in inches the figure is laid out for.

    Returns
    -------
    figsize : (float, float)
        For :func:`new_figure`.
    dpi : float
        For :func:`save_figure` (or ``animate_training``'s frames).

    Examples
    --------
    >>> figsize, dpi = pixel_figure_size(1200, 600)
    >>> [int(side * dpi) for side in figsize], round(dpi, 1)
    ([1200, 600], 133.3)
    >>> pixel_figure_size(300, 300)[1]  # small: the text keeps a readable size
    72.0
    """
    low, high = PIXEL_RANGE
    for side in (width, height):
        if isinstance(side, bool) or not isinstance(side, (int, np.integer)):
            raise ValueError(f"an image size is whole pixels; got {width!r} x {height!r}")
        if not low <= side <= high:
            raise ValueError(
                f"an image is from {low} to {high} pixels wide and high; got {width} x {height}"
            )
    dpi = max(min(width / design[0], height / design[1]), _MIN_DPI)
    # matplotlib truncates size * dpi to whole pixels, and width / dpi * dpi can fall
    # just short of width: a quarter pixel more keeps the exact size
    return ((width + 0.25) / dpi, (height + 0.25) / dpi), dpi


#: extension -> matplotlib format of the still images
_IMAGE_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf", ".jpg": "jpeg", ".jpeg": "jpeg"}


def save_figure(fig: Figure | SubFigure, path: str | os.PathLike[str], *, dpi: float = 100) -> str:
    """Write ``fig`` to ``path`` as PNG, SVG, PDF or JPEG, chosen by the extension.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Or an Axes' ``.figure``.
    path : str or path-like
        Ends in ``.png``, ``.svg``, ``.pdf`` or ``.jpg`` (``.jpeg``).
    dpi : int, default=100
        PNG resolution: the image is ``figsize * dpi`` pixels.

    Returns
    -------
    str
        The path written.

    Examples
    --------
    >>> import tempfile, os
    >>> fig, ax = new_figure(4, 3)
    >>> path = save_figure(fig, os.path.join(tempfile.mkdtemp(), "empty.png"), dpi=50)
    >>> import matplotlib.image
    >>> matplotlib.image.imread(path).shape[:2]
    (150, 200)
    """
    path = os.fspath(path)
    ext = os.path.splitext(path)[1].lower()
    if ext not in _IMAGE_FORMATS:
        raise ValueError(
            f"Cannot save a figure as {ext or 'a file without extension'!r}: "
            "use a .png, .svg, .pdf or .jpg path (or .gif for an animation)."
        )
    # constrained layout would resize the canvas with bbox_inches; keep the exact size
    import io

    from .._core.files import write_atomically

    image = io.BytesIO()  # written whole or not at all: no half image after an error
    # typed, an Axes' .figure may be a SubFigure: .figure is the Figure (itself, or the root)
    fig.figure.savefig(image, format=_IMAGE_FORMATS[ext], dpi=dpi)
    write_atomically(path, image.getvalue())
    return path


def dense_2d(X: MatrixLike, what: str = "plot_decision_boundary") -> np.ndarray:
    X = X.toarray() if is_sparse(X) else np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(
            f"{what} draws 2-D data; got X of shape {X.shape}. Select two features "
            "(e.g. X[:, [0, 1]]) or project the data first."
        )
    return X.astype(np.float64)


def limits(X: np.ndarray, pad: float = 0.15) -> tuple[np.ndarray, np.ndarray]:
    low, high = X.min(axis=0), X.max(axis=0)
    span = np.where(high - low > 0, high - low, 1.0)
    return low - pad * span - 0.5 * (high == low), high + pad * span + 0.5 * (high == low)


def axis_names(feature_names: Sequence[str] | None) -> tuple[str, ...]:
    """x and y axis labels: the data's column names, or x1 and x2 when it has none."""
    if feature_names is None:
        return "$x_1$", "$x_2$"
    names = [str(name) for name in feature_names]
    if len(names) != 2:
        raise ValueError(f"feature_names must name the 2 features; got {names!r}")
    # a "$" in a column name is a dollar sign, not the start of a formula
    return tuple(name.replace("$", r"\$") for name in names)


def legend_below(ax: Axes, ncols: int = 2) -> Legend:
    """A legend under the x axis label, so that it never covers the data.

    The legend hangs from the axes' bottom edge with a gap as tall as the tick
    labels and the axis label; constrained layout (:func:`new_figure`) then
    makes room for it in the figure.
    """
    from matplotlib.font_manager import FontProperties

    fig = ax.figure
    fontsize = FontProperties(size="small").get_size_in_points()
    gap = 3.0 * fontsize  # points: a tick label and an axis label, when no renderer measures
    get_renderer = getattr(fig.canvas, "get_renderer", None)
    renderer = get_renderer() if get_renderer is not None else None
    if renderer is not None:
        axis = ax.xaxis.get_tightbbox(renderer)
        if axis is not None:
            gap = max(ax.get_window_extent(renderer).y0 - axis.y0, 0.0) * 72.0 / fig.dpi
    legend = ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        borderaxespad=gap / fontsize + 0.5,  # in font sizes; 0.5 more to clear the label
        ncols=max(1, ncols),
        fontsize="small",
        framealpha=0.85,
    )
    if (
        ncols > 1
        and renderer is not None
        and legend.get_window_extent(renderer).width
        > min(fig.bbox.width, 1.15 * ax.get_window_extent(renderer).width)
    ):
        # a small figure, or axes beside others: one entry per row, all of it shown
        return legend_below(ax, ncols=1)
    return legend


def scatter(ax: Axes, X: np.ndarray, y: np.ndarray, classes: np.ndarray) -> None:
    """Each class's points in its colour and marker (:mod:`rosenblatt.apps.palette`),
    named in the legend with its target and how it is drawn."""
    from .palette import class_label, class_style

    for k, label in enumerate(classes):
        mask = y == label
        style = class_style(k)
        ax.scatter(
            X[mask, 0],
            X[mask, 1],
            s=45,
            marker=style.marker,
            color=style.color,
            edgecolor="black",
            linewidth=0.6,
            zorder=Z_POINTS,
            label=class_label(label, k, len(classes)),
        )


def shade_regions(ax: Axes, xx: np.ndarray, yy: np.ndarray, predicted: np.ndarray, n: int) -> None:
    """Shade each class's decision region in its colour (``predicted``: class indices on
    the grid ``xx``, ``yy``; ``n`` classes)."""
    from matplotlib.colors import ListedColormap

    from .palette import REGION_ALPHA, class_style

    colors = ListedColormap([class_style(k).color for k in range(n)])
    ax.contourf(
        xx,
        yy,
        predicted,
        levels=np.arange(n + 1) - 0.5,
        cmap=colors,
        vmin=-0.5,
        vmax=n - 0.5,
        alpha=REGION_ALPHA,
    )
