"""Book runs (issue 31): a dry run's summary and impact on the real book, an apply run's
effects written once however often it runs, cancelling, and the budgets."""

from __future__ import annotations

import uuid

import pytest

from tests.platform.rules_studio.work_helpers import (
    TASKS,
    finished_run,
    published,
    start_run,
    tenant_execute,
    tenant_rows,
)

LOWER = TASKS.replace("policy.premium > 5000", "policy.premium > 1000")


@pytest.fixture
def settings(settings):
    return settings.model_copy(update={"jobs_in_serve": True, "rules_run_batch_size": 10})


def add_policies(url: str, tenant_id: str, premiums: list[int]) -> None:
    sqlite = url.startswith("sqlite")
    for premium in premiums:
        record_id = uuid.uuid4()
        tenant_execute(url, "INSERT INTO policies (id, uuid, tenant_id, status, premium) "
                       "VALUES (:id, :uuid, :tenant, 'active', :premium)",
                       id=record_id.hex if sqlite else str(record_id),
                       uuid=uuid.uuid4().hex if sqlite else str(uuid.uuid4()),
                       tenant=tenant_id, premium=premium)


async def test_dry_run_reports_the_summary_and_the_impact_without_writing(
        studio, owner, tenant_database):
    rule = await published(studio, owner, TASKS)
    await studio.patch(owner, rule["id"], source=LOWER)  # version 2, not published
    add_policies(tenant_database, owner.workspace_id, [100, 2000, 3000, 9000] * 6)
    response = await start_run(studio, owner, rule["id"], record_type="policy", version=2)
    assert response.status == 202, await response.text()
    run = await response.json()
    assert (run["status"], run["mode"], run["baseline_version"]) == ("queued", "dry_run", 1)
    done = await finished_run(studio, owner, run["id"])
    assert done["status"] == "completed", done
    progress = done["progress"]
    assert (progress["total"], progress["done"], progress["matched"], progress["percent"]) == (
        24, 24, 24, 100.0)
    assert done["summary"]["decisions"] == {"accept": 6, "refer": 18}
    impact = done["impact"]
    assert impact["decisions_changed"] == 12
    moved = [t for t in impact["transitions"] if (t["from"], t["to"]) == ("accept", "refer")]
    assert moved[0]["count"] == 12 and len(moved[0]["examples"]) == 3
    assert tenant_rows(tenant_database, "SELECT id FROM tasks") == []


async def test_apply_run_writes_each_effect_once_when_run_twice(studio, owner, tenant_database):
    rule = await published(studio, owner, TASKS)
    add_policies(tenant_database, owner.workspace_id, [100, 6000, 7000] * 5)
    runs = []
    for _ in range(2):
        response = await start_run(studio, owner, rule["id"], record_type="policy",
                                   mode="apply", where="policy.premium > 50")
        runs.append(await finished_run(studio, owner, (await response.json())["id"]))
    assert [r["progress"]["effects"] for r in runs] == [10, 0]
    assert runs[1]["summary"]["decisions"] == {"accept": 5, "refer": 10}
    tasks = tenant_rows(tenant_database, "SELECT subject, priority FROM tasks")
    assert len(tasks) == 10 and {t["priority"] for t in tasks} == {"high"}
    assert len(tenant_rows(tenant_database, "SELECT id FROM insureops_rule_effects")) == 10


async def test_apply_run_is_409_when_it_names_a_version_that_is_not_published(
        studio, owner, tenant_database):
    rule = await published(studio, owner, TASKS)
    await studio.patch(owner, rule["id"], source=LOWER)
    response = await start_run(studio, owner, rule["id"], record_type="policy", mode="apply",
                               version=2)
    assert response.status == 409
    assert (await response.json())["error"]["code"] == "rule_not_published"


async def test_cancel_is_409_run_finished_when_the_run_has_completed(
        studio, owner, tenant_database):
    rule = await published(studio, owner, TASKS)
    run = await (await start_run(studio, owner, rule["id"], record_type="policy")).json()
    await finished_run(studio, owner, run["id"])
    response = await studio.client.post(f"/api/rules/runs/{run['id']}/cancel/",
                                        headers=owner.headers)
    assert response.status == 409
    assert (await response.json())["error"]["code"] == "run_finished"


async def test_run_is_404_from_another_workspace_and_listed_in_its_own(
        studio, owner, tenant_database):
    rule = await published(studio, owner, TASKS)
    run = await (await start_run(studio, owner, rule["id"], record_type="policy")).json()
    other = await studio.tenancy.owner("cy@example.com", "Other Agency")
    response = await studio.client.get(f"/api/rules/runs/{run['id']}/", headers=other.headers)
    assert response.status == 404
    listed = await (await studio.client.get("/api/rules/runs/", headers=owner.headers)).json()
    assert [r["id"] for r in listed["items"]] == [run["id"]]
    await finished_run(studio, owner, run["id"])


async def test_run_is_400_when_its_where_does_not_check(studio, owner, tenant_database):
    rule = await published(studio, owner, TASKS)
    response = await start_run(studio, owner, rule["id"], record_type="policy",
                               where="policy.premium >")
    assert response.status == 400
    assert (await response.json())["error"]["details"][0]["field"] == "where"
