"""The fast tier of the rule studio's use cases (rules, versions, publishing, four eyes, case
sets, simulate and execute): an in-memory fake of their store, the real jobs run in this process
instead of the rules workers, and a fixed clock (fakes.py); no database, no HTTP. Here are the
rules: what a save analyses and keeps, versions and If-Match, which publications are refused and
what each records, lost compare-and-sets, approvals, case-set bounds, what simulate and execute
read, refuse and log. The store's SQL, the routes, the workers' bounds and the tenant database
are the database tier's (test_rules.py, test_publishing.py, test_execute.py, ...)."""

from __future__ import annotations

import datetime
import uuid

import pytest

from insureops.dsl import RulesetInvalidError
from insureops.platform.rules_studio import approvals, case_sets, execution, service
from insureops.platform.rules_studio.errors import (
    ApprovalDecidedError,
    ApprovalRequiredError,
    ApprovalStateError,
    CaseSetLimitError,
    CaseSetNameTakenError,
    CaseSetNotFoundError,
    CaseSetTooLargeError,
    EvaluationFailedError,
    InvalidCursorError,
    PublishRequestError,
    RecordNotApplicableError,
    RuleArchivedError,
    RuleChangedError,
    RuleNameTakenError,
    RuleNotFoundError,
    RuleNotPublishedError,
    SelfApprovalError,
    SimulationTooLargeError,
    StaleVersionError,
    TestsFailingError,
    VersionNotFoundError,
)
from insureops.platform.rules_studio.payloads import (
    MAX_CASE_SETS,
    SimulateCase,
    SimulateRequest,
)
from insureops.platform.rules_studio.records import RecordRef
from insureops.platform.rules_studio.repository import RuleFilters
from insureops.platform.tenancy.book.errors import RecordMissingError
from tests.platform.accounts.conftest import FakeClock
from tests.platform.rules_studio.conftest import (
    BROKEN,
    CLIENT_CHECK,
    FAILING,
    LOWERED,
    TRIAGE,
    WARNED,
)
from tests.platform.rules_studio.fakes import (
    FakeDatabase,
    FakeStudio,
    FakeUnitOfWork,
    InlineWork,
    Records,
)

ANN, BOB = service.Actor("ws-ann", "user-ann"), service.Actor("ws-ann", "user-bob")
ZED = service.Actor("ws-zed", "user-zed")
UOW = FakeUnitOfWork()
CLIENT = str(uuid.UUID(int=7))


class Studio:
    """One store, the inline workers and a clock; the use cases as a workspace calls them."""

    def __init__(self) -> None:
        self.store, self.work, self.clock = FakeStudio(), InlineWork(), FakeClock()
        self.deps = service.StudioDeps(self.clock, self.work)

    async def create(self, source: str = TRIAGE, actor=ANN, title=None, kind="triage"):
        self.clock.advance(1)
        return await service.create(UOW, self.deps, actor, source, title, kind,
                                    store=self.store)

    async def update(self, rule_id: str, actor=ANN, if_match=None, **changes):
        self.clock.advance(1)
        return await service.update(UOW, self.deps, actor, rule_id, service.Changes(**changes),
                                    if_match, store=self.store)

    async def published(self, source: str = TRIAGE):
        rule, _ = await self.create(source)
        await self.update(rule.id, published_version=1)
        return rule

    async def four_eyes(self, on: bool = True) -> None:
        await approvals.set_four_eyes(UOW, self.deps, ANN, on, store=self.store)

    async def simulate(self, records: Records | None = None, actor=ANN, **request):
        return await service.simulate(FakeDatabase(), self.deps, records or Records(),
                                      actor.workspace_id, SimulateRequest(**request),
                                      store=self.store)

    async def execute(self, rule_id: str, inputs=None, record=None, records=None, actor=ANN):
        command = execution.ExecuteCommand(inputs, record, None)
        return await execution.execute(FakeDatabase(), self.deps, records or Records(), actor,
                                       rule_id, command, store=self.store)


@pytest.fixture
def studio() -> Studio:
    return Studio()


# Rules and versions


