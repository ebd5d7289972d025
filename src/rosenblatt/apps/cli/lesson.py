"""``rosenblatt lesson``: the playground's state as a Jupyter notebook to hand out."""

from __future__ import annotations

from typing import Annotated

from ._common import err_console
from ._options import Compare, Exercises, LessonData, Out, Preset, more_help


def make_lesson(
    out: str,
    *,
    preset: str | None = None,
    data: str | None = None,
    compare: str | None = None,
    exercises: bool = False,
) -> str:
    """Write the lesson notebook of a preset or a data file (what the page's Lesson button
    writes for the same points and learners, the notes' online perceptron first, at the end
    of the run); return its path.

    Examples
    --------
    >>> import os, tempfile
    >>> path = make_lesson(os.path.join(tempfile.mkdtemp(), "or.ipynb"), preset="or")
    >>> path.endswith("or.ipynb")
    True
    """
    from ..._core.files import check_readable
    from ..playground.lesson import panels_of, settings_for, write_lesson
    from ..playground.presets import PRESETS
    from ..playground.presets import preset as preset_points
    from ..playground.runs import parse_request
    from ..playground.uploads import read_points

    if preset is not None and data is not None:
        raise ValueError("give --preset or --data, not both")
    if data is not None:
        check_readable(data, what="data file")
        with open(data, "rb") as handle:
            uploaded = read_points(handle.read(), data)
        points, labels = uploaded.points, uploaded.labels
        title = f"A perceptron lesson on {data}"
    else:
        name = preset or "or"
        if name not in PRESETS:
            raise ValueError(f"unknown --preset {name!r}; choose one of {', '.join(PRESETS)}")
        X, y = preset_points(name)
        points, labels = X.tolist(), y.astype(int).tolist()
        title = f"A perceptron lesson: {PRESETS[name]}"
    # checked as the page's request is: the same settings, the same bounds
    X, y, settings = parse_request(
        {
            "points": points,
            "labels": labels,
            "compare": list(panels_of(compare)),
        }
    )
    return write_lesson(out, X, y, settings_for(settings, X), exercises=exercises, title=title)


# lesson's own words on the options it shares
_Preset = Annotated[str | None, more_help(Preset, "The default: or, the notes' worked example.")]


def command(
    out: Out,
    preset: _Preset = None,
    data: LessonData = None,
    compare: Compare = None,
    exercises: Exercises = False,
) -> None:
    """Write a Jupyter notebook that rebuilds a playground lesson with the library.

    The points, each learner's step table, the learners side by side, the theory
    (separability, the three margins, the bound) and, with --exercises, a cell per
    presentation whose answer the library checks. It runs top to bottom in a fresh
    kernel (pip install rosenblatt, then Run All) and gives the page's numbers.
    """
    path = make_lesson(out, preset=preset, data=data, compare=compare, exercises=exercises)
    err_console.print(f"wrote the lesson to {path}", markup=False)
