"""Issue 31 end to end: a record written in the tenant database runs a bound ruleset, and its
decision and the task it opened reach a real receiver, signed; a book run's start and end do
too. The service runs its own jobs (bindings' dispatcher, the webhook sweep), on SQLite and
PostgreSQL."""

from __future__ import annotations

import time
import uuid

import pytest
from standardwebhooks.webhooks import Webhook

from tests.platform.accounts.conftest import FakeClock
from tests.platform.mcp.conftest import own_tenant_database, save_database_url
from tests.platform.rules_studio.conftest import CLIENT_CHECK, Studio, new_client
from tests.platform.rules_studio.work_helpers import (
    bind,
    eventually,
    finished_run,
    published,
    start_run,
    tenant_rows,
)
from tests.platform.webhooks.receiver import Receiver
from tests.platform.workspaces import start_tenancy

EVENTS = ["decision.made", "task.opened", "run.started", "run.completed"]


@pytest.fixture
def working(settings, tmp_path):
    return settings.model_copy(update={
        "jobs_in_serve": True, "rules_dispatch_seconds": 0.1,
        "tenant_database_allowed_networks": ("127.0.0.1/32",),
        "tenant_sqlite_directory": tmp_path / "tenants",
        "webhook_allowed_networks": ("127.0.0.1/32",)})


async def test_decisions_tasks_and_runs_reach_the_receiver_when_rules_work(
        aiohttp_client, working, test_databases, receiver: Receiver):
    tenancy = await start_tenancy(aiohttp_client, working, FakeClock(time.time()))
    studio = Studio(tenancy)
    owner = await tenancy.owner("ann@example.com")
    url = own_tenant_database(test_databases, working, owner.workspace_id)
    await save_database_url(tenancy.client, owner.workspace_id, url)
    hook = await (await tenancy.client.post("/api/v2/settings/webhooks/", headers=owner.headers,
                                            json={"url": receiver.at(), "event_types": EVENTS})
                  ).json()
    verifier = Webhook(hook["secret"])
    rule = await published(studio, owner, CLIENT_CHECK)
    assert (await bind(studio, owner, rule_id=rule["id"], record_type="client",
                       on=["created"])).status == 201

    await new_client(studio, owner, name="No City")
    await eventually(lambda: len(receiver.received) >= 2, seconds=15)
    events = {event["type"]: event["data"] for event in (
        verifier.verify(r.body, r.headers) for r in receiver.received)}
    decision = events["decision.made"]
    [client] = tenant_rows(url, "SELECT id FROM clients")
    assert (decision["decision"], decision["record"], decision["source"]) == (
        "refer", {"type": "client", "id": str(uuid.UUID(str(client["id"]))), "uuid": None},
        "binding")
    assert decision["ruleset"] == {"rule_id": rule["id"], "name": "clients.check", "version": 1}
    assert decision["reasons"] == ["No city on file"]
    assert events["task.opened"]["task"]["subject"] == "No city on file"

    response = await start_run(studio, owner, rule["id"], record_type="client", mode="dry_run")
    assert response.status == 202, await response.text()
    run = await finished_run(studio, owner, (await response.json())["id"])
    assert run["status"] == "completed"
    await eventually(lambda: {"run.started", "run.completed"} <= {
        verifier.verify(r.body, r.headers)["type"] for r in receiver.received}, seconds=15)
    ended = [verifier.verify(r.body, r.headers)["data"] for r in receiver.received
             if b'"run.completed"' in r.body]
    assert ended[0]["run"]["id"] == run["id"] and ended[0]["run"]["mode"] == "dry_run"