async def test_create_saves_a_draft_version_1_with_its_analysis(studio):
    rule, version = await studio.create(WARNED)
    assert (rule.name, rule.title, rule.status, rule.current_version) == (
        "triage.small", "Small triage", "draft", 1)
    assert rule.published_version is None and rule.created_by == ANN.user_id
    assert (version.number, version.author_id, version.tests_passed) == (1, ANN.user_id, True)
    assert [w["code"] for w in version.warnings] and len(version.tests) == 2


async def test_create_refuses_a_source_with_errors_and_saves_nothing(studio):
    with pytest.raises(RulesetInvalidError) as invalid:
        await studio.create(BROKEN)
    assert len([d for d in invalid.value.diagnostics if d.severity == "error"]) >= 2
    assert studio.store.rules == {}


async def test_a_source_whose_tests_fail_is_saved_as_a_draft_that_cannot_be_published(studio):
    rule, version = await studio.create(FAILING)
    assert version.tests_passed is False
    with pytest.raises(TestsFailingError, match="a big claim is referred"):
        await studio.update(rule.id, published_version=1)
    assert rule.published_version is None and studio.store.publications_ == []


async def test_the_name_is_the_workspaces_own(studio):
    await studio.create()
    with pytest.raises(RuleNameTakenError):
        await studio.create()
    rule, _ = await studio.create(actor=ZED)
    assert rule.workspace_id == ZED.workspace_id


async def test_another_workspaces_rule_is_not_found_by_any_use_case(studio):
    rule, _ = await studio.create()
    for attempt in (service.get(UOW, ZED.workspace_id, rule.id, store=studio.store),
                    service.versions(UOW, ZED.workspace_id, rule.id, store=studio.store),
                    service.history(UOW, ZED.workspace_id, rule.id, store=studio.store),
                    studio.update(rule.id, actor=ZED, title="mine"),
                    service.archive(UOW, studio.deps, ZED, rule.id, store=studio.store),
                    studio.execute(rule.id, actor=ZED),
                    studio.simulate(actor=ZED, rule_id=rule.id, cases=[{"inputs": {}}])):
        with pytest.raises(RuleNotFoundError):
            await attempt
    assert rule.title == "Small triage" and rule.status == "draft"


async def test_a_changed_source_is_a_new_version_and_an_unchanged_one_is_not(studio):
    rule, _ = await studio.create()
    same, first = await studio.update(rule.id, source=TRIAGE, title="Renamed")
    assert (first.number, same.title) == (1, "Renamed")
    _, second = await studio.update(rule.id, source=LOWERED)
    assert (rule.current_version, second.number, second.source) == (2, 2, LOWERED)
    got = await service.get(UOW, ANN.workspace_id, rule.id, 1, store=studio.store)
    assert got[1].source == TRIAGE
    with pytest.raises(VersionNotFoundError, match="versions 1 to 2"):
        await service.get(UOW, ANN.workspace_id, rule.id, 3, store=studio.store)


async def test_a_new_source_with_errors_saves_nothing(studio):
    rule, _ = await studio.create()
    with pytest.raises(RulesetInvalidError):
        await studio.update(rule.id, source=BROKEN, title="never")
    assert (rule.current_version, rule.title) == (1, "Small triage")
    assert len(await service.versions(UOW, ANN.workspace_id, rule.id, store=studio.store)) == 1


async def test_a_new_source_may_not_take_another_rules_name(studio):
    rule, _ = await studio.create()
    await studio.create(TRIAGE.replace("triage.small", "triage.large"))
    with pytest.raises(RuleNameTakenError):
        await studio.update(rule.id, source=LOWERED.replace("triage.small", "triage.large"))
    _, version = await studio.update(rule.id, source=LOWERED.replace("triage.small", "t.new"))
    assert rule.name == "t.new" and version.number == 2


async def test_if_match_must_name_the_current_version(studio):
    rule, _ = await studio.create()
    await studio.update(rule.id, if_match=1, source=LOWERED)
    with pytest.raises(StaleVersionError, match="Version 1 is no longer current"):
        await studio.update(rule.id, if_match=1, title="late")
    assert rule.title == "Small triage"


@pytest.mark.parametrize(("saving", "refusal"), [(True, StaleVersionError),
                                                 (False, RuleChangedError)])
async def test_a_change_racing_another_loses_its_compare_and_set(studio, saving, refusal):
    rule, _ = await studio.create()
    studio.store.race(rule.id, current_version=2)  # another request saved version 2
    with pytest.raises(refusal):
        if saving:
            await studio.update(rule.id, source=LOWERED)
        else:
            await studio.update(rule.id, title="late")
    assert rule.title == "Small triage" and (rule.id, 2) not in studio.store.versions_


