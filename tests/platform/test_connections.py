"""What reaches `insureops serve` as raw bytes over a socket (issue 17): malformed requests,
half-open connections, clients that go away. The server is the one `insureops serve` runs
(platform/http/server.py), started in the test's loop; aiohttp's TestServer would differ (it cancels
handlers when the client disconnects)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from aiohttp import web

from insureops.platform.app import create_app
from insureops.platform.config import Settings
from insureops.platform.http.server import ServiceRunner

SECRET = "iops_SecretMarker0123456789"  # must never come back in an answer or a log line


@dataclass
class Served:
    host: str
    port: int

    async def send(self, data: bytes, *, read: bool = True, hold: float = 0.0,
                   timeout: float = 10.0) -> bytes:
        """Send `data` on a new connection and read until the server closes it (or, when
        not `read`, close after `hold` seconds)."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        writer.write(data)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), timeout) if read else b""
        await asyncio.sleep(hold)  # meanwhile the server waits for the rest
        writer.close()
        await writer.wait_closed()
        return answer


async def serve(settings: Settings) -> AsyncIterator[Served]:
    runner = ServiceRunner(create_app(settings), settings)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        yield Served(host, port)
    finally:
        await runner.cleanup()


@pytest.fixture
async def served(settings) -> AsyncIterator[Served]:
    """The service as `insureops serve` runs it, with short timeouts and a small cap."""
    quick = settings.model_copy(update={"header_timeout_seconds": 0.5,
                                        "body_timeout_seconds": 0.5, "max_connections": 20})
    async for running in serve(quick):
        yield running


