"""The compiled-loop cache is dropped when a helper the loops inline changes."""

import shutil
from pathlib import Path

import rosenblatt.engine.kernels as kernels


def test_cache_is_dropped_when_an_inlined_helper_changes(tmp_path):
    for name in kernels._INLINED_HELPERS:
        shutil.copy(Path(kernels.__file__).parent / name, tmp_path / name)
    cache = tmp_path / "__pycache__"
    kernels._drop_stale_cache(tmp_path)  # first import: stamp written
    (cache / "linear.ovr_epoch-1.py311.nbi").write_text("index")
    (cache / "linear.ovr_epoch-1.py311.1.nbc").write_text("code")

    kernels._drop_stale_cache(tmp_path)  # helpers unchanged: the cache stays
    assert sorted(p.suffix for p in cache.iterdir()) == [".nbc", ".nbi", ".sha256"]

    with open(tmp_path / "_rows.py", "a") as helper:
        helper.write("\n# edited\n")
    kernels._drop_stale_cache(tmp_path)
    assert [p.suffix for p in cache.iterdir()] == [".sha256"]
