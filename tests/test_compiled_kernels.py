"""The kernels built at install (engine/kernels/ahead_of_time.py) and how the engine finds them.

The library is checked three ways: every kernel against its plain-Python reference
(``test_kernel_registry.py``, through the library and through the JIT); every user
path (each estimator, dtype, layout and sparse form, the readers, streaming, the
command line) in a fresh process that may not fall back to the JIT and must not
import numba; and the loader, which must refuse a library that is missing, stale,
foreign or broken and run the JIT instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys

import numpy as np
import pytest

from rosenblatt.engine.kernels import ahead_of_time, bundles, loader
from rosenblatt.engine.kernels.signatures import flatten, key_of, key_of_type, read_signatures

BUILT = loader.library_status().startswith("built at install")


def test_the_library_is_built_where_there_is_a_c_compiler():
    """Where the build finds its C compilers, ``pip install`` must have built the library and it
    must be current: a numba whose internals moved (or any other failed build) fails here, with
    the build's reason, rather than leaving every run on the JIT unseen. Only the JIT asked for
    (``ROSENBLATT_KERNELS=jit`` now, or at install) or no C compiler skips it, saying so."""
    if loader._mode() == "jit":
        pytest.skip("ROSENBLATT_KERNELS=jit: the JIT runs the kernels by request")
    try:
        compilers = ahead_of_time.c_compilers()
    except FileNotFoundError as error:
        pytest.skip(f"{error}: the library cannot be built here, the JIT runs the kernels")
    status = loader.library_status()
    if "ROSENBLATT_KERNELS=jit" in status:
        pytest.skip(f"the JIT was asked for at install ({status})")
    assert status.startswith("built at install"), f"C compilers {compilers} found, but: {status}"
    assert f"{len(read_signatures())} signatures" in status


USER_PATHS = """
import json, sys, warnings
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file
from rosenblatt import (
    AveragedPerceptron, KernelPerceptron, Perceptron, Projectron, VotedPerceptron, load, save
)
from rosenblatt.data.io import read_data
from rosenblatt.streaming import fit_stream
from rosenblatt.engine.kernels.loader import _KERNELS
warnings.simplefilter("ignore")
rng = np.random.RandomState(1)
X = rng.randn(500, 12)
y2 = (X[:, 0] > 0).astype(int)
y3 = np.digitize(X[:, 1], [-0.5, 0.5])
labels = (X[:, :3] > 0).astype(int)
for data in (X, X.astype(np.float32), sp.csr_matrix(X)):
    for cls in (Perceptron, AveragedPerceptron, VotedPerceptron):
        for y in (y2, y3, labels):
            model = cls(max_iter=3, random_state=0).fit(data, y)
            model.predict(data)
            save(model, "model.rbl")
            load("model.rbl").predict(data)
    Perceptron(multi_class="multinomial", max_iter=3).fit(data, y3).predict(data)
    VotedPerceptron(multi_class="multinomial", max_iter=3).fit(data, y3).predict(data)
    Perceptron(max_iter=3, n_jobs=2).fit(data, y3).predict(data)
    Perceptron().partial_fit(data, y3, classes=[0, 1, 2]).predict(data)
for prediction in ("last", "averaged", "voted"):
    for data in (X, sp.csr_matrix(X)):
        model = KernelPerceptron(max_iter=2, prediction=prediction).fit(data, y3)
        save(model, "kernel.rbl")
        load("kernel.rbl").predict(data)
