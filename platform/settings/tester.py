"""The tenant database connection test: connect within a timeout and read the data-model version.

Failures are reported with one generic code, whatever the cause (refused, timed out, wrong
password, no such database), so the test cannot be used to map which hosts and ports answer.
The cause is logged for the operator, without the URL.
"""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass

from sqlalchemy.engine import URL

from insureops.platform.tenancy.probe import probe
from insureops.platform.tenancy.urls import CheckedUrl

logger = logging.getLogger("insureops.platform.settings")

CONNECTION_FAILED = "connection_failed"


@dataclass(frozen=True)
class ConnectionReport:
    ok: bool
    latency_ms: int | None
    schema_version: str | None
    error: str | None


def _connect_arguments(checked: CheckedUrl, timeout: float) -> dict[str, object]:
    if checked.backend != "postgresql":
        return {"timeout": timeout}
    # hostaddr: connect to the address that was checked, not to whatever the name resolves to
    # by now (DNS rebinding); the host name still serves TLS verification.
    return {"connect_timeout": max(1, math.ceil(timeout)), "hostaddr": checked.addresses[0]}


def _async_url(checked: CheckedUrl) -> URL:
    if checked.backend == "sqlite":
        # A missing file would be created by opening it: open read-only, never create.
        return checked.url.set(drivername="sqlite+aiosqlite",
                               database=f"file:{checked.database}?mode=ro",
                               query={"uri": "true"})
    return checked.url.set(drivername="postgresql+psycopg")


async def try_connection(checked: CheckedUrl, timeout: float) -> ConnectionReport:
    """Connect to the checked URL (at most `timeout` seconds) and read its data-model version."""
    try:
        latency_ms, version = await asyncio.wait_for(
            probe(_async_url(checked), _connect_arguments(checked, timeout)), timeout)
    except Exception as exc:  # noqa: BLE001 - every cause gets the same answer (docstring)
        logger.info("tenant database test failed: %s", type(exc).__name__)
        return ConnectionReport(False, None, None, CONNECTION_FAILED)
    return ConnectionReport(True, latency_ms, version, None)
