"""Figures and animations of perceptron training (matplotlib, imported only when used).

Figures are built on :class:`matplotlib.figure.Figure` with the Agg canvas
rather than through ``pyplot``: nothing here touches the global backend or
keeps figures alive, so the functions work on a headless server, in a test
run and in a notebook alike.

- :func:`plot_decision_boundary`: 2-D data, the model's boundary and its margin.
- :func:`plot_mistakes`: mistakes per epoch.
- :func:`plot_scores`: accuracies of several algorithms on several datasets.
- :func:`plot_training_step`: the separating line after one step of a
  :func:`rosenblatt.trace.trace` run.
- :func:`animate_training`: a GIF of the separating line moving update by update,
  the "successive changes of the separating straight line" of the perceptron's
  worked example in the lecture notes (the modified OR problem).
- :func:`save_figure`: write a figure as PNG, SVG, PDF or JPEG.
- :func:`pixel_figure_size`: the figure size and resolution of an image of a given
  size in pixels.

Legends sit outside the axes (under the x axis label, or right of the axes in
the animation), so they never hide a data point.
"""

from __future__ import annotations

import os

import numpy as np

from ._config import PLOT_GRID_POINTS
from ._invariants import is_sparse

__all__ = [
    "ANIMATION_SIZE",
    "PIXEL_RANGE",
    "STILL_SIZE",
    "animate_training",
    "new_figure",
    "pixel_figure_size",
    "plot_decision_boundary",
    "plot_mistakes",
    "plot_scores",
    "plot_training_step",
    "save_figure",
]

_MARKERS = "os^vD<>ph*"

#: the design size (inches) of the still figures and of the animation's frames
STILL_SIZE = (6.0, 4.5)
ANIMATION_SIZE = (6.5, 4.5)

#: the smallest and the largest side of an image, in pixels (:func:`pixel_figure_size`)
PIXEL_RANGE = (300, 10_000)  # the titles and legends fit down to 300
_MIN_DPI = 72.0  # 1 point = 1 pixel: 10-point tick labels stay 10 pixels tall

# Drawing order, bottom to top: the maximum-margin hyperplane lies under the
# model's own lines, so a perceptron line that coincides with it stays visible.
_Z_MAX_MARGIN, _Z_CLOSEST, _Z_BOUNDARY, _Z_POINTS, _Z_SUPPORT = 1.5, 2.0, 2.5, 3.0, 4.0


def new_figure(width=6.0, height=4.5, ncols=1):
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


def pixel_figure_size(width, height, design=STILL_SIZE):
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


def save_figure(fig, path, *, dpi=100):
    """Write ``fig`` to ``path`` as PNG, SVG, PDF or JPEG, chosen by the extension.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
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

    from ._files import write_atomically

    image = io.BytesIO()  # written whole or not at all: no half image after an error
    fig.savefig(image, format=_IMAGE_FORMATS[ext], dpi=dpi)
    write_atomically(path, image.getvalue())
    return path


def _dense_2d(X, what="plot_decision_boundary"):
    X = X.toarray() if is_sparse(X) else np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(
            f"{what} draws 2-D data; got X of shape {X.shape}. Select two features "
            "(e.g. X[:, [0, 1]]) or project the data first."
        )
    return X.astype(np.float64)


def _limits(X, pad=0.15):
    low, high = X.min(axis=0), X.max(axis=0)
    span = np.where(high - low > 0, high - low, 1.0)
    return low - pad * span - 0.5 * (high == low), high + pad * span + 0.5 * (high == low)


def _axis_names(feature_names):
    """x and y axis labels: the data's column names, or x1 and x2 when it has none."""
    if feature_names is None:
        return "$x_1$", "$x_2$"
    names = [str(name) for name in feature_names]
    if len(names) != 2:
        raise ValueError(f"feature_names must name the 2 features; got {names!r}")
    # a "$" in a column name is a dollar sign, not the start of a formula
    return tuple(name.replace("$", r"\$") for name in names)


def _legend_below(ax, ncols=2):
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
        and legend.get_window_extent(renderer).width > fig.bbox.width
    ):
        return _legend_below(ax, ncols=1)  # a small figure: one entry per row, all of it shown
    return legend


def _scatter(ax, X, y, classes):
    import matplotlib as mpl

    colors = mpl.colormaps["tab10"]
    for k, label in enumerate(classes):
        mask = y == label
        ax.scatter(
            X[mask, 0],
            X[mask, 1],
            s=45,
            marker=_MARKERS[k % len(_MARKERS)],
            color=colors(k % 10),
            edgecolor="black",
            linewidth=0.6,
            zorder=_Z_POINTS,
            label=f"class {label}",
        )


