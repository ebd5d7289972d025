"""The playground's local web server (the standard library's threading HTTP server).

Routes:

- ``GET /``: the page; ``GET /static/<file>``: its script and style sheet;
- ``GET /api/presets``: the preset point sets, the plot's view box and the
  limits of a run (``limits``: :func:`.runs.limits`), which the page checks;
- ``POST /api/points``: ``{"name": file name, "text": its content}``, a student's CSV
  file (:func:`.uploads.read_points`), answered with ``{"points", "labels", "note"}``;
  a refused file gets HTTP 400 and one line naming the row;
- ``POST /api/lesson``: a run request with ``cursor`` and ``exercises``, answered with
  the lesson notebook (:func:`.lesson.lesson_notebook`) as a download;
- ``POST /api/run``: a JSON run request (see :func:`.runs.parse_request`),
  answered with every step of the run (:func:`.runs.run`). A request the
  playground refuses gets HTTP 400 and ``{"error": message}``: JSON it does not read
  (nested deeper than :data:`rosenblatt._core.json_input.MAX_DEPTH`, numbers beyond the
  float range), settings outside their bounds, and points or settings whose run
  overflows the float range (the engine's and the theory's refusals). Every answer is
  valid JSON: never a bare ``NaN`` or ``Infinity``.

Every request gets an answer, the page shows its ``error``: a run that fails in the
server is an HTTP 500 (and one line on standard error), never a closed connection.
A whole class may post at once: :data:`RUNS_AT_ONCE` runs are computed at a time (more
would only share the same cores, each slower), up to :data:`RUNS_WAITING` more wait
their turn in order, for at most :data:`WAIT_SECONDS`; beyond that a request gets a
503 with ``Retry-After`` (the page tries again after it). A small run (at most
:data:`SMALL_RUN` of the largest allowed, :func:`.runs.run_size`: the notes' examples,
the presets) takes milliseconds and computes at once, never behind a large one.

It binds to 127.0.0.1 unless told otherwise: it is a teaching tool, not a
public service.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

from ..._core.json_input import loads
from ...exceptions import SolverError
from .._failure import failure as _failure
from ..palette import palette_json
from .presets import presets
from .runs import PlaygroundError, limits, parse_request, run, run_size

__all__ = [
    "MAX_BODY_BYTES",
    "RETRY_AFTER_SECONDS",
    "RUNS_AT_ONCE",
    "RUNS_WAITING",
    "SMALL_RUN",
    "WAIT_SECONDS",
    "make_server",
    "serve_in_thread",
    "static_files",
]

#: the largest run request read (2,000 points take about 60 kB)
MAX_BODY_BYTES = 1 << 20
#: runs computed at once: one a core (a run holds one; more share it and all finish later)
RUNS_AT_ONCE = max(1, os.cpu_count() or 1)
#: runs that wait for a turn, in order; a request beyond these gets a 503
RUNS_WAITING = 64
#: the longest a run waits for its turn before its request gets a 503
WAIT_SECONDS = 60.0
#: what a 503 asks the page to wait before it posts the run again
RETRY_AFTER_SECONDS = 2
#: the size of a run (:func:`.runs.run_size`) that computes without waiting for a turn
SMALL_RUN = 0.05
_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".png": "image/png"}


def static_files() -> dict[str, bytes]:
    """The page's files by name (``index.html``, ``playground.js``, ...)."""
    folder = resources.files(__package__).joinpath("static")
    return {entry.name: entry.read_bytes() for entry in folder.iterdir() if entry.is_file()}


