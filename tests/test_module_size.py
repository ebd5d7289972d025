"""Modules with one job: every module under ``src/`` is shorter than 700 lines.

Lines as ``wc -l`` counts them: docstrings, comments and blank lines included (a module
that needs 700 lines to say what it does has more than one job; split it by job, as
``estimators/calibration.py`` and ``estimators/kernel.py`` were, issue 43).
"""

from __future__ import annotations

import pathlib

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"
LIMIT = 700


def line_count(path: pathlib.Path) -> int:
    """Physical lines, the last one counted whether or not it ends with a line break."""
    return len(path.read_text(encoding="utf-8").splitlines())


def test_every_module_is_shorter_than_700_lines():
    modules = sorted((SRC / "rosenblatt").rglob("*.py"))
    assert len(modules) > 100  # the walk found the package
    long = {str(path.relative_to(SRC)): line_count(path) for path in modules}
    long = {name: n for name, n in long.items() if n >= LIMIT}
    assert not long, f"modules of {LIMIT} lines or more (split them by job): {long}"


def test_the_count_is_every_line(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('"""Doc\n\nstring."""\n\n# a comment\nx = 1\n\n\ny = 2')
    assert line_count(module) == 9
