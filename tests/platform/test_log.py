"""Structured logs: JSON lines or key=value text, each line of a request carrying its request id."""

from __future__ import annotations

import io
import json
import logging

import pytest

from insureops.platform.http.log import (
    JsonFormatter,
    KeyValueFormatter,
    RequestIdFilter,
    current_request_id,
)


@pytest.fixture
def captured_lines():
    """JSON lines written by the service's `insureops` loggers while the test runs."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("insureops")
    logger.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        logger.removeHandler(handler)


async def test_error_lines_carry_the_request_id_when_a_request_fails(probe, captured_lines):
    await probe.get("/api/probe/boom/", headers={"X-Request-ID": "req-7"})
    lines = captured_lines()
    assert lines and all(line["request_id"] == "req-7" for line in lines)
    assert lines[0]["level"] == "ERROR" and "RuntimeError" in lines[0]["exception"]


def test_lines_outside_a_request_carry_a_dash_when_no_request_is_served(captured_lines):
    logging.getLogger("insureops.test").warning("starting %s", "up")
    assert captured_lines()[0]["request_id"] == "-"
    assert captured_lines()[0]["message"] == "starting up"


def test_key_value_lines_show_extras_when_text_format_is_chosen():
    record = logging.LogRecord("insureops.x", logging.INFO, __file__, 1, "GET %s", ("/a",), None)
    token = current_request_id.set("abc")
    try:
        RequestIdFilter().filter(record)
    finally:
        current_request_id.reset(token)
    line = KeyValueFormatter().format(record)
    assert "INFO" in line and "insureops.x GET /a" in line and "request_id=abc" in line
