"""Bindings (issue 31): a record written in the tenant database, by the tenant API or by plain
SQL, runs the bound rule's published version; its effects are written once, audited."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
import sqlalchemy as sa

from insureops.platform.jobs.engine import conninfo
from insureops.platform.jobs.queue import QueueJobs
from insureops.platform.jobs.running import app_services
from insureops.platform.tenancy.engine import create_tenant_engine
from tests.platform.rules_studio.conftest import CLIENT_CHECK, new_client
from tests.platform.rules_studio.work_helpers import (
    TASKS,
    bind,
    eventually,
    published,
    tenant_execute,
    tenant_rows,
)


@pytest.fixture
def settings(settings):
    """The test service runs the jobs itself (PostgreSQL too), dispatching every 0.1 s."""
    return settings.model_copy(update={"jobs_in_serve": True, "rules_dispatch_seconds": 0.1})


async def test_task_opens_once_per_record_version_when_a_bound_record_is_written(
        studio, owner, tenant_database):
    rule = await published(studio, owner, CLIENT_CHECK)
    response = await bind(studio, owner, rule_id=rule["id"], record_type="client",
                          on=["created", "updated"])
    assert response.status == 201, await response.text()
    binding = await response.json()
    await new_client(studio, owner, name="No City")
    await new_client(studio, owner, name="Has City", city="Springfield")
    tasks = await eventually(lambda: tenant_rows(tenant_database, "SELECT * FROM tasks"))
    assert len(tasks) == 1
    task = tasks[0]
    assert (task["subject"], task["status"], task["entity_type"]) == (
        "No city on file", "open", "client")
    meta = task["meta"] if isinstance(task["meta"], dict) else json.loads(task["meta"])
    assert (meta["ruleset"], meta["version"], meta["execution"]) == (
        "clients.check", 1, f"binding:{binding['id']}")
    audit = tenant_rows(tenant_database,
                        "SELECT * FROM audit_logs WHERE entity_type = 'task'")
    assert len(audit) == 1 and audit[0]["actor_email"] == "rules:clients.check@1"
    # a write by another application (plain SQL) is seen too: a new record version
    tenant_execute(tenant_database, "UPDATE clients SET phone = '555' WHERE name = 'No City'")
    await eventually(lambda: len(tenant_rows(tenant_database, "SELECT id FROM tasks")) == 2)
    listed = await (await studio.client.get(f"/api/rules/bindings/{binding['id']}/",
                                            headers=owner.headers)).json()
    assert (listed["evaluated"], listed["effects"], listed["errors"]) == (3, 2, 0)


async def test_uw_score_and_task_are_written_when_a_submission_is_referred(
        studio, owner, tenant_database):
    source = TASKS.replace("input policy: Policy", "input uw_submission: UwSubmission").replace(
        "policy.premium > 5000", 'uw_submission.lob == "cyber"').replace(
        'refer "Premium {policy.premium} above 5000"', 'refer "Cyber needs a review"').replace(
        'given policy = {"premium": 100, "status": "active"}',
        'given uw_submission = {"lob": "auto"}')
    rule = await published(studio, owner, source)
    response = await bind(studio, owner, rule_id=rule["id"], record_type="uw_submission",
                          on=["created"])
    assert response.status == 201, await response.text()
    tenant_execute(tenant_database, "INSERT INTO uw_submissions (id, tenant_id, lob) VALUES "
                   "(:id, :tenant, 'cyber')", id="0b4a6d1e5c7f4a3b8e2d1c0f9a8b7c6d"
                   if tenant_database.startswith("sqlite") else
                   "0b4a6d1e-5c7f-4a3b-8e2d-1c0f9a8b7c6d", tenant=owner.workspace_id)
    scores = await eventually(lambda: tenant_rows(tenant_database, "SELECT * FROM uw_scores"))
    assert [(s["decision"], float(s["score"])) for s in scores] == [("refer", 10.0)]
    tasks = tenant_rows(tenant_database, "SELECT subject, priority FROM tasks")
    assert tasks == [{"subject": "Cyber needs a review", "priority": "high"}]


async def test_nothing_runs_when_the_binding_is_paused(studio, owner, tenant_database):
    rule = await published(studio, owner, CLIENT_CHECK)
    binding = await (await bind(studio, owner, rule_id=rule["id"], record_type="client",
                                on=["created"])).json()
    paused = await studio.client.post(f"/api/rules/bindings/{binding['id']}/pause/",
                                      headers=owner.headers)
    assert (await paused.json())["status"] == "paused"
    await new_client(studio, owner, name="No City")
    await asyncio.sleep(1.0)
    assert tenant_rows(tenant_database, "SELECT id FROM tasks") == []
    assert tenant_rows(tenant_database, "SELECT id FROM insureops_outbox") == []


async def test_binding_is_400_with_line_and_column_when_where_does_not_check(
        studio, owner, tenant_database):
    rule = await published(studio, owner, CLIENT_CHECK)
    response = await bind(studio, owner, rule_id=rule["id"], record_type="client",
                          on=["created"], where='client.city == "X" and\n  client.citty == 1')
    assert response.status == 400
    body = await response.json()
    assert body["error"]["code"] == "validation_error"
    detail = body["error"]["details"][0]
    assert (detail["field"], detail["line"], detail["column"]) == ("where", 2, 3)


async def test_binding_is_403_for_a_member_and_404_across_workspaces(studio, owner):
    rule = await published(studio, owner, CLIENT_CHECK)
    member = await studio.tenancy.member(owner, "bob@example.com")
    response = await bind(studio, member, rule_id=rule["id"], record_type="client",
                          on=["created"])
    assert response.status == 403
    other = await studio.tenancy.owner("cy@example.com", "Other Agency")
    response = await bind(studio, other, rule_id=rule["id"], record_type="client",
                          on=["created"])
    assert response.status == 404


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_two_job_processes_write_each_effect_once_when_both_drain(
        studio, owner, tenant_database, settings):
    """Two instances (the test service, and a second engine on the same PostgreSQL platform
    database) both dispatch and drain: 300 writes give 300 tasks, none twice."""
    rule = await published(studio, owner, CLIENT_CHECK)
    response = await bind(studio, owner, rule_id=rule["id"], record_type="client",
                          on=["created", "updated"])
    assert response.status == 201
    second = QueueJobs(conninfo(settings.database_url), concurrency=4)
    await second.open()
    stop = asyncio.Event()
    services = app_services(studio.client.app)
    runner = asyncio.create_task(second.run(services, stop))
    writes = create_tenant_engine(tenant_database)  # one connection, a transaction a record
    try:
        sqlite = tenant_database.startswith("sqlite")
        for burst in range(6):
            with writes.connect() as connection:
                for number in range(50):
                    record = uuid.uuid4()
                    with connection.begin():
                        connection.execute(sa.text(
                            "INSERT INTO clients (id, uuid, tenant_id, name) VALUES "
                            "(:id, :uuid, :tenant, :name)"), {
                            "id": record.hex if sqlite else str(record),
                            "uuid": uuid.uuid4().hex if sqlite else str(uuid.uuid4()),
                            "tenant": owner.workspace_id, "name": f"c{burst}-{number}"})
            await asyncio.sleep(0.2)
        await eventually(lambda: len(tenant_rows(
            tenant_database, "SELECT id FROM tasks")) >= 300, seconds=30)
        await asyncio.sleep(1.0)  # anything written twice would show by now
    finally:
        stop.set()
        await runner
        await asyncio.to_thread(services.close)
        await second.close()
        writes.dispose()
    counted = tenant_rows(tenant_database, "SELECT count(*) AS tasks, count(DISTINCT "
                          "entity_id) AS records FROM tasks")
    assert counted == [{"tasks": 300, "records": 300}]
    assert tenant_rows(tenant_database, "SELECT id FROM insureops_outbox") == []
