"""Typer application: each command formats what a plain library function returns."""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    name="rosenblatt",
    help="Perceptron-family linear classifiers, with the theory made executable.",
    no_args_is_help=True,
    add_completion=False,
)
# Pipes and CI logs get a readable width instead of rich's 80-column fallback.
console = Console(width=None if sys.stdout.isatty() else 120)


@app.callback()
def _root() -> None:
    """Perceptron-family linear classifiers, with the theory made executable."""


@app.command()
def demo() -> None:
    """Run every perceptron on built-in data and print one comparison table."""
    from ..demo import run_demo

    with console.status("Training every perceptron on the built-in data..."):
        rows = run_demo()
    table = Table(title="rosenblatt demo: every perceptron on built-in data")
    for column in ("dataset", "algorithm", "train acc", "test acc", "mistakes", "epochs",
                   "converged", "time (s)"):
        table.add_column(column, justify="left" if column in ("dataset", "algorithm") else "right")
    for row in rows:
        table.add_row(
            row.dataset, row.algorithm, f"{row.train_accuracy:.3f}", f"{row.test_accuracy:.3f}",
            "-" if row.mistakes < 0 else str(row.mistakes), str(row.epochs),
            {True: "yes", False: "no", None: "-"}[row.converged], f"{row.seconds:.3f}",
        )
    console.print(table)