KernelPerceptron(max_iter=2, budget=30, budget_policy="forgetron", prediction="last").fit(X, y3)
Projectron(max_iter=2).fit(X, y3).predict(X)
many = rng.randn(40_000, 2)  # more samples than a full shuffle: the block order
Perceptron(max_iter=1).fit(many, many[:, 0] > 0)
dump_svmlight_file(X, y2, "big.svm")
dump_svmlight_file(np.tile(X, (40, 1)), np.tile(y2, 40), "large.svm")
np.savetxt("large.csv", np.column_stack([np.tile(X, (40, 1)), np.tile(y3, 40)]), delimiter=",")
read_data("large.svm")
read_data("large.csv")
fit_stream(Perceptron(), "big.svm", chunk_size=100)
from sklearn.model_selection import cross_val_score  # joblib's workers, read-only memmaps
assert cross_val_score(Perceptron(max_iter=3), np.tile(X, (40, 1)), np.tile(y3, 40), n_jobs=2).all()
print(json.dumps({
    "numba": "numba" in sys.modules,
    "calls": {name: [k.built_calls, k.jit_calls] for name, k in _KERNELS.items()},
}))
"""


@pytest.mark.skipif(not BUILT, reason="no library built at install (see the test above)")
@pytest.mark.filterwarnings("ignore")
def test_user_paths_run_on_the_library_without_numba(tmp_path):
    """Every path a user reaches finds its signature built: with ``ROSENBLATT_KERNELS=built``
    a call the library cannot take is an error, and numba is never imported."""
    env = {**os.environ, "ROSENBLATT_KERNELS": "built"}
    done = subprocess.run(
        [sys.executable, "-c", USER_PATHS],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["numba"] is False
    calls = report["calls"]
    assert {name for name, (built, _) in calls.items() if built} >= {
        "primal.primal_epoch",
        "primal.primal_epochs",
        "scores.linear_scores",
        "votes.binary_vote",
        "votes.multinomial_vote",
        "dual.dual_epoch",
        "dual.ordered_scores",
        "dual.voted_scores",
        "gram.dense_block",
        "gram.sparse_block",
        "gram.squared_norms",
        "order.block_order",
        "textparse.svmlight_block",
        "textparse.csv_block",
        "textparse.dedupe",
    }
    assert all(jit == 0 for _, jit in calls.values())


def _memmap(folder):
    """A memory-mapped array of a real file: mapping a device file (``/dev/null``) is refused
    by some machines' kernels, so the test maps a file of its own."""
    path = folder / "mapped.bin"
    path.write_bytes(bytes(16))
    return np.memmap(path, dtype=np.float64, mode="r+", shape=(2,))


def _readonly(shape):
    array = np.zeros(shape).view()
    array.flags.writeable = False
    return array


# Arguments of every kind the kernels take, as the engine makes them: built inside the test
# (from its own folder), so collecting the suite creates nothing and cannot fail
VALUES = {
    "dense": lambda folder: np.zeros((3, 4)),
    "readonly": lambda folder: _readonly((3, 4)),
    "fortran_float32": lambda folder: np.asfortranarray(np.zeros((3, 4), dtype=np.float32)),
    "strided": lambda folder: np.zeros((4, 6))[:, ::2],  # neither C nor Fortran
    "int32": lambda folder: np.zeros(5, dtype=np.int32),
    "bytes": lambda folder: np.frombuffer(b"abc", dtype=np.uint8),
    "memmap": _memmap,
    "empty": lambda folder: np.zeros((0, 3)),
    "scalars": lambda folder: (3, 2.5, True, np.float32(1.5), np.int64(4), np.bool_(False)),
    "rows": lambda folder: bundles.Rows(
        np.zeros((3, 4)), (np.zeros(2), np.zeros(2, np.int32), np.zeros(3, np.int32))
    ),
    "bundles": lambda folder: (
        bundles.Rule(1.0, -1.0, False, True, 0, 1.0),
        bundles.SINGLE,
        bundles.MULTINOMIAL,
    ),
}


@pytest.mark.parametrize("kind", VALUES)
def test_keys_are_numbas_types(kind, tmp_path):
    """The loader finds a built signature by the key of a call's arguments: that key must be the
    one numba's ``typeof`` gives (what the JIT compiles and the signatures file lists)."""
    import numba

    value = VALUES[kind](tmp_path)
    assert key_of(value) == key_of_type(numba.typeof(value))


def _copy_library(tmp_path):
    if not BUILT:
        pytest.skip("no library built at install to copy")
    folder = tmp_path / "built"
    shutil.copytree(loader.BUILT, folder)
    return folder


def _forge(folder, **changes):
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest.update(changes)
    path.write_text(json.dumps(manifest))


def test_the_loader_takes_a_current_library(tmp_path):
    library = loader._open(_copy_library(tmp_path))
    assert library.status.startswith("built at install")
    assert len(library.entries) == len(read_signatures())


@pytest.mark.parametrize(
    "changes, says",
    [
        ({"sources": "0" * 64}, "stale: the kernels changed"),
        ({"cpu": "0" * 64}, "built for another CPU"),
        ({"format": loader.MANIFEST_FORMAT + 1}, "stale: built by another version"),
        ({"levels": [["host", "missing.so"]]}, "could not be loaded"),
        ({"levels": [["x86-64-v9", loader.LIBRARY_NAME]]}, "could not be loaded"),
        ({"entries": [{"kernel": "order.block_order"}]}, "could not be loaded"),
    ],
)
def test_the_loader_refuses_a_stale_foreign_or_broken_library(tmp_path, changes, says):
    """A library that is not exactly the one these sources build on this CPU is never called:
    the loader says why and every call takes the JIT."""
    folder = _copy_library(tmp_path)
    _forge(folder, **changes)
    library = loader._open(folder)
    assert library.status.startswith(says), library.status
    assert library.entries == {}


