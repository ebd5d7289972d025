"""What every command shares: the consoles, error reporting and option parsing; the
model/data plumbing is :mod:`rosenblatt.apps.model_input`'s (the service shares it), its names
imported here for the commands."""

from __future__ import annotations

import errno
import os
import sys
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from typer import Abort
from typer.core import TyperCommand, TyperGroup

try:  # recent typer vendors click; older typer uses click itself
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover
    from click.exceptions import ClickException  # type: ignore[assignment]

from ...exceptions import DataFileError, ModelFileError, SolverError
from ..model_input import (  # noqa: F401 (the commands import them from here)
    calibration_of,
    final_estimator,
    input_format,
    is_text_model,
    jsonable,
    labels_like,
    load_model,
    model_columns,
    read_model_input,
    trained_format,
)
from ._words import describe

if TYPE_CHECKING:  # pragma: no cover
    from rich.progress import Progress
    from rich.status import Status
    from typer._click import Context, Parameter


class _Console(Console):
    """A rich console that leaves a closed pipe to :class:`ErrorHandlingGroup` (rich's own
    answer is exit status 1)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


# Standard output carries a command's result (labels, scores, reports, tables asked for);
# standard error everything else: progress, notes, summaries of what was done, errors.
# Pipes and CI logs get a readable width instead of rich's 80-column fallback.
console = _Console(width=None if sys.stdout.isatty() else 120, highlight=False)
err_console = _Console(
    stderr=True, width=None if sys.stderr.isatty() else 120, highlight=False, soft_wrap=True
)

# Set to see the traceback of an unexpected error instead of its one-line summary.
TRACEBACK_ENV = "ROSENBLATT_TRACEBACK"


def working(message: str) -> Status:
    """A spinner with ``message`` on standard error while a long step runs (nothing when
    standard error is not a terminal), so results on standard output stay clean."""
    return err_console.status(message)


@contextmanager
def erased_on_error(progress: Progress) -> Iterator[None]:
    """Run the block; if it fails, ``progress`` (a rich Progress, stopped after the block)
    leaves no trace, so the error stays the one line on standard error."""
    try:
        yield
    except BaseException:
        progress.live.transient = True
        raise


def report_error(message: str) -> None:
    """Print one red line to stderr (newlines in the message are folded)."""
    line = " ".join(str(message).split())
    err_console.print(f"[bold red]error:[/] [red]{escape(line)}[/]")


class _PipeClosed(Exception):
    """The reader of an output went away (``rosenblatt predict ... | head``)."""


@contextmanager
def _closed_pipe_passed_up():
    """A closed pipe as :class:`_PipeClosed`: click answers an ``EPIPE`` itself, with
    exit status 1, and the group ends quietly with 0 instead."""
    try:
        yield
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        raise _PipeClosed() from None


def _quiet_after_closed_pipe() -> int:
    """Point standard output and error at the null device, so the interpreter's last
    flush of what is still buffered succeeds instead of printing an error; exit status 0."""
    for stream in (sys.stdout, sys.stderr):
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):  # in-process (tests): no descriptor
            continue
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    return 0


class ErrorHandlingGroup(TyperGroup):
    """Run the command line; turn every error into one red line and exit status 2.

    Typer's own handling prints usage errors in a multi-line panel and other
    errors as a traceback; people running ``rosenblatt`` should get one line
    that says what is wrong instead. A closed pipe (``| head``) ends a command
    quietly with status 0. Messages name options, not the library's parameters
    (:mod:`._words`).
    """

    def get_params(self, ctx: Context) -> list[Parameter]:
        return _flags_untyped(super().get_params(ctx))

    def make_context(self, *args: Any, **kwargs: Any) -> Context:
        with _closed_pipe_passed_up():  # the help, the version
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: Context) -> Any:
        with _closed_pipe_passed_up():  # the commands
            return super().invoke(ctx)

    def main(  # type: ignore[override]  # always returns the exit status
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> int:
        args = sys.argv[1:] if args is None else list(args)
        try:
            code = super().main(
                args=args,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
            code = code if isinstance(code, int) else 0
            if sys.stdout is not None:  # None: started with standard output closed
                sys.stdout.flush()  # here, not at exit: a pipe closed early fails this flush
        except (_PipeClosed, BrokenPipeError):
            code = _quiet_after_closed_pipe()
        except ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # the help text, not an error
                console.print(exc.format_message(), markup=False, highlight=False)
                code = 2
            else:
                ctx = getattr(exc, "ctx", None)
                where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
                report_error(exc.format_message() + where)
                code = 2
        except Abort:
            report_error("aborted")
            code = 1
        except (DataFileError, ModelFileError, ValueError, OSError, SolverError) as exc:
            if os.environ.get(TRACEBACK_ENV):  # where the error came from, then the line
                traceback.print_exc()
            report_error(describe(exc))
            code = 2
        except Exception as exc:  # a bug: still one line, with a way to see more
            if os.environ.get(TRACEBACK_ENV):
                raise
            report_error(
                f"unexpected {type(exc).__name__}: {exc} (set {TRACEBACK_ENV}=1 to "
                "see the traceback, and please report it)"
            )
            code = 2
        if standalone_mode:
            sys.exit(code)
        return code


def _flags_untyped(params):
    """``params`` with on/off flags shown as just their names, without typer's ``<bool>``."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""  # an empty type column: the name says it all
    return params


class PlainHelpCommand(TyperCommand):
    """A command whose help reads like a Unix tool's.

    Typer writes required arguments as ``{DATA}`` on the usage line and gives
    on/off flags a ``<bool>`` type; people expect ``DATA`` (``[DATA]`` when
    optional) and a flag shown as just its name.
    """

    def get_params(self, ctx: Context) -> list[Parameter]:
        return _flags_untyped(super().get_params(ctx))  # the help option (-h) joins here

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name != "argument":
                continue
            name = (param.metavar or param.name or "").upper()
            pieces.append(name if param.required else f"[{name}]")
        return pieces


def parse_label_column(text: str | None) -> str | int | None:
    """``--label-column``: an int when it looks like one (an index), else a header name."""
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return text


def names_option(text: str | None) -> list[str] | None:
    """``--ignore a,b``: the comma-separated names (None when not given).

    Examples
    --------
    >>> names_option("id, note"), names_option(None)
    (['id', 'note'], None)
    """
    if text is None:
        return None
    return [name.strip() for name in text.split(",") if name.strip()]


def id_columns_of(values: Sequence[str] | None) -> list[str | int] | None:
    """``--id-column``'s values as the readers' ``id_columns``: an index where one looks
    like a number, else a header name (None when not given).

    Examples
    --------
    >>> id_columns_of(["id", "0"]), id_columns_of(None)
    (['id', 0], None)
    """
    columns = [c for c in map(parse_label_column, values or ()) if c is not None]
    return columns or None


def check_chunk_size(chunk_size: int) -> int:
    """``--chunk-size`` by the rule the readers and streaming keep (``CHUNK_SIZE``).

    Examples
    --------
    >>> check_chunk_size(500)
    500
    """
    from ..._core.validation import CHUNK_SIZE, check_option

    check_option("--chunk-size", [CHUNK_SIZE], chunk_size)
    return chunk_size


def auto(value: bool | None) -> bool | str:
    """An unset ``--zero-based``/``--header`` flag (None) as the readers' "auto"."""
    return "auto" if value is None else value
