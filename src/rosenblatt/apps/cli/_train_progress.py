"""What ``rosenblatt train`` shows while it trains: the epoch bar, or the streamed run's
parse and epoch bars. The spinners of the steps after training come from ``train.py``
(its ``steps_after``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..._core.config import ONLINE_CALIBRATION
from ._common import erased_on_error, err_console

if TYPE_CHECKING:  # pragma: no cover
    from ._train_summary import TrainResult


def no_stage(message: str) -> AbstractContextManager[Any]:
    """The ``stage`` of a run that shows nothing: each step runs as it is."""
    return nullcontext()


def fit_with_epoch_progress(
    fit: Callable[..., TrainResult],
    calibrate: str | None,
    steps_after: Callable[[Callable[[], Any]], Callable[[str], AbstractContextManager[Any]]],
    **kwargs: Any,
) -> TrainResult:
    """``fit(**kwargs)`` (in memory, an iterative algorithm) with a bar of its epochs
    (``kwargs["epochs"]`` at most).

    ``steps_after(stop)`` makes the ``stage`` of the steps after training, which first
    calls ``stop`` (the bar's last state). With ``calibrate`` on folds the folds'
    classifiers ran the epochs: the bar is not completed from the model's ``n_iter_``.
    """
    progress = Progress(
        TextColumn("[bold]training[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("epochs, last epoch: {task.fields[mistakes]} mistakes"),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
    )
    task = progress.add_task("train", total=kwargs["epochs"] or 1, mistakes="-", start=False)
    bar = {"started": False, "stopped": False, "last": None}

    def on_epoch(report):
        if not bar["started"]:  # started by the first epoch: a bad file fails before any bar
            bar["started"] = True
            progress.start()
            progress.start_task(task)
        bar["last"] = report
        progress.update(
            task, total=report.max_epochs, completed=report.epoch, mistakes=report.mistakes
        )

    def stop_bar(trained=False):
        """The epoch bar's last state, before the steps after training show theirs."""
        if bar["started"] and not bar["stopped"]:
            bar["stopped"] = True
            fitted = bar["last"].model  # its fitted attributes: the finished run's
            folds = calibrate not in (None, ONLINE_CALIBRATION)  # each fold its own epochs
            if trained and not folds and getattr(fitted, "converged_", False):
                progress.update(task, total=fitted.n_iter_, completed=fitted.n_iter_)
            progress.stop()

    try:
        with erased_on_error(progress):
            result = fit(
                **kwargs,
                on_epoch=on_epoch,
                stage=steps_after(lambda: stop_bar(trained=True)),
            )
    finally:
        stop_bar()
    return result


def fit_with_stream_progress(
    fit: Callable[..., TrainResult],
    data: str,
    steps_after: Callable[[Callable[[], Any]], Callable[[str], AbstractContextManager[Any]]],
    **kwargs: Any,
) -> TrainResult:
    """``fit`` (a streamed one) with a bar: the parse (bytes), then the epochs (rows).

    ``steps_after(stop)`` makes the ``stage`` of the steps after training, which first
    calls ``stop`` (the bars' last state).
    """
    from rich.progress import TaskProgressColumn

    progress = Progress(
        TextColumn("[bold]{task.description}[/]"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[where]}"),
        TextColumn("{task.fields[speed]}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
    )
    size = max(os.path.getsize(data) if os.path.isfile(data) else 0, 1)  # else: the scan says why
    # standard input has no scan: its first epoch trains as it is read
    parse = progress.add_task("parsing", total=size, where="", speed="", visible=data != "-")
    train = progress.add_task("training", total=1, where="", speed="", visible=False)
    state = {"started": False, "mistakes": "-"}

    def on_progress(report):
        if not state["started"]:  # a bad option fails before any bar
            state["started"] = True
            progress.start()
        speed = f"{report.rows_per_second:,.0f} rows/s"
        if report.stage == "parse":
            progress.update(
                parse,
                completed=min(report.bytes_read, size),
                where=f"{report.rows:,} rows",
                speed=speed,
            )
            return
        n = report.n_samples
        if n is None:  # standard input's first epoch: rows as they come, no end known
            progress.update(
                train,
                visible=True,
                total=None,
                completed=report.rows,
                where=f"epoch 1/{report.max_epochs}, {report.rows:,} rows read",
                speed=speed,
            )
            return
        if data == "-":
            state["parsed"] = True
        if not state.get("parsed"):  # the parse bar's last word: the rows the scan kept
            state["parsed"] = True
            scanned = progress.tasks[parse].fields["where"]  # counts a header row too
            where = f"{n:,} rows" if scanned else "none: the kept cache holds the file"
            progress.update(parse, completed=size, where=where)
        progress.update(
            train,
            visible=True,
            total=report.max_epochs * n,
            completed=(report.epoch - 1) * n + report.rows,
            where=f"epoch {report.epoch}/{report.max_epochs}, last epoch "
            f"{state['mistakes']} mistakes",
            speed=speed,
        )

    def on_epoch(report):
        state["mistakes"] = report.mistakes
        state["epoch"] = report.epoch

    def stop_bar(trained=False):
        """The bars' last state, before the steps after training show theirs."""
        if state["started"] and not state.get("stopped"):
            state["stopped"] = True
            if trained and "epoch" in state:  # the bar is complete (stopped early or not)
                task = progress.tasks[train]
                progress.update(
                    train,
                    total=task.completed or 1,
                    completed=task.completed or 1,
                    where=f"epoch {state['epoch']}/{kwargs['epochs']}, last epoch "
                    f"{state['mistakes']} mistakes",
                )
            progress.stop()

    try:
        with erased_on_error(progress):  # the parse bar starts before the file is checked
            result = fit(
                on_epoch=on_epoch,
                on_progress=on_progress,
                stage=steps_after(lambda: stop_bar(trained=True)),
                **kwargs,
            )
    finally:
        stop_bar()
    return result