def test_no_library_means_the_jit(tmp_path):
    library = loader._open(tmp_path)
    assert library.status.startswith("not built") and library.entries == {}


def test_a_failed_build_says_why_in_one_line(tmp_path, monkeypatch, capsys):
    """The build records why it made no library; the loader's status names it, and the one
    line ``make`` prints after ``pip install --quiet`` says so and that the JIT runs instead."""
    monkeypatch.delenv("ROSENBLATT_KERNELS", raising=False)
    for variable in ("ROSENBLATT_CPU", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES"):
        monkeypatch.delenv(variable, raising=False)  # restored after: the build sets them
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    folder = tmp_path / "built"
    with pytest.raises(FileNotFoundError, match="no C compiler"):
        ahead_of_time.main(folder)
    status = loader._open(folder).status
    assert status.startswith("not built: the build at install failed: FileNotFoundError: no C")
    line = loader._unused_line(status)
    assert line is not None and "\n" not in line
    assert status in line and "numba's JIT compiles the kernels" in line

    monkeypatch.setattr(loader, "_LOADED", [loader._Library(status)])
    loader.warn_if_unused()
    assert capsys.readouterr().err == line + "\n"


def test_a_stale_library_beside_a_failed_build_names_both(tmp_path):
    folder = _copy_library(tmp_path)
    _forge(folder, sources="0" * 64)
    (folder / loader.FAILURE_RECORD).write_text("the build at install failed: why\n")
    status = loader._open(folder).status
    assert status.startswith("not built: the build at install failed: why; the library there")
    assert "stale" in status


def test_a_current_library_is_used_whatever_a_later_build_said(tmp_path):
    """A rebuild that failed with the sources unchanged leaves the library it had: still valid."""
    folder = _copy_library(tmp_path)
    (folder / loader.FAILURE_RECORD).write_text("the build at install failed: why\n")
    assert loader._open(folder).status.startswith("built at install")


@pytest.mark.parametrize(
    "status",
    ["built at install: 3 signatures in x", "not used: ROSENBLATT_KERNELS=jit"],
)
def test_nothing_is_printed_when_the_library_runs_or_the_jit_was_asked_for(status):
    assert loader._unused_line(status) is None


def test_the_jit_asked_for_at_install_skips_the_build(tmp_path, monkeypatch):
    monkeypatch.setenv("ROSENBLATT_KERNELS", "jit")
    ahead_of_time.main(tmp_path)
    assert not (tmp_path / "manifest.json").exists()
    monkeypatch.delenv("ROSENBLATT_KERNELS")
    status = loader._open(tmp_path).status
    assert status == "not built: ROSENBLATT_KERNELS=jit at install: the build was skipped"
    assert loader._unused_line(status) is None


def _portable(folder, levels=None):
    """Make a copied host library a portable build's: each level's file a copy of it (the host
    library runs on this CPU, whichever level the loader takes)."""
    levels = [name for name, _ in loader.portable_levels()] if levels is None else levels
    for level in levels:
        shutil.copy(folder / loader.LIBRARY_NAME, folder / loader.level_library(level))
    _forge(
        folder,
        cpu=loader.generic_identity(),
        target="generic",
        levels=[[level, loader.level_library(level)] for level in levels],
    )
    return folder


@pytest.mark.parametrize(
    "built_for, here, taken",
    [
        ("host", "this CPU", True),
        ("host", "another CPU", False),  # host-only code may use what another CPU lacks
        ("generic", "another CPU", True),  # a portable build runs on any CPU of the architecture
        ("generic of another architecture", "another CPU", False),
    ],
)
def test_a_portable_library_is_taken_by_any_cpu_of_its_architecture(
    tmp_path, monkeypatch, built_for, here, taken
):
    monkeypatch.delenv("ROSENBLATT_CPU_LEVEL", raising=False)
    folder = _copy_library(tmp_path)
    if built_for != "host":
        _portable(folder)
    if built_for == "generic of another architecture":
        _forge(folder, cpu=f"generic {sys.platform} not-{platform.machine()}")
    if here == "another CPU":
        monkeypatch.setattr(loader, "cpu_identity", lambda: "0" * 64)
    library = loader._open(folder)
    assert library.status.startswith("built at install" if taken else "built for another CPU")
    assert ("(portable: " in library.status) == (taken and built_for == "generic")


# The flags /proc/cpuinfo lists for the instruction sets of each x86-64 level
V2 = {"cx16", "lahf_lm", "pni", "popcnt", "sse4_1", "sse4_2", "ssse3"}
V3 = V2 | {"abm", "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave"}
V4 = V3 | {"avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl"}
ALL = ["x86-64", "x86-64-v3", "x86-64-v4"]


@pytest.mark.parametrize(
    "flags, built, cap, best",
    [
        (set(), ALL, None, "x86-64"),  # no /proc/cpuinfo: the baseline
        ({"sse", "sse2", "fpu"}, ALL, None, "x86-64"),
        (V2, ALL, None, "x86-64"),  # v2 is not built: the level below
        (V3, ALL, None, "x86-64-v3"),
        (V3 | {"avx512f", "avx512cd"}, ALL, None, "x86-64-v3"),  # AVX-512 without BW, DQ, VL
        (V4 - {"fma"}, ALL, None, "x86-64"),  # one flag of v3 missing: neither v3 nor v4
        (V4 - {"movbe"}, ALL, None, "x86-64"),
        (V4, ALL, None, "x86-64-v4"),
        (V4 | {"avx512_vnni", "amx_tile"}, ALL, None, "x86-64-v4"),
        (V4, ALL, "x86-64-v3", "x86-64-v3"),  # capped by ROSENBLATT_CPU_LEVEL
        (V4, ALL, "x86-64", "x86-64"),
        (V3, ALL, "x86-64-v4", "x86-64-v3"),  # a cap is a ceiling, never a level it lacks
        (V4, ["x86-64", "x86-64-v4"], None, "x86-64-v4"),
        (V3, ["x86-64", "x86-64-v4"], None, "x86-64"),
        (V3, ["x86-64-v4"], None, None),  # nothing this CPU runs
        (V4, ["x86-64-v5", "host", "generic"], None, None),  # names of no x86-64 level
    ],
)
def test_the_best_level_is_the_highest_built_whose_every_flag_the_cpu_lists(
    flags, built, cap, best
):
    assert loader.best_level(frozenset(flags), built, "x86_64", cap=cap) == best


def test_a_level_cap_names_the_levels_when_wrong(monkeypatch):
    monkeypatch.setenv("ROSENBLATT_CPU_LEVEL", "avx9")
    names = ", ".join(name for name, _ in loader.portable_levels())
    with pytest.raises(ValueError, match=f"^ROSENBLATT_CPU_LEVEL='avx9': use {names}$"):
        loader._open(loader.BUILT)
    with pytest.raises(ValueError, match="ROSENBLATT_CPU_LEVEL='x86-64-v3': use generic$"):
        loader.best_level(frozenset(), ["generic"], "aarch64", cap="x86-64-v3")


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the x86-64 levels")
@pytest.mark.parametrize(
    "flags, cap, level",
    [
        (V4, None, "x86-64-v4"),
        (V3 | {"avx512f"}, None, "x86-64-v3"),
        (set(), None, "x86-64"),
        (V4, "x86-64-v3", "x86-64-v3"),
        (V4, " X86-64 ", "x86-64"),
    ],
)
def test_a_portable_build_loads_the_best_level_the_cpu_has(
    tmp_path, monkeypatch, flags, cap, level
):
    """The level's library is the one loaded, and ``rosenblatt warmup``'s line (the status)
    names it among the levels built."""
    folder = _portable(_copy_library(tmp_path))
    monkeypatch.setattr(loader, "cpu_identity", lambda: "0" * 64)  # any x86-64 CPU
    monkeypatch.setattr(loader, "cpu_flags", lambda: frozenset(flags))
    if cap is None:
        monkeypatch.delenv("ROSENBLATT_CPU_LEVEL", raising=False)
    else:
        monkeypatch.setenv("ROSENBLATT_CPU_LEVEL", cap)
    library = loader._open(folder)
    path = folder / f"librosenblatt_kernels.{level}.so"
    assert library.path == path
    assert library.status == (
        f"built at install: {len(read_signatures())} signatures in {path} "
        f"(portable: {level} of x86-64, x86-64-v3, x86-64-v4)"
    )
    assert len(library.entries) == len(read_signatures())


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the x86-64 levels")
def test_a_level_the_cpu_lacks_is_never_loaded(tmp_path, monkeypatch):
    folder = _portable(_copy_library(tmp_path), levels=["x86-64-v3", "x86-64-v4"])
    monkeypatch.delenv("ROSENBLATT_CPU_LEVEL", raising=False)
    monkeypatch.setattr(loader, "cpu_flags", lambda: frozenset(V2 | {"avx", "avx2"}))
    library = loader._open(folder)
    assert library.status == (
        "built for other CPUs: this one lacks the instruction sets of every level built "
        "(x86-64-v3, x86-64-v4); run pip install on this machine"
    )
    assert library.entries == {} and library.path is None


def test_the_cpu_flags_are_those_of_cpuinfo(monkeypatch):
    monkeypatch.setattr(loader, "_cpuinfo", lambda: _CPUINFO)
    assert loader.cpu_flags() == {"sse2", "avx", "fma"}
    monkeypatch.setattr(loader, "_cpuinfo", lambda: "processor\t: 0\nFeatures\t: neon asimd\n")
    assert loader.cpu_flags() == {"neon", "asimd"}
    monkeypatch.setattr(loader, "_cpuinfo", lambda: "")
    assert loader.cpu_flags() == frozenset()


_CPUINFO = (
    "processor\t: 0\nmodel name\t: Some CPU @ 3.0GHz\nflags\t\t: sse2 avx fma\n\nprocessor\t: 1\n"
)


@pytest.mark.parametrize(
    "cpuinfo, model, flags",
    [
        (_CPUINFO, "Some CPU @ 3.0GHz", "avx fma sse2"),
        ("processor\t: 0\nFeatures\t: neon asimd\n", None, "asimd neon"),  # names no model
        ("", None, ""),  # no /proc/cpuinfo
    ],
    ids=["model named", "no model", "no cpuinfo"],
)
def test_the_cpu_identity_runs_uname_only_when_cpuinfo_names_no_model(
    monkeypatch, cpuinfo, model, flags
):
    """Issue 42: ``platform.processor()`` runs ``uname -p`` in a subprocess, and the identity is
    checked holding the loader's lock that every thread's first kernel call waits for; it was
    called even where ``/proc/cpuinfo`` names the model (the default of a ``dict.get``)."""
    asked = []

    def processor():
        asked.append("uname -p")
        return "from uname -p"

    monkeypatch.setattr(platform, "processor", processor)
    expected = "\n".join([platform.machine(), model or "from uname -p", flags])
    assert loader._identity(cpuinfo) == hashlib.sha256(expected.encode()).hexdigest()
    assert asked == ([] if model else ["uname -p"])


def _registers(library):
    """The vector registers (xmm, ymm, zmm) and AVX-512 mask registers (k1..k7) the library's
    code names, as objdump disassembles it."""
    text = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", str(library)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = {kind for kind in ("xmm", "ymm", "zmm") if f"%{kind}" in text}
    return found | ({"k"} if any(f"%k{n}" in text for n in range(1, 8)) else set())


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the x86-64 levels")
@pytest.mark.skipif(shutil.which("objdump") is None, reason="no objdump to read the code with")
def test_a_portable_build_holds_each_level_compiled_for_that_level_alone(tmp_path, monkeypatch):
    """One signature (dense float64 scores: 8-lane vectors) built for the portable target: a
    library per level, whose code names the vector registers of that level and none above it
    (the baseline: SSE2's xmm only; v3: AVX2's ymm, no AVX-512; v4: AVX-512's zmm), and each
    level this CPU runs computes the very bits numba's JIT does."""
    try:
        ahead_of_time.c_compilers()
    except FileNotFoundError as error:
        pytest.skip(f"{error}: nothing can be built here")
    monkeypatch.setenv("ROSENBLATT_CPU", "generic")
    monkeypatch.delenv("ROSENBLATT_KERNELS", raising=False)
    dense = ("named", "Rows", (("array", "float64", 2, "C", True), ("none",)))
    entry = next(
        e
        for e in read_signatures()
        if e["kernel"] == "scores.linear_scores" and e["args"][0] == dense
    )
    folder = tmp_path / "built"
    built = ahead_of_time.build(folder, jobs=1, log=lambda line: None, entries=[entry])
    manifest = json.loads(built.read_text())
    assert manifest["cpu"] == loader.generic_identity()
    assert manifest["levels"] == [[level, loader.level_library(level)] for level in ALL]
    assert sorted(path.name for path in folder.iterdir()) == sorted(
        ["manifest.json", *(loader.level_library(level) for level in ALL)]
    )
    registers = {level: _registers(folder / loader.level_library(level)) for level in ALL}
    assert registers["x86-64"] == {"xmm"}
    assert registers["x86-64-v3"] == {"xmm", "ymm"}
    assert "zmm" in registers["x86-64-v4"]

    rng = np.random.default_rng(0)
    X, coef, intercept = rng.standard_normal((7, 21)), rng.standard_normal((3, 21)), rng.random(3)
    expected = np.zeros((7, 3))
    scores = loader.compiled_kernel("scores.linear_scores")
    scores.jit(bundles.Rows(X, None), coef, intercept, expected)
    runs = [level for level in ALL if loader.best_level(loader.cpu_flags(), [level]) == level]
    assert runs[0] == "x86-64"
    for level in runs:
        monkeypatch.setenv("ROSENBLATT_CPU_LEVEL", level)
        library = loader._open(folder)
        assert library.path == folder / loader.level_library(level), library.status
        (function,) = (entry.function for entry in library.entries.values())
        out = np.zeros((7, 3))
        flat: list = []
        for argument in (bundles.Rows(X, None), coef, intercept, out):
            flatten(argument, flat)
        function(*flat)
        assert out.tobytes() == expected.tobytes(), level


def test_the_build_target_is_host_or_generic(monkeypatch):
    monkeypatch.delenv("ROSENBLATT_CPU", raising=False)
    assert ahead_of_time.target_cpu() == "host"
    monkeypatch.setenv("ROSENBLATT_CPU", " Generic ")
    assert ahead_of_time.target_cpu() == "generic"
    monkeypatch.setenv("ROSENBLATT_CPU", "x86-64-v9")
    with pytest.raises(ValueError, match="ROSENBLATT_CPU='x86-64-v9': use host or generic"):
        ahead_of_time.target_cpu()


def test_a_call_the_library_was_not_built_for_takes_the_jit(monkeypatch):
    """A signature no warm-up variant reaches (an int32 order) still runs, through numba."""
    monkeypatch.delenv("ROSENBLATT_KERNELS", raising=False)
    order = loader.compiled_kernel("order.block_order")
    out = np.empty(6, dtype=np.int32), np.empty(6, dtype=np.int32)
    jit_before = order.jit_calls
    order(6, 2, 2, 3, *out)
    assert order.jit_calls == jit_before + 1
    assert sorted(out[0].tolist()) == list(range(6))


def test_forced_modes(monkeypatch):
    monkeypatch.setenv("ROSENBLATT_KERNELS", "sometimes")
    with pytest.raises(ValueError, match="use auto, jit or built"):
        loader._mode()


@pytest.mark.skipif(not BUILT, reason="no library built at install")
def test_strict_mode_names_the_missing_signature(monkeypatch):
    monkeypatch.setenv("ROSENBLATT_KERNELS", "built")
    order = loader.compiled_kernel("order.block_order")
    out = np.empty(6, dtype=np.int32), np.empty(6, dtype=np.int32)
    with pytest.raises(TypeError, match="order.block_order was not built for"):
        order(6, 2, 2, 3, *out)


def test_the_adapter_is_the_kernels_call():
    """The C function of a signature only unpacks pointers and shapes into the kernel's own
    arguments: a bundle of arrays and scalars, a Fortran array, a tuple result."""
    from rosenblatt.engine.kernels.ahead_of_time import cfunc_source

    source, signature, names = cfunc_source(
        (
            ("named", "Rule", (("scalar", "float64"),) * 2 + (("scalar", "bool"),) * 2),
            ("array", "float64", 2, "F", False),
            ("none",),
        ),
        ("tuple", (("scalar", "int64"), ("scalar", "float64"))),
    )
    assert "bundles.Rule(p0, p1, (p2 != 0), (p3 != 0))" in source
    assert "farray(p4, (p5, p6,), np.float64), None)" in source
    assert "carray(o1, (1,), np.float64)[0] = result[1]" in source
    assert (
        signature == "void(float64, float64, int64, int64, voidptr, int64, int64, voidptr, voidptr)"
    )
    assert names[-2:] == ["o0", "o1"]


def test_warmup_says_where_the_kernels_come_from(tmp_path):
    """``rosenblatt warmup`` names the library it loaded (or why the JIT runs instead)."""
    done = subprocess.run(
        [sys.executable, "-m", "rosenblatt", "warmup"], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert loader.library_status() in done.stderr
