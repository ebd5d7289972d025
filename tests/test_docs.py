"""The API reference in docs/api: every public name is in it, and it builds without a warning.

``make docs`` builds the reference into build/docs with every warning an error
(``make test`` runs it after the tests). The last test here runs the same build
into a temporary folder, so a docstring that breaks it also fails a plain pytest
run; it takes about ten seconds, and is skipped, saying why, where Sphinx or
numpydoc is missing (both come with the ``dev`` extras).
"""

import importlib
import re
import subprocess
import sys

import pytest
from conftest import ROOT

import rosenblatt

DOCS = ROOT / "docs" / "api"

# Modules without a leading underscore that are not part of the reference: the
# command line, the training engine (only its EpochReport, which on_epoch
# callbacks receive, is documented: engine.rst), the playground's server, the
# demo with its HTML report (behind ``rosenblatt demo``) and the warm-up of the
# compiled loops (behind ``rosenblatt warmup``)
INTERNAL_MODULES = {"cli", "demo", "engine", "playground", "report", "apps", "warmup"}
# Folders by domain whose public modules each have a page (the first three folders
# themselves are not modules users import); a thin module at the top level (rosenblatt.io)
# is documented on the page of the module it re-exports (rosenblatt.data.io)
DOMAINS = ("estimators", "data", "training", "theory", "apps")


def _rst() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.rst")))


def _top_level_entries() -> list[str]:
    """The dotted names in the autosummary table of index.rst ("Top-level names")."""
    text = (DOCS / "index.rst").read_text(encoding="utf-8")
    block = re.search(r"^\.\. autosummary::\n\n((?:   \S.*\n)+)", text, re.MULTILINE)
    assert block, "index.rst has no autosummary table of the top-level names"
    return [line.strip().lstrip("~") for line in block.group(1).splitlines()]


def _resolve(dotted: str):
    try:
        return importlib.import_module(dotted)
    except ImportError:
        module, _, attr = dotted.rpartition(".")
        return getattr(importlib.import_module(module), attr)


def test_every_name_of_all_is_in_the_reference():
    entries = _top_level_entries()
    listed = [_resolve(dotted) for dotted in entries]
    missing = [
        name
        for name in rosenblatt.__all__
        if name != "__version__" and not any(obj is getattr(rosenblatt, name) for obj in listed)
    ]
    assert not missing, (
        f"rosenblatt.__all__ names missing from the table in docs/api/index.rst: {missing}; "
        "add each under its defining module (and document it on that module's page)"
    )
    assert ".. py:data:: rosenblatt.__version__" in (DOCS / "index.rst").read_text("utf-8")
    public = [getattr(rosenblatt, name) for name in rosenblatt.__all__]
    stale = [d for d, obj in zip(entries, listed) if not any(obj is p for p in public)]
    assert not stale, f"docs/api/index.rst lists names outside rosenblatt.__all__: {stale}"


def test_every_public_module_has_a_page():
    package = ROOT / "src" / "rosenblatt"
    modules = set()
    for base in ("", *DOMAINS):
        prefix = f"{base}." if base else ""
        modules |= {prefix + p.stem for p in (package / base).glob("*.py")}
        modules |= {prefix + p.parent.name for p in (package / base).glob("*/__init__.py")}
    public = sorted(
        m
        for m in modules
        if not any(part.startswith("_") for part in m.split("."))
        and not set(m.split(".")) & INTERNAL_MODULES
        and m not in DOMAINS[:3]
    )
    documented = set(re.findall(r"^\.\. automodule:: rosenblatt\.([\w.]+)$", _rst(), re.MULTILINE))
    missing = [
        m
        for m in public
        if m not in documented and not any(d.endswith(f".{m}") for d in documented)
    ]
    assert not missing, (
        f"public modules without a page in docs/api: {missing}; add one (see linear.rst), "
        "or name the module in INTERNAL_MODULES here if users are not meant to import it"
    )


def test_the_reference_builds_without_a_warning(tmp_path):
    pytest.importorskip("sphinx", reason="Sphinx is not installed (pip install -e '.[dev]')")
    pytest.importorskip("numpydoc", reason="numpydoc is not installed (pip install -e '.[dev]')")
    command = [sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-q", "-b", "html"]
    command += ["-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "html" / "linear.html").is_file()