def _is_linear(model) -> bool:
    """The decision function is ``X @ coef_.T + intercept_`` (not a vote or a kernel)."""
    from .linear import VotedPerceptron

    return (
        hasattr(model, "coef_")
        and hasattr(model, "intercept_")
        and not isinstance(model, VotedPerceptron)
        and not hasattr(model, "dual_coef_")
    )


def plot_decision_boundary(model, X, y, ax=None, margin=True, title=None, *, feature_names=None):
    """Draw 2-D data, the model's decision regions and boundary, and the margin.

    For a two-class model the boundary is the zero level of
    ``decision_function``. With ``margin=True`` and a linear model (a
    perceptron's last or averaged weights, a baseline) two dotted lines run
    through the closest point of each class, parallel to the boundary, and the
    legend gives the model's geometric margin on the data; when the data are
    linearly separable, the maximum-margin hyperplane of
    :func:`rosenblatt.theory.max_margin` is drawn too, with its margin band.
    The model's boundary is drawn over the maximum-margin line (a wide, pale
    green band), so both stay visible where they coincide, as on the modified
    OR problem. The legend sits under the axes.

    Parameters
    ----------
    model : fitted classifier
        Trained on the two features of ``X``.
    X : array-like or sparse matrix of shape (n_samples, 2)
    y : array-like of shape (n_samples,)
    ax : matplotlib Axes, default=None
        Draw here; a new figure is made when None.
    margin : bool, default=True
    title : str, default=None
    feature_names : sequence of 2 str, default=None
        The axis labels (a CSV file's column names); ``x1`` and ``x2`` when None.

    Returns
    -------
    matplotlib.axes.Axes
        Its ``.figure`` can be passed to :func:`save_figure`.

    Examples
    --------
    >>> from rosenblatt import Perceptron
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> ax = plot_decision_boundary(Perceptron(shuffle=False).fit(X, y), X, y)
    >>> ax.get_legend() is not None
    True
    """
    X = _dense_2d(X)
    y = np.asarray(y)
    xlabel, ylabel = _axis_names(feature_names)
    if ax is None:
        _, ax = new_figure()
    low, high = _limits(X)
    xx, yy = np.meshgrid(
        np.linspace(low[0], high[0], PLOT_GRID_POINTS),
        np.linspace(low[1], high[1], PLOT_GRID_POINTS),
    )
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    classes = np.asarray(getattr(model, "classes_", np.unique(y)))
    predicted = np.searchsorted(classes, model.predict(grid)).reshape(xx.shape)
    ax.contourf(
        xx,
        yy,
        predicted,
        levels=np.arange(len(classes) + 1) - 0.5,
        cmap="tab10",
        vmin=0,
        vmax=9.5,
        alpha=0.18,
    )
    if len(classes) == 2:
        scores = np.asarray(model.decision_function(grid)).reshape(xx.shape)
        boundary = ax.contour(
            xx, yy, scores, levels=[0.0], colors="black", linewidths=2, zorder=_Z_BOUNDARY
        )
        boundary.set_gid("decision boundary")  # tests and SVG readers find it by this id
        ax.plot([], [], color="black", linewidth=2, label=f"{type(model).__name__} boundary")
        if margin:
            _draw_margins(ax, model, X, y, classes, xx, yy, grid)
    else:
        ax.contour(
            xx, yy, predicted, levels=np.arange(len(classes)) + 0.5, colors="black", linewidths=1.2
        )
    _scatter(ax, X, y, classes)
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title or f"{type(model).__name__}: decision boundary")
    _legend_below(ax, ncols=2)
    return ax


