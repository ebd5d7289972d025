"""Every public function and method of the package has type hints.

Public: a function whose name has no leading underscore (or that ``__all__`` names),
defined in a module under ``src/rosenblatt``, and the public methods of the public
classes defined there. Each parameter but ``self``/``cls`` and ``*args``/``**kwargs``
needs an annotation, and so does the return. mypy (``[tool.mypy]`` in pyproject.toml)
checks that the hints are right; this test checks that they are there, which mypy
does not ask of a function it is told nothing about.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types

import pytest

import rosenblatt

# Modules (and packages, with everything under them) not checked yet, each with why.
# The list only shrinks: a module leaves it once its public functions are annotated.
UNCHECKED = {
    "rosenblatt.engine.kernels": "numba-compiled loops and the pure-Python stubs numba overloads",
}


def _unchecked(name: str) -> bool:
    return any(name == m or name.startswith(m + ".") for m in UNCHECKED)


def _modules() -> list[str]:
    names = [rosenblatt.__name__]
    for info in pkgutil.walk_packages(rosenblatt.__path__, rosenblatt.__name__ + "."):
        names.append(info.name)
    return sorted(names)


def _unannotated(function: types.FunctionType) -> list[str]:
    """The parameters (and ``return``) of ``function`` without an annotation."""
    signature = inspect.signature(function, eval_str=False)
    missing = [
        p.name
        for p in signature.parameters.values()
        if p.annotation is inspect.Parameter.empty
        and p.name not in ("self", "cls")
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def _plain_function(member: object) -> types.FunctionType | None:
    """The Python function behind a method, static or class method, or property;
    None for anything else (numba dispatchers, constants, classes)."""
    if isinstance(member, (staticmethod, classmethod)):
        member = member.__func__
    elif isinstance(member, property):
        member = member.fget
    return member if inspect.isfunction(member) else None


def _public(name: str, exported: set[str]) -> bool:
    return not name.startswith("_") or name in exported


def public_functions(module: types.ModuleType) -> dict[str, types.FunctionType]:
    """``{qualified name: function}`` of the public functions and methods ``module`` defines."""
    exported = set(getattr(module, "__all__", ()))
    found = {}
    for name, value in vars(module).items():
        if not _public(name, exported) or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(value):
            for attr, member in vars(value).items():
                function = _plain_function(member)
                if function is not None and not attr.startswith("_"):
                    found[f"{module.__name__}.{name}.{attr}"] = function
        else:
            function = _plain_function(value)
            if function is not None:
                found[f"{module.__name__}.{name}"] = function
    return found


def missing_annotations(module: types.ModuleType) -> list[str]:
    """``"qualified name: parameters"`` for every public function of ``module`` that lacks
    an annotation."""
    problems = []
    for qualname, function in sorted(public_functions(module).items()):
        missing = _unannotated(function)
        if missing:
            problems.append(f"{qualname}: {', '.join(missing)}")
    return problems


def test_every_public_function_is_annotated():
    checked, problems = 0, []
    for name in _modules():
        if _unchecked(name):
            continue
        module = importlib.import_module(name)
        checked += len(public_functions(module))
        problems += missing_annotations(module)
    assert checked > 250  # the walk found the package's functions
    assert not problems, "public functions without type hints:\n" + "\n".join(problems)


def test_every_unchecked_module_exists():
    names = _modules()
    for unchecked in UNCHECKED:
        assert any(n == unchecked or n.startswith(unchecked + ".") for n in names), unchecked


def test_the_check_catches_a_missing_annotation():
    module = types.ModuleType("fake_module")
    source = """
__all__ = ["_exported"]

def annotated(x: int, *args, y: str = "", **kwargs) -> int:
    return x

def no_return(x: int):
    return x

def no_parameter(x, y: int) -> None:
    pass

def _private(x):
    pass

def _exported(x) -> None:
    pass

class Public:
    def method(self, value) -> None:
        pass

    @classmethod
    def build(cls, size: int):
        return cls()

    @staticmethod
    def helper(a: int, b) -> int:
        return a

    @property
    def size(self):
        return 0

    def _hidden(self, value):
        pass

    def fine(self) -> None:
        pass
"""
    exec(compile(source, "<fake_module>", "exec"), module.__dict__)
    for value in vars(module).values():
        if inspect.isfunction(value) or inspect.isclass(value):
            value.__module__ = module.__name__
    assert missing_annotations(module) == [
        "fake_module.Public.build: return",
        "fake_module.Public.helper: b",
        "fake_module.Public.method: value",
        "fake_module.Public.size: return",
        "fake_module._exported: x",
        "fake_module.no_parameter: x",
        "fake_module.no_return: return",
    ]


# the linear estimators' methods are defined with their learners (estimators/_bare.py)
@pytest.mark.parametrize("name", ["rosenblatt.estimators._bare", "rosenblatt.data.streaming"])
def test_annotated_modules_pass(name):
    module = importlib.import_module(name)
    assert public_functions(module)  # something was checked
    assert missing_annotations(module) == []
