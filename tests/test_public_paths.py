"""The thin top-level modules keep the old public paths, their packages' submodules included.

``rosenblatt.playground`` stands for ``rosenblatt.apps.playground`` (and ``cli``,
``readers``, ``datasets`` for theirs): ``import rosenblatt.playground.runs`` works as
``from rosenblatt.playground import runs`` does, and both give the module itself,
never a second copy with classes of its own.
"""

import subprocess
import sys

import pytest

# the old dotted path -> the module's home
MOVED = {
    "rosenblatt.playground.runs": "rosenblatt.apps.playground.runs",
    "rosenblatt.playground.server": "rosenblatt.apps.playground.server",
    "rosenblatt.cli.train": "rosenblatt.apps.cli.train",
    "rosenblatt.cli.app": "rosenblatt.apps.cli.app",
    "rosenblatt.readers.textparse": "rosenblatt.data.readers.textparse",
    "rosenblatt.readers._csv": "rosenblatt.data.readers._csv",
    "rosenblatt.datasets._sms": "rosenblatt.data.datasets._sms",
}

# a fresh interpreter: the old path first, before anything imported the module's home
PROBE = """
import importlib, sys
old, new = sys.argv[1:]
exec(f"import {old}")
module = eval(old)
assert module is importlib.import_module(new), (module, new)
assert module.__name__ == new and sys.modules[old] is sys.modules[new]
print("ok")
"""


@pytest.mark.parametrize("old, new", sorted(MOVED.items()))
def test_the_old_dotted_import_is_the_module_itself(old, new):
    result = subprocess.run(
        [sys.executable, "-c", PROBE, old, new], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_both_spellings_give_one_module_and_one_class():
    import rosenblatt.playground.runs

    from rosenblatt.apps.playground.runs import PlaygroundError
    from rosenblatt.playground import runs

    assert runs is rosenblatt.playground.runs and runs.PlaygroundError is PlaygroundError


def test_a_missing_submodule_is_still_missing():
    with pytest.raises(ModuleNotFoundError, match="rosenblatt.playground.nothing"):
        __import__("rosenblatt.playground.nothing")
    with pytest.raises(ImportError):
        from rosenblatt.cli import nothing  # noqa: F401
