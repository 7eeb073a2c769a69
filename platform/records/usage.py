"""Usage counts reported by local MCP servers (for billing): the stored rows, recording, summary.

The tenant API records them (POST /api/v2/mcp/usage/) and the settings area summarises them
(GET /api/v2/settings/usage/); both reach them here because areas never import each other.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import CheckConstraint, ForeignKey, Integer, String, func, select
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base, UnitOfWork
from insureops.platform.http.timestamps import IsoDateTime


class UsageRecord(Base):
    """One reported count: a tool's calls in a period, from one API key (migration 0004)."""

    __tablename__ = "mcp_usage"
    __table_args__ = (CheckConstraint("count > 0", name="count_positive"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    key_id: Mapped[str] = mapped_column(String(26))
    tool: Mapped[str] = mapped_column(String(64))
    count: Mapped[int] = mapped_column(Integer)
    period_start: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    period_end: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    received_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)


@dataclass(frozen=True)
class UsageCount:
    tool: str
    count: int


@dataclass(frozen=True)
class UsageSummary:
    """Total calls per tool of a workspace, over the periods reported inside [start, end)."""

    counts: tuple[UsageCount, ...]
    total: int
    first_period_start: datetime.datetime | None
    last_period_end: datetime.datetime | None


async def record_usage(uow: UnitOfWork, *, workspace_id: str, key_id: str,
                       counts: Sequence[UsageCount], period_start: datetime.datetime,
                       period_end: datetime.datetime, now: datetime.datetime) -> int:
    """Store one report (one row per tool); returns how many calls it counted."""
    uow.session.add_all([
        UsageRecord(workspace_id=workspace_id, key_id=key_id, tool=item.tool, count=item.count,
                    period_start=period_start, period_end=period_end, received_at=now)
        for item in counts])
    return sum(item.count for item in counts)


async def summarise_usage(uow: UnitOfWork, workspace_id: str, *,
                          start: datetime.datetime | None = None,
                          end: datetime.datetime | None = None) -> UsageSummary:
    """Calls per tool (most used first) of the workspace's reports within the range."""
    conditions = [UsageRecord.workspace_id == workspace_id]
    if start is not None:
        conditions.append(UsageRecord.period_start >= start)
    if end is not None:
        conditions.append(UsageRecord.period_end <= end)
    rows = (await uow.session.execute(
        select(UsageRecord.tool, func.sum(UsageRecord.count)).where(*conditions)
        .group_by(UsageRecord.tool).order_by(func.sum(UsageRecord.count).desc(),
                                             UsageRecord.tool))).all()
    bounds = (await uow.session.execute(
        select(func.min(UsageRecord.period_start), func.max(UsageRecord.period_end))
        .where(*conditions))).one()
    counts = tuple(UsageCount(tool, int(total)) for tool, total in rows)
    return UsageSummary(counts, sum(item.count for item in counts), bounds[0], bounds[1])


class UsageQuery(BaseModel):
    """The range of the usage summary (reports whose periods lie inside it)."""

    model_config = ConfigDict(extra="forbid")

    start: IsoDateTime | None = Field(None, description="Periods starting at or after.")
    end: IsoDateTime | None = Field(None, description="Periods ending at or before.")


class ToolUsage(BaseModel):
    tool: str
    count: int


class UsageSummaryBody(BaseModel):
    """Tool calls of the workspace's local MCP servers, as they reported them (billing)."""

    tools: list[ToolUsage] = Field(description="Calls per tool, most used first.")
    total: int
    first_period_start: datetime.datetime | None
    last_period_end: datetime.datetime | None


async def usage_summary_body(uow: UnitOfWork, workspace_id: str,
                             query: UsageQuery) -> UsageSummaryBody:
    """The response of GET /api/v2/settings/usage/ for the workspace."""
    summary = await summarise_usage(uow, workspace_id, start=query.start, end=query.end)
    return UsageSummaryBody(tools=[ToolUsage(tool=c.tool, count=c.count) for c in summary.counts],
                            total=summary.total, first_period_start=summary.first_period_start,
                            last_period_end=summary.last_period_end)
