"""Figures and animations of perceptron training (matplotlib, imported only when used).

Figures are built on :class:`matplotlib.figure.Figure` with the Agg canvas
rather than through ``pyplot``: nothing here touches the global backend or
keeps figures alive, so the functions work on a headless server, in a test
run and in a notebook alike.

- :func:`plot_decision_boundary`: 2-D data, the model's boundary and its margin.
- :func:`plot_mistakes`: mistakes per epoch.
- :func:`plot_scores`: accuracies of several algorithms on several datasets.
- :func:`plot_losses`: the 0-1 loss and its surrogates against the margin.
- :func:`plot_training_step`: the separating line after one step of a
  :func:`rosenblatt.theory.trace.trace` run.
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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.config import PLOT_GRID_POINTS
from . import _plot_figures
from ._plot_animation import animate_training, plot_training_step
from ._plot_figures import (
    Z_BOUNDARY,
    Z_CLOSEST,
    Z_MAX_MARGIN,
    Z_SUPPORT,
    axis_names,
    dense_2d,
    legend_below,
    limits,
    new_figure,
    pixel_figure_size,
    save_figure,
    scatter,
    shade_regions,
)

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from .._core.typing import ArrayLike, MatrixLike

__all__ = [
    "ANIMATION_SIZE",
    "PIXEL_RANGE",
    "STILL_SIZE",
    "animate_training",
    "new_figure",
    "pixel_figure_size",
    "plot_decision_boundary",
    "plot_losses",
    "plot_mistakes",
    "plot_scores",
    "plot_training_step",
    "save_figure",
]

#: the design size (inches) of the still figures and of the animation's frames
STILL_SIZE = _plot_figures.STILL_SIZE
ANIMATION_SIZE = _plot_figures.ANIMATION_SIZE

#: the smallest and the largest side of an image, in pixels (:func:`pixel_figure_size`)
PIXEL_RANGE = _plot_figures.PIXEL_RANGE


def _name(model) -> str:
    """The class of the classifier drawn: a pipeline's last step's."""
    steps = getattr(model, "steps", None)
    return type(steps[-1][1] if steps else model).__name__


def _final(model):
    """A pipeline's last step, or the model itself."""
    steps = getattr(model, "steps", None)
    return steps[-1][1] if steps else model


def _boundary_label(model) -> str:
    """The legend's name of the boundary drawn: which weights or which prediction."""
    from ..estimators.linear import AveragedPerceptron, Perceptron, VotedPerceptron

    final = _final(model)
    what = ""
    if isinstance(final, AveragedPerceptron):
        what = " (averaged weights)"
    elif isinstance(final, VotedPerceptron):
        what = " (the vote of every weight vector)"
    elif isinstance(final, Perceptron):
        what = " (last weights)"
    elif getattr(final, "prediction", None) in ("last", "averaged", "voted"):
        what = f" ({final.prediction} prediction)"
    return f"{_name(model)} boundary{what}"


def _inseparable_note(model, X, y, classes) -> str | None:
    """What the title says when no line separates the data (None when one does, or when
    the LP cannot tell): that, and for a linear learner that it did not converge."""
    from ..theory import SolverError, is_linearly_separable

    try:
        if len(classes) == 2:
            if is_linearly_separable(X, y):
                return None
            which = ""
        else:
            apart = [label for label in classes if not is_linearly_separable(X, y == label)]
            if not apart:
                return None
            which = f" (class {', '.join(str(c) for c in apart[:3])} against the rest)"
    except (SolverError, ValueError):
        return None
    final = _final(model)
    if getattr(final, "converged_", True) is False:  # a perceptron that ran out of epochs
        return f"not linearly separable{which}: no convergence in {final.n_iter_} epochs"
    return f"not linearly separable{which}: no line separates the classes"


def _is_linear(model) -> bool:
    """The decision function is ``X @ coef_.T + intercept_`` (not a vote or a kernel)."""
    from ..estimators.linear import VotedPerceptron

    return (
        hasattr(model, "coef_")
        and hasattr(model, "intercept_")
        and not isinstance(model, VotedPerceptron)
        and not hasattr(model, "dual_coef_")
    )


