"""Typer application: each command formats what a plain library function returns.

The commands live in one module each (``train.py``, ``predict.py``, ...), as a
plain function that returns data and a thin ``command``: its signature takes the
options, each declared once in ``_options.py``, and hands them to the module's
``_run``, which prints what the function returns. Every error reaches the user as
one red line and exit status 2 (see
:class:`~rosenblatt.apps.cli._common.ErrorHandlingGroup`).
"""

from __future__ import annotations

import typer

from . import (
    crossval,
    demo,
    evaluate,
    export,
    inspection,
    lesson,
    playground,
    plotting,
    predict,
    serve,
    tracing,
    train,
    warmup,
)
from ._common import ErrorHandlingGroup, PlainHelpCommand, console

app = typer.Typer(
    name="rosenblatt",
    cls=ErrorHandlingGroup,
    help="Perceptron-family linear classifiers, with the theory made executable.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        console.print(f"rosenblatt {version('rosenblatt')}", markup=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        "-V",
        callback=_print_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """Perceptron-family linear classifiers, with the theory made executable."""


COMMANDS = {
    "demo": demo,
    "train": train,
    "predict": predict,
    "evaluate": evaluate,
    "inspect": inspection,
    "trace": tracing,
    "plot": plotting,
    "warmup": warmup,
    "playground": playground,
    "lesson": lesson,
    "cross-validate": crossval,
    "export": export,
    "serve": serve,
}
for _name, _module in COMMANDS.items():  # every command's help reads like a Unix tool's
    app.command(_name, cls=PlainHelpCommand)(_module.command)

__all__ = ["app", "console"]
