"""Figures and animations of perceptron training (matplotlib, imported only when used).

Figures are built on :class:`matplotlib.figure.Figure` with the Agg canvas
rather than through ``pyplot``: nothing here touches the global backend or
keeps figures alive, so the functions work on a headless server, in a test
run and in a notebook alike.

- :func:`plot_decision_boundary`: 2-D data, the model's boundary and its margin.
- :func:`plot_mistakes`: mistakes per epoch.
- :func:`plot_scores`: accuracies of several algorithms on several datasets.
- :func:`animate_training`: a GIF of the separating line moving update by update
  (seed 003's "successive changes of the separating straight line").
- :func:`save_figure`: write a figure as PNG or SVG.
"""

from __future__ import annotations

import os

import numpy as np
import scipy.sparse as sp

from ._config import PLOT_GRID_POINTS

__all__ = [
    "animate_training",
    "new_figure",
    "plot_decision_boundary",
    "plot_mistakes",
    "plot_scores",
    "save_figure",
]

_MARKERS = "os^vD<>ph*"


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
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
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
            zorder=3,
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


def plot_decision_boundary(model, X, y, ax=None, margin=True, title=None):
    """Draw 2-D data, the model's decision regions and boundary, and the margin.

    For a two-class model the boundary is the zero level of
    ``decision_function``. With ``margin=True`` and a linear model (a
    perceptron's last or averaged weights, a baseline) two dotted lines run
    through the closest point of each class, parallel to the boundary, and the
    legend gives the model's geometric margin on the data; when the data are
    linearly separable, the maximum-margin hyperplane of
    :func:`rosenblatt.theory.max_margin` is drawn too, with its margin band.

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
        ax.contour(xx, yy, scores, levels=[0.0], colors="black", linewidths=2)
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
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title(title or f"{type(model).__name__}: decision boundary")
    ax.legend(loc="best", fontsize="small", framealpha=0.85)
    return ax


def _draw_margins(ax, model, X, y, classes, xx, yy, grid):
    from .exceptions import NotSeparableError

    t = np.where(y == classes[1], 1.0, -1.0)
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
    ax.contour(
        xx,
        yy,
        scores,
        levels=[-1.0, 0.0, 1.0],
        colors="tab:green",
        linestyles=["dashed", "solid", "dashed"],
        linewidths=[1, 1.5, 1],
        alpha=0.9,
    )
    ax.plot([], [], color="tab:green", label=f"maximum margin (γ = {best.margin:.3g})")
    support = X[best.support]
    ax.scatter(
        support[:, 0],
        support[:, 1],
        s=160,
        facecolors="none",
        edgecolors="tab:green",
        linewidth=1.5,
        zorder=4,
    )


def plot_mistakes(model, ax=None, label=None, title=None):
    """Plot a fitted perceptron's mistakes per epoch (``mistakes_per_epoch_``).

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
    ax.legend(fontsize="small")
    return ax


def plot_scores(datasets, algorithms, scores, ax=None, title="Test accuracy"):
    """Grouped bars: one group per dataset, one bar per algorithm.

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
    ax.legend(fontsize="x-small", ncols=min(n, 4), loc="upper center", bbox_to_anchor=(0.5, -0.1))
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
):
    """Write a GIF of the separating line moving, update by update (seed 003).

    Runs :func:`rosenblatt.trace.trace` and draws one frame per weight change:
    the new line (solid) and the previous one (faded), the positive half-plane
    shaded, and an arrow to the pattern responsible for the change (every
    misclassified pattern of the epoch in batch mode).

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
    max_frames : int, default=120
        Long runs are thinned to this many frames (the first and last are kept).

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
    >>> tr = animate_training(X, y, path, bias_input=-1)
    >>> Image.open(path).n_frames  # the start and one frame per update
    4
    """
    from matplotlib.animation import FuncAnimation, PillowWriter

    from .trace import trace

    path = os.fspath(path)
    if os.path.splitext(path)[1].lower() != ".gif":
        raise ValueError(f"animate_training writes a GIF; give a .gif path, not {path!r}.")
    X = _dense_2d(X, "animate_training")
    y = np.asarray(y)
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
    steps = _frames(tr, max_frames)
    fig, ax = new_figure(6.5, 4.5)
    low, high = _limits(X, pad=0.35)

    def split(k):
        weights = tr.weights[k]
        return weights[:2], (weights[2] * tr.bias_input if tr.fit_intercept else 0.0)

    def draw(frame):
        ax.clear()
        k = steps[frame]
        w, b = split(k)
        if k > 0:
            previous = _line_points(*split(k - 1), low, high)
            if previous is not None:
                ax.plot(*previous, color="gray", alpha=0.5, linestyle="--", label="previous line")
        points = _line_points(w, b, low, high)
        if points is not None:
            ax.plot(*points, color="black", linewidth=2, label="separating line")
            xx, yy = np.meshgrid(np.linspace(low[0], high[0], 60), np.linspace(low[1], high[1], 60))
            ax.contourf(
                xx,
                yy,
                w[0] * xx + w[1] * yy + b,
                levels=[0, np.inf],
                colors=["tab:orange"],
                alpha=0.12,
            )
        _scatter(ax, X, y, tr.classes)
        if k > 0:
            responsible = tr.pattern[(tr.step == k) & tr.updated]
            for i in responsible:
                ax.annotate(
                    "",
                    xy=X[i],
                    xytext=(-28, 22),
                    textcoords="offset points",
                    arrowprops={"arrowstyle": "->", "color": "tab:blue", "lw": 2},
                )
            who = ", ".join(str(i + 1) for i in responsible)
            step_name = "epoch" if tr.mode == "batch" else "step"
            header = f"{step_name} {k}: pattern{'s' if len(responsible) > 1 else ''} {who}"
        else:
            header = "start: w = 0 (no line yet)"
        weights = ", ".join(f"{v:.3g}" for v in tr.weights[k])
        ax.set_title(f"{header}\nw = ({weights})", fontsize="small")
        ax.set_xlim(low[0], high[0])
        ax.set_ylim(low[1], high[1])
        ax.set_xlabel("$x_1$")
        ax.set_ylabel("$x_2$")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="x-small")
        return []

    animation = FuncAnimation(fig, draw, frames=len(steps), blit=False, repeat=False)
    animation.save(path, writer=PillowWriter(fps=fps), dpi=dpi)
    return tr
