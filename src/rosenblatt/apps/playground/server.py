"""The playground's local web server (the standard library's threading HTTP server).

Routes:

- ``GET /``: the page; ``GET /static/<file>``: its script and style sheet;
- ``GET /api/presets``: the preset point sets, the plot's view box and the
  limits of a run (``limits``: :func:`.runs.limits`), which the page checks;
- ``POST /api/run``: a JSON run request (see :func:`.runs.parse_request`),
  answered with every step of the run (:func:`.runs.run`). A request the
  playground refuses gets HTTP 400 and ``{"error": message}``.

It binds to 127.0.0.1 unless told otherwise: it is a teaching tool, not a
public service.
"""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

from .presets import presets
from .runs import PlaygroundError, limits, parse_request, run

__all__ = ["MAX_BODY_BYTES", "make_server", "serve_in_thread", "static_files"]

#: the largest run request read (2,000 points take about 60 kB)
MAX_BODY_BYTES = 1 << 20
_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".png": "image/png"}


def static_files() -> dict[str, bytes]:
    """The page's files by name (``index.html``, ``playground.js``, ...)."""
    folder = resources.files(__package__).joinpath("static")
    return {entry.name: entry.read_bytes() for entry in folder.iterdir() if entry.is_file()}


class _Handler(BaseHTTPRequestHandler):
    server_version = "rosenblatt-playground"
    files: dict[str, bytes] = {}

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        """Quiet: the terminal shows the URL and errors, not every request."""

    def _send(self, status, body: bytes, content_type: str):
        self.send_response(status)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status, value):
        self._send(status, json.dumps(value).encode(), "application/json")

    def _error(self, status, message: str):
        self._json(status, {"error": message})

    def do_GET(self):  # noqa: N802 - the base class's name
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            path = "/static/index.html"
        if path == "/api/presets":  # with the run limits: the page checks the server's own
            return self._json(HTTPStatus.OK, {**presets(), "limits": limits()})
        name = path.removeprefix("/static/")
        if path.startswith("/static/") and name in self.files:  # only the page's own files
            suffix = name[name.rfind(".") :]
            return self._send(HTTPStatus.OK, self.files[name], _TYPES.get(suffix, "text/plain"))
        return self._error(HTTPStatus.NOT_FOUND, f"no page at {path}")

    def do_POST(self):  # noqa: N802 - the base class's name
        if self.path.split("?", 1)[0] != "/api/run":
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
            payload = json.loads(self.rfile.read(length))
            reply = run(*parse_request(payload))
        except (ValueError, UnicodeDecodeError) as exc:  # PlaygroundError, bad JSON, theory
            message = str(exc) if isinstance(exc, PlaygroundError) else f"bad request: {exc}"
            return self._error(HTTPStatus.BAD_REQUEST, message)
        return self._json(HTTPStatus.OK, reply)


def make_server(host: str = "127.0.0.1", port: int = 8765) -> ThreadingHTTPServer:
    """A server for the playground on ``host:port`` (port 0: any free port), not yet serving.

    Parameters
    ----------
    host : str, default="127.0.0.1"
    port : int, default=8765

    Returns
    -------
    http.server.ThreadingHTTPServer
        Call ``serve_forever()``; ``shutdown()`` and ``server_close()`` stop it.
    """
    handler = type("PlaygroundHandler", (_Handler,), {"files": static_files()})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
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
