"""The rule studio's tables on a migrated platform database: names are unique per workspace,
versions per rule, and the kind and status are constrained."""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import exc, select

from insureops.platform.data.database import Database
from insureops.platform.identity import Workspace
from insureops.platform.rules_studio.models import Rule, RuleVersion

NOW = datetime.datetime(2027, 1, 15, 8, 0, tzinfo=datetime.UTC)
WORKSPACES = ("01JWS000000000000000000001", "01JWS000000000000000000002")


@pytest.fixture
async def database(platform_database_urls):  # a copy of the migrated template
    database = Database.connect(platform_database_urls.async_)
    async with database.unit_of_work() as uow:
        for tenant_id in WORKSPACES:
            uow.session.add(Workspace(tenant_id=tenant_id, name="Agency", created_at=NOW))
    yield database
    await database.dispose()


def rule(rule_id: str, workspace_id: str, name: str = "triage.claims", **fields) -> Rule:
    values = {"title": "Claims triage", "kind": "triage", "status": "draft",
              "current_version": 1, "published_version": None, "created_at": NOW,
              "updated_at": NOW}
    values.update(fields)
    return Rule(id=rule_id, workspace_id=workspace_id, name=name, **values)


def version(rule_id: str, number: int) -> RuleVersion:
    return RuleVersion(rule_id=rule_id, number=number, source="ruleset x\n", content_hash="0" * 64,
                       created_at=NOW, warnings=[], tests=[{"description": "t", "passed": True}],
                       tests_passed=True)


async def test_a_rule_keeps_its_versions_when_written_and_read_back(database):
    async with database.unit_of_work() as uow:
        uow.session.add(rule("R1", WORKSPACES[0]))
        await uow.session.flush()
        uow.session.add_all([version("R1", 1), version("R1", 2)])
    async with database.unit_of_work() as uow:
        found = (await uow.session.execute(select(RuleVersion).order_by(RuleVersion.number)))
        rows = list(found.scalars())
    assert [(v.rule_id, v.number, v.tests) for v in rows] == [
        ("R1", 1, [{"description": "t", "passed": True}]),
        ("R1", 2, [{"description": "t", "passed": True}])]


async def test_the_same_name_is_allowed_when_the_workspaces_differ(database):
    async with database.unit_of_work() as uow:
        uow.session.add_all([rule("R1", WORKSPACES[0]), rule("R2", WORKSPACES[1])])
    async with database.unit_of_work() as uow:
        names = (await uow.session.execute(select(Rule.name))).scalars().all()
    assert names == ["triage.claims", "triage.claims"]


async def test_a_second_rule_of_the_same_name_is_refused_when_in_one_workspace(database):
    with pytest.raises(exc.IntegrityError):
        async with database.unit_of_work() as uow:
            uow.session.add_all([rule("R1", WORKSPACES[0]), rule("R2", WORKSPACES[0])])


async def test_a_version_number_is_refused_when_the_rule_has_it_already(database):
    async with database.unit_of_work() as uow:
        uow.session.add(rule("R1", WORKSPACES[0]))
        await uow.session.flush()
        uow.session.add(version("R1", 1))
    with pytest.raises(exc.IntegrityError):
        async with database.unit_of_work() as uow:
            uow.session.add(version("R1", 1))


@pytest.mark.parametrize("field", [{"kind": "banking"}, {"status": "deleted"}])
async def test_a_kind_or_status_outside_the_lists_is_refused_when_written(database, field):
    with pytest.raises(exc.IntegrityError):
        async with database.unit_of_work() as uow:
            uow.session.add(rule("R1", WORKSPACES[0], **field))
