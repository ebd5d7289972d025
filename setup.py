"""The one build step pyproject.toml cannot declare: the kernels, built ahead of time.

``pip install`` (``make demo``, ``make test``) runs ``build_kernels`` with the rest of
the build: numba compiles every signature of the training loops and the parsers
(``src/rosenblatt/engine/kernels/signatures.json``) and the C compiler links them into
one library that a fresh process loads in milliseconds, without importing numba (see
``rosenblatt/engine/kernels/ahead_of_time.py``). An editable install puts it beside the
sources. When the build cannot run (no C compiler, a numba whose internals moved), the
install goes on without it, and the build keeps one line saying why beside the package
(in ``_built/``): numba's JIT then compiles the kernels on first use and
caches them. ``pip install --quiet`` hides the build's output, so ``make`` prints that line
after installing (``rosenblatt.engine.kernels.loader.warn_if_unused``), and ``rosenblatt
warmup`` names it. ``ROSENBLATT_CPU=generic`` builds for any CPU of the architecture (a
portable wheel) instead of this one: a library per instruction-set level (on x86-64 its
baseline, x86-64-v3 and x86-64-v4), of which the running CPU loads the best it has.
"""

import subprocess
import sys
from pathlib import Path

from setuptools import Command, Distribution, setup
from setuptools.command.build import build

HERE = Path(__file__).resolve().parent
KERNELS = Path("rosenblatt", "engine", "kernels", "_built")
_BUILD = (
    "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); "
    "runpy.run_module('rosenblatt.engine.kernels.ahead_of_time', "
    "run_name='__main__', alter_sys=True)"
)


class build_kernels(Command):  # noqa: N801 (setuptools names commands in snake case)
    """Build the compiled kernels into ``rosenblatt/engine/kernels/_built``."""

    description = "build the compiled kernels ahead of time"
    user_options: list = []
    editable_mode = False  # set by setuptools for an editable install: build beside the sources

    def initialize_options(self):
        self.build_lib = None

    def finalize_options(self):
        self.set_undefined_options("build_py", ("build_lib", "build_lib"))

    def _target(self):
        return HERE / "src" / KERNELS if self.editable_mode else Path(self.build_lib) / KERNELS

    def run(self):
        # the build skips itself under ROSENBLATT_KERNELS=jit, and records why it made no library;
        # the sources go first on sys.path inside the child, not through PYTHONPATH: pip's
        # isolated build environment (which reaches the build's numba through PYTHONPATH) drops
        # from sys.path every folder an installed .pth adds, and a previous editable install's
        # .pth adds src/
        done = subprocess.run(
            [sys.executable, "-c", _BUILD, str(HERE / "src"), str(self._target())]
        )
        if done.returncode != 0:
            print(
                "rosenblatt: the kernels could not be built ahead of time (see above; the reason "
                f"is kept in {KERNELS}); numba's JIT will compile them on first use instead "
                "(slower to start)",
                file=sys.stderr,
            )

    def get_outputs(self):
        target = self._target()
        return [str(path) for path in target.glob("*")] if target.exists() else []

    def get_source_files(self):
        return []


class WithCompiledKernels(Distribution):
    """A wheel that holds the library is for one platform: tagged as such, not ``py3-none-any``."""

    def has_ext_modules(self):
        return True


build.sub_commands.append(("build_kernels", None))
setup(cmdclass={"build_kernels": build_kernels}, distclass=WithCompiledKernels)
