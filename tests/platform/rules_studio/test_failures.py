"""Issue 31: a failed record is visible with its error and retried, for a binding and a book
run: listed (engine code and message), retried as it is now (admin), its effects written once
and the failure resolved when the retry succeeds. On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from tests.platform.rules_studio.conftest import new_client
from tests.platform.rules_studio.work_helpers import (
    CITY_DATES,
    bind,
    eventually,
    finished_run,
    published,
    start_run,
    tenant_execute,
    tenant_rows,
)


@pytest.fixture
def settings(settings):
    return settings.model_copy(update={"jobs_in_serve": True, "rules_dispatch_seconds": 0.1})


async def _get(studio, member, path: str, status: int = 200) -> dict:
    response = await studio.client.get(path, headers=member.headers)
    assert response.status == status, await response.text()
    return await response.json()


async def _retry(studio, member, path: str, status: int = 200) -> dict:
    response = await studio.client.post(path, headers=member.headers)
    assert response.status == status, await response.text()
    return await response.json()


def _record(url: str, name: str) -> str:
    [row] = tenant_rows(url, f"SELECT id FROM clients WHERE name = '{name}'")
    return str(row["id"]) if "-" in str(row["id"]) else (
        f"{row['id'][:8]}-{row['id'][8:12]}-{row['id'][12:16]}-{row['id'][16:20]}-"
        f"{row['id'][20:]}")


async def test_a_bindings_failed_record_is_listed_and_retried_when_fixed(
        studio, owner, tenant_database):
    rule = await published(studio, owner, CITY_DATES)
    binding = await (await bind(studio, owner, rule_id=rule["id"], record_type="client",
                                on=["created"])).json()
    await new_client(studio, owner, name="Odd", city="Springfield")
    base = f"/api/rules/bindings/{binding['id']}"
    await eventually(lambda: True)
    found = await eventually_async(lambda: _get(studio, owner, f"{base}/failures/"),
                                   lambda page: page["items"])
    [failure] = found["items"]
    record = _record(tenant_database, "Odd")
    assert (failure["record_type"], failure["record_id"]) == ("client", record)
    assert failure["error"]["code"] and "Springfield" in failure["error"]["message"]

    again = await _retry(studio, owner, f"{base}/failures/{record}/retry/")
    assert (again["status"], again["effects"]) == ("failed", 0)  # unchanged: fails again
    assert len((await _get(studio, owner, f"{base}/failures/"))["items"]) == 1

    tenant_execute(tenant_database, "UPDATE clients SET city = '2020-05-05' WHERE name = 'Odd'")
    fixed = await _retry(studio, owner, f"{base}/failures/{record}/retry/")
    assert (fixed["status"], fixed["decision"], fixed["effects"]) == ("succeeded", "refer", 1)
    assert (await _get(studio, owner, f"{base}/failures/"))["items"] == []
    assert [t["subject"] for t in tenant_rows(tenant_database, "SELECT subject FROM tasks")] == [
        "City 2020-05-05 is a date"]
    counted = await _get(studio, owner, f"{base}/")
    assert (counted["errors"], counted["effects"]) == (0, 1)
    # resolved: a second retry finds no failure
    await _retry(studio, owner, f"{base}/failures/{record}/retry/", 404)


async def eventually_async(fetch, check, seconds: float = 10.0):
    import asyncio
    import time

    deadline = time.monotonic() + seconds
    while True:
        found = await fetch()
        if check(found):
            return found
        assert time.monotonic() < deadline, found
        await asyncio.sleep(0.1)


async def test_a_runs_failed_record_is_listed_and_retried_when_fixed(
        studio, owner, tenant_database):
    await new_client(studio, owner, name="Odd", city="Springfield")
    await new_client(studio, owner, name="Fine")
    rule = await published(studio, owner, CITY_DATES)
    record = _record(tenant_database, "Odd")

    dry = await (await start_run(studio, owner, rule["id"], record_type="client")).json()
    dry = await finished_run(studio, owner, dry["id"])
    assert dry["progress"]["errors"] == 1
    [listed] = (await _get(studio, owner, f"/api/rules/runs/{dry['id']}/failures/"))["items"]
    assert (listed["record_id"], listed["record_version"]) == (record, None)
    outcome = await _retry(studio, owner, f"/api/rules/runs/{dry['id']}/failures/{record}/retry/")
    assert (outcome["status"], outcome["effects"]) == ("failed", 0)

    apply = await (await start_run(studio, owner, rule["id"], record_type="client",
                                   mode="apply")).json()
    apply = await finished_run(studio, owner, apply["id"])
    base = f"/api/rules/runs/{apply['id']}/failures"
    [failure] = (await _get(studio, owner, f"{base}/"))["items"]
    assert failure["record_id"] == record and failure["record_version"]
    other = await _retry(studio, owner, f"{base}/{_record(tenant_database, 'Fine')}/retry/", 404)
    assert other["error"]["code"] == "not_found"
    tenant_execute(tenant_database, "UPDATE clients SET city = '2021-01-01' WHERE name = 'Odd'")
    fixed = await _retry(studio, owner, f"{base}/{record}/retry/")
    assert (fixed["status"], fixed["decision"], fixed["effects"]) == ("succeeded", "refer", 1)
    assert (await _get(studio, owner, f"{base}/"))["items"] == []
    run = await _get(studio, owner, f"/api/rules/runs/{apply['id']}/")
    assert (run["progress"]["errors"], run["progress"]["effects"]) == (0, 1)
    assert len(tenant_rows(tenant_database, "SELECT id FROM tasks")) == 1
