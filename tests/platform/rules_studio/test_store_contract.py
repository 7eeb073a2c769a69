"""The rule studio store's contract: each scenario runs on the in-memory fake (fakes.py) and on
the SQL repository (SQLite and PostgreSQL), so the fast tier's fake keeps the promises the real
store keeps: a compare-and-set on a rule wins from the state read and loses once another request
changed it, an archive or a decision happens once, a rule is read with the version asked for,
the log is newest first."""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import update

from insureops.platform.rules_studio import repository
from insureops.platform.rules_studio.models import Rule, RuleApproval, RuleExecution, RuleVersion
from insureops.platform.rules_studio.repository import ExecutionFilters
from tests.platform.fakes import CONTRACT_NOW, contract_database
from tests.platform.rules_studio.fakes import FakeStudio

NOW = CONTRACT_NOW
ANN, ZED = "01JWS000000000000000000001", "01JWS000000000000000000002"


async def _rule(store, session, rule_id: str = "R1", workspace_id: str = ANN) -> Rule:
    rule = Rule(id=rule_id, workspace_id=workspace_id, name=f"r.{rule_id}", title="t",
                kind="triage", status="draft", current_version=2, published_version=None,
                created_at=NOW, updated_at=NOW)
    await store.add(session, rule)
    await store.add(session, *(RuleVersion(
        rule_id=rule_id, number=number, source=f"v{number}", content_hash="0" * 64,
        created_at=NOW, warnings=[], tests=[], tests_passed=True) for number in (1, 2)))
    return rule


async def a_rule_moves_from_the_state_read_until_another_changes_it(store, race, session):
    rule = await _rule(store, session)
    assert await store.move_rule(session, rule, published_version=1, status="published")
    assert (rule.status, rule.published_version) == ("published", 1)
    assert await store.move_rule(session, rule)  # holds the row, changes nothing
    await race(rule, current_version=3)
    assert not await store.move_rule(session, rule, status="draft")
    # What the object holds after a lost compare-and-set is not promised (SQL's "evaluate"
    # synchronisation sets it anyway): the use case raises and its transaction rolls back.


async def an_archive_happens_once(store, race, session):
    rule = await _rule(store, session)
    assert await store.archive_rule(session, rule, updated_at=NOW)
    assert rule.status == "archived"
    assert not await store.archive_rule(session, rule, updated_at=NOW)


async def a_rule_is_read_with_the_version_asked_for(store, race, session):
    rule = await _rule(store, session)
    await store.move_rule(session, rule, published_version=1, status="published")
    read = store.rule_with_version
    assert (await read(session, ANN, "R1"))[1].number == 2
    assert (await read(session, ANN, "R1", 1))[1].number == 1
    assert (await read(session, ANN, "R1", published=True))[1].number == 1
    assert (await read(session, ANN, "R1", 7))[1] is None
    assert await read(session, ZED, "R1") is None
    assert await store.rule(session, ZED, "R1") is None
    assert [v.number for v in await store.versions(session, "R1")] == [1, 2]


async def an_approval_is_decided_once(store, race, session):
    await _rule(store, session)
    row = RuleApproval(id="A1", rule_id="R1", version=2, status="pending", requested_at=NOW)
    await store.add(session, row)
    assert (await store.pending_approval(session, "R1", 2)).id == "A1"
    assert await store.decide_approval(session, row, "rejected", None, NOW, "no")
    assert not await store.decide_approval(session, row, "approved", None, NOW, None)
    assert await store.approval_status(session, "A1") == "rejected"
    assert await store.pending_approval(session, "R1", 2) is None


async def the_log_is_newest_first_and_filtered(store, race, session):
    await _rule(store, session)
    for index, decision in enumerate(("accept", "refer", "accept")):
        await store.add(session, RuleExecution(
            rule_id="R1", version=2, executed_at=NOW + datetime.timedelta(days=index),
            input_digest="0" * 64, as_of=NOW.date(), decision=decision, fired=[],
            duration_us=1))
    rows = await store.executions(session, "R1", 10, None)
    assert [row.executed_at.day for row in rows] == [17, 16, 15]
    older = await store.executions(session, "R1", 10, rows[0].id)
    assert [row.id for row in older] == [row.id for row in rows[1:]]
    accepted = await store.executions(session, "R1", 10, None, ExecutionFilters(
        decision="accept", executed_before=NOW + datetime.timedelta(days=1)))
    assert [row.executed_at.day for row in accepted] == [15]


SCENARIOS = [a_rule_moves_from_the_state_read_until_another_changes_it, an_archive_happens_once,
             a_rule_is_read_with_the_version_asked_for, an_approval_is_decided_once,
             the_log_is_newest_first_and_filtered]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
async def test_the_fake_keeps_the_contract(scenario):
    store = FakeStudio()

    async def race(rule: Rule, **values: object) -> None:
        store.race(rule.id, **values)
    await scenario(store, race, None)


@pytest.fixture
async def database(platform_database_urls):  # a copy of the migrated template
    async with contract_database(platform_database_urls, ANN, ZED) as database:
        yield database


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
async def test_the_sql_store_keeps_the_contract(scenario, database):
    async with database.unit_of_work() as uow:
        async def race(rule: Rule, **values: object) -> None:  # written around the object
            await uow.session.execute(update(Rule).where(Rule.id == rule.id).values(**values)
                                      .execution_options(synchronize_session=False))
        await scenario(repository, race, uow.session)