async def test_the_list_pages_in_creation_order_and_refuses_a_foreign_cursor(studio):
    made = []
    for name in ("a.one", "b.two", "c.three"):
        made.append((await studio.create(TRIAGE.replace("triage.small", name)))[0].id)
    seen, cursor = [], None
    while True:
        page = await service.list_page(UOW, ANN.workspace_id, RuleFilters(), 2, cursor,
                                       store=studio.store)
        seen += [rule.id for rule in page.rules]
        if (cursor := page.next_cursor) is None:
            break
    assert seen == made
    with pytest.raises(InvalidCursorError):
        await service.list_page(UOW, ANN.workspace_id, RuleFilters(), 2, "not-ours",
                                store=studio.store)


async def test_archiving_twice_is_one_archive_and_an_archived_rule_cannot_change(studio):
    rule, _ = await studio.create()
    await service.archive(UOW, studio.deps, ANN, rule.id, store=studio.store)
    archived_at = rule.updated_at
    studio.clock.advance(60)
    await service.archive(UOW, studio.deps, BOB, rule.id, store=studio.store)
    assert (rule.status, rule.updated_at, rule.updated_by) == ("archived", archived_at,
                                                               ANN.user_id)
    with pytest.raises(RuleArchivedError):
        await studio.update(rule.id, title="again")
    assert len(await service.versions(UOW, ANN.workspace_id, rule.id, store=studio.store)) == 1


# Publishing


async def test_publishing_moves_the_pointer_and_records_each_move_once(studio):
    rule, _ = await studio.create()
    await studio.update(rule.id, source=LOWERED)
    await studio.update(rule.id, published_version=2)
    await studio.update(rule.id, published_version=2)  # unchanged: not recorded again
    await studio.update(rule.id, published_version=1)  # a roll back
    await studio.update(rule.id, status="draft")  # withdrawn
    await studio.update(rule.id, status="published")  # the current version
    history = await service.history(UOW, ANN.workspace_id, rule.id, store=studio.store)
    assert [(row.action, row.version) for row in history] == [
        ("published", 2), ("published", 1), ("unpublished", 1), ("published", 2)]
    assert (rule.status, rule.published_version) == ("published", 2)
    assert {row.actor_id for row in history} == {ANN.user_id}


async def test_publishing_refuses_a_missing_version_and_a_draft_with_a_version(studio):
    rule, _ = await studio.create()
    with pytest.raises(VersionNotFoundError):
        await studio.update(rule.id, published_version=5)
    with pytest.raises(PublishRequestError):
        await studio.update(rule.id, published_version=1, status="draft")
    assert rule.published_version is None and studio.store.publications_ == []


async def test_withdrawing_what_was_never_published_records_nothing(studio):
    rule, _ = await studio.create()
    await studio.update(rule.id, status="draft")
    assert rule.status == "draft" and studio.store.publications_ == []


# Four eyes


async def test_four_eyes_refuses_publishing_by_patch_but_not_withdrawing(studio):
    rule = await studio.published()
    await studio.four_eyes()
    assert await approvals.four_eyes(UOW, ANN.workspace_id, store=studio.store)
    with pytest.raises(ApprovalRequiredError):
        await studio.update(rule.id, published_version=1)
    await studio.update(rule.id, status="draft")
    assert rule.published_version is None


async def test_another_admins_approval_publishes_and_records_the_decision(studio):
    rule, _ = await studio.create()
    await studio.four_eyes()
    row = await approvals.request(UOW, studio.deps, ANN, rule.id, None, store=studio.store)
    with pytest.raises(ApprovalStateError, match="pending already"):
        await approvals.request(UOW, studio.deps, ANN, rule.id, 1, store=studio.store)
    approved = await approvals.approve(UOW, studio.deps, BOB, rule.id, row.id, "fine",
                                       store=studio.store)
    assert (approved.status, approved.decided_by, approved.comment) == ("approved",
                                                                        BOB.user_id, "fine")
    assert (rule.status, rule.published_version) == ("published", 1)
    with pytest.raises(ApprovalStateError, match="approved already"):
        await approvals.reject(UOW, studio.deps, BOB, rule.id, row.id, None, store=studio.store)


