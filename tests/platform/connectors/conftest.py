"""Fixtures of the connectors tests: the service on the backend under test, owners logged in."""

from __future__ import annotations

from tests.platform.accounts.conftest import FakeClock
from tests.platform.workspaces import start_tenancy

BASE = "/api/v1/connectors"


def smtp_to(settings, server, **overrides):
    """`settings` mailing through the test SMTP server `server` (plain or STARTTLS + AUTH)."""
    secure = server.ca_file is not None
    return settings.model_copy(update={
        "email_backend": "smtp", "email_from": "insureops <no-reply@insureops.test>",
        "smtp_host": server.host, "smtp_port": server.port, "smtp_username": server.username,
        "smtp_password": None, "smtp_starttls": secure, "smtp_ca_file": server.ca_file,
        "smtp_timeout_seconds": 5.0, **overrides})


async def service(aiohttp_client, settings):
    return await start_tenancy(aiohttp_client, settings, FakeClock())
