"""The tenant database stopped, restarted and stalled under load, behind a relay the test
controls: quick 503s with Retry-After, recovery, bounded latency, no acknowledged write lost."""

from __future__ import annotations

import asyncio
import time

import aiohttp

from tests.platform.faults.conftest import relay_to, through
from tests.platform.faults.service import missing_clients, write_clients


async def test_tenant_database_restart_under_load_answers_503_then_recovers_losing_nothing(
        make_service, add_workspace, tenant_url):
    async with relay_to(tenant_url) as relay:
        key = await add_workspace(through(relay, tenant_url))
        service = await make_service()
        stop = asyncio.Event()
        load_task = asyncio.create_task(write_clients([service.base], key, stop, workers=6))
        await asyncio.sleep(1.0)
        await relay.stop()
        down_at = time.monotonic()
        await asyncio.sleep(2.0)
        restart_at = time.monotonic()
        await relay.start()
        await asyncio.sleep(2.0)
        stop.set()
        load = await load_task

    assert load.errors() == []  # 201 or 503 with a code and Retry-After: no 500, no hang
    # a request that started just before the restart may reach the database after it
    during = [a for a in load.answers
              if a.started >= down_at + 0.2 and a.started + a.seconds < restart_at]
    assert during and all(a.status == 503 and a.code == "tenant_database_unavailable"
                          and a.retry_after == "5" and a.seconds < 2.0 for a in during)
    after = [a for a in load.answers if a.started >= restart_at + 1.0]
    assert after and all(a.status == 201 for a in after)
    assert missing_clients(tenant_url, load.acknowledged) == set()


async def _probe_health(base: str, stop: asyncio.Event) -> list[tuple[int, float]]:
    probes = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
        while not stop.is_set():
            started = time.monotonic()
            async with session.get(f"{base}/api/health/") as response:
                probes.append((response.status, time.monotonic() - started))
            await asyncio.sleep(0.1)
    return probes


async def test_stalled_tenant_database_answers_503_within_its_timeout_and_health_stays_up(
        make_service, add_workspace, tenant_url):
    async with relay_to(tenant_url) as relay:
        key = await add_workspace(through(relay, tenant_url))
        service = await make_service(tenant_database_operation_timeout_seconds="1",
                                     tenant_database_connect_timeout_seconds="1")
        stop, health_stop = asyncio.Event(), asyncio.Event()
        health = asyncio.create_task(_probe_health(service.base, health_stop))
        load_task = asyncio.create_task(write_clients([service.base], key, stop, workers=6))
        await asyncio.sleep(1.0)
        relay.stall()  # accepts, forwards nothing: open connections and new ones hang
        stalled_at = time.monotonic()
        await asyncio.sleep(3.5)
        resumed_at = time.monotonic()
        relay.resume()
        await asyncio.sleep(1.5)
        stop.set()
        load = await load_task
        health_stop.set()
        probes = await health

    assert load.errors() == []
    # Bounded: the operation timeout (1 s) and the time to answer, never psycopg's cancel
    # request through the stalled path (which added up to 10 s before the fix).
    assert max(a.seconds for a in load.answers) < 3.0
    during = [a for a in load.answers if stalled_at + 0.1 <= a.started < resumed_at - 1.5]
    assert during and all(a.status == 503 and a.code == "tenant_database_unavailable"
                          and a.retry_after == "5" for a in during)
    assert all(status == 200 and seconds < 2.0 for status, seconds in probes)
    assert len(probes) > 20  # probed all along, every 0.1 s
    after = [a for a in load.answers if a.started >= resumed_at + 0.5]
    assert after and all(a.status == 201 for a in after)  # the pool recovered
    assert missing_clients(tenant_url, load.acknowledged) == set()