class Turns:
    """Turns to compute a run: ``at_once`` at a time, ``waiting`` more in a queue.

    Examples
    --------
    >>> turns = Turns(at_once=1, waiting=0, wait_seconds=0.1)
    >>> with turns.turn() as first, turns.turn() as second:
    ...     first, second
    (True, False)
    """

    def __init__(self, at_once: int, waiting: int, wait_seconds: float) -> None:
        self._running = threading.Semaphore(at_once)
        self._lock = threading.Lock()
        self._admitted = 0  # running and waiting
        self._capacity = at_once + waiting
        self._wait_seconds = wait_seconds

    @property
    def admitted(self) -> int:
        """The runs computing or waiting for their turn now."""
        return self._admitted

    @contextmanager
    def turn(self) -> Iterator[bool]:
        """Wait for a turn; yield whether one came (False: the queue was full, or the
        wait too long)."""
        with self._lock:
            admitted = self._admitted < self._capacity
            self._admitted += admitted
        try:
            got = admitted and self._running.acquire(timeout=self._wait_seconds)
            try:
                yield got
            finally:
                if got:
                    self._running.release()
        finally:
            with self._lock:
                self._admitted -= admitted


def _log(message: str) -> None:
    """One line on standard error (the terminal that serves), never a traceback."""
    sys.stderr.write(f"rosenblatt playground: {' '.join(message.split())}\n")
    sys.stderr.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # connections the system holds until accepted: a class at once
    turns: Turns

    def handle_error(self, request, client_address):
        """An error outside a handler's answer (the client went away mid-answer): one line."""
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError):
            _log(f"a request from {client_address[0]} failed: {_failure(error)}")


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "rosenblatt-playground"
    files: dict[str, bytes] = {}

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        """Quiet: the terminal shows the URL and errors, not every request."""

    def _send(self, status, body: bytes, content_type: str, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status, value, headers=()):
        # allow_nan=False: a bare NaN or Infinity is no JSON (the page could not read it);
        # such a value is a bug, and its ValueError answers 500 with valid JSON instead
        body = json.dumps(value, allow_nan=False).encode()
        self._send(status, body, "application/json", headers)

    def _error(self, status, message: str, headers=()):
        self._json(status, {"error": message}, headers)

    def _answered(self, answer) -> None:
        """Run ``answer``; an exception it raises becomes a 500 the page shows, and a line."""
        try:
            answer()
        except ConnectionError:  # the client left: no one to answer
            pass
        except Exception as error:  # noqa: BLE001 - every request gets an answer
            where = f"{self.command} {self.path.split('?', 1)[0]}"
            _log(f"{where} failed: {_failure(error)}")
            self.close_connection = True
            try:
                self._error(
                    HTTPStatus.INTERNAL_SERVER_ERROR,
                    f"The playground failed on this request ({_failure(error)}). "
                    "Try again; if it fails again, please report it with the page's link.",
                )
            except OSError:  # the answer had begun, or the client left
                pass

    def do_GET(self):  # noqa: N802 - the base class's name
        self._answered(self._get)

    def do_POST(self):  # noqa: N802 - the base class's name
        self._answered(self._post)

    def _get(self):
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            path = "/static/index.html"
        if path == "/api/presets":  # with the run limits: the page checks the server's own
            return self._json(
                HTTPStatus.OK, {**presets(), "limits": limits(), "palette": palette_json()}
            )
        name = path.removeprefix("/static/")
        if path.startswith("/static/") and name in self.files:  # only the page's own files
            suffix = name[name.rfind(".") :]
            return self._send(HTTPStatus.OK, self.files[name], _TYPES.get(suffix, "text/plain"))
        return self._error(HTTPStatus.NOT_FOUND, f"no page at {path}")

    def _post(self):
        path = self.path.split("?", 1)[0]
        if path not in ("/api/run", "/api/points", "/api/lesson"):
            return self._error(HTTPStatus.NOT_FOUND, f"no endpoint at {self.path}")
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            return self._error(HTTPStatus.BAD_REQUEST, "Content-Length must be a number.")
        if not 0 < length <= MAX_BODY_BYTES:
            return self._error(
                HTTPStatus.BAD_REQUEST,
                f"the request body must hold 1 to {MAX_BODY_BYTES} bytes; got {length}.",
            )
        try:
            payload = loads(self.rfile.read(length))
            if path == "/api/points":
                return self._points(payload)
            request = parse_request(payload)
            if path == "/api/lesson":
                return self._lesson(payload, request)
        except ValueError as exc:  # PlaygroundError, JSONInputError
            message = str(exc) if isinstance(exc, PlaygroundError) else f"bad request: {exc}"
            return self._error(HTTPStatus.BAD_REQUEST, message)
        small = run_size(request[0], request[2]) <= SMALL_RUN
        with nullcontext(True) if small else self.server.turns.turn() as turn:
            if not turn:
                return self._error(
                    HTTPStatus.SERVICE_UNAVAILABLE,
                    "The playground is busy with other runs; the page tries again in "
                    f"{RETRY_AFTER_SECONDS} s.",
                    [("Retry-After", str(RETRY_AFTER_SECONDS))],
                )
            try:
                reply = run(*request)
            except (ValueError, SolverError) as exc:  # the engine's or the theory's refusal
                return self._error(HTTPStatus.BAD_REQUEST, f"bad request: {exc}")
        return self._json(HTTPStatus.OK, reply)

    def _points(self, payload):
        """A student's file: its points and labels, or the one line that refuses it."""
        from .uploads import read_points

        if not isinstance(payload, dict) or not isinstance(payload.get("text"), str):
            raise PlaygroundError('send {"name": the file\'s name, "text": its content}.')
        name = payload.get("name")
        uploaded = read_points(payload["text"], name if isinstance(name, str) else "upload.csv")
        return self._json(HTTPStatus.OK, asdict(uploaded))

    def _lesson(self, payload, request):
        """The page's state as a notebook, sent as a file to save."""
        import nbformat

        from .lesson import lesson_notebook

        X, y, settings = request
        cursor = payload.get("cursor")
        if cursor is not None and (
            not isinstance(cursor, int) or isinstance(cursor, bool) or cursor < 0
        ):
            raise PlaygroundError(f"cursor must be a count of presentations; got {cursor!r}.")
        notebook = lesson_notebook(
            X, y, settings, cursor=cursor, exercises=bool(payload.get("exercises", False))
        )
        body = nbformat.writes(notebook).encode("utf-8")
        disposition = ("Content-Disposition", 'attachment; filename="lesson.ipynb"')
        self._send(HTTPStatus.OK, body, "application/x-ipynb+json", [disposition])


