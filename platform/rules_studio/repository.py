"""The rule studio's store: its port (`StudioRepository`, what the use cases may ask) and its
one implementation, this module's SQLAlchemy queries; every function receives the session it
works in. The fast tests give the use cases an in-memory fake of the port instead.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import and_, delete, exists, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.data.database import upsert
from insureops.platform.rules_studio.models import (
    Rule,
    RuleApproval,
    RuleCaseSet,
    RuleExecution,
    RulePublication,
    RuleVersion,
    StudioSettings,
)


@dataclass(frozen=True)
class RuleFilters:
    kind: str | None = None
    status: str | None = None
    name: str | None = None  # prefix
    text: str | None = None  # in name, title or current source, any case


class StudioRepository(Protocol):
    """What the studio's use cases (service, approvals, case_sets, execution) ask of their
    store; this module answers it. A unique violation on `add` or `move_case_set` is
    sqlalchemy's IntegrityError; every `move_*` and `decide_approval` is a compare-and-set."""

    async def add(self, session: AsyncSession, *rows: object) -> None: ...

    async def saved(self, session: AsyncSession) -> None: ...

    async def rules_page(self, session: AsyncSession, workspace_id: str, filters: RuleFilters,
                         limit: int, after: str | None) -> list[Rule]: ...

    async def rule(self, session: AsyncSession, workspace_id: str,
                   rule_id: str) -> Rule | None: ...

    async def move_rule(self, session: AsyncSession, rule: Rule, **values: object) -> bool: ...

    async def archive_rule(self, session: AsyncSession, rule: Rule,
                           **values: object) -> bool: ...

    async def rule_by_name(self, session: AsyncSession, workspace_id: str,
                           name: str) -> Rule | None: ...

    async def version(self, session: AsyncSession, rule_id: str,
                      number: int) -> RuleVersion | None: ...

    async def rule_with_version(self, session: AsyncSession, workspace_id: str, rule_id: str,
                                number: int | None = None, *, published: bool = False
                                ) -> tuple[Rule, RuleVersion | None] | None: ...

    async def versions(self, session: AsyncSession, rule_id: str) -> list[RuleVersion]: ...

    async def publications(self, session: AsyncSession,
                           rule_id: str) -> list[RulePublication]: ...

    async def settings(self, session: AsyncSession,
                       workspace_id: str) -> StudioSettings | None: ...

    async def put_settings(self, session: AsyncSession, workspace_id: str, four_eyes: bool,
                           updated_by: str, updated_at: datetime.datetime) -> StudioSettings: ...

    async def approvals(self, session: AsyncSession, rule_id: str) -> list[RuleApproval]: ...

    async def approval(self, session: AsyncSession, rule_id: str,
                       approval_id: str) -> RuleApproval | None: ...

    async def decide_approval(self, session: AsyncSession, row: RuleApproval, status: str,
                              decided_by: str, decided_at: datetime.datetime,
                              comment: str | None) -> bool: ...

    async def approval_status(self, session: AsyncSession, approval_id: str) -> str | None: ...

    async def pending_approval(self, session: AsyncSession, rule_id: str,
                               version: int) -> RuleApproval | None: ...

    async def executions(self, session: AsyncSession, rule_id: str, limit: int,
                         before: int | None,
                         filters: ExecutionFilters = ...) -> list[RuleExecution]: ...

    async def execution(self, session: AsyncSession, rule_id: str,
                        execution_id: int) -> RuleExecution | None: ...

    async def case_sets(self, session: AsyncSession, rule_id: str) -> list[RuleCaseSet]: ...

    async def case_set_count(self, session: AsyncSession, rule_id: str) -> int: ...

    async def case_set(self, session: AsyncSession, rule_id: str,
                       case_set_id: str) -> RuleCaseSet | None: ...

    async def workspace_case_set(self, session: AsyncSession, workspace_id: str,
                                 case_set_id: str) -> RuleCaseSet | None: ...

    async def move_case_set(self, session: AsyncSession, row: RuleCaseSet,
                            **values: object) -> bool: ...

    async def delete_case_set(self, session: AsyncSession, row: RuleCaseSet) -> None: ...


