"""The public import paths of DESIGN.md's contract, and nothing else forwarded.

``rosenblatt``, ``.theory``, ``.trace``, ``.io``, ``.readers``, ``.streaming``,
``.persistence``, ``.datasets``, ``.playground`` and ``.exceptions`` import and give
their names; the modules behind them are reached where they live (``rosenblatt.apps.cli``,
``rosenblatt.engine.kernels.textparse``): the package was never released under other paths,
so none is kept for them.
"""

import importlib
import subprocess
import sys

import pytest

# public path -> a name it gives, and the module that defines it
PUBLIC = {
    "rosenblatt": ("Perceptron", "rosenblatt.estimators.linear"),
    "rosenblatt.theory": ("max_margin", "rosenblatt.theory"),
    "rosenblatt.trace": ("Trace", "rosenblatt.theory.trace"),
    "rosenblatt.io": ("read_data", "rosenblatt.data.io"),
    "rosenblatt.readers": ("scan", "rosenblatt.data.readers"),
    "rosenblatt.streaming": ("fit_stream", "rosenblatt.training.stream"),
    "rosenblatt.persistence": ("load", "rosenblatt.persistence"),
    "rosenblatt.datasets": ("load_sms_spam", "rosenblatt.data.datasets._sms"),
    "rosenblatt.playground": ("runs", "rosenblatt.apps.playground"),
    "rosenblatt.exceptions": ("ModelFileError", "rosenblatt.exceptions"),
}

# a fresh interpreter: the public path first, before anything imported the module's home
PROBE = """
import importlib, sys
path, name, home = sys.argv[1:]
module = importlib.import_module(path)
value = getattr(module, name)
owner = importlib.import_module(home)
assert value is getattr(owner, name, None) or value is owner, (value, home)
print("ok")
"""


@pytest.mark.parametrize("path", sorted(PUBLIC))
def test_each_public_path_gives_the_objects_where_they_live(path):
    name, home = PUBLIC[path]
    result = subprocess.run(
        [sys.executable, "-c", PROBE, path, name, home], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


@pytest.mark.parametrize(
    "old",
    ["rosenblatt.cli", "rosenblatt.plot", "rosenblatt.readers.textparse", "rosenblatt.cli.train"],
)
def test_paths_outside_the_contract_are_not_forwarded(old):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


def test_the_playground_path_gives_its_modules_and_nothing_else():
    from rosenblatt.apps.playground.runs import PlaygroundError
    from rosenblatt.playground import runs

    assert runs.PlaygroundError is PlaygroundError
    with pytest.raises(ImportError, match="nothing"):
        from rosenblatt.playground import nothing  # noqa: F401
