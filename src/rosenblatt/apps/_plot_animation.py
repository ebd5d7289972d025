"""The separating line after each step of a trace, drawn and animated
(re-exported by :mod:`rosenblatt.apps.plot`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._core.config import TEACHING_BIAS_INPUT
from ._plot_figures import (
    ANIMATION_SIZE,
    axis_names,
    dense_2d,
    limits,
    new_figure,
    pixel_figure_size,
    scatter,
    shade_regions,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from .._core.typing import ArrayLike, MatrixLike, RandomStateLike
    from ..theory.trace import Trace

#: seconds the animation's last frame holds before the GIF loops
HOLD_SECONDS = 3.0


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


def _step_title(tr, step, separable=True):
    """Two lines: which step and pattern(s) moved the line, and the weights after it (the
    weights once, on the second line); on data no line separates, a third says so."""
    if step > 0:
        responsible = tr.pattern[(tr.step == step) & tr.updated]
        step_name = "epoch" if tr.mode == "batch" else "step"
        header = f"{step_name} {step}: {_patterns([i + 1 for i in responsible])}"
    else:
        header = "start: no line yet"
    weights = ", ".join(f"{v + 0.0:.3g}" for v in tr.weights[step])  # + 0.0: never -0
    note = "" if separable else "\nnot linearly separable: no convergence"
    return f"{header}\nw = ({weights}){note}"


def _separable(X, y) -> bool:
    """Whether a line separates the two classes (True when the LP cannot tell)."""
    from ..theory import SolverError, is_linearly_separable

    try:
        return bool(is_linearly_separable(X, y))
    except (SolverError, ValueError):
        return True


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


def plot_training_step(
    tr: Trace,
    X: MatrixLike,
    y: ArrayLike,
    step: int,
    ax: Axes | None = None,
    *,
    feature_names: Sequence[str] | None = None,
    separable: bool | None = None,
) -> Axes:
    """Draw the separating line of a training trace after ``step`` (one animation frame).

    The line after the step (solid) and before it (dashed, faded), each half-plane
    shaded in the colour of the class it predicts (:mod:`rosenblatt.apps.palette`,
    as the points and the playground), and a black arrow to each pattern that caused
    the change (every misclassified pattern of the epoch in batch mode). The title
    says which step and pattern it was and gives the weights, and on data that are
    not linearly separable that the line never settles; it is drawn large enough to
    read at the animation's size.

    Parameters
    ----------
    tr : rosenblatt.theory.trace.Trace
        A run of :func:`rosenblatt.theory.trace.trace` on ``X`` and ``y``.
    X : array-like of shape (n_samples, 2)
    y : array-like of shape (n_samples,)
    step : int
        0 for the start (``w = 0``), ``k`` for the weights after step ``k``
        (a row of ``tr.weights``).
    ax : matplotlib Axes, default=None
        Draw here (it is cleared first); a new figure of the animation's size when None.
    feature_names : sequence of 2 str, default=None
        The axis labels; ``x1`` and ``x2`` when None.
    separable : bool or None, default=None
        Whether a line separates ``X`` and ``y`` (None: decided here, by the LP of
        :func:`rosenblatt.theory.is_linearly_separable`).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from rosenblatt.theory.trace import trace
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> tr = trace(X, y, bias_input=-1)
    >>> plot_training_step(tr, X, y, 1).get_title(loc="left").splitlines()
    ['step 1: pattern 1', 'w = (1, 1, 1)']
    """
    X = dense_2d(X, "plot_training_step")
    y = np.asarray(y)
    if not 0 <= step < tr.weights.shape[0]:
        raise ValueError(f"step must be from 0 to {tr.weights.shape[0] - 1}; got {step!r}")
    xlabel, ylabel = axis_names(feature_names)
    if ax is None:
        _, ax = new_figure(*ANIMATION_SIZE)
    ax.clear()
    low, high = limits(X, pad=0.35)
    if step > 0:
        w_before, b_before = _line_of(tr, step - 1)
        previous = _line_points(w_before, b_before, low, high)
        if previous is not None:
            ax.plot(*previous, color="gray", alpha=0.5, linestyle="--")
    w, b = _line_of(tr, step)
    points = _line_points(w, b, low, high)
    if points is not None:
        ax.plot(*points, color="black", linewidth=2)
        xx, yy = np.meshgrid(np.linspace(low[0], high[0], 60), np.linspace(low[1], high[1], 60))
        # each side in its class's colour: w . x + b > 0 predicts t = +1, else -1
        shade_regions(ax, xx, yy, (w[0] * xx + w[1] * yy + b > 0).astype(int), 2)
    scatter(ax, X, y, tr.classes)
    for i in tr.pattern[(tr.step == step) & tr.updated]:  # none at the start (steps are 1-based)
        ax.annotate(
            "",
            xy=X[i],
            xytext=(-28, 22),
            textcoords="offset points",
            arrowprops={"arrowstyle": "->", "color": "black", "lw": 2},
        )
    if separable is None:
        separable = _separable(X, y)
    # large enough to read in the GIF; from the axes' left edge, where it has the most room
    ax.set_title(_step_title(tr, step, separable), fontsize="large", loc="left")
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
    X: MatrixLike,
    y: ArrayLike,
    path: str | os.PathLike[str],
    mode: str = "online",
    eta: float = 1.0,
    bias_input: float = TEACHING_BIAS_INPUT,
    *,
    shuffle: bool = False,
    max_iter: int = 100,
    random_state: RandomStateLike = None,
    fps: float = 1.5,
    hold: float = HOLD_SECONDS,
    dpi: float = 80,
    max_frames: int = 120,
    size: tuple[int, int] | None = None,
    feature_names: Sequence[str] | None = None,
) -> Trace:
    """Write a GIF of the separating line moving, update by update.

    The "successive changes of the separating straight line" of the
    perceptron's worked example in the lecture notes (the modified OR problem,
    with the constant input -1). Runs :func:`rosenblatt.theory.trace.trace` and draws
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
        Passed to :func:`rosenblatt.theory.trace.trace` (the bias input defaults to
        the notes' -1, as there).
    fps : float, default=1.5
        Frames per second while the line moves.
    hold : float, default=HOLD_SECONDS
        Seconds the last frame (the converged line, or the last one of a run that
        stopped) stays before the GIF starts over.
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
    trace : rosenblatt.theory.trace.Trace
        The run that was drawn.

    Examples
    --------
    >>> import tempfile, os
    >>> from PIL import Image
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> path = os.path.join(tempfile.mkdtemp(), "or.gif")
    >>> tr = animate_training(X, y, path, size=(400, 300))
    >>> gif = Image.open(path)
    >>> gif.n_frames, gif.size  # the start and one frame per update
    (4, (400, 300))
    >>> gif.seek(3); gif.info["duration"]  # the converged line holds for 3 s
    3000
    """
    import io

    from .._core.files import write_atomically
    from ..theory.trace import trace

    path = os.fspath(path)
    if os.path.splitext(path)[1].lower() != ".gif":
        raise ValueError(f"animate_training writes a GIF; give a .gif path, not {path!r}.")
    X = dense_2d(X, "animate_training")
    y = np.asarray(y)
    axis_names(feature_names)  # a bad name fails before the training run
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
    separable = _separable(X, y)  # once, for every frame's title
    for step in _frames(tr, max_frames):
        plot_training_step(tr, X, y, step, ax=ax, feature_names=feature_names, separable=separable)
        frames.append(_frame_image(fig))
        # the first frame's layout for all: titles differ by a pixel, the axes must not
        fig.set_layout_engine("none")
    gif = io.BytesIO()
    # the last frame, where training ended, holds before the loop starts over
    durations = [int(1000 / fps)] * (len(frames) - 1) + [int(1000 * max(hold, 1 / fps))]
    frames[0].save(
        gif, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0
    )
    write_atomically(path, gif.getvalue())
    return tr