async def test_neither_the_author_nor_the_requester_may_approve(studio):
    rule, _ = await studio.create()  # written by Ann
    cy = service.Actor(ANN.workspace_id, "user-cy")
    for requester, approver in ((BOB, ANN), (BOB, BOB)):
        row = await approvals.request(UOW, studio.deps, requester, rule.id, 1,
                                      store=studio.store)
        with pytest.raises(SelfApprovalError):
            await approvals.approve(UOW, studio.deps, approver, rule.id, row.id, None,
                                    store=studio.store)
        await approvals.reject(UOW, studio.deps, cy, rule.id, row.id, None, store=studio.store)
    assert rule.published_version is None


async def test_approval_requests_refuse_failing_tests_and_archived_rules(studio):
    failing, _ = await studio.create(FAILING)
    with pytest.raises(TestsFailingError):
        await approvals.request(UOW, studio.deps, ANN, failing.id, 1, store=studio.store)
    rule, _ = await studio.create(TRIAGE.replace("triage.small", "t.two"))
    row = await approvals.request(UOW, studio.deps, ANN, rule.id, 1, store=studio.store)
    await service.archive(UOW, studio.deps, ANN, rule.id, store=studio.store)
    with pytest.raises(RuleArchivedError):
        await approvals.approve(UOW, studio.deps, BOB, rule.id, row.id, None,
                                store=studio.store)
    with pytest.raises(RuleArchivedError):
        await approvals.request(UOW, studio.deps, ANN, rule.id, 1, store=studio.store)


async def test_a_decision_racing_another_is_refused_naming_the_winner(studio):
    rule, _ = await studio.create()
    row = await approvals.request(UOW, studio.deps, ANN, rule.id, 1, store=studio.store)
    studio.store.approvals_[row.id] = type(row)(  # another request rejected it meanwhile
        id=row.id, rule_id=rule.id, version=1, status="rejected", requested_by=ANN.user_id,
        requested_at=row.requested_at)
    with pytest.raises(ApprovalDecidedError, match="rejected now"):
        await approvals._decide(UOW, row, "approved", BOB, studio.deps.now(), None,
                                store=studio.store)


# Case sets


def _cases(count: int, record: bool = False) -> list[SimulateCase]:
    if record:
        return [SimulateCase(id=f"c{i}", record={"type": "client", "uuid": CLIENT})
                for i in range(count)]
    return [SimulateCase(id=f"c{i}", inputs={"claim": {"amount": 100 * i}}) for i in range(count)]


async def test_a_case_set_moves_its_version_on_each_save_and_refuses_a_stale_one(studio):
    rule, _ = await studio.create()
    row = await case_sets.create(UOW, studio.deps, ANN, rule.id, "smoke", _cases(2),
                                 store=studio.store)
    assert (row.version, row.case_count, row.cases[0]) == (
        1, 2, {"id": "c0", "inputs": {"claim": {"amount": 0}}})
    changes = case_sets.CaseSetChanges(name="renamed", cases=_cases(3))
    await case_sets.update(UOW, studio.deps, ANN, rule.id, row.id, changes, 1,
                           store=studio.store)
    assert (row.version, row.name, row.case_count) == (2, "renamed", 3)
    with pytest.raises(StaleVersionError):
        await case_sets.update(UOW, studio.deps, ANN, rule.id, row.id, changes, 1,
                               store=studio.store)


async def test_case_sets_are_refused_past_their_bounds_or_when_names_repeat(studio):
    rule, _ = await studio.create()
    for cases in (_cases(5001), _cases(101, record=True)):
        with pytest.raises(CaseSetTooLargeError):
            await case_sets.create(UOW, studio.deps, ANN, rule.id, "big", cases,
                                   store=studio.store)
    huge = [SimulateCase(id=f"c{i}", inputs={"claim": {"note": "x" * 1000}})
            for i in range(2200)]
    with pytest.raises(CaseSetTooLargeError, match="KiB"):
        await case_sets.create(UOW, studio.deps, ANN, rule.id, "heavy", huge, store=studio.store)
    first = await case_sets.create(UOW, studio.deps, ANN, rule.id, "a", _cases(1),
                                   store=studio.store)
    with pytest.raises(CaseSetNameTakenError):
        await case_sets.create(UOW, studio.deps, ANN, rule.id, "a", _cases(1),
                               store=studio.store)
    second = await case_sets.create(UOW, studio.deps, ANN, rule.id, "b", _cases(1),
                                    store=studio.store)
    with pytest.raises(CaseSetNameTakenError):
        await case_sets.update(UOW, studio.deps, ANN, rule.id, second.id,
                               case_sets.CaseSetChanges(name="a"), None, store=studio.store)
    assert (first.name, second.name, second.version) == ("a", "b", 1)