def _draw_margins(ax, model, X, y, classes, xx, yy, grid):
    from .engine.targets import TargetCoding
    from .exceptions import NotSeparableError

    t = TargetCoding.binary(classes).signed(y)[0]
    if _is_linear(model):
        w = np.ravel(model.coef_)
        b = float(np.ravel(model.intercept_)[0])
        f = X @ w + b
        norm = np.linalg.norm(w)
        if norm > 0 and np.all(t * f > 0):
            near_pos, near_neg = f[t > 0].min(), f[t < 0].max()
            scores = (grid @ w + b).reshape(xx.shape)
            ax.contour(
                xx,
                yy,
                scores,
                levels=sorted([near_neg, near_pos]),
                colors="black",
                linestyles="dotted",
                linewidths=1.2,
                zorder=_Z_CLOSEST,
            )
            gamma = min(near_pos, -near_neg) / norm
            ax.plot(
                [],
                [],
                color="black",
                linestyle="dotted",
                label=f"through the closest points (margin {gamma:.3g})",
            )
    try:
        from .theory import max_margin

        best = max_margin(X, y)
    except (NotSeparableError, ImportError, RuntimeError, ValueError):
        return
    scores = (grid @ best.coef + best.intercept).reshape(xx.shape)
    widest = ax.contour(
        xx,
        yy,
        scores,
        levels=[-1.0, 0.0, 1.0],
        colors="tab:green",
        linestyles=["dashed", "solid", "dashed"],
        linewidths=[1, 6, 1],  # the hyperplane wide enough to show around a line on it
        alpha=0.55,
        zorder=_Z_MAX_MARGIN,
    )
    widest.set_gid("maximum margin")
    ax.plot(
        [],
        [],
        color="tab:green",
        linewidth=6,
        alpha=0.55,
        label=f"maximum margin (γ = {best.margin:.3g})",
    )
    support = X[best.support]
    ax.scatter(
        support[:, 0],
        support[:, 1],
        s=160,
        facecolors="none",
        edgecolors="tab:green",
        linewidth=1.5,
        zorder=_Z_SUPPORT,
    )


def plot_mistakes(model, ax=None, label=None, title=None):
    """Plot a fitted perceptron's mistakes per epoch (``mistakes_per_epoch_``).

    The legend, one entry per model drawn on the axes, sits under the axes.

    Parameters
    ----------
    model : fitted estimator with ``mistakes_per_epoch_``
    ax : matplotlib Axes, default=None
        Draw here (several models can share one axes); new figure when None.
    label : str, default=None
        Legend entry; the class name by default.
    title : str, default=None

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from rosenblatt import Perceptron
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> ax = plot_mistakes(Perceptron(shuffle=False).fit(X, y))
    >>> ax.lines[0].get_ydata().tolist()
    [3, 0]
    """
    history = getattr(model, "mistakes_per_epoch_", None)
    if history is None:
        raise ValueError(
            f"{type(model).__name__} has no mistakes_per_epoch_: only the perceptrons "
            "(fitted) record their mistakes per epoch."
        )
    if ax is None:
        _, ax = new_figure()
    epochs = np.arange(1, len(history) + 1)
    ax.plot(
        epochs,
        list(history),
        marker="o" if len(history) <= 30 else None,
        markersize=4,
        label=label or type(model).__name__,
    )
    ax.set_xlabel("epoch")
    ax.set_ylabel("mistakes (updates)")
    top = max(max(line.get_ydata(), default=0) for line in ax.lines)
    ax.set_ylim(0, 1.05 * top + 1)  # from zero, and high enough for every model drawn here
    if len(history) <= 12:
        ax.set_xticks(epochs)
    ax.set_title(title or "Mistakes per epoch")
    ax.grid(alpha=0.3)
    _legend_below(ax, ncols=min(len(ax.lines), 4))
    return ax


def plot_scores(datasets, algorithms, scores, ax=None, title="Test accuracy"):
    """Grouped bars: one group per dataset, one bar per algorithm.

    The legend (the algorithms) sits under the dataset names.

    Parameters
    ----------
    datasets, algorithms : list of str
    scores : array-like of shape (n_datasets, n_algorithms)
        NaN for a missing combination.
    ax : matplotlib Axes, default=None
    title : str

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_scores(["OR", "XOR"], ["a", "b"], [[1.0, 1.0], [0.5, 1.0]])
    >>> len(ax.patches)
    4
    """
    scores = np.asarray(scores, dtype=np.float64)
    if ax is None:
        _, ax = new_figure(max(6.0, 1.2 * len(datasets) + 2), 4.5)
    n = len(algorithms)
    width = 0.8 / max(n, 1)
    positions = np.arange(len(datasets))
    for k, name in enumerate(algorithms):
        ax.bar(
            positions + (k - (n - 1) / 2) * width, np.nan_to_num(scores[:, k]), width, label=name
        )
    ax.set_xticks(positions, datasets, fontsize="small")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    _legend_below(ax, ncols=min(n, 4))
    return ax


# ---------------------------------------------------------------------- animation
def _line_points(w, b, low, high):
    """End points of ``w . x + b = 0`` inside the box, or None for ``w = 0``."""
    if abs(w[1]) >= abs(w[0]):
        if w[1] == 0:
            return None
        xs = np.array([low[0], high[0]])
        return xs, -(w[0] * xs + b) / w[1]
    ys = np.array([low[1], high[1]])
    return -(w[1] * ys + b) / w[0], ys


