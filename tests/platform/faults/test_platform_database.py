"""The platform database behind a relay: its connections cut and the server restarted under
load (503 service_unavailable, then recovery), and a stalled server (bounded 503, recovery)."""

from __future__ import annotations

import asyncio
import time

import aiohttp

from tests.platform.faults.conftest import relay_to, through
from tests.platform.faults.service import missing_clients, write_clients


async def test_platform_connections_cut_under_load_answer_503_then_recover_losing_nothing(
        make_service, add_workspace, tenant_url, platform_urls):
    key = await add_workspace(tenant_url)
    async with relay_to(platform_urls.async_) as relay:
        service = await make_service(database_url=through(relay, platform_urls.async_))
        stop = asyncio.Event()
        load_task = asyncio.create_task(write_clients([service.base], key, stop, workers=6))
        await asyncio.sleep(1.0)
        for _ in range(3):  # every pooled and in-flight connection cut
            await relay.drop()
            await asyncio.sleep(0.5)
        await relay.stop()  # the server restarting
        await asyncio.sleep(1.0)
        restart_at = time.monotonic()
        await relay.start()
        await asyncio.sleep(2.0)
        stop.set()
        load = await load_task

    assert load.errors() == []  # 201 or 503 service_unavailable with Retry-After
    assert max(a.seconds for a in load.answers) < 3.0
    assert load.statuses()[503] > 0
    after = [a for a in load.answers if a.started >= restart_at + 1.0]
    assert after and all(a.status == 201 for a in after)
    assert missing_clients(tenant_url, load.acknowledged) == set()


async def test_stalled_platform_database_answers_503_in_bounded_time_then_recovers(
        make_service, add_workspace, tenant_url, platform_urls):
    """Issue 17's fault tests found every request, /api/health/ included, held forever by a
    platform database that accepts and never answers (no bound on connecting or answering)."""
    key = await add_workspace(tenant_url)
    async with relay_to(platform_urls.async_) as relay:
        service = await make_service(database_url=through(relay, platform_urls.async_),
                                     database_timeout_seconds="1.5")
        stop = asyncio.Event()
        load_task = asyncio.create_task(write_clients([service.base], key, stop, workers=4))
        await asyncio.sleep(1.0)
        relay.stall()
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20)) as session:
            started = time.monotonic()
            async with session.get(f"{service.base}/api/health/") as response:
                health_seconds = time.monotonic() - started
                health = response.status, (await response.json())["error"]["code"]
            relay.resume()
            await asyncio.sleep(2.0)
            stop.set()
            load = await load_task
            async with session.get(f"{service.base}/api/health/") as response:
                recovered = response.status

    # a pooled connection's ping (1.5 s), then a new connection (connect timeout 2 s)
    assert health == (503, "service_unavailable") and health_seconds < 6.0
    assert load.errors() == [] and max(a.seconds for a in load.answers) < 6.0
    assert recovered == 200
    assert missing_clients(tenant_url, load.acknowledged) == set()