def make_server(
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    at_once: int = RUNS_AT_ONCE,
    waiting: int = RUNS_WAITING,
    wait_seconds: float = WAIT_SECONDS,
) -> ThreadingHTTPServer:
    """A server for the playground on ``host:port`` (port 0: any free port), not yet serving.

    Parameters
    ----------
    host : str, default="127.0.0.1"
    port : int, default=8765
    at_once : int, default=RUNS_AT_ONCE
        Runs computed at the same time.
    waiting : int, default=RUNS_WAITING
        Runs that may wait for a turn; a request beyond them gets a 503.
    wait_seconds : float, default=WAIT_SECONDS
        The longest a run waits for its turn (then its request gets a 503).

    Returns
    -------
    http.server.ThreadingHTTPServer
        Call ``serve_forever()``; ``shutdown()`` and ``server_close()`` stop it.
    """
    handler = type("PlaygroundHandler", (_Handler,), {"files": static_files()})
    server = _Server((host, port), handler)
    server.turns = Turns(at_once, waiting, wait_seconds)
    return server


def url_of(server: ThreadingHTTPServer) -> str:
    """The page's address on a running server."""
    host, port = server.server_address[:2]
    return f"http://{host!s}:{port}/"


def serve_in_thread(host: str = "127.0.0.1", port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Start a server in a daemon thread; return ``(server, url)`` (tests, notebooks).

    Examples
    --------
    >>> import json, urllib.request
    >>> from rosenblatt.apps.playground.server import serve_in_thread
    >>> server, url = serve_in_thread()
    >>> with urllib.request.urlopen(url + "api/presets") as reply:
    ...     sorted(json.load(reply)["presets"])[:3]
    ['and', 'blobs', 'moons']
    >>> server.shutdown(); server.server_close()
    """
    server = make_server(host, port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, url_of(server)