def _frames(tr, max_frames):
    """Steps to show: the start and every step that changed the weights."""
    changed = [
        k
        for k in range(1, tr.weights.shape[0])
        if not np.array_equal(tr.weights[k], tr.weights[k - 1])
    ]
    steps = [0] + changed
    if len(steps) > max_frames:  # keep the first and the last, thin the middle evenly
        keep = np.unique(np.linspace(0, len(steps) - 1, max_frames).round().astype(int))
        steps = [steps[k] for k in keep]
    return steps


def _line_of(tr, step):
    """``(w, b)`` of the line ``w . x + b = 0`` after ``step`` (the bias input folded in)."""
    weights = tr.weights[step]
    return weights[:2], (weights[2] * tr.bias_input if tr.fit_intercept else 0.0)


def _patterns(numbers, most=3):
    """``"pattern 3"``, ``"patterns 1, 4"``; a long list cut short so that a title fits."""
    if len(numbers) == 1:
        return f"pattern {numbers[0]}"
    shown = ", ".join(str(i) for i in numbers[:most])
    if len(numbers) > most:
        return f"{len(numbers)} patterns: {shown}, ..."
    return f"patterns {shown}"


def _step_title(tr, step):
    """Two lines: which step and pattern(s) moved the line, and the weights after it."""
    if step > 0:
        responsible = tr.pattern[(tr.step == step) & tr.updated]
        step_name = "epoch" if tr.mode == "batch" else "step"
        header = f"{step_name} {step}: {_patterns([i + 1 for i in responsible])}"
    else:
        header = "start: w = 0 (no line yet)"
    weights = ", ".join(f"{v:.3g}" for v in tr.weights[step])
    return f"{header}\nw = ({weights})"


def _step_legend(ax):
    """The same entries on every frame, so that the layout does not move between frames."""
    from matplotlib.lines import Line2D

    lines = [
        Line2D([], [], color="black", linewidth=2, label="separating line"),
        Line2D([], [], color="gray", alpha=0.5, linestyle="--", label="previous line"),
    ]
    points, _ = ax.get_legend_handles_labels()
    # right of the axes: the frame is wider than tall, and the entries are short
    ax.legend(
        handles=lines + points,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        fontsize="small",
    )


def plot_training_step(tr, X, y, step, ax=None, *, feature_names=None):
    """Draw the separating line of a training trace after ``step`` (one animation frame).

    The line after the step (solid) and before it (dashed, faded), the positive
    half-plane shaded, and a blue arrow to each pattern that caused the change
    (every misclassified pattern of the epoch in batch mode). The title says
    which step and pattern it was and gives the weights; it is drawn large
    enough to read at the animation's size.

    Parameters
    ----------
    tr : rosenblatt.trace.Trace
        A run of :func:`rosenblatt.trace.trace` on ``X`` and ``y``.
    X : array-like of shape (n_samples, 2)
    y : array-like of shape (n_samples,)
    step : int
        0 for the start (``w = 0``), ``k`` for the weights after step ``k``
        (a row of ``tr.weights``).
    ax : matplotlib Axes, default=None
        Draw here (it is cleared first); a new figure of the animation's size when None.
    feature_names : sequence of 2 str, default=None
        The axis labels; ``x1`` and ``x2`` when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from rosenblatt.trace import trace
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> tr = trace(X, y, bias_input=-1)
    >>> plot_training_step(tr, X, y, 1).get_title(loc="left").splitlines()
    ['step 1: pattern 1', 'w = (1, 1, 1)']
    """
    X = _dense_2d(X, "plot_training_step")
    y = np.asarray(y)
    if not 0 <= step < tr.weights.shape[0]:
        raise ValueError(f"step must be from 0 to {tr.weights.shape[0] - 1}; got {step!r}")
    xlabel, ylabel = _axis_names(feature_names)
    if ax is None:
        _, ax = new_figure(*ANIMATION_SIZE)
    ax.clear()
    low, high = _limits(X, pad=0.35)
    if step > 0:
        previous = _line_points(*_line_of(tr, step - 1), low, high)
        if previous is not None:
            ax.plot(*previous, color="gray", alpha=0.5, linestyle="--")
    w, b = _line_of(tr, step)
    points = _line_points(w, b, low, high)
    if points is not None:
        ax.plot(*points, color="black", linewidth=2)
        xx, yy = np.meshgrid(np.linspace(low[0], high[0], 60), np.linspace(low[1], high[1], 60))
        ax.contourf(
            xx, yy, w[0] * xx + w[1] * yy + b, levels=[0, np.inf], colors=["tab:orange"], alpha=0.12
        )
    _scatter(ax, X, y, tr.classes)
    for i in tr.pattern[(tr.step == step) & tr.updated]:  # none at the start (steps are 1-based)
        ax.annotate(
            "",
            xy=X[i],
            xytext=(-28, 22),
            textcoords="offset points",
            arrowprops={"arrowstyle": "->", "color": "tab:blue", "lw": 2},
        )
    # large enough to read in the GIF; from the axes' left edge, where it has the most room
    ax.set_title(_step_title(tr, step), fontsize="large", loc="left")
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _step_legend(ax)
    return ax


