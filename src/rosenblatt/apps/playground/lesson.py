"""A lesson to take home: the playground's state as a Jupyter notebook.

:func:`lesson_notebook` writes, for the points, learners and settings of a
playground run (:class:`~.runs.Settings`), a notebook that rebuilds everything
with the library alone, top to bottom in a fresh kernel: the points, the theory
(separability, the three margins, the mistake bound), each learner's step table
(:func:`rosenblatt.theory.trace.trace`, the same engine run the page shows), the
learners side by side as :func:`rosenblatt.apps.plot.plot_decision_boundary`
draws them, the numbers the page shows at its cursor, and, when asked, the
exercises as cells whose answers :func:`check_answer` checks. ``rosenblatt lesson``
and the page's Lesson button (``POST /api/lesson``) both call it.

The notebook is written with :mod:`nbformat` (a dependency of the package: the
notebook is only written here, no kernel is needed for that).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._core.files import check_writable, write_atomically
from .runs import COMPARE_ALGORITHMS, Settings

if TYPE_CHECKING:  # pragma: no cover
    from nbformat import NotebookNode

__all__ = ["EXERCISE_STEPS", "check_answer", "lesson_notebook", "write_lesson"]

#: the presentations an exercise section asks about (the first ones, as the page asks)
EXERCISE_STEPS = 8

#: the page's learners as the notebook names them: the main learner's algorithm, or a panel
_LABELS = {
    "online": "the perceptron (online)",
    "batch": "the perceptron (batch)",
    "perceptron": "the perceptron",
    "averaged": "the averaged perceptron (CIML Algorithm 7)",
    "voted": "the voted perceptron",
    "kernel": "the kernel perceptron",
    "budgeted-kernel": "the budgeted kernel perceptron",
}


def check_answer(trace: Any, presentation: int, answer: Any) -> str:
    """Check an exercise's answer: the weight vector after ``presentation`` (1-based).

    The verdict the playground gives: ``right`` or ``not quite`` with the engine's
    vector and the notes' rule applied to that pattern (``t w.x``, mistake or not,
    the update), or ``no answer yet`` for None.

    Parameters
    ----------
    trace : rosenblatt.theory.trace.Trace
        An online trace.
    presentation : int
        1 for the first presentation.
    answer : sequence of float or None
        The augmented weights ``[w_1, ..., w_d, w_0]`` after it.

    Returns
    -------
    str

    Examples
    --------
    >>> from rosenblatt.trace import trace
    >>> tr = trace([[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1])
    >>> check_answer(tr, 1, [1, 1, 1])
    'right: w = (1, 1, 1). t w.x = 0 <= 0: a mistake, so w <- w + eta t x.'
    >>> check_answer(tr, 4, [1, 1, 1])
    'not quite: w after presentation 4 is (1, 1, -1). t w.x = 3 > 0: no mistake, w stays.'
    """
    r = int(presentation) - 1
    if not 0 <= r < trace.step.shape[0]:
        raise ValueError(
            f"presentation must be from 1 to {trace.step.shape[0]}; got {presentation}"
        )
    want = trace.weights[trace.step[r]]
    shown = "(" + ", ".join(f"{v + 0.0:g}" for v in want) + ")"
    act = float(trace.activation[r]) + 0.0
    rule = f"t w.x = {act:g} " + (
        "<= 0: a mistake, so w <- w + eta t x." if trace.updated[r] else "> 0: no mistake, w stays."
    )
    if answer is None:
        return f"no answer yet: give the {want.shape[0]} numbers of w after presentation {r + 1}."
    got = np.asarray(answer, dtype=np.float64).ravel()
    if got.shape != want.shape:
        return f"give the {want.shape[0]} numbers of w (w_1, ..., w_0); got {got.shape[0]}."
    if np.all(np.abs(got - want) <= 1e-6 * np.maximum(1.0, np.abs(want))):
        return f"right: w = {shown}. {rule}"
    return f"not quite: w after presentation {r + 1} is {shown}. {rule}"


# ---------------------------------------------------------------------- cells
def _literal(values) -> str:
    """Python source of a list of numbers, as short as it reads back exactly."""
    return repr(np.asarray(values, dtype=np.float64).tolist())


def _estimator(name: str, s: Settings, main: bool) -> str:
    """Source of the estimator the page's learner ``name`` is (``main``: the page's own
    learner, else a panel), trained as the page trains it."""
    common = "eta=ETA, max_iter=EPOCHS, shuffle=SHUFFLE, random_state=SEED"
    if name.endswith("kernel"):
        # the page's kernel learner keeps its budget; a kernel panel has none, a budgeted
        # one the page's budget or half the points (BUDGET)
        budget = (
            "BUDGET" if name == "budgeted-kernel" else repr((s.budget or None) if main else None)
        )
        return (
            f"KernelPerceptron(kernel={s.kernel!r}, gamma={s.gamma!r}, degree={s.degree!r}, "
            f"{common}, prediction='last', budget={budget}, budget_policy={s.budget_policy!r})"
        )
    cls = {"averaged": "AveragedPerceptron", "voted": "VotedPerceptron"}.get(name, "Perceptron")
    mode = ", mode='batch'" if name == "batch" else ""
    return f"{cls}({common}, intercept_scaling=BIAS, tol=None{mode})"


def _learners(s: Settings) -> list[str]:
    """The page's learner, then its panels, in order."""
    return [s.algorithm, *s.compare]