def _like(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def rules_page(session: AsyncSession, workspace_id: str, filters: RuleFilters,
                     limit: int, after: str | None) -> list[Rule]:
    """Up to `limit` rules of the workspace in id (creation) order, after the id `after`."""
    statement = select(Rule).where(Rule.workspace_id == workspace_id)
    if filters.kind is not None:
        statement = statement.where(Rule.kind == filters.kind)
    if filters.status is not None:
        statement = statement.where(Rule.status == filters.status)
    if filters.name:
        prefix = filters.name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        statement = statement.where(Rule.name.like(f"{prefix}%", escape="\\"))
    if filters.text:
        pattern = _like(filters.text)
        in_source = exists().where(RuleVersion.rule_id == Rule.id,
                                   RuleVersion.number == Rule.current_version,
                                   func.lower(RuleVersion.source).like(pattern, escape="\\"))
        statement = statement.where(or_(func.lower(Rule.name).like(pattern, escape="\\"),
                                        func.lower(Rule.title).like(pattern, escape="\\"),
                                        in_source))
    if after is not None:
        statement = statement.where(Rule.id > after)
    statement = statement.order_by(Rule.id).limit(limit)
    return list((await session.execute(statement)).scalars())


async def rule(session: AsyncSession, workspace_id: str, rule_id: str) -> Rule | None:
    """The workspace's rule (None for another workspace's)."""
    statement = select(Rule).where(Rule.id == rule_id, Rule.workspace_id == workspace_id)
    return (await session.execute(statement)).scalar_one_or_none()


def _in_state_read(rule: Rule) -> tuple:
    """The rule's row while its state (status, published and current version) is still the
    one `rule` was read in."""
    published = (Rule.published_version.is_(None) if rule.published_version is None
                 else Rule.published_version == rule.published_version)
    return (Rule.id == rule.id, Rule.status == rule.status, published,
            Rule.current_version == rule.current_version)


async def move_rule(session: AsyncSession, rule: Rule, **values: object) -> bool:
    """Compare-and-set: write `values` to the rule's row only while its state is still the one
    `rule` was read in; True when it was (`rule` then holds the values). Without `values` it
    writes the status the rule has: nothing changes, but the row is held to the commit.

    The UPDATE checks the state as it writes, so of two transactions changing one rule from
    the state both read, exactly one wins on both engines: SQLite ignores FOR UPDATE, but the
    second's UPDATE waits for the first's write lock; on PostgreSQL it waits for the first's
    row lock and then re-reads the row (READ COMMITTED). Either way it matches nothing.
    """
    statement = (update(Rule).where(*_in_state_read(rule))
                 .values(**(values or {"status": rule.status}))
                 .execution_options(synchronize_session="evaluate"))
    return (await session.execute(statement)).rowcount == 1


async def archive_rule(session: AsyncSession, rule: Rule, **values: object) -> bool:
    """Archive the rule unless it is archived, in one statement (a compare-and-set on "not
    archived": archiving is allowed from every other state); False when it was archived
    already, by another request or before."""
    statement = (update(Rule).where(Rule.id == rule.id, Rule.status != "archived")
                 .values(status="archived", **values)
                 .execution_options(synchronize_session="evaluate"))
    return (await session.execute(statement)).rowcount == 1


async def rule_by_name(session: AsyncSession, workspace_id: str, name: str) -> Rule | None:
    statement = select(Rule).where(Rule.workspace_id == workspace_id, Rule.name == name)
    return (await session.execute(statement)).scalar_one_or_none()


async def version(session: AsyncSession, rule_id: str, number: int) -> RuleVersion | None:
    return await session.get(RuleVersion, (rule_id, number))


async def rule_with_version(session: AsyncSession, workspace_id: str, rule_id: str,
                            number: int | None = None, *, published: bool = False
                            ) -> tuple[Rule, RuleVersion | None] | None:
    """The workspace's rule and one of its versions in one statement: version `number`, else
    the published one when `published`, else the current one (None when there is none);
    None for another workspace's rule."""
    wanted = (number if number is not None
              else Rule.published_version if published else Rule.current_version)
    statement = (select(Rule, RuleVersion)
                 .outerjoin(RuleVersion, and_(RuleVersion.rule_id == Rule.id,
                                              RuleVersion.number == wanted))
                 .where(Rule.id == rule_id, Rule.workspace_id == workspace_id))
    row = (await session.execute(statement)).one_or_none()
    return None if row is None else (row[0], row[1])


async def versions(session: AsyncSession, rule_id: str) -> list[RuleVersion]:
    statement = (select(RuleVersion).where(RuleVersion.rule_id == rule_id)
                 .order_by(RuleVersion.number))
    return list((await session.execute(statement)).scalars())


async def publications(session: AsyncSession, rule_id: str) -> list[RulePublication]:
    statement = (select(RulePublication).where(RulePublication.rule_id == rule_id)
                 .order_by(RulePublication.id))
    return list((await session.execute(statement)).scalars())


async def settings(session: AsyncSession, workspace_id: str) -> StudioSettings | None:
    return await session.get(StudioSettings, workspace_id)


async def put_settings(session: AsyncSession, workspace_id: str, four_eyes: bool,
                       updated_by: str, updated_at: datetime.datetime) -> StudioSettings:
    """Write the workspace's studio settings in one upsert (`db.upsert`: the first two PUTs of
    a workspace at once both inserted, one a 500)."""
    await upsert(session, StudioSettings, {"workspace_id": workspace_id}, {
        "four_eyes": four_eyes, "updated_by": updated_by, "updated_at": updated_at})
    return await session.get(StudioSettings, workspace_id, populate_existing=True)


async def approvals(session: AsyncSession, rule_id: str) -> list[RuleApproval]:
    statement = (select(RuleApproval).where(RuleApproval.rule_id == rule_id)
                 .order_by(RuleApproval.requested_at, RuleApproval.id))
    return list((await session.execute(statement)).scalars())


async def approval(session: AsyncSession, rule_id: str, approval_id: str) -> RuleApproval | None:
    statement = select(RuleApproval).where(RuleApproval.id == approval_id,
                                           RuleApproval.rule_id == rule_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def decide_approval(session: AsyncSession, row: RuleApproval, status: str,
                          decided_by: str, decided_at: datetime.datetime,
                          comment: str | None) -> bool:
    """pending -> `status` in one conditional UPDATE: True for the one caller that found the
    request still pending (its row then holds the decision); of two racing decisions the
    second's UPDATE matches nothing, on both engines (as `move_rule`)."""
    statement = (update(RuleApproval)
                 .where(RuleApproval.id == row.id, RuleApproval.status == "pending")
                 .values(status=status, decided_by=decided_by, decided_at=decided_at,
                         comment=comment)
                 .execution_options(synchronize_session="evaluate"))
    return (await session.execute(statement)).rowcount == 1


async def approval_status(session: AsyncSession, approval_id: str) -> str | None:
    """The request's status as stored now (not as the session read it before)."""
    statement = select(RuleApproval.status).where(RuleApproval.id == approval_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def pending_approval(session: AsyncSession, rule_id: str,
                           version: int) -> RuleApproval | None:
    statement = select(RuleApproval).where(RuleApproval.rule_id == rule_id,
                                           RuleApproval.version == version,
                                           RuleApproval.status == "pending")
    return (await session.execute(statement)).scalars().first()


@dataclass(frozen=True)
class ExecutionFilters:
    decision: str | None = None
    failed: bool | None = None  # True: evaluation failed; False: evaluated
    executed_from: datetime.datetime | None = None  # inclusive
    executed_before: datetime.datetime | None = None  # exclusive
    record_uuid: str | None = None


def _execution_filters(statement, filters: ExecutionFilters):
    if filters.decision is not None:
        statement = statement.where(RuleExecution.decision == filters.decision)
    if filters.failed is not None:
        statement = statement.where(RuleExecution.error.is_not(None) if filters.failed
                                    else RuleExecution.error.is_(None))
    if filters.executed_from is not None:
        statement = statement.where(RuleExecution.executed_at >= filters.executed_from)
    if filters.executed_before is not None:
        statement = statement.where(RuleExecution.executed_at < filters.executed_before)
    if filters.record_uuid is not None:
        statement = statement.where(RuleExecution.record_uuid == filters.record_uuid)
    return statement


async def executions(session: AsyncSession, rule_id: str, limit: int,
                     before: int | None,
                     filters: ExecutionFilters = ExecutionFilters()) -> list[RuleExecution]:
    """Up to `limit` executions of the rule matching `filters`, newest first, older than the
    id `before`."""
    statement = _execution_filters(
        select(RuleExecution).where(RuleExecution.rule_id == rule_id), filters)
    if before is not None:
        statement = statement.where(RuleExecution.id < before)
    statement = statement.order_by(RuleExecution.id.desc()).limit(limit)
    return list((await session.execute(statement)).scalars())


async def execution(session: AsyncSession, rule_id: str,
                    execution_id: int) -> RuleExecution | None:
    statement = select(RuleExecution).where(RuleExecution.id == execution_id,
                                            RuleExecution.rule_id == rule_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def add(session: AsyncSession, *rows: object) -> None:
    session.add_all(rows)
    await session.flush()


async def saved(session: AsyncSession) -> None:
    """Write the changes made to the rows the session read (a rule's title, kind, status)."""
    await session.flush()


async def case_sets(session: AsyncSession, rule_id: str) -> list[RuleCaseSet]:
    statement = (select(RuleCaseSet).where(RuleCaseSet.rule_id == rule_id)
                 .order_by(RuleCaseSet.name, RuleCaseSet.id))
    return list((await session.execute(statement)).scalars())


async def case_set_count(session: AsyncSession, rule_id: str) -> int:
    statement = select(func.count()).select_from(RuleCaseSet).where(
        RuleCaseSet.rule_id == rule_id)
    return (await session.execute(statement)).scalar_one()


async def case_set(session: AsyncSession, rule_id: str, case_set_id: str) -> RuleCaseSet | None:
    statement = select(RuleCaseSet).where(RuleCaseSet.id == case_set_id,
                                          RuleCaseSet.rule_id == rule_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def workspace_case_set(session: AsyncSession, workspace_id: str,
                             case_set_id: str) -> RuleCaseSet | None:
    """A case set of a rule of the workspace (None for another workspace's)."""
    statement = (select(RuleCaseSet).join(Rule, Rule.id == RuleCaseSet.rule_id)
                 .where(RuleCaseSet.id == case_set_id, Rule.workspace_id == workspace_id))
    return (await session.execute(statement)).scalar_one_or_none()


async def move_case_set(session: AsyncSession, row: RuleCaseSet, **values: object) -> bool:
    """Compare-and-set on the version `row` was read in (as `move_rule`): True when this
    write won (`row` then holds the values)."""
    statement = (update(RuleCaseSet)
                 .where(RuleCaseSet.id == row.id, RuleCaseSet.version == row.version)
                 .values(**values).execution_options(synchronize_session="evaluate"))
    return (await session.execute(statement)).rowcount == 1


async def delete_case_set(session: AsyncSession, row: RuleCaseSet) -> None:
    await session.execute(delete(RuleCaseSet).where(RuleCaseSet.id == row.id))
