"""SQLAlchemy queries of the rule studio; every function receives the session it works in."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, exists, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.rules_studio.models import (
    Rule,
    RuleApproval,
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


async def rule(session: AsyncSession, workspace_id: str, rule_id: str, *,
               lock: bool = False) -> Rule | None:
    """The workspace's rule (None for another workspace's); `lock` locks its row (PostgreSQL)."""
    statement = select(Rule).where(Rule.id == rule_id, Rule.workspace_id == workspace_id)
    if lock:
        statement = statement.with_for_update()
    return (await session.execute(statement)).scalar_one_or_none()


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


async def approvals(session: AsyncSession, rule_id: str) -> list[RuleApproval]:
    statement = (select(RuleApproval).where(RuleApproval.rule_id == rule_id)
                 .order_by(RuleApproval.requested_at, RuleApproval.id))
    return list((await session.execute(statement)).scalars())


async def approval(session: AsyncSession, rule_id: str, approval_id: str) -> RuleApproval | None:
    statement = select(RuleApproval).where(RuleApproval.id == approval_id,
                                           RuleApproval.rule_id == rule_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def pending_approval(session: AsyncSession, rule_id: str,
                           version: int) -> RuleApproval | None:
    statement = select(RuleApproval).where(RuleApproval.rule_id == rule_id,
                                           RuleApproval.version == version,
                                           RuleApproval.status == "pending")
    return (await session.execute(statement)).scalars().first()


async def executions(session: AsyncSession, rule_id: str, limit: int,
                     before: int | None) -> list[RuleExecution]:
    """Up to `limit` executions of the rule, newest first, older than the id `before`."""
    statement = select(RuleExecution).where(RuleExecution.rule_id == rule_id)
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
