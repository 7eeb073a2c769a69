"""The error model: ApiError, the domain-error table, and the one middleware rendering failures."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from pydantic import BaseModel, Field
from sqlalchemy import exc as sa_exc

from insureops.platform.keys import ERROR_TABLE, REQUEST_ID

logger = logging.getLogger("insureops.platform.errors")  # the name logs have carried

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


# At most this many field details in one answer; the message then gives the total. A body of
# 105,000 unknown keys answered an 8.5 MB error (issue 17).
MAX_DETAILS = 20


class FieldErrorBody(BaseModel):
    """One field-level validation failure."""

    field: str = Field(description="Dotted path of the field in the body or query ('body' = all).")
    message: str


class DiagnosticBody(BaseModel):
    """One problem found in a ruleset (rule_invalid: docs/rule-studio.md)."""

    code: str = Field(description="Diagnostic code, e.g. E104.")
    name: str
    severity: str = Field(description="error or warning.")
    message: str
    hint: str | None
    line: int | None
    column: int | None
    end_line: int | None
    end_column: int | None


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable machine-readable code, snake_case (docs/errors.md).")
    message: str = Field(description="Human-readable explanation.")
    details: list[FieldErrorBody | DiagnosticBody] | None = Field(
        None, description="Present on validation_error (one entry per failing field, at most "
        f"{MAX_DETAILS}; the message then says how many there were) and on rule_invalid (one "
        "entry per diagnostic of the ruleset).")


class ErrorBody(BaseModel):
    """The body of every error response."""

    error: ErrorDetail


class ApiError(Exception):
    """A failure with its HTTP status, stable code and client-safe message."""

    def __init__(self, status: int, code: str, message: str,
                 details: list[dict[str, str]] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        if details is not None and len(details) > MAX_DETAILS:
            message = (f"{message} {len(details)} problems were found; the first "
                       f"{MAX_DETAILS} are listed.")
            details = details[:MAX_DETAILS]
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers or {}

    def to_response(self) -> web.Response:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return web.json_response({"error": error}, status=self.status, headers=self.headers)


class ClientDisconnectedError(Exception):
    """The client closed the connection before the request was read whole: not a failure of
    the service (no ERROR log, never a 503), answered in the log only as 499."""


@dataclass(frozen=True)
class ErrorMapping:
    """How one domain error class becomes an ApiError."""

    status: int
    code: str
    message: str | None = None  # None: the exception's own text, which must then be client-safe
    details: Callable[[Exception], list[dict[str, str]] | None] | None = None
    headers: tuple[tuple[str, str], ...] = ()  # e.g. Retry-After on a 503


class ErrorTable:
    """Domain error classes -> ApiError. Looked up along the exception's MRO (closest wins)."""

    def __init__(self, mappings: Iterable[tuple[type[Exception], ErrorMapping]] = ()) -> None:
        self._mappings: dict[type[Exception], ErrorMapping] = dict(mappings)

    def register(self, error: type[Exception], status: int, code: str, *,
                 message: str | None = None,
                 details: Callable[[Exception], list[dict[str, str]] | None] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        mapping = ErrorMapping(status, code, message, details, tuple((headers or {}).items()))
        known = self._mappings.get(error)
        # Areas merge into one table: two areas answering one domain error differently would
        # leave the answer to the order of the areas.
        if known is not None and (known.status, known.code, known.message, known.headers) != (
                status, code, message, mapping.headers):
            raise ValueError(f"{error.__name__} is already mapped to {known.status} {known.code}"
                             f" differently: map it once, in the module that owns it")
        self._mappings[error] = mapping

    def merge(self, other: ErrorTable) -> None:
        for error, mapping in other._mappings.items():
            self.register(error, mapping.status, mapping.code, message=mapping.message,
                          details=mapping.details, headers=dict(mapping.headers))

    def lookup(self, exc: BaseException) -> ApiError | None:
        for klass in type(exc).__mro__:
            mapping = self._mappings.get(klass)
            if mapping is not None:
                details = mapping.details(exc) if mapping.details else None
                return ApiError(mapping.status, mapping.code, mapping.message or str(exc), details,
                                headers=dict(mapping.headers))
        return None

    def codes(self) -> list[tuple[int, str]]:
        return sorted({(m.status, m.code) for m in self._mappings.values()})


# aiohttp's own HTTP exceptions (routing, body size) -> stable codes.
_HTTP_CODES = {
    400: ("bad_request", "The request is malformed."),
    401: ("not_authenticated", "Authentication is required."),
    403: ("permission_denied", "You do not have permission to do this."),
    404: ("not_found", "No resource at this path."),
    405: ("method_not_allowed", "This method is not allowed on this path."),
    409: ("conflict", "The request conflicts with the current state."),
    413: ("payload_too_large", "The request body is too large."),
    415: ("unsupported_media_type", "Unsupported content type."),
    429: ("rate_limited", "Too many requests."),
    503: ("service_unavailable", "The service is temporarily unavailable."),
}

# The status logged for a request whose client went away mid-body (nginx's convention).
CLIENT_CLOSED_REQUEST = 499

# What a 503 tells a client to wait before retrying (the platform or a tenant database down).
RETRY_AFTER_SECONDS = "5"

# SQLSTATE classes of an unreachable or overloaded PostgreSQL: connection exception,
# insufficient resources, operator intervention (shutdown).
_UNAVAILABLE_SQLSTATES = ("08", "53", "57")
_UNAVAILABLE_SQLITE = ("unable to open", "database is locked", "disk i/o", "busy")


def is_database_unavailable(exc: BaseException) -> bool:
    """True for "cannot reach or use the database right now" (503), not for bugs (500)."""
    if isinstance(exc, sa_exc.TimeoutError | sa_exc.InterfaceError | ConnectionError
                  | TimeoutError):
        return True
    if not isinstance(exc, sa_exc.OperationalError):
        return False
    if exc.connection_invalidated:
        return True
    sqlstate = getattr(exc.orig, "sqlstate", None)
    if sqlstate is not None:
        return sqlstate[:2] in _UNAVAILABLE_SQLSTATES
    if type(exc.orig).__module__.startswith("psycopg"):
        return True  # no SQLSTATE: the server never answered
    return any(marker in str(exc.orig).lower() for marker in _UNAVAILABLE_SQLITE)


async def _slash_hint(request: web.Request) -> str:
    """A hint when the path only lacks its trailing slash (the spec's paths end in one)."""
    if request.path.endswith("/"):
        return ""
    candidate = request.clone(rel_url=request.rel_url.with_path(request.path + "/"))
    match = await request.app.router.resolve(candidate)
    return f" Did you mean {request.path}/ ?" if match.http_exception is None else ""


async def _from_http_exception(request: web.Request,
                               exc: web.HTTPException) -> web.StreamResponse:
    if exc.status < 400:
        raise exc  # redirects and other non-errors: aiohttp answers them (returning is deprecated)
    code, message = _HTTP_CODES.get(exc.status, ("http_error", exc.reason))
    headers = {}
    if isinstance(exc, web.HTTPMethodNotAllowed):
        allowed = sorted(exc.allowed_methods)
        headers["Allow"] = ", ".join(allowed)
        message = f"{request.method} is not allowed on this path; allowed: {', '.join(allowed)}."
    elif exc.status == 404:
        message = f"No resource at {request.path}.{await _slash_hint(request)}"
    elif exc.status == 413:
        message = "The request body is larger than the service accepts."
    return ApiError(exc.status, code, message, headers=headers).to_response()


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn every failure into `{"error": {"code", "message"}}`; log the unexpected ones."""
    try:
        return await handler(request)
    except ApiError as exc:
        return exc.to_response()
    except ClientDisconnectedError:
        return _client_disconnected(request)
    except web.HTTPException as exc:
        return await _from_http_exception(request, exc)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - the one place that answers for everything
        if isinstance(exc, ConnectionError) and _client_gone(request):
            return _client_disconnected(request)
        return _unexpected(request, exc)


def _client_gone(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


def _client_disconnected(request: web.Request) -> web.StreamResponse:
    logger.info("client disconnected before the request was read",
                extra={"request_id": request.get(REQUEST_ID, "-")})
    return web.Response(status=CLIENT_CLOSED_REQUEST)  # for the access log: nobody reads it


def _unexpected(request: web.Request, exc: Exception) -> web.StreamResponse:
    """Mapped domain errors, 503 for an unavailable database, else a logged 500 (called
    inside the except block, so the log carries the traceback)."""
    mapped = request.config_dict[ERROR_TABLE].lookup(exc)
    if mapped is not None:
        return mapped.to_response()
    request_id = request.get(REQUEST_ID, "-")
    if is_database_unavailable(exc):
        logger.exception("database unavailable: %s", type(exc).__name__,
                         extra={"request_id": request_id})
        return ApiError(503, "service_unavailable",
                        "The service is temporarily unavailable; retry shortly.",
                        headers={"Retry-After": RETRY_AFTER_SECONDS}).to_response()
    logger.exception("unhandled error on %s %s", request.method, request.path,
                     extra={"request_id": request_id})
    return ApiError(500, "internal_error",
                    f"Internal error; quote request id {request_id} when reporting it."
                    ).to_response()
