"""The HTTP server around the app: connection cap and header read timeout.

aiohttp keeps a connection that sent part of its headers open until the keep-alive timeout, and
accepts connections until file descriptors run out. `GuardedRequestHandler` closes a connection
whose headers do not arrive within `header_timeout` and refuses connections over
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

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_runner import GracefulExit

from insureops.platform.config import Settings

logger = logging.getLogger("insureops.platform.server")

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

def _refusal() -> bytes:
    head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(_REFUSED_CONNECTION_BODY)}\r\nRetry-After: 5\r\n"
            f"X-Request-ID: {uuid.uuid4().hex}\r\nConnection: close\r\n\r\n")
    return head.encode() + _REFUSED_CONNECTION_BODY


class GuardedServer(web.Server):
    """aiohttp's low-level server making GuardedRequestHandler connections."""

    def __init__(self, plain: web.Server, limits: ConnectionLimits) -> None:
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

