"""Use cases of the rule studio: create, read, list, change and archive a workspace's rules.

No aiohttp here: each use case takes a unit of work, the studio's dependencies and its inputs,
and acts on the caller's workspace only (another workspace's rule is "not found"). Checking,
compiling and testing a source is a job of the rules workers (`StudioDeps.work`). Each use case
reaches the store through its port (`store`: the SQL repository by default, a fake in memory in
the fast tests; repository.py).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import exc as sa_exc
from ulid import ULID

from insureops.platform.data.database import Database, UnitOfWork
from insureops.platform.http import cursors
from insureops.platform.rules_studio import repository, simulation
from insureops.platform.rules_studio.checking import Analysis, content_hash
from insureops.platform.rules_studio.errors import (
    ApprovalRequiredError,
    CaseSetNotFoundError,
    InvalidCursorError,
    PublishRequestError,
    RuleArchivedError,
    RuleChangedError,
    RuleNameTakenError,
    RuleNotFoundError,
    StaleVersionError,
    TestsFailingError,
    VersionNotFoundError,
)
from insureops.platform.rules_studio.models import Rule, RulePublication, RuleVersion
from insureops.platform.rules_studio.payloads import SimulateCase
from insureops.platform.rules_studio.records import RecordReader, RecordRef
from insureops.platform.rules_studio.repository import StudioRepository

if TYPE_CHECKING:  # offload and execution import this module
    from insureops.platform.rules_studio.offload import StudioWork
    from insureops.platform.rules_studio.payloads import SimulateRequest

Store = StudioRepository


@dataclass(frozen=True)
class StudioDeps:
    """What the use cases need besides the unit of work; built per request from the app."""

    clock: Callable[[], float]
    work: StudioWork | None = None  # None: use cases that run no ruleset

    def now(self) -> datetime.datetime:
        return datetime.datetime.fromtimestamp(self.clock(), tz=datetime.UTC)

    def today(self) -> datetime.date:
        """The date embedded tests without `as of` run on (UTC)."""
        return self.now().date()


@dataclass(frozen=True)
class Actor:
    workspace_id: str
    user_id: str


@dataclass(frozen=True)
class Changes:
    """A PATCH: None leaves a field as it is."""

    source: str | None = None
    title: str | None = None
    kind: str | None = None
    published_version: int | None = None
    status: str | None = None  # draft (withdraw publication), published, archived


@dataclass(frozen=True)
class Page:
    rules: list[Rule]
    next_cursor: str | None


encode_cursor = cursors.encode_cursor


def decode_cursor(cursor: str) -> str:
    try:
        return cursors.decode_cursor(cursor)
    except cursors.CursorInvalidError:
        raise InvalidCursorError("The cursor is invalid.") from None


async def check(deps: StudioDeps, workspace_id: str, source: str) -> dict:
    """Every diagnostic and the outline of `source`, saving nothing (a rules worker's job)."""
    return await deps.work.check(workspace_id, source)


async def complete(deps: StudioDeps, workspace_id: str, source: str, line: int, column: int,
                   known_source: str | None) -> dict:
    """What may be typed at (line, column) of `source` (a rules worker's job)."""
    return await deps.work.complete(workspace_id, source, line, column, known_source)


async def hover(deps: StudioDeps, workspace_id: str, source: str, line: int,
                column: int) -> dict:
    """What the name at (line, column) of `source` is (a rules worker's job)."""
    return await deps.work.hover(workspace_id, source, line, column)


async def _analyse(deps: StudioDeps, workspace_id: str, source: str) -> Analysis:
    return await deps.work.analyse(workspace_id, source, deps.today())


def _version(rule_id: str, number: int, source: str, analysis: Analysis, actor: Actor,
             now: datetime.datetime) -> RuleVersion:
    return RuleVersion(rule_id=rule_id, number=number, source=source,
                       content_hash=content_hash(source), author_id=actor.user_id,
                       created_at=now, warnings=analysis.warnings, tests=analysis.tests,
                       tests_passed=analysis.tests_passed)


async def _flush_unique(uow: UnitOfWork, *rows: object, error: Exception,
                        store: Store = repository) -> None:
    """Add and flush `rows`; a unique violation (a concurrent writer won) raises `error`."""
    try:
        await store.add(uow.session, *rows)
    except sa_exc.IntegrityError:
        raise error from None


async def create(uow: UnitOfWork, deps: StudioDeps, actor: Actor, source: str,
                 title: str | None, kind: str,
                 *, store: Store = repository) -> tuple[Rule, RuleVersion]:
    """A new draft rule with version 1; RulesetInvalidError when the source has an error."""
    analysis = await _analyse(deps, actor.workspace_id, source)
    taken = RuleNameTakenError(f"A rule named {analysis.name} exists in this workspace; "
                               "change that rule instead, or rename the ruleset.")
    if await store.rule_by_name(uow.session, actor.workspace_id, analysis.name) is not None:
        raise taken
    now = deps.now()
    rule = Rule(id=str(ULID.from_timestamp(deps.clock())), workspace_id=actor.workspace_id,
                name=analysis.name, title=title or analysis.title or analysis.name, kind=kind,
                status="draft", current_version=1, published_version=None,
                created_by=actor.user_id, created_at=now, updated_by=actor.user_id,
                updated_at=now)
    await _flush_unique(uow, rule, error=taken, store=store)
    first = _version(rule.id, 1, source, analysis, actor, now)
    await store.add(uow.session, first)
    return rule, first


async def find(uow: UnitOfWork, workspace_id: str, rule_id: str,
               *, store: Store = repository) -> Rule:
    rule = await store.rule(uow.session, workspace_id, rule_id)
    if rule is None:
        raise RuleNotFoundError("No such rule in this workspace.")
    return rule


async def version_of(uow: UnitOfWork, rule: Rule, number: int | None,
                     *, store: Store = repository) -> RuleVersion:
    """Version `number` of `rule` (default: the current one)."""
    found = await store.version(uow.session, rule.id, number or rule.current_version)
    if found is None:
        raise VersionNotFoundError(f"Rule {rule.name} has no version {number}; it has "
                                   f"versions 1 to {rule.current_version}.")
    return found


async def get(uow: UnitOfWork, workspace_id: str, rule_id: str,
              number: int | None = None, *, store: Store = repository) -> tuple[Rule, RuleVersion]:
    """The rule and version `number` (default: the current one), read together."""
    found = await store.rule_with_version(uow.session, workspace_id, rule_id, number)
    if found is None:
        raise RuleNotFoundError("No such rule in this workspace.")
    rule, version = found
    if version is None:
        raise VersionNotFoundError(f"Rule {rule.name} has no version {number}; it has "
                                   f"versions 1 to {rule.current_version}.")
    return rule, version


async def versions(uow: UnitOfWork, workspace_id: str, rule_id: str,
                   *, store: Store = repository) -> list[RuleVersion]:
    rule = await find(uow, workspace_id, rule_id, store=store)
    return await store.versions(uow.session, rule.id)


async def list_page(uow: UnitOfWork, workspace_id: str, filters: repository.RuleFilters, limit: int,
                    cursor: str | None, *, store: Store = repository) -> Page:
    after = decode_cursor(cursor) if cursor else None
    rows = await store.rules_page(uow.session, workspace_id, filters, limit + 1, after)
    more = len(rows) > limit
    rows = rows[:limit]
    return Page(rows, encode_cursor(rows[-1].id) if more else None)


def check_current(rule: Rule, if_match: int | None) -> None:
    """Refuse a change based on a version that is no longer current (two authors editing)."""
    if if_match is not None and if_match != rule.current_version:
        raise StaleVersionError(
            f"Version {if_match} is no longer current: version {rule.current_version} was "
            "saved meanwhile. Read the rule again and reapply your change.")


async def update(uow: UnitOfWork, deps: StudioDeps, actor: Actor, rule_id: str,
                 changes: Changes, if_match: int | None,
                 *, store: Store = repository) -> tuple[Rule, RuleVersion]:
    """Apply `changes`; a source that differs from the current version's makes a new version.

    Everything is checked first; then the rule is claimed (`claim`: the state read is still
    the stored one), and only then written, so a change racing another one is 409."""
    rule = await find(uow, actor.workspace_id, rule_id, store=store)
    if rule.status == "archived":
        raise RuleArchivedError("The rule is archived; it can be read but not changed.")
    check_current(rule, if_match)
    if changes.status == "draft" and changes.published_version is not None:
        raise PublishRequestError("Give either published_version (publish) or status "
                                  "draft (withdraw publication), not both.")
    publishing = changes.status != "draft" and (changes.published_version is not None
                                                or changes.status == "published")
    if publishing:
        await _refuse_under_four_eyes(uow, rule, store=store)
    current = await version_of(uow, rule, None, store=store)
    analysis = await _new_analysis(uow, deps, rule, current, changes.source, store=store)
    now = deps.now()
    await claim(uow, rule, saving=analysis is not None, updated_by=actor.user_id,
                updated_at=now, store=store)
    if analysis is not None:
        current = await _save_version(uow, rule, changes.source, analysis, actor, now, store=store)
    if changes.title is not None:
        rule.title = changes.title
    if changes.kind is not None:
        rule.kind = changes.kind
    if changes.status == "archived":
        rule.status = "archived"
    elif changes.status == "draft":
        await _unpublish(uow, rule, actor, now, store=store)
    elif publishing:
        await publish(uow, rule, changes.published_version or rule.current_version, actor, now,
                      store=store)
    await store.saved(uow.session)
    return rule, current


async def _refuse_under_four_eyes(uow: UnitOfWork, rule: Rule,
                                  *, store: Store = repository) -> None:
    settings = await store.settings(uow.session, rule.workspace_id)
    if settings is not None and settings.four_eyes:
        raise ApprovalRequiredError(
            "This workspace requires four eyes: request approval with POST "
            f"/api/rules/rules/{rule.id}/approvals/; another admin approves it.")


async def _new_analysis(uow: UnitOfWork, deps: StudioDeps, rule: Rule, current: RuleVersion,
                        source: str | None, *, store: Store = repository) -> Analysis | None:
    """The analysis of `source` when it differs from the current version's (None when it does
    not), its ruleset name checked against the workspace's other rules."""
    if source is None or content_hash(source) == current.content_hash:
        return None
    analysis = await _analyse(deps, rule.workspace_id, source)
    if analysis.name != rule.name:
        other = await store.rule_by_name(uow.session, rule.workspace_id, analysis.name)
        if other is not None:
            raise RuleNameTakenError(f"A rule named {analysis.name} exists in this workspace.")
    return analysis


async def _save_version(uow: UnitOfWork, rule: Rule, source: str, analysis: Analysis,
                        actor: Actor, now: datetime.datetime,
                        *, store: Store = repository) -> RuleVersion:
    rule.name = analysis.name
    version = _version(rule.id, rule.current_version + 1, source, analysis, actor, now)
    await _flush_unique(uow, version, error=StaleVersionError(
        "Another change was saved at the same time; read the rule again."), store=store)
    rule.current_version = version.number
    return version


async def claim(uow: UnitOfWork, rule: Rule, *, saving: bool = False,
                store: Store = repository, **values: object) -> None:
    """Write `values` (none: hold the row) as a compare-and-set on the state `rule` was read
    in; lost to another request that changed it meanwhile: 409 `version_conflict` when this
    one saves a version (`saving`), else `conflict`. Every change of a rule starts with one,
    so its checks were made on the state it changes, on SQLite too (issue 28)."""
    if await store.move_rule(uow.session, rule, **values):
        return
    if saving:
        raise StaleVersionError("Another change was saved at the same time; read the rule "
                                "again and reapply your change.")
    raise RuleChangedError("The rule was changed by another request at the same time; read "
                           "it again.")


async def publish(uow: UnitOfWork, rule: Rule, number: int, actor: Actor,
                  now: datetime.datetime, *, store: Store = repository) -> None:
    """Point `published_version` at version `number` (an older one rolls back); a version
    whose embedded tests failed is refused. A compare-and-set on the state `rule` was read in
    (`claim`); recorded in the publication history when the pointer moved."""
    version = await version_of(uow, rule, number, store=store)
    if not version.tests_passed:
        failed = [t["description"] for t in version.tests if not t["passed"]]
        raise TestsFailingError(f"Version {number} cannot be published: its embedded tests "
                                f"failed ({'; '.join(failed)}). Fix them and save a new version.")
    unchanged = rule.published_version == number and rule.status == "published"
    await claim(uow, rule, published_version=number, status="published", store=store)
    if not unchanged:
        await store.add(uow.session, RulePublication(rule_id=rule.id, version=number,
                                                     action="published",
                                                     actor_id=actor.user_id, at=now))


async def _unpublish(uow: UnitOfWork, rule: Rule, actor: Actor, now: datetime.datetime,
                     *, store: Store = repository) -> None:
    withdrawn = rule.published_version
    await claim(uow, rule, published_version=None, status="draft", store=store)
    if withdrawn is not None:
        await store.add(uow.session, RulePublication(rule_id=rule.id, version=withdrawn,
                                                     action="unpublished",
                                                     actor_id=actor.user_id, at=now))


async def history(uow: UnitOfWork, workspace_id: str, rule_id: str,
                  *, store: Store = repository) -> list[RulePublication]:
    """Who published or withdrew which version when, oldest first."""
    rule = await find(uow, workspace_id, rule_id, store=store)
    return await store.publications(uow.session, rule.id)


async def archive(uow: UnitOfWork, deps: StudioDeps, actor: Actor, rule_id: str,
                  *, store: Store = repository) -> Rule:
    """Archive the rule (idempotent, also when another request archives it at the same time):
    its versions stay readable; it no longer executes."""
    rule = await find(uow, actor.workspace_id, rule_id, store=store)
    if rule.status != "archived":
        await store.archive_rule(uow.session, rule, updated_by=actor.user_id,
                                 updated_at=deps.now())
    return rule


async def simulation_sources(uow: UnitOfWork, workspace_id: str, source: str | None,
                             rule_id: str | None, number: int | None,
                             baseline_version: int | None,
                             baseline_source: str | None,
                             case_set_id: str | None = None, *, store: Store = repository
                             ) -> tuple[str, str | None, list[dict] | None]:
    """The source to simulate and the baseline's, reading saved versions of the workspace,
    and the cases of the workspace's case set `case_set_id` (None without one)."""
    if rule_id is not None:
        rule, version = await get(uow, workspace_id, rule_id, number, store=store)
        source = version.source
        if baseline_version is not None:
            baseline_source = (await version_of(uow, rule, baseline_version, store=store)).source
    cases = None
    if case_set_id is not None:
        found = await store.workspace_case_set(uow.session, workspace_id, case_set_id)
        if found is None:
            raise CaseSetNotFoundError("No such case set in this workspace.")
        cases = found.cases
    return source, baseline_source, cases


async def simulate(database: Database, deps: StudioDeps, records: RecordReader,
                   workspace_id: str, request: SimulateRequest,
                   *, store: Store = repository) -> str:
    """The simulation's JSON text of a request's cases on a source or a saved version (and a
    baseline), cases naming a tenant record read as execute reads them; 413 and 422 errors
    for a request past its bounds (simulation.py), run by the rules workers."""
    if request.cases is not None:
        simulation.check_size(len(request.cases))
    baseline = request.baseline
    source, baseline_source, saved = await database.read(lambda uow: simulation_sources(
        uow, workspace_id, request.source, request.rule_id, request.version,
        baseline and baseline.version, baseline and baseline.source, request.case_set_id,
            store=store))
    cases = request.cases if saved is None else [SimulateCase.model_validate(case)
                                                  for case in saved]
    job = simulation.SimulationInput(
        source=source, as_of=request.as_of or deps.today(), explain=request.explain,
        baseline_source=baseline_source,
        cases=[(case.id, case.inputs, case.as_of, case.expect) for case in cases])
    refs = [(index, RecordRef(case.record.type, case.record.uuid))
            for index, case in enumerate(cases) if case.record is not None]
    if refs:
        simulation.check_records(len(refs))
        for record_type in sorted({ref.type for _, ref in refs}):
            await deps.work.record_input(workspace_id, source, record_type)
        found = await records([ref for _, ref in refs])
        job = dataclasses.replace(job, records=tuple(
            (index, ref.type, record) for (index, ref), record in zip(refs, found, strict=True)))
    return await deps.work.simulate(workspace_id, job)
