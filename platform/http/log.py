"""Structured logging: JSON lines or key=value text, the request id on every line of a request."""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from insureops.platform.keys import REQUEST_ID

# The request being served by this task; read by the log filter so that every line carries it.
current_request_id: contextvars.ContextVar[str] = contextvars.ContextVar(
    "insureops_request_id", default="-")

_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")
_STANDARD_ATTRIBUTES = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message", "asctime", "taskName"}


def _request_id_of(request: web.Request) -> str:
    incoming = request.headers.get("X-Request-ID", "")
    return incoming if _SANE_REQUEST_ID.fullmatch(incoming) else uuid.uuid4().hex


@web.middleware
async def request_id_middleware(
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """Outermost middleware: take a sane incoming X-Request-ID or make one, for logs and reply."""
    request_id = _request_id_of(request)
    request[REQUEST_ID] = request_id
    token = current_request_id.set(request_id)
    try:
        return await handler(request)
    finally:
        current_request_id.reset(token)


async def add_request_id_header(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every response, static files and errors too, names its request."""
    response.headers["X-Request-ID"] = request.get(REQUEST_ID) or _request_id_of(request)


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = current_request_id.get()
        return True


def _extras(record: logging.LogRecord) -> dict[str, object]:
    return {key: value for key, value in vars(record).items()
            if key not in _STANDARD_ATTRIBUTES and not key.startswith("_")}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id and any extras."""

    def format(self, record: logging.LogRecord) -> str:
        line = {"time": datetime.fromtimestamp(record.created, UTC).isoformat(),
                "level": record.levelname, "logger": record.name,
                "message": record.getMessage(), **_extras(record)}
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


class KeyValueFormatter(logging.Formatter):
    """`time level logger message key=value ...` for people reading a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        pairs = " ".join(f"{key}={value}" for key, value in _extras(record).items())
        line = f"{stamp} {record.levelname:<7} {record.name} {record.getMessage()} {pairs}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line.rstrip()


def configure_logging(log_format: str, level: str) -> None:
    """Route the root logger to stderr in the chosen format (called by `insureops serve`)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter() if log_format == "json" else KeyValueFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    if level != "DEBUG":  # alembic narrates every migration context at INFO
        logging.getLogger("alembic").setLevel(logging.WARNING)


class AccessLogger(AbstractAccessLogger):
    """One structured line per request: method, path, status, duration, request id. The path
    is written as sent (percent-encoded): decoded, a `%0a` in it would start a forged line."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, duration: float) -> None:
        self.logger.info(
            "%s %s %s", request.method, request.rel_url.raw_path, response.status,
            extra={"request_id": response.headers.get("X-Request-ID", "-"),
                   "status": response.status, "duration_ms": round(duration * 1000, 1),
                   "remote": request.remote or "-"})
