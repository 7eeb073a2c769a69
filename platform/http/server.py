"""The HTTP server around the app: connection cap, header read timeout, parser errors in our shape.

aiohttp answers requests its parser refuses (a header over 8,190 bytes, a bad method, bad
chunking, Content-Length with Transfer-Encoding, ...) itself, in `RequestHandler.handle_error`,
before any middleware runs: text/plain, no `X-Request-ID`, and a logged traceback whose exception
text quotes the request's first bytes (possibly a key). It also keeps a connection that sent
part of its headers open until the keep-alive timeout. `GuardedRequestHandler` answers those
errors in the error shape with a request id and logs them without the request's bytes, closes a
connection whose headers do not arrive within `header_timeout`, and refuses connections over
`max_connections`; `ServiceRunner` is the AppRunner that serves with it (`insureops serve`, and
the tests that talk to the service over raw sockets).
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import http_exceptions, web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_runner import GracefulExit

from insureops.platform.config import Settings

logger = logging.getLogger("insureops.platform.server")  # the name logs have carried

# Parser refusals -> a message that describes the problem without quoting the request.
_PARSE_PROBLEMS: tuple[tuple[type[Exception], str], ...] = (
    (http_exceptions.LineTooLong, "The request line or a header is too long."),
    (http_exceptions.BadHttpMethod, "The request method is not valid."),
    (http_exceptions.InvalidURLError, "The request target is not a valid URL."),
    (http_exceptions.InvalidHeader, "A request header is not valid."),
    (http_exceptions.PayloadEncodingError,
     "The request body's framing is invalid (chunked encoding or Content-Length)."),
)
_REFUSED_CONNECTION_BODY = json.dumps({"error": {
    "code": "service_unavailable",
    "message": "The service has too many open connections; retry shortly."}}).encode()


@dataclass(frozen=True)
class ConnectionLimits:
    """What one server instance allows its clients (Settings, docs/configuration.md)."""

    header_timeout: float
    max_connections: int

    @classmethod
    def from_settings(cls, settings: Settings) -> ConnectionLimits:
        return cls(settings.header_timeout_seconds, settings.max_connections)


def parse_problem(exc: BaseException | None) -> str:
    """A client-safe description of a parser refusal (never the exception's own text)."""
    for kind, message in _PARSE_PROBLEMS:
        if isinstance(exc, kind):
            return message
    return "The request is not valid HTTP/1.1."


def error_response(status: int, code: str, message: str, request_id: str,
                   headers: dict[str, str] | None = None) -> web.Response:
    """An error in the service's shape, outside the app (no middleware runs here)."""
    response = web.json_response({"error": {"code": code, "message": message}}, status=status,
                                 headers={"X-Request-ID": request_id, **(headers or {})})
    response.force_close()
    return response


class GuardedRequestHandler(RequestHandler):
    """aiohttp's connection protocol with the guards of the module docstring."""

    def __init__(self, manager: web.Server, *, limits: ConnectionLimits, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._limits = limits
        self._header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        manager = self._manager
        if manager is not None and len(manager.connections) >= self._limits.max_connections:
            logger.warning("refused a connection: %d open connections is the limit",
                           self._limits.max_connections)
            transport.write(_refusal())  # type: ignore[attr-defined]
            transport.close()
            self._manager = None  # connection_lost then has nothing to undo
            return
        super().connection_made(transport)
        self._arm_header_deadline()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._messages or self._request_in_progress:
            self._disarm_header_deadline()
        elif data and self._header_deadline is None:  # a next request began on a kept connection
            self._arm_header_deadline()

    def connection_lost(self, exc: BaseException | None) -> None:
        self._disarm_header_deadline()
        super().connection_lost(exc)

    def _arm_header_deadline(self) -> None:
        self._header_deadline = self._loop.call_later(self._limits.header_timeout,
                                                      self._headers_overdue)

    def _disarm_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_overdue(self) -> None:
        self._header_deadline = None
        if self._messages or self._request_in_progress or self.transport is None:
            return
        logger.info("closed a connection whose request headers did not arrive within %s s",
                    self._limits.header_timeout)
        self.force_close()

    def handle_error(self, request: web.BaseRequest, status: int = 500,
                     exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """A parser refusal (or a failure outside the app) in the error shape. A parser
        refusal's text may quote the request's bytes, so only its class is logged; a 500 (a
        handler or aiohttp failing, the request parsed) keeps its traceback."""
        request_id = uuid.uuid4().hex
        if request.writer.output_size > 0:
            raise ConnectionError("a response was already sent: the connection is broken")
        if status >= 500:
            logger.error("error outside the application: %s", type(exc).__name__,
                         exc_info=exc, extra={"request_id": request_id})
            return error_response(status, "internal_error", "Internal error; quote request id "
                                  f"{request_id} when reporting it.", request_id)
        logger.info("refused a malformed request (%s, %d)", type(exc).__name__, status,
                    extra={"request_id": request_id})
        return error_response(status, "bad_request", parse_problem(exc), request_id)


def _refusal() -> bytes:
    head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(_REFUSED_CONNECTION_BODY)}\r\nRetry-After: 5\r\n"
            f"X-Request-ID: {uuid.uuid4().hex}\r\nConnection: close\r\n\r\n")
    return head.encode() + _REFUSED_CONNECTION_BODY


class GuardedServer(web.Server):
    """aiohttp's low-level server making GuardedRequestHandler connections."""

    def __init__(self, plain: web.Server, limits: ConnectionLimits) -> None:
        # The server AppRunner made, rebuilt with its own settings (aiohttp offers no public
        # hook for the protocol class; these attributes are stable across 3.9 to 3.14).
        super().__init__(plain.request_handler, request_factory=plain.request_factory,
                         handler_cancellation=plain.handler_cancellation, loop=plain._loop,
                         **plain._kwargs)
        self._limits = limits

    def __call__(self) -> RequestHandler:
        return GuardedRequestHandler(self, limits=self._limits, loop=self._loop, **self._kwargs)


class ServiceRunner(web.AppRunner):
    """web.AppRunner serving through GuardedServer, with the keep-alive timeout of Settings.

    After answering a request whose body it did not read whole (413, 408, ...), aiohttp reads
    and drops the rest for a while so that the client sees the answer; that lingering is bounded
    by the header timeout (aiohttp's default is 10 s, the header timeout's default too).
    """

    def __init__(self, app: web.Application, settings: Settings, **kwargs: Any) -> None:
        kwargs.setdefault("keepalive_timeout", settings.keepalive_timeout_seconds)
        kwargs.setdefault("lingering_time", settings.header_timeout_seconds)
        super().__init__(app, **kwargs)
        self._limits = ConnectionLimits.from_settings(settings)

    async def _make_server(self) -> web.Server:
        return GuardedServer(await super()._make_server(), self._limits)


def run(app: web.Application, settings: Settings, *,
        on_started: Callable[[], None] | None = None, **runner_options: Any) -> None:
    """Serve `app` on settings.host:settings.port until SIGINT or SIGTERM, then clean up."""
    async def serve() -> None:
        runner = ServiceRunner(app, settings, handle_signals=True, **runner_options)
        await runner.setup()
        try:
            await web.TCPSite(runner, settings.host, settings.port).start()
            if on_started is not None:
                on_started()
            await asyncio.Event().wait()  # until a signal raises GracefulExit
        finally:
            await runner.cleanup()

    try:
        asyncio.run(serve())
    except (GracefulExit, KeyboardInterrupt):
        pass