def lesson_notebook(
    X: Any,
    y: Any,
    settings: Settings | None = None,
    *,
    cursor: int | None = None,
    exercises: bool = False,
    title: str | None = None,
) -> NotebookNode:
    """The playground's state as a notebook that rebuilds it with the library.

    Parameters
    ----------
    X : array-like of shape (n_points, 2)
    y : array-like of shape (n_points,)
        +1 / -1, as the page's labels.
    settings : Settings or None
        The page's learner, its panels (``compare``) and their settings; None: the
        page's defaults (the notes' worked example).
    cursor : int or None
        The presentations done on the page (its history slider); None: all of them.
    exercises : bool, default=False
        Add the exercises: for each of the first :data:`EXERCISE_STEPS`
        presentations, a cell for the answer that :func:`check_answer` checks.
    title : str or None
        The first heading.

    Returns
    -------
    nbformat.NotebookNode
        A version 4 notebook, validated.

    Examples
    --------
    >>> from rosenblatt.apps.playground.presets import preset
    >>> X, y = preset("or")
    >>> nb = lesson_notebook(X, y, Settings(compare=("averaged",)), exercises=True)
    >>> nb.nbformat, nb.cells[0].cell_type, sum(c.cell_type == "code" for c in nb.cells) > 8
    (4, 'markdown', True)
    """
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    s = settings or Settings()
    X = np.asarray(X, dtype=np.float64)
    y = np.where(np.asarray(y, dtype=np.float64) > 0, 1, -1)
    if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] != y.shape[0] or not X.shape[0]:
        raise ValueError(f"a lesson needs points of two coordinates, one label each; got {X.shape}")
    learners = _learners(s)
    kernel_main = s.algorithm == "kernel"
    budget = s.budget or max(1, X.shape[0] // 2)  # a budgeted panel: the page's budget, or half
    cells = []
    md, code = new_markdown_cell, new_code_cell
    names = ", ".join(_LABELS[name] for name in learners)
    cells.append(
        md(
            f"# {title or 'A perceptron lesson'}\n\n"
            f"The playground's state rebuilt with the `rosenblatt` library: {X.shape[0]} points, "
            f"{names}. Run it top to bottom (Kernel → Restart & Run All); every number comes "
            "from the library, as on the page.\n\n"
            "Class +1 is drawn as a blue circle, class −1 as an orange square, in every "
            "figure here and on the page."
        )
    )
    features = "notes_feature_map(X)" if s.feature_map else "X"
    cells.append(
        code(
            "import io\nimport json\n\n"
            "import numpy as np\n"
            "import pandas as pd\n"
            "from IPython.display import Image\n\n"
            "from rosenblatt import AveragedPerceptron, KernelPerceptron, Perceptron, "
            "VotedPerceptron\n"
            "from rosenblatt.apps.playground.lesson import check_answer\n"
            "from rosenblatt.apps.plot import new_figure, plot_decision_boundary\n"
            "from rosenblatt.theory import (\n"
            "    is_linearly_separable,\n    max_margin,\n    mistake_bounds,\n"
            "    notes_feature_map,\n)\n"
            "from rosenblatt.trace import trace\n\n"
            f"X = np.array({_literal(X)})\n"
            f"y = np.array({y.tolist()!r})\n"
            f"Z = {features}  # what the learners see\n"
            f"ETA, BIAS, SHUFFLE, SEED, EPOCHS = {s.eta!r}, {s.bias!r}, {s.shuffle!r}, "
            f"{s.seed!r}, {s.epochs!r}\n"
            f"BUDGET = {budget!r}  # a budgeted kernel's support vectors at most"
        )
    )
    cells.append(
        md(
            "## The theory\n\nIs there a separating line, and how wide is the margin? Three "
            "margins describe one data set (`rosenblatt inspect --help` explains them): the "
            "separator's geometric margin, the augmented margin γ of the patterns (x, bias "
            "input) that Block and Novikoff's bound (R/γ)² uses, and the normalized γ/R."
        )
    )
    cells.append(
        code(
            "separable = bool(is_linearly_separable(Z, y))\n"
            "print('linearly separable:', separable)\n"
            "if separable:\n"
            "    bounds = mistake_bounds(Z, y, intercept_scaling=abs(BIAS))\n"
            '    print("the separator\'s geometric margin:", round(max_margin(Z, y).margin, 6))\n'
            "    print('the augmented margin γ:', round(bounds.margin, 6), ' R:', "
            "round(bounds.radius, 6))\n"
            "    print('the normalized margin γ/R:', round(bounds.unit_norm_margin, 6))\n"
            "    print('mistake bound (R/γ)² = 1/(γ/R)²:', bounds.novikoff)"
        )
    )
    # the engine's run the page shows: one online trace for the linear learners
    mode = "batch" if s.algorithm == "batch" else "online"
    cells.append(
        md(
            "## Step by step\n\nThe engine's run, one row per presentation: the notes' table "
            "(a/a, w before, t x, t w·x, update, Δw). An update happens when t w·x ≤ 0."
        )
    )
    trace_call = (
        "trace(Z, y, mode={mode!r}, eta=ETA, bias_input=BIAS, shuffle=SHUFFLE, "
        "max_iter=EPOCHS, random_state=SEED)"
    )
    cells.append(
        code(
            f"tr = {trace_call.format(mode=mode)}\n"
            + (
                f"online = {trace_call.format(mode='online')}  # the panels' run\n"
                if mode == "batch"
                else "online = tr\n"
            )
            + "print(tr)"
        )
    )
    c = cursor
    cells.append(
        md(
            "## Each learner, presentation by presentation\n\n"
            "The weights after each presentation (`w_1`, `w_2`, …, `w_0`, the weight of the "
            "bias input): the last ones for the perceptron, CIML Algorithm 7's average of "
            "w_0 … w_c for the averaged perceptron, the vector in force with its votes for "
            "the voted perceptron, the support vectors for a kernel perceptron."
        )
    )
    columns = "columns=[f'w_{j}' for j in range(1, Z.shape[1] + 1)] + ['w_0']"
    for k, name in enumerate(learners):
        if name in ("online", "batch", "perceptron"):
            run = "tr" if name == "batch" else "online"
            source = (
                f"pd.DataFrame({run}.weights, {columns}).rename_axis("
                f"{'after epoch' if name == 'batch' else 'after presentation'!r})"
            )
        elif name == "averaged":
            source = (
                "# Algorithm 7 after c presentations: the mean of w_0 .. w_c, the rows so far\n"
                "averaged = np.cumsum(online.weights, axis=0) / "
                "np.arange(1, online.weights.shape[0] + 1)[:, None]\n"
                f"pd.DataFrame(averaged, {columns}).rename_axis('after presentation')"
            )
        elif name == "voted":
            source = (
                "# every weight vector w_k the run passed through, and c_k, the presentations\n"
                "# after which it was in force: the vote is sign(sum_k c_k sign(w_k . x + b_k))\n"
                f"voted = {_estimator(name, s, k == 0)}.fit(Z, y)\n"
                "pd.DataFrame({'w_k': [tuple(np.round(w, 6)) for w in voted.voted_coef_], "
                "'b_k': np.round(voted.voted_intercept_, 6), 'c_k': voted.votes_})"
            )
        else:
            source = (
                f"kernel = {_estimator(name, s, k == 0)}.fit(Z, y)\n"
                "print('support vectors (rows of X):', kernel.support_.tolist())\n"
                "print('their alpha_j t_j:', np.round(kernel.dual_coef_, 6).tolist())\n"
                "print('updates at presentations:', (kernel.update_time_ + 1).tolist())"
            )
        cells.append(md(f"### {_LABELS[name][0].upper() + _LABELS[name][1:]}"))
        cells.append(code(source))
    # side by side, as the page draws them
    plot_lines = [
        f"fig, axes = new_figure(4.5 * {len(learners)}, 4.2, ncols={len(learners)})",
        "axes = np.atleast_1d(axes)",
        "models = {",
    ]
    for k, name in enumerate(learners):
        plot_lines.append(f"    {name!r}: {_estimator(name, s, k == 0)},")
    plot_lines.append("}")
    pipe = (
        "make_pipeline(FunctionTransformer(notes_feature_map), model)" if s.feature_map else "model"
    )
    plot_lines += [
        "for ax, (name, model) in zip(axes, models.items()):",
        f"    fitted = {pipe}.fit(X, y)",
        "    plot_decision_boundary(fitted, X, y, ax=ax, title=name)",
        "image = io.BytesIO()",
        "fig.savefig(image, format='png', dpi=80)  # the figure has no pyplot backend: as PNG",
        "Image(image.getvalue())",
    ]
    imports = (
        "from sklearn.pipeline import make_pipeline\n"
        "from sklearn.preprocessing import FunctionTransformer\n\n"
        if s.feature_map
        else ""
    )
    cells.append(
        md(
            "## Side by side\n\nEach learner trained on the same points in the same order, "
            "for the run's epochs, drawn with the library's plot."
        )
    )
    cells.append(code(imports + "\n".join(plot_lines)))
    # the numbers the page shows at its cursor; a run that ended holds its last state
    summary = [
        f"CURSOR = {None if c is None else int(c)!r}  # presentations done (None: the end)",
        "",
        "",
        "def at(n_rows):",
        "    # the page's cursor on a run of n_rows presentations",
        "    return n_rows if CURSOR is None else min(CURSOR, n_rows)",
        "",
        "",
        "numbers = {}",
        "c = at(online.pattern.shape[0])",
        "so_far = int(online.updated[:c].sum())",
    ]
    for k, name in enumerate(learners):
        key = "page" if k == 0 else f"panel {k}: {name}"
        if name.endswith("kernel"):
            summary.append(
                f"fit = {_estimator(name, s, k == 0)}.fit(Z, y)\n"
                f"numbers[{key!r}] = {{'weights': None, "
                "'mistakes': int(np.sum(fit.update_time_ < at(fit.n_presented_[0])))}"
            )
        elif name == "batch":
            summary.append(
                "b = at(tr.pattern.shape[0])  # the epoch's sum lands after its last pattern\n"
                f"numbers[{key!r}] = {{'weights': np.round(tr.weights[b // len(X)], 6)"
                ".tolist(), 'mistakes': int(tr.updated[:b].sum())}"
            )
        elif name == "averaged" and k > 0:  # a panel: the mean of w_0 .. w_c
            summary.append(
                f"numbers[{key!r}] = {{'weights': np.round(online.weights[: c + 1]"
                ".mean(axis=0), 6).tolist(), 'mistakes': so_far}"
            )
        else:
            summary.append(
                f"numbers[{key!r}] = {{'weights': np.round(online.weights[c], 6).tolist(), "
                "'mistakes': so_far}"
            )
            if name == "averaged":  # the page's own averaged line: AveragedPerceptron's
                summary.append(
                    f"numbers[{key!r}]['averaged'] = np.round(online.averaged[c], 6).tolist()"
                )
    summary.append("print(json.dumps(numbers))")
    cells.append(
        md(
            "## What the page showed\n\nEach learner's weights and mistakes after the "
            "presentations done on the page (its cursor), rounded as the page rounds them."
        )
    )
    cells.append(code("\n".join(summary)))
    if exercises:
        cells.append(
            md(
                "## Exercises\n\nFor each presentation: the weights before it are given; "
                "write the weights after it (w_1, w_2, w_0) in `answer`, then run the cell: "
                "`check_answer` compares it with the engine's and applies the notes' rule."
            )
        )
        steps = min(EXERCISE_STEPS, int(X.shape[0]) * s.epochs)
        for presentation in range(1, steps + 1):
            cells.append(
                md(f"**Presentation {presentation}.** Pattern, target and weights before it:")
            )
            cells.append(
                code(
                    f"r = {presentation - 1}\n"
                    "print('pattern', online.pattern[r] + 1, 'x =', Z[online.pattern[r]], "
                    "'bias input', BIAS, 't =', y[online.pattern[r]], 'eta =', ETA)\n"
                    "print('w before it:', online.weights[r])\n"
                    "answer = None  # your w after it, e.g. [1, 1, 1]\n"
                    f"print(check_answer(online, {presentation}, answer))"
                )
            )
    if kernel_main:
        cells.append(
            md(
                "The page's learner is a kernel perceptron: the step table above is the "
                "linear perceptron's on the same points, for comparison."
            )
        )
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.validate(nb)
    return nb


def write_lesson(
    path: str | os.PathLike[str],
    X: Any,
    y: Any,
    settings: Settings | None = None,
    **kwargs: Any,
) -> str:
    """Write :func:`lesson_notebook` to ``path`` (``.ipynb``), atomically; return the path."""
    import nbformat

    path = os.fspath(path)
    if not path.endswith(".ipynb"):
        raise ValueError(f"a lesson is a Jupyter notebook: give a .ipynb path, not {path!r}")
    check_writable(path)
    text = nbformat.writes(lesson_notebook(X, y, settings, **kwargs))
    write_atomically(path, text.encode("utf-8"))
    return path


def panels_of(names: str | None) -> tuple[str, ...]:
    """``--compare A,B``: the panels' learners, checked as the page's request is."""
    if not names:
        return ()
    chosen = tuple(name.strip() for name in names.split(",") if name.strip())
    unknown = [name for name in chosen if name not in COMPARE_ALGORITHMS]
    if unknown:
        raise ValueError(
            f"{unknown[0]!r} is no learner a lesson compares; choose from "
            f"{', '.join(COMPARE_ALGORITHMS)}"
        )
    return chosen


def settings_for(settings: Settings, X: np.ndarray) -> Settings:
    """The page's settings with the epochs it asks for ``X`` (:func:`.runs.page_epochs`)."""
    from .runs import page_epochs

    return replace(settings, epochs=page_epochs(X.shape[0], settings))
