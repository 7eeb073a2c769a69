"""The settings stores' contract: each scenario runs on the in-memory fakes (fakes.py) and on
the SQL repositories (SQLite and PostgreSQL), so the fast tier's fakes keep the promises the
real stores keep: keys by workspace and newest first, a key revoked once, a connection replaced
whole and a test recorded only on the connection tested, endpoints by workspace."""

from __future__ import annotations

import datetime

import pytest

from insureops.platform.records.api_keys import ApiKey
from insureops.platform.settings import repository
from insureops.platform.settings.webhooks import repository as webhook_repository
from insureops.platform.tenancy.databases import TenantDatabase
from insureops.platform.webhooks.models import WebhookEndpoint
from tests.platform.fakes import CONTRACT_NOW, contract_database
from tests.platform.settings.fakes import FakeSettings, FakeWebhooks

NOW = CONTRACT_NOW
ANN, BOB = "01JWS000000000000000000001", "01JWS000000000000000000002"


def _key(key_id: str, workspace_id: str, seconds: int) -> ApiKey:
    return ApiKey(id=key_id, workspace_id=workspace_id, name="k", display_prefix="iops_abcdef",
                  key_hash=key_id.ljust(64, "0"), scopes="read write",
                  created_at=NOW + datetime.timedelta(seconds=seconds))


def _database(workspace_id: str, ciphertext: str) -> TenantDatabase:
    return TenantDatabase(workspace_id=workspace_id, url_encrypted=ciphertext,
                          backend="postgresql", host="db.example.com", port=5432,
                          database="agency", username="app", saved_at=NOW)


def _endpoint(endpoint_id: str, workspace_id: str, seconds: int) -> WebhookEndpoint:
    at = NOW + datetime.timedelta(seconds=seconds)
    return WebhookEndpoint(id=endpoint_id, workspace_id=workspace_id, url="https://h.example/",
                           event_types=["decision.made"], secret_encrypted="s", enabled=True,
                           consecutive_failures=0, created_at=at, updated_at=at)


async def keys_are_the_workspaces_newest_first_and_revoked_once(store, _, session) -> None:
    for key_id, workspace_id, seconds in (("K1", ANN, 0), ("K2", ANN, 5), ("K3", BOB, 9)):
        await store.add_key(session, _key(key_id, workspace_id, seconds))
    assert [row.id for row in await store.live_keys(session, ANN)] == ["K2", "K1"]
    assert not await store.revoke_key(session, BOB, "K1", NOW)
    assert await store.revoke_key(session, ANN, "K1", NOW)
    assert not await store.revoke_key(session, ANN, "K1", NOW)
    assert [row.id for row in await store.live_keys(session, ANN)] == ["K2"]


async def a_connection_is_replaced_whole_and_a_test_kept_only_on_it(store, _, session) -> None:
    assert await store.database_of(session, ANN) is None
    await store.put_database(session, _database(ANN, "first"))
    assert await store.record_test(session, ANN, "first", {"last_test_ok": True})
    replaced = await store.put_database(session, _database(ANN, "second"))
    assert (replaced.url_encrypted, replaced.last_test_ok) == ("second", None)
    assert not await store.record_test(session, ANN, "first", {"last_test_ok": False})
    assert not await store.record_test(session, BOB, "second", {"last_test_ok": False})
    assert (await store.database_of(session, ANN)).last_test_ok is None
    assert await store.database_of(session, BOB) is None


async def endpoints_are_the_workspaces_oldest_first(_, hooks, session) -> None:
    for endpoint_id, workspace_id, seconds in (("E2", ANN, 5), ("E1", ANN, 0), ("E3", BOB, 1)):
        await hooks.add(session, _endpoint(endpoint_id, workspace_id, seconds))
    assert await hooks.count_endpoints(session, ANN) == 2
    assert [row.id for row in await hooks.endpoints(session, ANN)] == ["E1", "E2"]
    assert await hooks.endpoint(session, BOB, "E1") is None
    assert not await hooks.change_endpoint(session, BOB, "E1", {"enabled": False})
    assert await hooks.change_endpoint(session, ANN, "E1", {"enabled": False})
    assert (await hooks.endpoint(session, ANN, "E1", fresh=True)).enabled is False
    await hooks.delete_endpoint(session, await hooks.endpoint(session, ANN, "E2"))
    assert [row.id for row in await hooks.endpoints(session, ANN)] == ["E1"]


SCENARIOS = [keys_are_the_workspaces_newest_first_and_revoked_once,
             a_connection_is_replaced_whole_and_a_test_kept_only_on_it,
             endpoints_are_the_workspaces_oldest_first]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
async def test_the_fakes_keep_the_contract(scenario):
    await scenario(FakeSettings(), FakeWebhooks(), None)


@pytest.fixture
async def database(platform_database_urls):  # a copy of the migrated template
    async with contract_database(platform_database_urls, ANN, BOB) as database:
        yield database


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
async def test_the_sql_stores_keep_the_contract(scenario, database):
    async with database.unit_of_work() as uow:
        await scenario(repository, webhook_repository, uow.session)
