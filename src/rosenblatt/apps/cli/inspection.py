"""``rosenblatt inspect``: what the theory says about a data set before any training."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Annotated

import numpy as np
from rich.table import Table

from ._common import auto, console, err_console, jsonable, parse_label_column, working
from ._options import Data, Format, Header, Json, LabelColumn, ZeroBased, more_help
from ._words import in_option_words


@dataclass
class Problem:
    """One two-class problem: the data set itself, or one class against the rest."""

    name: str
    separable: bool
    margin: float | None = None
    mistake_bound: float | None = None
    note: str = ""
    # the bounds' R, gamma and beta: of the patterns (x, 1) the perceptron learns from, so
    # that (augmented_radius / augmented_margin)^2 is mistake_bound (Block-Novikoff)
    augmented_radius: float | None = None
    augmented_margin: float | None = None
    augmented_beta: float | None = None
    notes_bound: float | None = None  # beta / gamma^2, the lecture notes' proof
    unit_norm_bound: float | None = None  # 1 / gamma^2 of (x, 1) / R: mistake_bound again
    no_bounds: str = ""  # why there are no mistake bounds (inseparable, or a solver's failure)
    # gamma / R: the margin of the patterns (x, 1) / R, whose 1 / (gamma / R)^2 is the bound
    unit_norm_margin: float | None = None


@dataclass
class InspectResult:
    """Size, classes and the separability facts of a data set."""

    path: str
    data_format: str
    n_samples: int
    n_features: int
    classes: dict
    radius: float  # max |x|, of the patterns themselves
    augmented_radius: float  # max |(x, ±1)|, of the patterns with the bias input (the bounds' R)
    problems: list
    notes: list = field(default_factory=list)


def _problem(name, X, y, theory):
    from ...exceptions import NotSeparableError

    try:
        lp = theory.is_linearly_separable(X, y)
    except (theory.SolverError, ValueError) as exc:
        note = f"separability not decided: {exc}"
        return Problem(name, False, note=note, no_bounds=note)
    if not lp:
        return Problem(
            name,
            False,
            note=f"least total slack {lp.total_slack:.4g}",
            no_bounds="not linearly separable: no hyperplane has a margin γ > 0, so the "
            "perceptron never stops making mistakes and no mistake bound exists",
        )
    problem = Problem(name, True)
    try:
        problem.margin = float(theory.max_margin(X, y).margin)
        bounds = theory.mistake_bounds(X, y)
        problem.augmented_radius, problem.augmented_margin = bounds.radius, bounds.margin
        problem.augmented_beta = bounds.beta
        problem.mistake_bound = bounds.novikoff
        problem.notes_bound, problem.unit_norm_bound = bounds.notes, bounds.unit_norm
        problem.unit_norm_margin = bounds.unit_norm_margin
    except (NotSeparableError, theory.SolverError, ValueError) as exc:
        problem.note = problem.no_bounds = f"margin not computed: {exc}"
    return problem


def inspect_data(
    data_path: str | os.PathLike[str],
    *,
    label_column: str | int | None = None,
    zero_based: bool | str = "auto",
    header: bool | str = "auto",
    format: str | None = None,
) -> InspectResult:
    """Count samples, features and classes; decide separability; give margin, radius, bound.

    For two classes, one problem; for more, one problem per class against the
    rest (what a one-vs-rest perceptron learns). Each problem carries the three
    margins of :data:`rosenblatt.theory.MARGINS`: ``margin``, the separator's
    geometric margin (the largest distance from a hyperplane with intercept to the
    nearest pattern, :func:`rosenblatt.theory.max_margin`), ``augmented_margin``
    (Block and Novikoff's ``gamma`` of the patterns ``(x, 1)``) and
    ``unit_norm_margin`` (``gamma / R``, of the patterns scaled to norm 1); the
    mistake bound is Block and
    Novikoff's ``(R / gamma)^2`` for :class:`rosenblatt.Perceptron`'s
    augmented patterns ``(x, 1)`` (:func:`rosenblatt.theory.mistake_bound`),
    beside the notes' proof's ``beta / gamma^2`` and the unit-norm ``1 / gamma^2``
    (:func:`rosenblatt.theory.mistake_bounds`), and each problem carries that
    ``R``, ``gamma`` and ``beta`` beside the plain radius and margin, which give
    other numbers: ``radius`` is that of the patterns ``x``, ``augmented_radius`` that
    of ``(x, ±1)``, which the bounds' ``R`` is, and a problem without bounds says why
    in ``no_bounds``. Text is
    vectorised first, as ``rosenblatt train`` does. ``zero_based`` (svmlight)
    and ``header`` (CSV) are passed to the reader, and ``format`` names the data's
    format when its extension does not; the reader's notes come first in ``notes``.

    Returns
    -------
    InspectResult
    """
    from ... import theory
    from ...data.io import read_data
    from .train import text_features

    data = read_data(
        data_path,
        label_column=label_column,
        zero_based=zero_based,
        header=header,
        format=format,
    )
    X, notes = data.X, list(data.notes)
    if data.is_text:
        for _, step in text_features():
            X = step.fit_transform(X)
        notes.append("features: tf/df-weighted word counts, as `rosenblatt train` makes them")
    assert data.y is not None  # read labelled
    labels, counts = np.unique(data.y, return_counts=True)
    if labels.shape[0] < 2:
        only = labels[:1].tolist()[0]
        raise ValueError(f"{data.path}: only one class ({only!r}); a classifier needs two")
    if labels.shape[0] == 2:
        problems = [_problem("all samples", X, data.y, theory)]
    else:
        problems = [_problem(f"{label} vs rest", X, data.y == label, theory) for label in labels]
    return InspectResult(
        path=data.path,
        data_format=data.format,
        n_samples=data.n_samples,
        n_features=int(X.shape[1]),
        classes=dict(zip(jsonable(labels), jsonable(counts))),
        radius=float(theory.radius(X)),
        augmented_radius=float(theory.radius(theory.augment(X, 1.0))),
        problems=problems,
        notes=notes,
    )


def _number(value):
    return "-" if value is None else f"{value:.6g}"


def _table(title, caption, columns, rows):
    table = Table(title=title, caption=caption)
    for column in columns:
        table.add_column(column, justify="left" if column in ("problem", "note") else "right")
    for row in rows:
        table.add_row(*row)
    return table


def _separability_table(problems):
    return _table(
        "Linear separability",
        "with an intercept (the LP)",
        ("problem", "separable", "note"),
        [(p.name, "yes" if p.separable else "no", p.note) for p in problems],
    )


#: the margins table's columns, named after :data:`rosenblatt.theory.MARGINS`
MARGIN_COLUMNS = (
    "separator's geometric margin",
    "augmented margin γ of (x, 1)",
    "normalized margin γ/R",
)


def _margins_table(problems):
    """The three margins of each separable problem, each named."""
    return _table(
        "Three margins (the notes' words)",
        "geometric: margin(D) of the best separator w·x + b, the distance from its line to "
        "the nearest pattern; γ: of the best unit vector through the origin on the patterns "
        "(x, 1), Block-Novikoff's, with R = max |(x, 1)|; γ/R: γ of the patterns scaled to "
        "|x| ≤ 1, the theorem's for ||x|| ≤ 1. Only γ and γ/R enter a bound.",
        ("problem", *MARGIN_COLUMNS),
        [
            (p.name, *map(_number, (p.margin, p.augmented_margin, p.unit_norm_margin)))
            for p in problems
        ],
    )


def _bounds_table(problems):
    """The three mistake bounds of the separable problems, each beside the margin it uses."""
    return _table(
        "Mistake bounds of the perceptron, on its patterns (x, 1)",
        "From zero weights the online perceptron makes at most (R/γ)² ≤ β/γ² updates "
        "(Block-Novikoff; the notes' proof); 1/(γ/R)² is the theorem for the patterns scaled "
        "to |x| ≤ 1, whose margin is γ/R: the same number as (R/γ)².",
        ("problem", "R", "γ", "(R/γ)²", "β = Σ|x|²", "β/γ²", "γ/R", "1/(γ/R)²"),
        [
            (
                p.name,
                *map(
                    _number,
                    (
                        p.augmented_radius,
                        p.augmented_margin,
                        p.mistake_bound,
                        p.augmented_beta,
                        p.notes_bound,
                        p.unit_norm_margin,
                        p.unit_norm_bound,
                    ),
                ),
            )
            for p in problems
        ],
    )


# inspect's own words on the options it shares
_Data = Annotated[str, more_help(Data, "Labelled.")]
_Json = Annotated[bool, more_help(Json, "Instead of the tables: the same facts.")]


def command(
    data: _Data,
    label_column: LabelColumn = None,
    as_json: _Json = False,
    zero_based: ZeroBased = None,
    header: Header = None,
    data_format: Format = None,
) -> None:
    """Samples, features, classes, linear separability, the three margins, radius, mistake
    bounds.

    Three margins describe a separable data set, and only the last two enter a
    mistake bound. On the notes' modified OR problem (the corners of the square,
    class -1 only at (-1, -1)):

      margin              the notes' words                OR      bound
      separator's         margin(D): the best w.x + b,    0.7071  none
      geometric margin    its line's distance to the
                          nearest pattern
      augmented margin γ  the best unit w* through 0 on   0.5774  (R/γ)² = 9
      (Block-Novikoff)    the patterns (x, 1); their
                          radius R = 1.7321
      normalized margin   γ of the patterns scaled to     0.3333  1/(γ/R)² = 9
      γ/R (|x| ≤ 1)       norm 1, (x, 1)/R

    The first is what a picture of the data shows (1/√2); the bias input adds a
    coordinate, which shrinks it to γ = 1/√3; scaling to the unit ball divides
    that by R = √3. The notes' proof's β/γ² (β = Σ|x|²) is in the bounds table."""
    _run(**locals())


def _run(
    data: str,
    *,
    label_column: str | None,
    as_json: bool,
    zero_based: bool | None,
    header: bool | None,
    data_format: str | None,
) -> None:
    """What ``rosenblatt inspect`` does with its options: inspect DATA, then print the facts
    (tables, or ``as_json``) and the reading's notes."""
    with working(f"inspecting {data}: separability (LP), margin, radius..."):
        result = inspect_data(
            data,
            label_column=parse_label_column(label_column),
            zero_based=auto(zero_based),
            header=auto(header),
            format=data_format,
        )
    if as_json:
        print(json.dumps(jsonable(asdict(result))))
        return
    overview = Table(title=os.path.basename(result.path), show_header=False)
    overview.add_column(style="bold")
    overview.add_column()
    overview.add_row("samples", str(result.n_samples))
    overview.add_row("features", str(result.n_features))
    overview.add_row("classes", ", ".join(f"{k} ({v})" for k, v in result.classes.items()))
    overview.add_row("radius of x, max |x|", _number(result.radius))
    overview.add_row("radius of (x, bias input), max |(x, ±1)|", _number(result.augmented_radius))
    console.print(overview)
    console.print(_separability_table(result.problems))
    separable = [p for p in result.problems if p.mistake_bound is not None]
    if separable:
        console.print(_margins_table(separable))
        console.print(_bounds_table(separable))
    for problem in result.problems:  # a missing table says why
        if problem.no_bounds:
            console.print(
                f"no mistake bounds for {problem.name}: {problem.no_bounds}", markup=False
            )
    for note in result.notes:  # what the reading decided: not the report, standard error
        err_console.print(f"note: {in_option_words(note)}", markup=False)
