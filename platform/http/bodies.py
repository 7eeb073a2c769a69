"""Request input: the target's characters, JSON bodies read within a size cap, validation
of bodies, query strings and path parameters into pydantic models, and the request headers
handlers read (If-Match)."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, TypeVar

from aiohttp import web
from aiohttp.web_protocol import RequestPayloadError
from pydantic import BaseModel, ConfigDict, ValidationError

from insureops.engine.inputs import jsonio
from insureops.platform.data.columns import BIGINT_MAX, INTEGER_MAX, UNSTORABLE, column_integer
from insureops.platform.http.errors import ApiError, ClientDisconnectedError, Handler
from insureops.platform.keys import BODY_THREADS

logger = logging.getLogger("insureops.platform.bodies")  # the name logs have carried

ModelT = TypeVar("ModelT", bound=BaseModel)
# The API's one policy for fields it does not know, in bodies and query strings alike: 400
# validation_error naming each (docs/errors.md). Every request model sets it (a test walks them);
# the tenant API's record payloads refuse them through their JSON Schemas.
UNKNOWN_FIELDS_REFUSED = ConfigDict(extra="forbid")
# An e-mail address as every body takes it: no @ or white space around one @ and a dotted domain.
# `\s` is spelt out with NEL and BOM so the pattern means the same to pydantic's Rust regex
# (which counts NEL as space) and to JSON Schema's ECMA regex in clients (which counts BOM).
EMAIL_PATTERN = r"^[^@\s\x85\uFEFF]+@[^@\s\x85\uFEFF]+\.[^@\s\x85\uFEFF]+$"
# The engine's reader and its bounds: nesting depth (64) and number literals (100 characters).
# Python's own reader answered a 200,000-deep body with RecursionError and a 5,000-digit
# integer with ValueError: both were 500s (issue 17).
# The value count comes from the route's BodyBounds (Settings.max_body_values).
BODY_LIMITS = jsonio.ReadLimits()
# Bodies larger than this are decoded and validated off the event loop.
OFF_LOOP_BYTES = 64 * 1024


# What no header may carry (RFC 9110 5.5; aiohttp refuses to write it): C0 controls but tab,
# and DEL. Percent-encoded in a path or query they decode into text a handler may echo.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


@web.middleware
async def request_target_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """400 `bad_request` for a target whose decoded path or query holds a control character,
    before any route: echoed into a redirect's `Location` (the studio's) it made aiohttp drop
    the connection with an ERROR traceback, and into a text log line it forged lines (issue
    28). Logged at INFO, as the server's other refusals of malformed requests."""
    if _CONTROL.search(request.path) or _CONTROL.search(request.query_string):
        logger.info("refused a request target holding a control character")
        raise ApiError(400, "bad_request", "The request's path or query holds a control "
                       "character (a line break, NUL, ...; tab aside), which no route accepts.")
    return await handler(request)


def _is_json(content_type: str) -> bool:
    return content_type == "application/json" or (
        content_type.startswith("application/") and content_type.endswith("+json"))


@dataclass(frozen=True)
class BodyBounds:
    """What one route reads of a body: bytes on the wire and values once decoded."""

    max_bytes: int
    max_values: int
    timeout: float  # seconds to receive the whole body


async def read_raw(request: web.Request, max_bytes: int, timeout: float) -> bytes:
    """The body's bytes; 415 when not JSON, 413 past `max_bytes`, 400 when empty, 408 when it
    takes longer than `timeout` seconds (a client trickling a body holds no slot forever)."""
    if not _is_json(request.content_type):
        raise ApiError(415, "unsupported_media_type",
                       f"Send the body as application/json, not {request.content_type}.")
    if request.content_length is not None and request.content_length > max_bytes:
        raise _too_large(max_bytes)
    chunks, size = [], 0
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.content.iter_any():
                size += len(chunk)
                if size > max_bytes:
                    raise _too_large(max_bytes)
                chunks.append(chunk)
    except ConnectionError:  # aiohttp sets ConnectionResetError on the payload when the peer
        # closes: it was logged as "database unavailable" and answered 503 (issue 17)
        raise ClientDisconnectedError from None
    except TimeoutError:
        raise ApiError(408, "request_timeout", f"The request body did not arrive within "
                       f"{timeout:g} s.") from None
    except RequestPayloadError:  # bad chunking, or a body shorter than its Content-Length
        raise ApiError(400, "bad_request", "The request body's framing is invalid (chunked "
                       "encoding or Content-Length).") from None
    raw = b"".join(chunks)
    if not raw.strip():
        raise ApiError(400, "invalid_json", "The request body is empty; send a JSON object.")
    return raw


def decode_json(raw: bytes, charset: str | None, max_values: int) -> Any:
    """`raw` decoded by the engine's bounded reader; 400 invalid_json (415 for a bad charset)."""
    limits = replace(BODY_LIMITS, max_values=max_values)
    try:
        return jsonio.read(raw.decode(charset or "utf-8"), limits, exact=False)
    except UnicodeDecodeError:
        raise ApiError(400, "invalid_json", "The request body is not valid UTF-8.") from None
    except json.JSONDecodeError as exc:
        raise ApiError(400, "invalid_json", f"Malformed JSON at line {exc.lineno} column "
                       f"{exc.colno}: {exc.msg}.") from None
    except ValueError as exc:  # JsonLimitError, NaN / Infinity
        raise ApiError(400, "invalid_json", f"The JSON body is refused: {exc}.") from None
    except LookupError:
        raise ApiError(415, "unsupported_media_type", f"Unknown charset {charset}.") from None


