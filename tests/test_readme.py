"""Every Python block of README.md runs as written, in order, in one namespace.

A line ``expression  # value`` whose comment starts with a value (a number, a
tuple, a list, an array, True/False, a string) must show that value: the repr of
the expression, whitespace aside, begins the comment. Shell blocks are commands
for a terminal (``make``, ``rosenblatt ...``); the CLI tests cover those commands.
"""

import ast
import pathlib
import re
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

README = pathlib.Path(__file__).parents[1] / "README.md"
VALUE_START = re.compile(r"^(\(|\[|\{|array\(|-?\d|True|False|'|\")")


def python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def _squeeze(text):
    return re.sub(r"\s+", "", text)


def _claims(block):
    """(line number, expression source, claimed value) of every checkable line."""
    tree = ast.parse(block)
    lines = block.splitlines()
    for node in tree.body:
        if not isinstance(node, ast.Expr) or node.end_lineno != node.lineno:
            continue
        line = lines[node.lineno - 1]
        code, _, comment = line.partition("  #")
        comment = comment.strip()
        if comment and VALUE_START.match(comment):
            yield node.lineno, code.strip(), comment


def test_readme_has_python_blocks_with_claims():
    blocks = python_blocks()
    assert len(blocks) >= 6
    assert sum(len(list(_claims(b))) for b in blocks) >= 8


def test_every_python_block_runs_and_shows_what_it_says(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__readme__"}
    with np.printoptions(legacy=False), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for number, block in enumerate(python_blocks(), start=1):
            exec(compile(block, f"README.md python block {number}", "exec"), namespace)
            for line, source, claim in _claims(block):
                shown = _squeeze(repr(eval(source, namespace)))
                assert _squeeze(claim).startswith(shown), (
                    f"README block {number}, line {line}: {source} is {shown}, "
                    f"the README says {claim}"
                )