async def test_a_rule_keeps_a_bounded_number_of_case_sets(studio):
    rule, _ = await studio.create()
    for index in range(MAX_CASE_SETS):
        await case_sets.create(UOW, studio.deps, ANN, rule.id, f"s{index}", _cases(1),
                               store=studio.store)
    with pytest.raises(CaseSetLimitError):
        await case_sets.create(UOW, studio.deps, ANN, rule.id, "one more", _cases(1),
                               store=studio.store)
    row = (await case_sets.list_for(UOW, ANN.workspace_id, rule.id, store=studio.store))[0]
    await case_sets.delete(UOW, ANN, rule.id, row.id, store=studio.store)
    await case_sets.create(UOW, studio.deps, ANN, rule.id, "one more", _cases(1),
                           store=studio.store)


async def test_another_workspaces_case_set_is_not_found(studio):
    rule, _ = await studio.create()
    row = await case_sets.create(UOW, studio.deps, ANN, rule.id, "smoke", _cases(1),
                                 store=studio.store)
    theirs, _ = await studio.create(actor=ZED)
    with pytest.raises(CaseSetNotFoundError):
        await case_sets.get(UOW, ZED.workspace_id, theirs.id, row.id, store=studio.store)
    with pytest.raises(CaseSetNotFoundError):
        await studio.simulate(actor=ZED, source=TRIAGE, case_set_id=row.id)


# Simulate


async def test_simulate_runs_a_saved_version_against_a_baseline_version(studio):
    rule, _ = await studio.create()
    await studio.update(rule.id, source=LOWERED)
    text = await studio.simulate(rule_id=rule.id, baseline={"version": 1},
                                 cases=[{"id": "mid", "inputs": {"claim": {"amount": 5000}}}])
    assert '"refer"' in text and '"accept"' in text  # version 2 refers what 1 accepted
    assert studio.work.asked == ["analyse", "analyse", "simulate"]


async def test_simulate_runs_a_case_sets_cases_in_place_of_the_requests(studio):
    rule, _ = await studio.create()
    row = await case_sets.create(UOW, studio.deps, ANN, rule.id, "smoke",
                                 [SimulateCase(id="saved-case", inputs={"claim": {"amount": 1}})],
                                 store=studio.store)
    assert "saved-case" in await studio.simulate(source=TRIAGE, case_set_id=row.id)


async def test_simulate_refuses_too_many_cases_before_reading_anything(studio):
    with pytest.raises(SimulationTooLargeError):
        await studio.simulate(source=TRIAGE, cases=[{"inputs": {}}] * 10_001)
    records = Records()
    with pytest.raises(SimulationTooLargeError):
        await studio.simulate(records, source=CLIENT_CHECK,
                              cases=[{"record": {"type": "client", "uuid": CLIENT}}] * 101)
    assert studio.work.asked == [] and records.read == []


async def test_simulate_reads_record_cases_once_the_ruleset_takes_their_type(studio):
    records = Records({("client", CLIENT): {"name": "Ann", "city": None}})
    case = {"id": "r", "record": {"type": "client", "uuid": CLIENT}}
    text = await studio.simulate(records, source=CLIENT_CHECK, cases=[case])
    assert '"refer"' in text and [ref.uuid for ref in records.read] == [uuid.UUID(CLIENT)]
    records.read.clear()
    policy = {"id": "p", "record": {"type": "policy", "uuid": CLIENT}}
    with pytest.raises(RecordNotApplicableError):
        await studio.simulate(records, source=CLIENT_CHECK, cases=[policy])
    assert records.read == []
    with pytest.raises(RecordMissingError):
        await studio.simulate(Records(), source=CLIENT_CHECK, cases=[case])