def plot_decision_boundary(
    model: Any,
    X: MatrixLike,
    y: ArrayLike,
    ax: Axes | None = None,
    margin: bool = True,
    title: str | None = None,
    *,
    feature_names: Sequence[str] | None = None,
) -> Axes:
    """Draw 2-D data, the model's decision regions and boundary, and the margin.

    Each class is drawn, points and region, in its colour and marker of
    :mod:`rosenblatt.apps.palette` (the playground's), and the legend says which.
    For a two-class model the boundary is the zero level of ``decision_function``,
    named in the legend by what the model predicts with (the last or the averaged
    weights, the vote); a boundary outside the drawn area is not drawn, and the
    legend says so instead of naming a line that is not there. With
    ``margin=True`` and a linear model (a perceptron's last or averaged weights, a
    baseline) two dotted lines run through the closest point of each class,
    parallel to the boundary, and the legend gives the model's geometric margin on
    the data (the distance from its line to the closest point); when the data are
    linearly separable, the maximum-margin hyperplane of
    :func:`rosenblatt.theory.max_margin` is drawn too, with its margin band and its
    geometric margin. The model's boundary is drawn over the maximum-margin line (a
    wide, pale green band), so both stay visible where they coincide, as on the
    modified OR problem. Data that are not linearly separable (the LP of
    :func:`rosenblatt.theory.is_linearly_separable`) get a second title line that
    says so, and for a perceptron that it did not converge. The legend sits under
    the axes.

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
    >>> [text.get_text() for text in ax.get_legend().get_texts()][:1]
    ['Perceptron boundary (last weights)']

    XOR, which no line separates:

    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, -1]
    >>> model = Perceptron(shuffle=False, max_iter=5, tol=None)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ax = plot_decision_boundary(model.fit(X, y), X, y)
    >>> print(ax.get_title())
    Perceptron: decision boundary
    not linearly separable: no convergence in 5 epochs
    """
    X = dense_2d(X)
    y = np.asarray(y)
    xlabel, ylabel = axis_names(feature_names)
    if ax is None:
        _, ax = new_figure()
    low, high = limits(X)
    xx, yy = np.meshgrid(
        np.linspace(low[0], high[0], PLOT_GRID_POINTS),
        np.linspace(low[1], high[1], PLOT_GRID_POINTS),
    )
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    classes = np.asarray(getattr(model, "classes_", np.unique(y)))
    predicted = np.searchsorted(classes, model.predict(grid)).reshape(xx.shape)
    shade_regions(ax, xx, yy, predicted, len(classes))
    if len(classes) == 2:
        scores = np.asarray(model.decision_function(grid)).reshape(xx.shape)
        if scores.min() < 0.0 < scores.max():  # its zero level crosses the drawn area
            boundary = ax.contour(
                xx, yy, scores, levels=[0.0], colors="black", linewidths=2, zorder=Z_BOUNDARY
            )
            boundary.set_gid("decision boundary")  # tests and SVG readers find it by this id
            ax.plot([], [], color="black", linewidth=2, label=_boundary_label(model))
        else:  # one class everywhere: say so rather than name a line that is not drawn
            from .palette import REGION_ALPHA, class_style

            k = int(scores.max() > 0.0)
            ax.fill_between(
                [],
                [],
                color=class_style(k).color,
                alpha=REGION_ALPHA,
                label=f"{_name(model)}: class {classes[k]} everywhere (no boundary in view)",
            )
        if margin:
            _draw_margins(ax, model, X, y, classes, xx, yy, grid)
    else:
        ax.contour(
            xx, yy, predicted, levels=np.arange(len(classes)) + 0.5, colors="black", linewidths=1.2
        )
    scatter(ax, X, y, classes)
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    heading = title or f"{_name(model)}: decision boundary"
    note = _inseparable_note(model, X, y, classes)
    ax.set_title(heading if note is None else f"{heading}\n{note}")
    legend_below(ax, ncols=2)
    return ax


