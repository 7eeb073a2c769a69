"""SMTP refused and stalled (sign-up still answers, the send logged as failed, delivered once the
server is back), and an instance killed mid-load (the other goes on, no acknowledged write lost).
"""

from __future__ import annotations

import asyncio
import time

import aiohttp
import psycopg

from tests.databases import plain_conninfo
from tests.platform.email.smtp_server import running_smtp_server
from tests.platform.faults.relay import TcpRelay
from tests.platform.faults.service import missing_clients, write_clients

PASSWORD = "a long enough passphrase"


def email_log(platform_url: str) -> list[tuple[str, str, str, str | None]]:
    with psycopg.connect(plain_conninfo(platform_url)) as connection:
        return [tuple(row) for row in connection.execute(
            "SELECT recipients, template, status, error_code FROM email_log ORDER BY id")]


async def _timed_post(session: aiohttp.ClientSession, url: str,
                      body: dict) -> tuple[int, float]:
    started = time.monotonic()
    async with session.post(url, json=body) as response:
        await response.read()
        return response.status, time.monotonic() - started


async def test_signup_answers_while_smtp_is_refused_or_stalled_and_mail_flows_when_back(
        make_service, platform_urls):
    with running_smtp_server() as smtp:
        relay = TcpRelay(smtp.host, smtp.port)  # the service's SMTP server, controlled here
        await relay.start()
        await relay.stop()  # down: connections refused
        service = await make_service(email_backend="smtp", smtp_host="127.0.0.1",
                                     smtp_port=str(relay.port), smtp_starttls="false",
                                     smtp_timeout_seconds="1.5")
        auth = f"{service.base}/api/auth"
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20)) as session:
            refused = await _timed_post(session, f"{auth}/signup/", {
                "email": "ann@example.com", "password": PASSWORD, "name": "Ann Lee"})
            await relay.start()
            relay.stall()  # accepts, never answers
            stalled = await _timed_post(session, f"{auth}/signup/", {
                "email": "bob@example.com", "password": PASSWORD, "name": "Bob Lee"})
            async with session.get(f"{service.base}/api/health/") as health:
                await health.read()
            relay.resume()
            resent = await _timed_post(session, f"{auth}/resend-code/",
                                       {"email": "ann@example.com"})
            [mail] = await asyncio.to_thread(smtp.wait_for, 1)
        await relay.stop()

    assert refused[0] == 202 and refused[1] < 3.0
    assert stalled[0] == 202 and stalled[1] < 6.0  # bounded by the SMTP timeout (1.5 s a step)
    assert health.status == 200
    assert resent[0] == 202 and mail.rcpt_tos == ("ann@example.com",)
    assert email_log(platform_urls.sync) == [
        ("ann@example.com", "verification_code", "failed", "smtp_connect_failed"),
        ("bob@example.com", "verification_code", "failed", "smtp_timeout"),
        ("ann@example.com", "verification_code", "sent", None)]
    assert "smtp_connect_failed" in service.log() and "smtp_timeout" in service.log()


async def test_instance_killed_mid_load_loses_no_acknowledged_write_and_the_other_goes_on(
        make_service, add_workspace, tenant_url):
    key = await add_workspace(tenant_url)
    first, second = await asyncio.gather(make_service(), make_service())
    stop = asyncio.Event()
    load_task = asyncio.create_task(write_clients([first.base, second.base], key, stop,
                                                  workers=8, failover=True))
    await asyncio.sleep(1.0)
    first.kill()  # SIGKILL while its clients write
    killed_at = time.monotonic()
    await asyncio.sleep(1.5)
    stop.set()
    load = await load_task

    on_second = [a for a in load.answers if a.base == second.base]
    assert on_second and all(a.status == 201 for a in on_second)
    assert load.statuses(first.base)[201] > 0  # it served until killed
    assert all(a.status == 0 for a in load.answers  # after the kill: no answer, never a 5xx
               if a.base == first.base and a.started >= killed_at)
    assert [a for a in load.answers if a.status not in (0, 201)] == []
    assert load.statuses(second.base, after=killed_at + 0.5)[201] > 0  # took the load over
    assert missing_clients(tenant_url, load.acknowledged) == set()
