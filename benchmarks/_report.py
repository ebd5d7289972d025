"""What the fuzzers print of their failures (imported by the scripts beside it: run as
``python benchmarks/<script>.py``, this folder is on ``sys.path``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: What :func:`print_groups` wants of a group: ``(kind, title, details, why, command)``.
Described = tuple[str, str, list[str], str, str]


def print_groups(
    groups: Sequence[tuple[Any, list]],
    shown: int,
    describe: Callable[[Any, list], Described],
    width: int = 500,
) -> None:
    """Print the first ``shown`` of ``groups`` (``(key, members)`` pairs, in the order
    given): ``[N x kind] title``, the details, what happened (cut to ``width``) and the
    command that shows one; then how many groups are left."""
    for key, members in groups[:shown]:
        kind, title, details, why, command = describe(key, members)
        print(f"\n[{len(members)}x {kind}] {title}")
        for line in details:
            print(f"  {line}")
        print(f"  -> {' '.join(why.split())[:width]}")
        print(f"  {command}")
    if len(groups) > shown:
        print(f"\n... and {len(groups) - shown} more groups (--groups N shows more)")