def _too_large(max_bytes: int) -> ApiError:
    return ApiError(413, "payload_too_large",
                    f"The request body is larger than the limit of {max_bytes} bytes.")


def field_errors(exc: ValidationError) -> list[dict[str, str]]:
    """pydantic's errors as `[{field, message}]`; input values are never echoed back."""
    return [{"field": ".".join(str(part) for part in error["loc"]) or "body",
             "message": error["msg"]}
            for error in exc.errors(include_url=False, include_input=False)]


UNSTORABLE_MESSAGE = "Text must not contain NUL (U+0000) or an unpaired surrogate."


def unstorable_fields(data: Any, path: tuple[str, ...] = ()) -> list[str]:
    """Dotted paths of the strings (values or keys) in `data` that no database can store.

    PostgreSQL text cannot hold NUL (psycopg raises DataError) and UTF-8 cannot encode a lone
    surrogate (UnicodeEncodeError): both were 500s. No field of ours has a use for either, so
    the service refuses them as a validation error on every engine alike.
    """
    if isinstance(data, str):
        return [".".join(path) or "body"] if UNSTORABLE.search(data) else []
    found: list[str] = []
    if isinstance(data, Mapping):
        for key, value in data.items():
            key = str(key)
            if UNSTORABLE.search(key):
                found.append(".".join((*path, UNSTORABLE.sub("?", key))))
            found.extend(unstorable_fields(value, (*path, key)))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found.extend(unstorable_fields(value, (*path, str(index))))
    return found


# In a JSON body those characters can only arrive as \u escapes: the decoder refuses raw
# control characters and undecodable bytes. A UTF-8 body without such an escape is not walked.
_UNSTORABLE_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")
_PLAIN_CHARSETS = frozenset({"utf-8", "utf8", "us-ascii", "ascii"})


def may_hold_unstorable(raw: bytes, charset: str | None) -> bool:
    """False when the JSON text `raw` cannot decode to a NUL or a lone surrogate."""
    return ((charset or "utf-8").lower() not in _PLAIN_CHARSETS
            or _UNSTORABLE_ESCAPE.search(raw) is not None)


def validate(model: type[ModelT], data: Any, what: str, *, screen: bool = True) -> ModelT:
    """`data` as `model`, or 400 validation_error with one detail per failing field.
    `screen=False` skips the walk for unstorable text (the caller has ruled it out)."""
    if screen and (unstorable := unstorable_fields(data)):
        raise ApiError(400, "validation_error", f"The {what} is invalid.", details=[
            {"field": field, "message": UNSTORABLE_MESSAGE} for field in unstorable])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ApiError(400, "validation_error", f"The {what} is invalid.",
                       details=field_errors(exc)) from None


async def parse_body(request: web.Request, model: type[ModelT], bounds: BodyBounds) -> ModelT:
    """Read, decode and validate a JSON body into `model`, within `bounds`.

    A body over OFF_LOOP_BYTES is decoded and validated on the service's body threads, so one
    large body does not hold the event loop, nor a burst of them other kinds of work (the
    value bound keeps the work itself bounded).
    """
    raw = await read_raw(request, bounds.max_bytes, bounds.timeout)
    work = partial(_decode_and_validate, model, raw, request.charset, bounds.max_values)
    if len(raw) <= OFF_LOOP_BYTES:
        return work()
    return await request.config_dict[BODY_THREADS].run(work)


def _decode_and_validate(model: type[ModelT], raw: bytes, charset: str | None,
                         max_values: int) -> ModelT:
    return validate(model, decode_json(raw, charset, max_values), "request body",
                    screen=may_hold_unstorable(raw, charset))


def parse_query(request: web.Request, model: type[ModelT]) -> ModelT:
    """The query string as `model`; a repeated parameter becomes a list."""
    values: dict[str, Any] = {}
    for name in dict.fromkeys(request.query.keys()):
        found = request.query.getall(name)
        values[name] = found[0] if len(found) == 1 else found
    return validate(model, values, "query string")


def parse_path(request: web.Request, model: type[ModelT]) -> ModelT:
    """Path parameters as `model`; a value of the wrong form means no such resource (404).

    An integer past 63 bits is of the wrong form on every route: no column holds it (SQLite
    raised OverflowError, PostgreSQL a DataError: 500s, issue 28). A model bounds an id of an
    INTEGER column to INTEGER_MAX itself (platform/data/columns.py).
    """
    params: Mapping[str, str] = request.match_info
    try:
        if unstorable_fields(dict(params)):
            raise ValueError("a path parameter no database can store")
        found = model.model_validate(dict(params))
        if any(isinstance(value, int) and abs(value) > BIGINT_MAX
               for value in found.__dict__.values()):
            raise ValueError("an integer no column holds")
        return found
    except (ValidationError, ValueError):
        raise ApiError(404, "not_found", f"No resource at {request.path}.") from None


def if_match_version(request: web.Request) -> int | None:
    """The version number `If-Match` names (`3`, `"3"` or `W/"3"`); None when absent or `*`;
    400 validation_error for anything else, a version number past 31 bits or in non-ASCII
    digits included (both were 500s, issue 28)."""
    raw = request.headers.get("If-Match")
    if raw is None or raw.strip() == "*":
        return None
    version = column_integer(raw.strip().removeprefix("W/").strip('"'), INTEGER_MAX)
    if version is None:
        raise ApiError(400, "validation_error", "The request is invalid.", details=[
            {"field": "If-Match", "message": "must be the version number the change is based "
             "on, e.g. \"3\""}])
    return version