def split_answer(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


async def records_until(caplog, predicate, timeout: float = 5.0) -> list[logging.LogRecord]:
    """The log records once one satisfies `predicate`, or all of them at the timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline and not any(predicate(r) for r in caplog.records):
        await asyncio.sleep(0.02)
    return list(caplog.records)


def login_head(length: int, extra: str = "") -> bytes:
    return (f"POST /api/auth/login/ HTTP/1.1\r\nHost: localhost\r\n{extra}"
            f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n").encode()


LOGIN_BODY = b'{"email": "ann@example.com", "password": "correct horse battery"}'


async def test_client_disconnect_mid_body_is_no_error_and_no_503_when_it_sends_half_a_body(
        served, caplog):
    """Issue 17: a client that disconnected mid-body was logged as ERROR "database
    unavailable" and counted as a 503."""
    caplog.set_level(logging.INFO)

    await served.send(login_head(len(LOGIN_BODY)) + LOGIN_BODY[:30], read=False, hold=0.2)

    records = await records_until(caplog, lambda r: "disconnected" in r.getMessage()
                                  or r.levelno >= logging.ERROR)
    assert not [r for r in records if r.levelno >= logging.ERROR], [
        r.getMessage() for r in records]
    assert not any("database unavailable" in r.getMessage() or " 503" in r.getMessage()
                   for r in records)
    assert any("client disconnected" in r.getMessage() for r in records)


async def test_service_answers_health_when_served_over_a_raw_socket(served):
    answer = await served.send(b"GET /api/health/ HTTP/1.1\r\nHost: localhost\r\n"
                               b"Connection: close\r\n\r\n")

    status, headers, _ = split_answer(answer)
    assert status == 200 and headers["x-request-id"]


async def test_connection_sending_partial_headers_is_closed_when_the_header_timeout_passes(
        served):
    """Issue 17: connections that sent partial headers were still open after 65 s."""
    loop = asyncio.get_running_loop()
    started = loop.time()

    answer = await served.send(b"GET /api/health/ HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1",
                               timeout=5)

    assert answer == b""  # closed by the server, no answer
    assert 0.4 <= loop.time() - started < 4


async def test_connection_is_closed_when_its_next_request_stalls_mid_headers(served):
    reader, writer = await asyncio.open_connection(served.host, served.port)
    writer.write(b"GET /api/health/ HTTP/1.1\r\nHost: localhost\r\n\r\n")
    await writer.drain()
    first = await asyncio.wait_for(reader.readuntil(b'"status"'), 5)
    writer.write(b"GET /api/health/ HTTP/1.1\r\nHost: loc")  # a second request, never finished
    await writer.drain()

    rest = await asyncio.wait_for(reader.read(), 5)  # returns once the server closes

    assert b"200 OK" in first and b"HTTP/1.1" not in rest.partition(b"\r\n\r\n")[2]
    writer.close()


async def test_body_arriving_too_slowly_is_408_when_the_body_timeout_passes(served):
    answer = await served.send(login_head(len(LOGIN_BODY)) + LOGIN_BODY[:20], timeout=5)

    status, headers, body = split_answer(answer)
    assert status == 408
    assert json.loads(body)["error"]["code"] == "request_timeout"
    assert headers["x-request-id"]


@pytest.fixture
async def capped(settings) -> AsyncIterator[Served]:
    """The service with room for three connections."""
    small = settings.model_copy(update={"max_connections": 3})
    async for running in serve(small):
        yield running


async def test_connection_over_the_cap_is_503_and_closed_when_the_cap_is_reached(capped):
    held = [await asyncio.open_connection(capped.host, capped.port) for _ in range(3)]
    await asyncio.sleep(0.1)  # the server has accepted them

    answer = await capped.send(b"GET /api/health/ HTTP/1.1\r\nHost: localhost\r\n\r\n")

    status, headers, body = split_answer(answer)
    assert status == 503 and headers["retry-after"] == "5"
    assert json.loads(body)["error"]["code"] == "service_unavailable"
    for _, writer in held:
        writer.close()
    await asyncio.sleep(0.1)
    again = await capped.send(b"GET /api/health/ HTTP/1.1\r\nHost: localhost\r\n"
                              b"Connection: close\r\n\r\n")
    assert split_answer(again)[0] == 200  # closed connections free their slots


MALFORMED = {
    "header over 8190 bytes": (b"GET /api/health/ HTTP/1.1\r\nHost: localhost\r\nX-Key: "
                               + SECRET.encode() + b"x" * 9000 + b"\r\n\r\n"),
    "bad method": b"G(T /api/health/ HTTP/1.1\r\nHost: localhost\r\nX-Key: " + SECRET.encode()
                  + b"\r\n\r\n",
    "bad chunking": (b"POST /api/auth/login/ HTTP/1.1\r\nHost: localhost\r\n"
                     b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"zz\r\n" + SECRET.encode() + b"\r\n0\r\n\r\n"),
    "content-length with transfer-encoding": (
        b"POST /api/auth/login/ HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n"
        b"Transfer-Encoding: chunked\r\nX-Key: " + SECRET.encode() + b"\r\n\r\n0\r\n\r\n"),
    "request line not http": SECRET.encode() + b"\r\n\r\n",
}


@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
async def test_parser_error_answers_in_the_error_shape_and_logs_no_request_bytes_when_malformed(
        served, caplog, raw):
    """Issue 17: parser-level errors answered text/plain echoing the request, without
    X-Request-ID, and logged a traceback holding the first bytes of the header."""
    caplog.set_level(logging.DEBUG)

    answer = await served.send(raw)

    status, headers, body = split_answer(answer)
    assert status == 400
    assert headers["content-type"].startswith("application/json")
    assert headers["x-request-id"]
    error = json.loads(body)["error"]
    assert error["code"] == "bad_request" and error["message"]
    assert SECRET.encode() not in answer
    records = await records_until(caplog, lambda r: "malformed" in r.getMessage())
    for record in records:
        assert SECRET not in record.getMessage()
        assert record.exc_info is None or SECRET not in str(record.exc_info[1])
    assert any(getattr(r, "request_id", None) == headers["x-request-id"] for r in records)
