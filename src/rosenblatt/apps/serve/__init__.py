"""``rosenblatt serve``: a model that predicts over HTTP and keeps learning from labels.

One job a module:

- ``rows``: a request's rows and labels (JSON rows or columns, or the model's data
  format through the data readers), refused with the row and column named;
- ``recent``: the rows of recent predictions, for labels that come later;
- ``journal``: the learning log, on disk before a request is acknowledged, and its
  replay after a kill;
- ``served``: the snapshots predictions read and the one writer that learns and saves;
- ``metrics``: the counters of ``/metrics``;
- ``app``: the HTTP endpoints (Starlette) and their bounds;
- this module: :func:`serve`, on uvicorn (the ``[serve]`` extra).
"""

from __future__ import annotations

import os
import socket
import threading
import time
import warnings
from typing import Any

from ..._core import config

__all__ = ["Service", "default_log", "serve", "served_model"]

#: ``log``'s default: beside a model file, its name and ``.log``; none for a model object
AUTO = "auto"
_STARTUP_SECONDS = 60.0


def uvicorn_module() -> Any:
    """The ``uvicorn`` module, or an ``ImportError`` naming the extra that installs it."""
    try:
        import starlette  # noqa: F401 (the app's framework: missing, say so here)
        import uvicorn
    except ImportError:
        raise ImportError(
            "serving a model needs uvicorn and starlette: pip install 'rosenblatt[serve]'"
        ) from None
    return uvicorn


def _listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening (port 0: a free port)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as error:
        raise ValueError(f"cannot listen on {host}:{port} ({error.strerror or error})") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as error:
        sock.close()
        raise ValueError(
            f"cannot listen on {host}:{port} ({error.strerror or error}); choose another "
            "port, or 0 for any free one"
        ) from None
    return sock


class Service:
    """A service of a model, listening: its address, what it serves, and how to stop it.

    Parameters
    ----------
    served : rosenblatt.apps.serve.served.ServedModel
        What to serve (:func:`served_model`).
    host : str
    port : int
        Where to listen (port 0: any free port).

    Attributes
    ----------
    url : str
        ``http://HOST:PORT``.
    served : rosenblatt.apps.serve.served.ServedModel
        The model served (``served.snapshot.model`` is the model now).
    """

    def __init__(self, served: Any, host: str, port: int) -> None:
        from .app import build_app

        uvicorn = uvicorn_module()
        try:
            self.socket = _listening_socket(host, port)
        except ValueError:
            served.close()
            raise
        self.served = served
        bound, port = self.socket.getsockname()[:2]
        self.url = f"http://{f'[{bound}]' if ':' in bound else bound}:{port}"
        self.app = build_app(served)
        self.server = uvicorn.Server(
            uvicorn.Config(
                self.app,
                log_level="warning",
                access_log=False,
                lifespan="on",
                timeout_graceful_shutdown=10,
            )
        )
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        """Serve until stopped (Ctrl-C or SIGTERM in the main thread, or :meth:`stop`)."""
        self.server.run(sockets=[self.socket])

    def start(self) -> Service:
        """Serve from a daemon thread; return once the service answers."""
        self._thread = threading.Thread(target=self.run, name="rosenblatt-serve", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + _STARTUP_SECONDS
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the service at {self.url} did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving: the requests being served are answered, the learning waiting is
        learnt and the model file saved (its log started afresh)."""
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> Service:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()


def serve(
    model: Any,
    *,
    host: str = "127.0.0.1",
    port: int = config.SERVE_DEFAULT_PORT,
    log: str | os.PathLike[str] | None = AUTO,
    block: bool = True,
) -> Service | None:
    """Serve a model over HTTP: it predicts, and learns from labels as they come.

    ``POST /predict`` answers labels, scores (and probabilities, where the model has them)
    with an id per row and the model's version; ``POST /learn`` learns rows with their
    labels, or the rows of earlier predictions by their ids; ``POST /save`` writes the
    model atomically; ``GET /health`` and ``GET /metrics`` (Prometheus) tell how it goes.
    Predictions read a snapshot of the model; one writer learns, in arrival order, on a
    copy that replaces the snapshot once learnt. A learn request is written to the log
    and flushed to disk before it is answered: after a crash, serving the same file again
    learns what the log holds, to the same bytes as a model that learnt every
    acknowledged request in order. Stopping (Ctrl-C, SIGTERM) saves the model file.

    Parameters
    ----------
    model : str, path-like or estimator
        A model file (``rosenblatt.save``, ``rosenblatt train``), or a fitted model
        object (served from memory: no log, and ``/save`` needs a path).
    host : str, default="127.0.0.1"
        The address to listen on (only this machine, unless told otherwise).
    port : int, default=8765
        The port (0: any free port; ``Service.url`` says which).
    log : str, path-like or None, default="auto"
        The learning log: for a model file, by default the file's name with ``.log``
        added; None: no log (learning is lost in a crash). A model object has none.
    block : bool, default=True
        Serve until stopped and return None; False: serve from a background thread and
        return the running :class:`Service` (``service.stop()`` stops it).

    Returns
    -------
    Service or None

    Raises
    ------
    ImportError
        Without uvicorn and starlette (``pip install 'rosenblatt[serve]'``).
    ValueError
        When the address cannot be listened on, or the log cannot be continued (another
        model file's, or damaged: ``journal.LogError``).

    Examples
    --------
    >>> import json, tempfile, pathlib, urllib.request
    >>> import rosenblatt
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.rbl"
    >>> rosenblatt.save(rosenblatt.Perceptron(shuffle=False).fit(X, y), path)
    >>> service = rosenblatt.serve(path, port=0, block=False)
    >>> def post(endpoint, request):
    ...     data = json.dumps(request).encode()
    ...     with urllib.request.urlopen(service.url + endpoint, data) as answer:
    ...         return json.load(answer)
    >>> post("/predict", {"rows": [[1, 1], [-1, -1]]})["labels"]
    [1, -1]
    >>> post("/learn", {"rows": [[-1, -1]], "labels": [-1]})
    {'learned': 1, 'version': 1}
    >>> service.stop()
    """
    uvicorn_module()
    service = Service(served_model(model, log), host, port)
    if not block:
        return service.start()
    service.run()
    return None


def served_model(model: Any, log: str | os.PathLike[str] | None = AUTO) -> Any:
    """What :func:`serve` serves: a model file, its log replayed (``log="auto"``: the file's
    name with ``.log``), or a model object (no log).

    Returns
    -------
    rosenblatt.apps.serve.served.ServedModel
    """
    from .served import ServedModel

    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        served = ServedModel.from_file(path, default_log(path) if log == AUTO else log)
    else:
        if log not in (AUTO, None):
            raise ValueError(
                "a learning log continues a model file; save the model first "
                "(rosenblatt.save) and serve the file, or leave log out"
            )
        served = ServedModel(model)
    # a model fitted on named columns reads the service's arrays in their order
    warnings.filterwarnings("ignore", message="X does not have valid feature names")
    return served


def default_log(path: str | os.PathLike[str]) -> str:
    """The learning log of a model file when none is named: its path with ``.log`` added.

    Examples
    --------
    >>> default_log("models/spam.rbl")
    'models/spam.rbl.log'
    """
    return os.fspath(path) + ".log"