def _frame_image(fig):
    """The figure drawn at its dpi, as an RGB image (GIF frames need no alpha)."""
    from PIL import Image

    data, size = fig.canvas.print_to_buffer()
    return Image.frombuffer("RGBA", size, data, "raw", "RGBA", 0, 1).convert("RGB")


def animate_training(
    X,
    y,
    path,
    mode="online",
    eta=1.0,
    bias_input=1.0,
    *,
    shuffle=False,
    max_iter=100,
    random_state=None,
    fps=1.5,
    dpi=80,
    max_frames=120,
    size=None,
    feature_names=None,
):
    """Write a GIF of the separating line moving, update by update.

    The "successive changes of the separating straight line" of the
    perceptron's worked example in the lecture notes (the modified OR problem,
    with the constant input -1). Runs :func:`rosenblatt.trace.trace` and draws
    one frame per weight change with :func:`plot_training_step`. Every frame
    has the same size in pixels, and the file is written whole or not at all.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
    y : array-like of shape (n_samples,)
        Two classes.
    path : str or path-like
        The ``.gif`` to write.
    mode, eta, bias_input, shuffle, max_iter, random_state
        Passed to :func:`rosenblatt.trace.trace`.
    fps : float, default=1.5
    dpi : int, default=80
        Frames of ``ANIMATION_SIZE * dpi`` pixels (520 x 360 at the default).
    max_frames : int, default=120
        Long runs are thinned to this many frames (the first and last are kept).
    size : (int, int), default=None
        The frames' width and height in pixels, instead of ``dpi``; the layout
        keeps its proportions (see :func:`pixel_figure_size`).
    feature_names : sequence of 2 str, default=None
        The axis labels; ``x1`` and ``x2`` when None.

    Returns
    -------
    trace : rosenblatt.trace.Trace
        The run that was drawn.

    Examples
    --------
    >>> import tempfile, os
    >>> from PIL import Image
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> path = os.path.join(tempfile.mkdtemp(), "or.gif")
    >>> tr = animate_training(X, y, path, bias_input=-1, size=(400, 300))
    >>> gif = Image.open(path)
    >>> gif.n_frames, gif.size  # the start and one frame per update
    (4, (400, 300))
    """
    import io

    from ._files import write_atomically
    from .trace import trace

    path = os.fspath(path)
    if os.path.splitext(path)[1].lower() != ".gif":
        raise ValueError(f"animate_training writes a GIF; give a .gif path, not {path!r}.")
    X = _dense_2d(X, "animate_training")
    y = np.asarray(y)
    _axis_names(feature_names)  # a bad name fails before the training run
    if size is None:
        figsize = ANIMATION_SIZE
    else:
        figsize, dpi = pixel_figure_size(*size, design=ANIMATION_SIZE)
    tr = trace(
        X,
        y,
        mode=mode,
        eta=eta,
        bias_input=bias_input,
        shuffle=shuffle,
        max_iter=max_iter,
        random_state=random_state,
    )
    fig, ax = new_figure(*figsize)
    fig.set_dpi(dpi)  # frames are drawn at the figure's own size: no per-frame cropping
    frames = []
    for step in _frames(tr, max_frames):
        plot_training_step(tr, X, y, step, ax=ax, feature_names=feature_names)
        frames.append(_frame_image(fig))
        # the first frame's layout for all: titles differ by a pixel, the axes must not
        fig.set_layout_engine("none")
    gif = io.BytesIO()
    frames[0].save(
        gif, format="GIF", save_all=True, append_images=frames[1:], duration=int(1000 / fps), loop=0
    )
    write_atomically(path, gif.getvalue())
    return tr
