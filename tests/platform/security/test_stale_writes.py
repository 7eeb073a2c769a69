"""Issue 28 audit: a workspace's settings written at the same moment, or after a slow call
out, on SQLite and PostgreSQL.

A connection test (of the workspace's tenant database, or of an LLM provider key) runs for
seconds with no transaction open; a connection or key saved meanwhile must not receive the old
one's result. The order is forced by events, not timing: the far end of the test accepts and
stalls until the new one is saved, then closes. And the first saves of a setting, sent twice at
once, must both succeed (one upsert each), not collide on the primary key.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.platform.accounts.conftest import FakeClock
from tests.platform.workspaces import Tenancy, start_tenancy


async def ok(response) -> dict:
    assert response.status == 200, await response.text()
    return await response.json()


class StallingServer:
    """A TCP server that accepts and answers nothing until released, then closes: the slow
    far end of a connection test, so that the test can do something meanwhile."""

    def __init__(self) -> None:
        self.accepted = asyncio.Event()
        self.released = asyncio.Event()
        self.server: asyncio.Server | None = None
        self.port = 0

    async def _serve(self, _reader, writer) -> None:
        self.accepted.set()
        await self.released.wait()
        writer.close()

    async def __aenter__(self) -> StallingServer:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *_exc) -> None:
        self.released.set()
        self.server.close()
        await self.server.wait_closed()


@pytest.fixture
async def loopback(aiohttp_client, settings) -> Tenancy:
    """The service allowing tenant databases on 127.0.0.1 (the stalling server)."""
    allowed = settings.model_copy(update={"tenant_database_allowed_networks": ("127.0.0.1/32",),
                                          "tenant_database_timeout_seconds": 10.0})
    return await start_tenancy(aiohttp_client, allowed, FakeClock())


async def test_a_test_result_stays_off_a_connection_saved_while_the_old_one_was_tested(loopback):
    """Issue 28 audit: the result of testing the saved connection was written to whichever
    connection was saved when the test ended, so one saved meanwhile showed the old one's
    outcome without ever being tested. Ordered by events, not timing: the test is connecting
    (the far end accepted) when the new connection is saved, and fails only after that."""
    owner = await loopback.owner("ann@example.com")
    database = "/api/v2/settings/database/"
    async with StallingServer() as far_end:
        await ok(await loopback.client.post(database, headers=owner.headers, json={
            "url": f"postgresql://ann:secret@127.0.0.1:{far_end.port}/old"}))
        tested = asyncio.create_task(loopback.client.post(
            f"{database}test/", json={}, headers=owner.headers))
        await asyncio.wait_for(far_end.accepted.wait(), 10)
        await ok(await loopback.client.post(database, headers=owner.headers, json={
            "url": f"postgresql://ann:secret@127.0.0.1:{far_end.port}/new"}))
        far_end.released.set()
        report = await ok(await tested)

    shown = await ok(await loopback.client.get(f"{database}get/", headers=owner.headers))
    assert (report["ok"], shown["database"], shown["last_test"]) == (False, "new", None)


async def test_a_test_result_stays_off_an_llm_key_saved_while_the_old_one_was_tested(
        aiohttp_client, settings):
    """The same for bring-your-own LLM keys: the provider's far end stalls until a new key is
    saved, then fails; the new key must show no test."""
    local = settings.model_copy(update={"llm_allowed_networks": ("127.0.0.1/32",),
                                        "llm_timeout_seconds": 10.0})
    tenancy = await start_tenancy(aiohttp_client, local, FakeClock())
    owner = await tenancy.owner("ann@example.com")
    keys = "/api/v1/connectors/llm-adaptor/keys"
    async with StallingServer() as far_end:
        async def save(key: str) -> None:
            await ok(await tenancy.client.post(keys, headers=owner.headers, json={
                "provider": "openai", "api_key": key,
                "base_url": f"http://127.0.0.1:{far_end.port}"}))
        await save("sk-old-key-0123456789-WXYZ")
        tested = asyncio.create_task(tenancy.client.post(
            "/api/v1/connectors/llm-adaptor/test", json={"provider": "openai"},
            headers=owner.headers))
        await asyncio.wait_for(far_end.accepted.wait(), 10)
        await save("sk-new-key-0123456789-WXYZ")
        far_end.released.set()
        report = await ok(await tested)

    listed = await ok(await tenancy.client.get(keys, headers=owner.headers))
    [shown] = [item for item in listed["providers"] if item["provider"] == "openai"]
    assert (report["ok"], shown["last_test_at"], shown["last_test_ok"]) == (False, None, None)


async def test_every_first_save_answers_when_two_arrive_at_once(aiohttp_client, settings):
    """The first save of a workspace's tenant database connection, of a provider's LLM key or
    of its studio settings inserts the row: two at once both inserted, and one was a 500 (the
    primary key refused it), on both engines. Each is one upsert now; the later one stays."""
    local = settings.model_copy(update={"tenant_database_allowed_networks": ("127.0.0.1/32",),
                                        "llm_allowed_networks": ("127.0.0.1/32",)})
    tenancy = await start_tenancy(aiohttp_client, local, FakeClock())
    saves = [("POST", "/api/v2/settings/database/",
              {"url": f"postgresql://ann:secret@127.0.0.1:5432/db{n}"}) for n in (1, 2)]
    saves += [("POST", "/api/v1/connectors/llm-adaptor/keys",
               {"provider": "openai", "api_key": f"sk-key-{n}-0123456789-WXYZ",
                "base_url": "http://127.0.0.1:9"}) for n in (1, 2)]
    saves += [("PUT", "/api/rules/rules/settings/", {"four_eyes": n == 1}) for n in (1, 2)]
    for round_ in range(6):
        owner = await tenancy.owner(f"ann{round_}@example.com")

        answers = await asyncio.gather(*(
            tenancy.client.request(method, path, json=body, headers=owner.headers)
            for method, path, body in saves))

        assert [r.status for r in answers] == [200] * 6, (
            round_, [await r.text() for r in answers if r.status != 200])