def _draw_margins(ax, model, X, y, classes, xx, yy, grid):
    from ..engine.targets import TargetCoding
    from ..exceptions import NotSeparableError
    from ..theory import SolverError, max_margin

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
                zorder=Z_CLOSEST,
            )
            gamma = min(near_pos, -near_neg) / norm
            ax.plot(
                [],
                [],
                color="black",
                linestyle="dotted",
                label=f"through the closest points (its geometric margin {gamma:.3g})",
            )
    try:
        best = max_margin(X, y)
    except (NotSeparableError, ImportError, SolverError, ValueError):
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
        zorder=Z_MAX_MARGIN,
    )
    widest.set_gid("maximum margin")
    ax.plot(
        [],
        [],
        color="tab:green",
        linewidth=6,
        alpha=0.55,
        label=f"maximum-margin line (geometric margin {best.margin:.3g})",
    )
    support = X[best.support]
    ax.scatter(
        support[:, 0],
        support[:, 1],
        s=160,
        facecolors="none",
        edgecolors="tab:green",
        linewidth=1.5,
        zorder=Z_SUPPORT,
    )


def plot_mistakes(
    model: Any, ax: Axes | None = None, label: str | None = None, title: str | None = None
) -> Axes:
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
    top = max(max(np.ravel(line.get_ydata()), default=0) for line in ax.lines)
    ax.set_ylim(0, 1.05 * top + 1)  # from zero, and high enough for every model drawn here
    if len(history) <= 12:
        ax.set_xticks(epochs)
    ax.set_title(title or "Mistakes per epoch")
    ax.grid(alpha=0.3)
    legend_below(ax, ncols=min(len(ax.lines), 4))
    return ax


def plot_scores(
    datasets: Sequence[str],
    algorithms: Sequence[str],
    scores: ArrayLike,
    ax: Axes | None = None,
    title: str = "Test accuracy",
) -> Axes:
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
    legend_below(ax, ncols=min(n, 4))
    return ax


def plot_losses(
    ax: Axes | None = None, z_range: tuple[float, float] = (-2.0, 2.0), title: str | None = None
) -> Axes:
    """Draw the 0-1 loss and its surrogates against the margin ``z = t f(x)``.

    One labelled curve per loss of :data:`rosenblatt.theory.losses.LOSSES` (0-1,
    perceptron, hinge, squared, logistic), with its formula in the legend, which
    sits under the axes; a grey line marks the boundary ``z = 0``. The 0-1 loss
    is drawn as a step down at ``z = 0``, the last margin that counts as a mistake.
    The logistic loss is the base-2 one (1 at ``z = 0``), and a note in the axes
    says which surrogates lie on or above the 0-1 loss
    (:data:`rosenblatt.theory.losses.UPPER_BOUNDS`) and that the perceptron loss
    does not.

    Parameters
    ----------
    ax : matplotlib Axes, default=None
        Draw here; a new figure is made when None.
    z_range : (float, float), default=(-2.0, 2.0)
        The margins on the x axis.
    title : str, default=None

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_losses()
    >>> ax.get_legend_handles_labels()[1][:2]
    ['0-1: [z ≤ 0]', 'perceptron: max(0, −z)']
    >>> print(ax.texts[0].get_text())
    on or above the 0-1 loss (upper bounds):
    hinge, squared, logistic (log base 2);
    not the perceptron loss
    """
    from ..theory.losses import FORMULAS, LOSSES, UPPER_BOUNDS

    if ax is None:
        _, ax = new_figure()
    low, high = z_range
    # an odd number of points on a symmetric range puts one exactly at z = 0
    z = np.linspace(low, high, 401)
    ax.axvline(0.0, color="0.6", linewidth=1)
    for name, loss in LOSSES.items():
        # "steps-pre": each point's value holds back to the previous point, so the 0-1
        # loss is 1 up to z = 0 itself and falls there, not one grid step later
        style = "steps-pre" if name == "0-1" else "default"
        ax.plot(z, loss(z), drawstyle=style, linewidth=2, label=f"{name}: {FORMULAS[name]}")
    bounds = ", ".join(
        f"{name} (log base 2)" if name == "logistic" else name for name in UPPER_BOUNDS
    )
    ax.text(
        0.98,
        0.97,
        f"on or above the 0-1 loss (upper bounds):\n{bounds};\nnot the perceptron loss",
        transform=ax.transAxes,
        ha="right",
        va="top",
        fontsize="small",
        bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "0.8"},
    )
    ax.set_xlim(low, high)
    ax.set_ylim(-0.1, 4.0)  # the squared loss leaves the top: its growth is the point
    ax.set_xlabel("margin z = t f(x)")
    ax.set_ylabel("loss")
    ax.set_title(title or "The 0-1 loss and its surrogates")
    ax.grid(alpha=0.3)
    legend_below(ax, ncols=3)
    return ax
