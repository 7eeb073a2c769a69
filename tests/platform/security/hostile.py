"""Hostile request parts for the robustness sweeps (issue 28), and a raw HTTP/1.1 client to send
them: header values, identity-provider tokens with odd JOSE headers, cursor contents, path ids.

aiohttp's client refuses to send a header that is not valid UTF-8, while its server decodes such
bytes to lone surrogates (surrogateescape): the service must survive those, so requests are
written to a socket as bytes.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import io
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import jwt

Value = str | bytes  # bytes go on the wire as they are (invalid UTF-8 included)

# One value per class of header content: non-ASCII digits (str.isdigit() takes them, int() does
# not), bytes that are not UTF-8 (the server decodes them to lone surrogates), and a number of
# 8,000 digits (past int()'s 4,300; under aiohttp's 8,190-byte header line, so the request
# reaches the service: a longer line is the HTTP parser's 400, before any route).
HEADER_VALUES: dict[str, Value] = {
    "non-ASCII digits": "²³",
    "invalid UTF-8": b"fe80::1%\xff\xfe\xed\xa0\x80",  # an IPv6 address's scope id, too
    "8000 digits": "9" * 8000,
}

# Odd JOSE headers on a token signed by the trusted key: (header, whether it must be refused).
# A token that merely carries an unusual but harmless header (a non-ASCII kid with a PEM key,
# a numeric typ) may be accepted; crit, a non-string kid or alg and a non-object header never.
JWT_HEADERS: dict[str, tuple[Any, bool]] = {
    "kid: 5": ({"alg": "ES256", "kid": 5}, True),
    "kid: list": ({"alg": "ES256", "kid": ["a"]}, True),
    "kid: non-ASCII": ({"alg": "ES256", "kid": "ключ²"}, False),
    "crit: unknown extension": ({"alg": "ES256", "crit": ["exp"]}, True),
    "crit: b64": ({"alg": "ES256", "crit": ["b64"]}, True),
    "crit: b64, b64 false": ({"alg": "ES256", "crit": ["b64"], "b64": False}, True),
    "crit: empty list": ({"alg": "ES256", "crit": []}, True),
    "crit: not a list": ({"alg": "ES256", "crit": "exp"}, True),
    "alg: number": ({"alg": 5}, True),
    "typ: number": ({"alg": "ES256", "typ": 5}, False),
    "header: a list": ([1], True),
    "header: 5000-digit number": ('{"alg":"ES256","x":' + "9" * 5000 + "}", True),
    "header: invalid UTF-8": (b'{"alg":"ES256","kid":"\xff"}', True),
}

# Credentials of each class of header content, as a bearer token and as a session cookie.
BEARER_VALUES: dict[str, Value] = {
    "non-ASCII digits": "Bearer ²³.²³.²³",
    "invalid UTF-8": b"Bearer \xff\xfe.\xed\xa0\x80.e30",
    "oversized": "Bearer " + "A" * 8100,
}
COOKIE_VALUES: dict[str, Value] = {
    "non-ASCII digits": "sessionid=²³",
    "invalid UTF-8": b"sessionid=\xff\xfe\xed\xa0\x80",
    "oversized": "sessionid=" + "9" * 8000,
}

# Path parameter values no object can have: ids past 31 and 63 bits (INTEGER and BIGINT
# columns; SQLite's integers stop at 63) and of 5,000 digits, non-ASCII digits, NUL, and a lone
# surrogate percent-encoded (yarl keeps escapes that are not UTF-8 as they are).
PATH_VALUES: dict[str, str] = {
    "2**31": str(2**31),
    "2**63": str(2**63),
    "5000 digits": "9" * 5000,
    "non-ASCII digits": quote("²³"),
    "NUL": "%00",
    "lone surrogate": "%ED%A0%80",
}


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _json_bytes(part: Any) -> bytes:
    if isinstance(part, bytes):
        return part
    return (part if isinstance(part, str) else json.dumps(part)).encode()


def signed_token(header: Any, claims: dict[str, Any], key: Any) -> str:
    """A compact JWS of `header` (any JSON value, or raw text or bytes) over `claims`, signed
    with `key` (ES256) whatever the header says: PyJWT refuses to write such headers itself."""
    signing_input = f"{b64url(_json_bytes(header))}.{b64url(_json_bytes(claims))}"
    algorithm = jwt.algorithms.get_default_algorithms()["ES256"]
    return f"{signing_input}.{b64url(algorithm.sign(signing_input.encode(), key))}"


def cursor_of(data: Any) -> str:
    """A cursor as the service writes them (base64url of JSON), holding `data`. json.dumps
    escapes NUL and lone surrogates, so they arrive as the decoder makes them: text."""
    return b64url(_json_bytes(data))


def cursor_contents(template: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    """Hostile cursors built on `template` (a cursor a listing issued, decoded; its bindings
    kept): by name, the query value and whether every listing must refuse it. A digit string
    is a key a listing of string ids may hold: such a listing may answer it with a page."""
    def after(value: Any) -> str:
        return cursor_of({**template, "after": value})
    return {
        "after: NUL": (after("01J" + "\x00" * 23), True),
        "after: lone surrogate": (after("\ud800"), True),
        "after: non-ASCII digits": (after("²³"), True),
        "after: 2**31 as text": (after(str(2**31)), False),
        "after: 2**63 as text": (after(str(2**63)), False),
        "after: 2**63 as a number": (after(2**63), True),
        "after: 300-digit number": (after(int("9" * 300)), True),
        "version 2": (cursor_of({**template, "v": 2}), True),
        "not an object": (cursor_of([template.get("after")]), True),
        "not base64": (quote("!!not*base64~~"), True),
        "not JSON": (b64url(b"\xff\xfe{"), True),
        "NUL": ("%00", True),
        "lone surrogate": ("%ED%A0%80", True),
    }


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: bytes

    def problem(self, refused: bool) -> str | None:
        """What is wrong with this answer to a hostile request (None: nothing): a 5xx, a 4xx
        outside the error shape, or, when it must be `refused`, anything but a 4xx."""
        if self.status >= 500:
            return f"{self.status}: {self.body[:200]!r}"
        if refused and not 400 <= self.status < 500:
            return f"{self.status}, not a 4xx: {self.body[:120]!r}"
        if 400 <= self.status < 500 and not self.in_error_shape():
            return f"{self.status} outside the error shape: {self.body[:200]!r}"
        return None

    def in_error_shape(self) -> bool:
        if self.content_type != "application/json":
            return False
        try:
            payload = json.loads(self.body)
        except ValueError:
            return False
        error = payload.get("error") if isinstance(payload, dict) else None
        return (set(payload) == {"error"} and isinstance(error, dict)
                and isinstance(error.get("code"), str) and isinstance(error.get("message"), str))


class _Received:
    """What http.client reads a response from: the bytes the server sent."""

    def __init__(self, data: bytes) -> None:
        self._file = io.BytesIO(data)

    def makefile(self, *args: Any, **kwargs: Any) -> io.BytesIO:
        return self._file


async def send(address: tuple[str, int], method: str, target: str,
               headers: dict[str, Value], body: Any = None) -> Answer:
    """One request on a connection of its own: `target` as given (percent-encoding and all),
    `headers` as given (bytes unchanged), `body` as JSON when not None."""
    reader, writer = await asyncio.open_connection(*address)
    try:
        lines = [f"{method} {target} HTTP/1.1".encode(), f"Host: {address[0]}".encode(),
                 b"Connection: close"]
        lines += [name.encode() + b": " + (value if isinstance(value, bytes) else value.encode())
                  for name, value in headers.items()]
        payload = b"" if body is None else json.dumps(body).encode()
        if body is not None:
            lines.append(b"Content-Type: application/json")
        lines.append(f"Content-Length: {len(payload)}".encode())
        writer.write(b"\r\n".join(lines) + b"\r\n\r\n" + payload)
        received = await reader.read()
    finally:
        writer.close()
    response = http.client.HTTPResponse(_Received(received), method=method)  # type: ignore[arg-type]
    response.begin()
    content_type = (response.getheader("Content-Type") or "").split(";")[0].strip()
    return Answer(response.status, content_type, response.read())
