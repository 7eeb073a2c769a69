"""Issue 31: the webhook events of rules at work are neither lost nor doubled when the process
fails between an effect's commit (tenant database) and the event's publication (platform
database): a failure injected at each of the two points, then the service's own recovery,
leaves exactly one event per decision and task. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
import sqlalchemy as sa

from insureops.platform.keys import DATABASE
from insureops.platform.rules_studio.work import events
from insureops.platform.webhooks.models import WebhookDelivery, WebhookEvent
from tests.platform.rules_studio.conftest import CLIENT_CHECK, new_client
from tests.platform.rules_studio.work_helpers import (
    bind,
    eventually,
    finished_run,
    published,
    start_run,
    tenant_rows,
)

TYPES = ["decision.made", "task.opened", "run.started", "run.completed"]


@pytest.fixture
def settings(settings):
    return settings.model_copy(update={
        "jobs_in_serve": True, "rules_dispatch_seconds": 0.1,
        "webhook_allowed_networks": ("127.0.0.1/32",)})


async def _endpoint(studio, owner) -> None:
    response = await studio.client.post(
        "/api/v2/settings/webhooks/", headers=owner.headers,
        json={"url": "http://127.0.0.1:9/hook", "event_types": TYPES})
    assert response.status == 201, await response.text()


async def _published(studio) -> Counter:
    async with studio.client.app[DATABASE].unit_of_work() as uow:
        rows = (await uow.session.execute(sa.select(WebhookEvent.event_type))).scalars()
        return Counter(rows)


def _staged(url: str) -> int:
    return len(tenant_rows(url, "SELECT id FROM insureops_event_outbox"))


def _fail_once(monkeypatch, name: str, when) -> list:
    """Make `events.<name>` raise ConnectionError (the platform database gone) the first time
    `when(args)` holds (None: the first call): the process's work stops at that point, as in
    a crash."""
    real, failed = getattr(events, name), []

    async def failing(*args, **kwargs):
        if not failed and (when is None or await when(args)):
            failed.append(name)
            raise ConnectionError(f"injected failure in {name}")
        return await real(*args, **kwargs) if asyncio.iscoroutinefunction(real) else real(
            *args, **kwargs)

    def failing_sync(*args, **kwargs):
        if not failed:
            failed.append(name)
            raise ConnectionError(f"injected failure in {name}")
        return real(*args, **kwargs)

    monkeypatch.setattr(events, name, failing if asyncio.iscoroutinefunction(real)
                        else failing_sync)
    return failed


async def _staged_now(args) -> bool:
    _, store, workspace_id, *_ = args
    return await events.pending(store, workspace_id)


async def _two_clients(studio, owner) -> None:
    await new_client(studio, owner, name="No City")
    await new_client(studio, owner, name="Also No City")


async def _settled(studio, url: str, expected: Counter) -> None:
    await eventually(lambda: _staged(url) == 0, seconds=20)
    await eventually(lambda: True)
    found = await _published(studio)
    for _ in range(40):  # until every expected event is there
        if found == expected:
            break
        await asyncio.sleep(0.25)
        found = await _published(studio)
    await asyncio.sleep(1.0)  # and nothing more comes
    assert await _published(studio) == expected


async def test_binding_events_are_published_once_when_the_process_fails_before_the_relay(
        studio, owner, tenant_database, monkeypatch):
    await _endpoint(studio, owner)
    failed = _fail_once(monkeypatch, "relay", _staged_now)
    rule = await published(studio, owner, CLIENT_CHECK)
    assert (await bind(studio, owner, rule_id=rule["id"], record_type="client",
                       on=["created"])).status == 201
    await _two_clients(studio, owner)
    await eventually(lambda: len(tenant_rows(tenant_database, "SELECT id FROM tasks")) == 2)
    await _settled(studio, tenant_database, Counter({"decision.made": 2, "task.opened": 2}))
    assert failed == ["relay"]


async def test_binding_events_are_published_once_when_the_process_fails_after_publishing(
        studio, owner, tenant_database, monkeypatch):
    """Published in the platform database, not yet forgotten in the tenant's: relayed again,
    and the key finds them there."""
    await _endpoint(studio, owner)
    failed = _fail_once(monkeypatch, "_forget", None)
    rule = await published(studio, owner, CLIENT_CHECK)
    assert (await bind(studio, owner, rule_id=rule["id"], record_type="client",
                       on=["created"])).status == 201
    await _two_clients(studio, owner)
    await _settled(studio, tenant_database, Counter({"decision.made": 2, "task.opened": 2}))
    assert failed == ["_forget"]
    async with studio.client.app[DATABASE].unit_of_work() as uow:
        deliveries = (await uow.session.execute(
            sa.select(sa.func.count()).select_from(WebhookDelivery))).scalar_one()
    assert deliveries == 4  # one endpoint, four events: no delivery doubled either


async def test_run_events_are_published_once_when_the_run_fails_before_the_relay(
        studio, owner, tenant_database, monkeypatch):
    await _two_clients(studio, owner)
    await _endpoint(studio, owner)
    failed = _fail_once(monkeypatch, "relay", _staged_now)
    rule = await published(studio, owner, CLIENT_CHECK)
    response = await start_run(studio, owner, rule["id"], record_type="client", mode="apply")
    assert response.status == 202, await response.text()
    run = await finished_run(studio, owner, (await response.json())["id"], seconds=60)
    assert (run["status"], run["progress"]["effects"]) == ("completed", 2)
    await _settled(studio, tenant_database, Counter({
        "decision.made": 2, "task.opened": 2, "run.started": 1, "run.completed": 1}))
    assert failed == ["relay"]
