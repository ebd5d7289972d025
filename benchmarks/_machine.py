"""What the benchmarks print about the machine they ran on (imported by the scripts beside it:
run as ``python benchmarks/<script>.py``, this folder is on ``sys.path``)."""

from __future__ import annotations

import platform


def cpu_name() -> str:
    """The CPU's model name (Linux's ``/proc/cpuinfo``), else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
