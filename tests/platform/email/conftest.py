"""Fixtures: a plain SMTP server and a STARTTLS + AUTH one, both real (aiosmtpd)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.platform.email.smtp_server import SmtpTestServer, running_smtp_server


@pytest.fixture
def smtp_server() -> Iterator[SmtpTestServer]:
    """A plain SMTP server without TLS or AUTH."""
    with running_smtp_server() as server:
        yield server


@pytest.fixture
def secure_smtp_server(tmp_path: Path) -> Iterator[SmtpTestServer]:
    """An SMTP server that requires STARTTLS (self-signed certificate) and AUTH."""
    with running_smtp_server(secure_in=tmp_path) as server:
        yield server
