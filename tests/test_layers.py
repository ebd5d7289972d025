"""The package's layers only look down, and no two of its packages import each other.

Read from the code's own imports (``ast``, every ``import`` in a module, those inside
functions included: a lazy import is an arrow too; only imports under
``if TYPE_CHECKING:`` are types and left out), from the modules a module names by string
for ``importlib`` (a string that is the whole dotted name of one of the package's
modules), and from the compiled library's build list (``engine/kernels/sources.txt``: the
engine builds and loads what it lists). README's Architecture section draws the same table.
"""

from __future__ import annotations

import ast
import pathlib
import re
from collections import defaultdict

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"
PACKAGE = "rosenblatt"

#: The layers from the bottom up: a module may import its own layer and those below.
LAYERS = (
    "_core",
    "engine",
    "data",
    "theory",
    "estimators",
    "persistence",
    "training",
    "distributed",
    "apps",
)
#: Modules at the top of the package outside the layer folders, by the layer they belong to.
#: The public paths (``rosenblatt.io``, ``rosenblatt.readers`` ...) stand above every layer:
#: they only give users the names of the layers below, and no layer imports them.
TOP_LEVEL = {
    "exceptions": "_core",  # the public errors
    "distributed": "distributed",
    "__main__": "apps",
}
PUBLIC = "public paths"


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return PUBLIC  # the package itself: its lazy public names
    if parts[1] in LAYERS:
        return parts[1]
    return TOP_LEVEL.get(parts[1], PUBLIC)


def rank(layer: str) -> int:
    return len(LAYERS) if layer == PUBLIC else LAYERS.index(layer)


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, module: str, is_package: bool):
    """The package's modules that ``module`` imports (absolute names), with line numbers."""
    package = module if is_package else module.rpartition(".")[0]
    found = []

    def visit(node):
        if isinstance(node, ast.If) and _type_checking_only(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((alias.name, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:  # ``from . import trace``: the submodule, when it is one
                candidate = f"{target}.{alias.name}"
                found.append((candidate if _is_module(candidate) else target, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    # a module named by string, for importlib (importlib.import_module("rosenblatt.x.y"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and re.fullmatch(rf"{PACKAGE}(\.[A-Za-z_]\w*)+", node.value)
            and _is_module(node.value)
        ):
            found.append((node.value, node.lineno))
    return sorted({(name, line) for name, line in found if name.split(".")[0] == PACKAGE})


def _is_module(name: str) -> bool:
    path = SRC.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


BUILD_LIST = SRC / PACKAGE / "engine" / "kernels" / "sources.txt"


def build_list_edges():
    """``[(module, line)]``: the modules the compiled library's build list names (the
    engine's loader builds and loads them, an arrow from the engine to each)."""
    edges = []
    for number, line in enumerate(BUILD_LIST.read_text().splitlines(), start=1):
        line = line.strip()
        if line.endswith(".py") and not line.startswith("#"):
            parts = line.removesuffix(".py").split("/")
            edges.append((".".join([PACKAGE, *parts]).removesuffix(".__init__"), number))
    return edges


def import_graph():
    """``{module: [(imported module, line), ...]}`` for every module of the package; the
    build list counts as the kernels' loader's imports."""
    graph = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        graph[module] = _imports(tree, module, path.name == "__init__.py")
    graph[f"{PACKAGE}.engine.kernels.loader"] += build_list_edges()
    return graph


def test_layers_only_look_down():
    upward = [
        f"{module}:{line} imports {target} ({layer_of(module)} -> {layer_of(target)})"
        for module, targets in import_graph().items()
        for target, line in targets
        if rank(layer_of(target)) > rank(layer_of(module))
    ]
    assert not upward, "imports against the layers:\n" + "\n".join(upward)


def _folder(module: str, graph) -> str:
    """The package (folder) a module belongs to: itself when it is a package."""
    path = SRC.joinpath(*module.split("."))
    return module if (path / "__init__.py").is_file() else module.rpartition(".")[0]


def test_no_two_packages_import_each_other():
    graph = import_graph()
    edges = defaultdict(set)
    for module, targets in graph.items():
        source = _folder(module, graph)
        for target, _ in targets:
            destination = _folder(target, graph) if target in graph else target
            # a package may use its own subpackages; a subpackage importing its parent
            # package's modules is the same folder tree looking up, counted as an arrow
            if destination != source and not destination.startswith(source + "."):
                edges[source].add(destination)
    cycles = []
    for start in sorted(edges):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(edges.get(node, ())):
                if nxt == start:
                    cycles.append(" -> ".join(path + [start]))
                elif nxt not in path and nxt > start:  # each cycle once, from its least member
                    stack.append((nxt, path + [nxt]))
    assert not cycles, "packages that import each other:\n" + "\n".join(cycles)


def test_the_graph_reader_sees_lazy_relative_and_package_imports(tmp_path, monkeypatch):
    """The checks above can fail: the reader finds an import inside a function, a relative
    import of a submodule, and leaves out an import only for types."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import trace\n"
        "if TYPE_CHECKING:\n"
        "    from ..apps import cli\n"
        "def f():\n"
        "    from ..estimators.linear import Perceptron\n"
    )
    tree = ast.parse(source)
    found = {name for name, _ in _imports(tree, "rosenblatt.theory.losses", False)}
    assert "rosenblatt.estimators.linear" in found and "rosenblatt.theory.trace" in found
    assert "rosenblatt.apps" not in found
    assert rank(layer_of("rosenblatt.theory.losses")) < rank(
        layer_of("rosenblatt.estimators.linear")
    )


def test_the_graph_reader_sees_importlib_names_and_the_build_list(tmp_path):
    """A module named by string for importlib is an arrow, and so is each module the build
    list names: either one pointing upward fails the layers test."""
    source = 'import importlib\nimportlib.import_module("rosenblatt.apps.cli")\nx = "rosenblatt"\n'
    found = {name for name, _ in _imports(ast.parse(source), "rosenblatt.engine.orders", False)}
    assert found == {"rosenblatt.apps.cli"}
    assert rank(layer_of("rosenblatt.apps.cli")) > rank(layer_of("rosenblatt.engine.orders"))
    listed = {name for name, _ in build_list_edges()}
    assert "rosenblatt.engine.kernels.primal" in listed
    assert all(layer_of(name) in ("_core", "engine") for name in listed), listed


def test_readme_draws_the_same_layers():
    """README's Architecture section draws the layers this test holds, top down."""
    readme = (SRC.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Architecture\n", 1)[1]
    table = section.split("```\n", 2)[1]
    drawn = [line.split()[0] for line in table.splitlines() if line.strip()]
    assert drawn == list(reversed(LAYERS))
