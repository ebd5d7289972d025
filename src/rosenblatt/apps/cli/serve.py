"""``rosenblatt serve``: a saved model over HTTP, predicting and learning from labels."""

from __future__ import annotations

import gc
from typing import Annotated

import typer

from ..._core.config import SERVE_DEFAULT_PORT
from ._common import err_console, report_error
from ._options import Host, Log, Model, Port, more_help

_Model = Annotated[
    str,
    more_help(Model, "It is served, and saved over as it learns (when the service stops)."),
]


def command(
    model: _Model,
    host: Host = "127.0.0.1",
    port: Port = SERVE_DEFAULT_PORT,
    log: Log = None,
) -> None:
    """Serve a model over HTTP: it predicts, and keeps learning from labels as they come.

    POST /predict {"rows": [[...], ...]} answers labels, scores, an id per row and the model's version; POST /learn {"rows": [...], "labels": [...]} (or {"ids": [...], "labels": [...]}) learns; POST /save writes the model file; GET /health; GET /metrics (Prometheus).

    Each learn request is in the log (flushed to disk) before it is answered: after a crash, serving the same file again learns what the log holds. Needs the extra: pip install 'rosenblatt\\[serve]'. Stop with Ctrl-C (the model file is saved).
    """  # noqa: E501 (one line a paragraph: the help keeps the docstring's line breaks)
    _run(**locals())


def _run(model: str, host: str, port: int, log: str | None) -> None:
    """What ``rosenblatt serve`` does with its options: load the model, replay its log,
    serve until stopped (without the extra: one line that says how to add it)."""
    from ..serve import Service, default_log, served_model, uvicorn_module

    try:
        uvicorn_module()
    except ImportError as exc:  # the extra is missing: one line that says how to add it
        report_error(str(exc))
        raise typer.Exit(2) from None
    log = default_log(model) if log is None else log
    served = served_model(model, log)
    if served.replayed:
        err_console.print(
            f"learnt the {served.replayed} request(s) that {log} held after {model}'s last "
            f"save, and saved {model} (version {served.snapshot.version})",
            markup=False,
        )
    service = Service(served, host, port)
    snapshot = served.snapshot
    err_console.print(
        f"serving {model} ({type(snapshot.model).__name__}, version {snapshot.version}) at "
        f"{service.url} (log: {log}; Ctrl-C stops)",
        markup=False,
    )
    if host not in ("127.0.0.1", "localhost", "::1"):
        err_console.print(f"It listens on {host}: other machines can reach it.", markup=False)
    # what the start made (the libraries, the model) lives as long as the process: out of
    # the garbage collector's full passes, which would pause answers (this process is ours)
    gc.collect()
    gc.freeze()
    service.run()
    err_console.print(f"stopped; {model} is at version {served.snapshot.version}", markup=False)