async def test_simulate_saves_and_logs_nothing(studio):
    await studio.simulate(source=TRIAGE, cases=[{"inputs": {"claim": {"amount": 1}}}])
    assert studio.store.rules == {} and studio.store.executions_ == []


# Execute


async def test_execute_runs_the_published_version_and_logs_it(studio):
    rule = await studio.published()
    await studio.update(rule.id, source=LOWERED)  # saved, not published
    row, result = await studio.execute(rule.id, {"claim": {"amount": 5000}})
    assert result.decision == "accept" and row.version == 1  # 1 accepts what 2 refers
    assert (row.decision, row.executed_by, row.error, row.record_uuid) == (
        "accept", ANN.user_id, None, None)
    assert row.input_digest == execution.input_digest({"claim": {"amount": 5000}})


async def test_execute_refuses_an_unpublished_or_archived_rule(studio):
    rule, _ = await studio.create()
    with pytest.raises(RuleNotPublishedError):
        await studio.execute(rule.id, {"claim": {"amount": 1}})
    await studio.update(rule.id, published_version=1)
    await service.archive(UOW, studio.deps, ANN, rule.id, store=studio.store)
    with pytest.raises(RuleArchivedError):
        await studio.execute(rule.id, {"claim": {"amount": 1}})
    assert studio.store.executions_ == []


async def test_an_evaluation_that_fails_is_logged_and_refused(studio):
    rule = await studio.published()
    with pytest.raises(EvaluationFailedError) as failed:
        await studio.execute(rule.id, {"claim": {"amount": "many"}})
    [row] = studio.store.executions_
    assert row.error == failed.value.engine_code and row.decision is None
    assert str(row.id) in str(failed.value)


async def test_execute_on_a_record_gives_it_to_the_rulesets_input(studio):
    rule = await studio.published(CLIENT_CHECK)
    ref = RecordRef("client", uuid.UUID(CLIENT))
    records = Records({("client", CLIENT): {"name": "Ann", "city": None}})
    row, result = await studio.execute(rule.id, record=ref, records=records)
    assert result.decision == "refer" and (row.record_type, row.record_uuid) == ("client",
                                                                                 CLIENT)
    records.read.clear()
    with pytest.raises(RecordNotApplicableError):
        await studio.execute(rule.id, record=RecordRef("policy", ref.uuid), records=records)
    assert records.read == []  # refused before the record is read


async def test_the_log_pages_newest_first_and_refuses_a_cursor_past_any_id(studio):
    rule = await studio.published()
    made = [(await studio.execute(rule.id, {"claim": {"amount": i}}))[0].id for i in range(3)]
    seen, cursor = [], None
    while True:
        page = await execution.execution_page(UOW, ANN.workspace_id, rule.id, 2, cursor,
                                              store=studio.store)
        seen += [row.id for row in page.rules]
        if (cursor := page.next_cursor) is None:
            break
    assert seen == made[::-1]
    for foreign in ("²", str(2**31), str(2**62), str(2**63), "9" * 300):
        with pytest.raises(InvalidCursorError):
            await execution.execution_page(UOW, ANN.workspace_id, rule.id, 2,
                                           service.encode_cursor(foreign), store=studio.store)


def test_the_log_filters_whole_utc_days():
    filters = execution.execution_filters("refer", True, datetime.date(2027, 1, 1),
                                          datetime.date(2027, 1, 2), uuid.UUID(CLIENT))
    assert filters.executed_from == datetime.datetime(2027, 1, 1, tzinfo=datetime.UTC)
    assert filters.executed_before == datetime.datetime(2027, 1, 3, tzinfo=datetime.UTC)
    assert (filters.decision, filters.failed, filters.record_uuid) == ("refer", True, CLIENT)
    assert execution.execution_filters(None, None, None, datetime.date.max,
                                       None).executed_before is None


# The routes' passes to the workers


async def test_check_complete_and_hover_save_nothing(studio):
    report = await service.check(studio.deps, ANN.workspace_id, BROKEN)
    assert report["diagnostics"] and studio.store.rules == {}
    await service.complete(studio.deps, ANN.workspace_id, TRIAGE, 6, 6, None)
    await service.hover(studio.deps, ANN.workspace_id, TRIAGE, 6, 6)
    assert studio.work.asked == ["check", "complete", "hover"]
