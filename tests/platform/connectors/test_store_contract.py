"""The connectors store's contract: each scenario runs on the in-memory fake (fakes.py) and on
the SQL repository (SQLite and PostgreSQL), so the fast tier's fake keeps the promises the real
store keeps: one key per workspace and provider, replaced whole, a test recorded only on the key
tested, the e-mail log newest first with its total."""

from __future__ import annotations

import datetime

import pytest

from insureops.platform.connectors import repository
from insureops.platform.email.log import EmailLogEntry
from tests.platform.connectors.fakes import FakeConnectors
from tests.platform.fakes import CONTRACT_NOW, contract_database

NOW = CONTRACT_NOW
ANN, ZED = "01JWS000000000000000000001", "01JWS000000000000000000002"


def _values(ciphertext: str) -> dict[str, object]:
    return {"key_encrypted": ciphertext, "key_last_four": ciphertext[-4:], "base_url": None,
            "model": None, "saved_by": None, "saved_at": NOW, "last_test_at": None,
            "last_test_ok": None, "last_test_latency_ms": None, "last_test_error": None}


async def a_key_is_replaced_whole_and_a_test_kept_only_on_it(store, session) -> None:
    await store.put_key(session, ANN, "openai", _values("first-1111"))
    assert await store.record_test(session, ANN, "openai", "first-1111", {"last_test_ok": True})
    replaced = await store.put_key(session, ANN, "openai", _values("second-2222"))
    assert (replaced.key_last_four, replaced.last_test_ok) == ("2222", None)
    assert not await store.record_test(session, ANN, "openai", "first-1111",
                                       {"last_test_ok": False})
    assert (await store.key(session, ANN, "openai")).last_test_ok is None
    await store.put_key(session, ZED, "anthropic", _values("zed-3333"))
    assert [row.provider for row in await store.keys(session, ANN)] == ["openai"]
    assert await store.key(session, ANN, "anthropic") is None
    await store.delete_key(session, await store.key(session, ANN, "openai"))
    assert await store.keys(session, ANN) == []


async def the_log_is_the_workspaces_newest_first_with_its_total(store, session) -> None:
    for index, (tenant, status) in enumerate(((ANN, "sent"), (ANN, "failed"), (ANN, "sent"),
                                              (ZED, "sent"))):
        entry = EmailLogEntry(created_at=NOW + datetime.timedelta(seconds=index),
                              tenant_id=tenant, backend="smtp", status=status,
                              message_id=f"<{index}@t>", recipients="z@example.com",
                              subject=f"s{index}", text_body="x")
        if session is None:
            entry.id = index + 1
            store.log.append(entry)
        else:
            session.add(entry)
    if session is not None:
        await session.flush()
    rows, total = await store.log_page(session, ANN, None, 1, 5)
    assert total == 3 and [row.subject for row in rows] == ["s1", "s0"]
    rows, total = await store.log_page(session, ANN, "sent", 0, 5)
    assert total == 2 and [row.subject for row in rows] == ["s2", "s0"]


SCENARIOS = [a_key_is_replaced_whole_and_a_test_kept_only_on_it,
             the_log_is_the_workspaces_newest_first_with_its_total]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
async def test_the_fake_keeps_the_contract(scenario):
    await scenario(FakeConnectors(), None)


@pytest.fixture
async def database(platform_database_urls):  # a copy of the migrated template
    async with contract_database(platform_database_urls, ANN, ZED) as database:
        yield database


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
async def test_the_sql_store_keeps_the_contract(scenario, database):
    async with database.unit_of_work() as uow:
        await scenario(repository, uow.session)
