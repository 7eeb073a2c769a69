"""`BoundedConnection` on its own, through a stalled relay: a round trip past its bound and a
round trip cancelled from outside both end quickly and close the connection."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest

from insureops.platform.data.bounded_connection import bounded_connector
from tests.databases import plain_conninfo
from tests.platform.faults.conftest import relay_to, through


async def test_round_trip_past_its_bound_raises_and_closes_the_connection(database_urls):
    async with relay_to(database_urls.sync) as relay:
        connection = await bounded_connector(0.5)(plain_conninfo(through(relay, database_urls.sync)))
        assert (await (await connection.execute("SELECT 1")).fetchone()) == (1,)
        relay.stall()
        started = time.monotonic()
        with pytest.raises(psycopg.OperationalError, match="did not answer within 0.5 s"):
            await connection.execute("SELECT 1")
        assert time.monotonic() - started < 1.5 and connection.closed


async def test_cancelled_round_trip_closes_at_once_instead_of_sending_a_cancel_request(
        database_urls):
    async with relay_to(database_urls.sync) as relay:
        connection = await bounded_connector(30)(plain_conninfo(through(relay, database_urls.sync)))
        relay.stall()
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.3):
                await connection.execute("SELECT 1")
        # psycopg's own handling waited for a cancel request through the stalled path (5 s+)
        assert time.monotonic() - started < 1.5 and connection.closed
