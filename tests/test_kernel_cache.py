"""numba's cache of the compiled loops and parsers is dropped when one of the library's sources
changes (the helpers the loops inline, the constants they read), and only then."""

import shutil
from pathlib import Path

import pytest

import rosenblatt
import rosenblatt.engine.kernels as kernels

PACKAGE = Path(rosenblatt.__file__).parent


@pytest.fixture
def package(tmp_path):
    """A copy of the package's listed sources (and of config.py, which is not one of them),
    with numba cache files beside the loops, the parsers and a module that is not listed."""
    for name in [*kernels.library_sources(), "_core/config.py"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PACKAGE / name, tmp_path / name)
    kernels.sources_digest.cache_clear()
    kernels._drop_stale_cache(tmp_path)  # the first import: stamp written
    for folder, stem in [
        ("engine/kernels", "primal"),
        ("engine/kernels", "textparse"),
        ("_core", "unlisted"),
    ]:
        cache = tmp_path / folder / "__pycache__"
        cache.mkdir(exist_ok=True)
        (cache / f"{stem}.fit-1.py311.nbi").write_text("index")
        (cache / f"{stem}.fit-1.py311.1.nbc").write_text("code")
    yield tmp_path
    kernels.sources_digest.cache_clear()


def _cached(package):
    return sorted(path.name.split(".")[0] for path in package.rglob("*.nb[ic]"))


def _edit(package, name):
    with open(package / name, "a") as source:
        source.write("\n# edited\n")
    kernels.sources_digest.cache_clear()  # a new process reads the sources again
    kernels._drop_stale_cache(package)


def test_the_cache_stays_while_the_sources_do(package):
    kernels._drop_stale_cache(package)
    assert _cached(package) == sorted(["primal", "textparse", "unlisted"] * 2)


@pytest.mark.parametrize("name", ["engine/kernels/_rows.py", "_core/kernel_constants.py"])
def test_the_cache_of_the_loops_and_parsers_is_dropped_when_a_source_changes(package, name):
    _edit(package, name)
    assert _cached(package) == ["unlisted", "unlisted"]


def test_an_app_constant_leaves_the_cache_and_the_library_valid(package):
    """``_core/config.py`` (demo, plots, the playground) is not compiled into anything."""
    digest = kernels.sources_digest(package)
    _edit(package, "_core/config.py")
    assert kernels.sources_digest(package) == digest
    assert len(_cached(package)) == 6


def test_the_compiled_code_reads_its_constants_from_the_listed_module():
    """Every constant the kernels and parsers import from the package is in a listed source."""
    listed = set(kernels.library_sources())
    assert "_core/config.py" not in listed
    for name in listed:
        if name.endswith(".py"):
            text = (PACKAGE / name).read_text()
            assert "_core.config import" not in text, name
