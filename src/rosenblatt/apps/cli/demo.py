"""``rosenblatt demo``: every algorithm on built-in data, a table and an HTML report."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.table import Table

from ..._core.files import check_writable
from ._common import console, err_console, working
from ._options import OutputDir, Report

if TYPE_CHECKING:  # pragma: no cover
    from ..demo import DemoRow

DEFAULT_OUTPUT_DIR = "rosenblatt-report"


def demo_table(rows: Iterable[DemoRow]) -> Table:
    from ..demo import demo_table as cells_of

    columns, cells = cells_of(rows)
    table = Table(
        title="rosenblatt demo: every algorithm on built-in data",
        caption="fit (s): a second fit of each model, timed after a warm-up fit",
    )
    for column in columns:
        table.add_column(column, justify="left" if column in ("dataset", "algorithm") else "right")
    previous = None
    for row, line in zip(rows, cells):
        if previous is not None and row.dataset != previous:
            table.add_section()
        previous = row.dataset
        table.add_row(*line)
    return table


def command(output_dir: OutputDir = DEFAULT_OUTPUT_DIR, report: Report = True) -> None:
    """Run every algorithm on built-in data, print one comparison table, write a report."""
    _run(**locals())


def _run(output_dir: str, report: bool) -> None:
    """What ``rosenblatt demo`` does with its options: train, print the table, then write
    the report to ``output_dir`` if asked."""
    from ..demo import run_demo, write_demo_report

    if report:  # a folder that cannot be written fails now, not after the training
        check_writable(output_dir, folder=True)
    with working("Training every algorithm on the built-in data..."):
        rows = run_demo()
    console.print(demo_table(rows))  # the result: standard output
    if report:
        with working("Drawing the figures..."):
            path = write_demo_report(output_dir, rows)
        err_console.print(f"report: {os.path.abspath(path)}", markup=False)
