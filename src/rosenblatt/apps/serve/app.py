"""The service's HTTP interface: a Starlette app behind a small ASGI layer of bounds.

Routes (JSON in and out, but ``/metrics``):

- ``POST /predict``: rows -> ``{"labels", "classes", "scores", "probabilities" (where the
  model has them), "ids", "version"}``;
- ``POST /learn``: rows with labels, or prediction ids with labels -> ``{"learned",
  "version"}``, answered once the request is learnt and in the log;
- ``POST /save``: ``{"path": ...}`` (optional; default the served file) -> ``{"saved",
  "version", "sha256", "bytes"}``;
- ``GET /health``: what is served, its version and the writer's queue;
- ``GET /metrics``: :mod:`.metrics`' text.

Every refusal is JSON, ``{"error": message}``: 400 for a request the service or the model
refuses (bad rows name the row and column), 413 for a body over
:data:`~rosenblatt._core.config.SERVE_MAX_BODY_BYTES`, 503 with ``Retry-After`` when
:data:`~rosenblatt._core.config.SERVE_MAX_REQUESTS` requests are being served or the
writer's queue is full, 404 and 405 for what is not an endpoint. A failure of the service
itself is a 500 with the same body and one line on standard error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..._core import config
from ..._core.json_input import loads
from ...engine.numpy_decision import LinearPredictor, labels_from_scores
from .._failure import failure as _failure
from ..model_input import jsonable
from .metrics import Metrics
from .recent import RecentPredictions
from .rows import RequestError, RowReader
from .served import Busy, ServedModel

__all__ = ["ENDPOINTS", "build_app"]

#: What the service answers, for the 404's message
ENDPOINTS = "POST /predict, POST /learn, POST /save, GET /health, GET /metrics"
_JSON = "application/json"
_ROWS = "rosenblatt.rows"  # the scope's entry where an endpoint leaves the rows it served
_DRAIN_TIMES = 4  # a body up to this many times the bound is read (and dropped) to answer 413


def _log(message: str) -> None:
    """One line on standard error (the terminal that serves), never a traceback."""
    sys.stderr.write(f"rosenblatt serve: {' '.join(message.split())}\n")
    sys.stderr.flush()


def _json(status: int, value: Any, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(value, allow_nan=False, separators=(",", ":")).encode()
    return Response(body, status, headers, media_type=_JSON)


def _refusal(status: int, message: str, **details: Any) -> Response:
    headers = None
    if status == 503:
        headers = {"Retry-After": str(config.SERVE_RETRY_AFTER_SECONDS)}
    return _json(status, {"error": message, **details}, headers)


def _busy_message(served: ServedModel) -> str:
    return (
        f"the service is busy: {served.queue_length} learn or save requests wait for the "
        f"writer; try again in {config.SERVE_RETRY_AFTER_SECONDS} s"
    )


class _Bounds:
    """The ASGI layer around the app: at most ``max_requests`` requests at once (one more
    gets 503 at once), each one timed and counted in ``metrics``."""

    def __init__(self, app: Any, metrics: Metrics, max_requests: int) -> None:
        self.app, self.metrics, self.max_requests = app, metrics, max_requests
        self.in_flight = 0

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.perf_counter()
        status = 500

        async def counted(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            if self.in_flight >= self.max_requests:
                response = _refusal(
                    503,
                    f"the service is busy: {self.in_flight} requests are being served; try "
                    f"again in {config.SERVE_RETRY_AFTER_SECONDS} s",
                )
                return await response(scope, receive, counted)
            self.in_flight += 1
            try:
                await self.app(scope, receive, counted)
            finally:
                self.in_flight -= 1
        finally:
            path = scope["path"]
            endpoint = path if path in _COUNTED else "other"
            self.metrics.answered(
                endpoint, status, time.perf_counter() - start, scope.get(_ROWS, 0)
            )


_COUNTED = ("/predict", "/learn", "/save", "/health", "/metrics")


async def _body(request: Request) -> bytes:
    """The request's body, refused with 413 past the bound (what is read past it is
    dropped, up to a bound, so that the client reads the answer: a connection closed on
    unread bytes is reset, and the answer lost with it)."""
    limit = config.SERVE_MAX_BODY_BYTES
    length = request.headers.get("content-length")
    chunks, size = [], 0
    stream = request.stream()
    if length is not None and length.isdigit() and int(length) > limit:
        await _drain(request, stream, 0)
        raise RequestError(
            f"the body holds {int(length)} bytes, more than the {limit} a request may hold; "
            "send the rows in smaller requests",
            status=413,
        )
    async for chunk in stream:
        size += len(chunk)
        if size > limit:
            await _drain(request, stream, size)
            raise RequestError(
                f"the body holds more than the {limit} bytes a request may hold; send the "
                "rows in smaller requests",
                status=413,
            )
        chunks.append(chunk)
    return b"".join(chunks)


async def _drain(request: Request, stream: Any, size: int) -> None:
    """Read and drop the rest of a body too large to serve, up to a bound (a client that
    waits for ``100 Continue`` has sent nothing: it gets the answer at once)."""
    if "100-continue" in request.headers.get("expect", "").lower():
        return
    bound = _DRAIN_TIMES * config.SERVE_MAX_BODY_BYTES
    async for chunk in stream:
        size += len(chunk)
        if size > bound:
            return


def _save_target(body: bytes) -> str | None:
    """The path a ``/save`` body names: ``{"path": ...}``; None (the served file) for an
    empty body or ``{}``."""
    if not body.strip():
        return None
    try:
        request = loads(body)
    except ValueError as error:  # JSONInputError
        raise RequestError(f"bad request: {error}") from None
    if request == {}:
        return None
    path = request.get("path") if isinstance(request, dict) and set(request) == {"path"} else None
    if not isinstance(path, str) or not path:
        raise RequestError(
            'a save request is empty (save the served file) or {"path": "model.rbl"}'
        )
    return path


def _predictions(snapshot: Any, X: Any) -> dict[str, Any]:
    """Labels, scores and probabilities (where the model has them) of rows ``X``: what the
    model's ``predict``, ``decision_function`` and ``predict_proba`` give, a pipeline's
    front steps applied once."""
    predictor, model = snapshot.predictor, snapshot.model
    if snapshot.front is not None:
        X = snapshot.front(X)
    scores = None
    if isinstance(predictor, LinearPredictor):  # scores once, labels from them
        scores = predictor.decision_function(X)
        labels = labels_from_scores(predictor.classes_, scores, multilabel=predictor.multilabel_)
    else:
        labels = predictor.predict(X)
        if hasattr(predictor, "decision_function"):
            scores = predictor.decision_function(X)
    answer: dict[str, Any] = {"labels": labels.tolist(), "classes": jsonable(model.classes_)}
    if scores is not None:
        answer["scores"] = scores.tolist()
    if hasattr(predictor, "predict_proba"):
        answer["probabilities"] = predictor.predict_proba(X).tolist()
    return answer


def build_app(served: ServedModel, *, metrics: Metrics | None = None) -> Any:
    """The ASGI app of a served model (call ``served.start()`` first, or let the app's
    lifespan do it: it starts the writer and stops it, saving, at shutdown)."""
    metrics = Metrics() if metrics is None else metrics
    recent = RecentPredictions(config.SERVE_RECENT_ROWS, config.SERVE_RECENT_BYTES)
    reader = RowReader(served.snapshot.model, served.metadata)

    def answered(endpoint):
        """An endpoint whose refusals (RequestError, the readers' and the model's
        ValueError) are JSON, and whose failures are 500s with one line on stderr."""

        async def handle(request: Request) -> Response:
            try:
                return await endpoint(request)
            except RequestError as error:
                return _refusal(error.status, str(error), **error.details)
            except Busy:
                return _refusal(503, _busy_message(served))
            except ValueError as error:  # the readers', the model's (partial_fit's labels)
                return _refusal(400, str(error))
            except Exception as error:  # noqa: BLE001 - every request gets an answer
                _log(f"{request.method} {request.url.path} failed: {_failure(error)}")
                return _refusal(500, f"the service failed on this request ({_failure(error)})")

        return handle

    async def predict(request: Request) -> Response:
        body = await _body(request)
        snapshot = served.snapshot  # one model for the whole request
        batch = reader.predict_rows(body, request.headers.get("content-type", ""), snapshot.model)
        answer = _predictions(snapshot, batch.X)
        answer["ids"] = recent.keep(batch.X)
        answer["version"] = snapshot.version
        request.scope[_ROWS] = batch.n_rows
        return _json(200, answer)

    async def learn(request: Request) -> Response:
        body = await _body(request)
        content_type = request.headers.get("content-type", "")
        batch = reader.learn_rows(body, content_type, served.snapshot.model, recent)
        request.scope[_ROWS] = batch.n_rows
        learned, version = await asyncio.wrap_future(served.submit_learn(batch))
        return _json(200, {"learned": learned, "version": version})

    async def save(request: Request) -> Response:
        path = _save_target(await _body(request))
        answer = await asyncio.wrap_future(served.submit_save(path))
        return _json(200, answer)

    async def health(request: Request) -> Response:
        snapshot = served.snapshot
        model = snapshot.model
        return _json(
            200,
            {
                "status": "ok",
                "model": type(model).__name__,
                "version": snapshot.version,
                "classes": jsonable(getattr(model, "classes_", None)),
                "n_features": reader.n_features,
                "learns": served.learns,
                "path": served.path,
                "log": served.journal.path if served.journal is not None else None,
                "queue": served.queue_length,
                "replayed": served.replayed,
            },
        )

    async def metrics_text(request: Request) -> Response:
        gauges: dict[str, Any] = {
            "model_version": served.snapshot.version,
            "updates_total": (
                "Learn requests learnt since the service started.",
                "counter",
                served.updates,
            ),
            "learned_rows_total": (
                "Rows learnt since the service started.",
                "counter",
                served.rows_learnt,
            ),
            "refused_learn_requests_total": (
                "Learn requests the model refused (nothing of them learnt).",
                "counter",
                served.refused,
            ),
            "queue_length": (
                "Learn and save requests waiting for the writer, or being done.",
                "gauge",
                served.queue_length,
            ),
            "requests_in_flight": ("Requests being served.", "gauge", bounds.in_flight),
            "recent_rows": (
                "Rows of recent predictions kept for labels that come later.",
                "gauge",
                recent.rows_kept,
            ),
            "recent_bytes": ("Bytes of those rows.", "gauge", recent.bytes_kept),
        }
        return Response(metrics.text(gauges), media_type="text/plain; version=0.0.4; charset=utf-8")

    async def not_found(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 405:
            return _refusal(
                405,
                f"{request.method} {request.url.path} is not an endpoint; it answers {ENDPOINTS}",
            )
        return _refusal(
            exc.status_code, f"no endpoint at {request.url.path}; the service answers {ENDPOINTS}"
        )

    @contextlib.asynccontextmanager
    async def lifespan(app):
        started = not served.running  # else its caller started it, and stops it
        if started:
            served.start()
        try:
            yield
        finally:
            if started:
                await asyncio.get_running_loop().run_in_executor(None, served.stop)

    app = Starlette(
        routes=[
            Route("/predict", answered(predict), methods=["POST"]),
            Route("/learn", answered(learn), methods=["POST"]),
            Route("/save", answered(save), methods=["POST"]),
            Route("/health", answered(health), methods=["GET"]),
            Route("/metrics", answered(metrics_text), methods=["GET"]),
        ],
        exception_handlers={404: not_found, 405: not_found},
        lifespan=lifespan,
    )
    bounds = _Bounds(app, metrics, config.SERVE_MAX_REQUESTS)
    return bounds
