"""ORM models of rules at work: bindings and book runs (platform database, migration 0012)."""

from __future__ import annotations

import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Date,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base

RECORD_TYPES = ("client", "policy", "claim", "uw_submission")
RUN_STATUSES = ("queued", "running", "completed", "failed", "cancelled")
FINISHED = ("completed", "failed", "cancelled")
_RECORD_TYPES = f"record_type IN ({', '.join(repr(t) for t in RECORD_TYPES)})"


class RuleBinding(Base):
    """A rule's published version run on every record of `record_type` created and/or
    updated in the workspace's tenant database (when `condition` holds); paused bindings run
    nothing. The counters say what it did: records evaluated, effects written, errors."""

    __tablename__ = "rule_bindings"
    __table_args__ = (
        CheckConstraint(_RECORD_TYPES, name="record_type"),
        CheckConstraint("status IN ('active', 'paused')", name="status"),
    )

    id: Mapped[str] = mapped_column(String(26), primary_key=True)  # a ULID
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    rule_id: Mapped[str] = mapped_column(ForeignKey("rules.id", ondelete="CASCADE"), index=True)
    record_type: Mapped[str] = mapped_column(String(16))
    on_created: Mapped[bool] = mapped_column(Boolean)
    on_updated: Mapped[bool] = mapped_column(Boolean)
    condition: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    evaluated: Mapped[int] = mapped_column(Integer, server_default="0", default=0)
    effects: Mapped[int] = mapped_column(Integer, server_default="0", default=0)
    errors: Mapped[int] = mapped_column(Integer, server_default="0", default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    last_evaluated_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)

    @property
    def events(self) -> list[str]:
        return [name for name, on in (("created", self.on_created),
                                      ("updated", self.on_updated)) if on]


class RuleRun(Base):
    """A run of one version of a rule over the workspace's book of `record_type`: a dry run
    (summary, and the impact against `baseline_version`, the version published when it was
    asked for) or an apply run (effects written). `checkpoint` is the last record id done
    and `state` the summary's accumulators at that point (pickled), so a run resumes where it
    stopped; `elapsed_seconds` counts its processing time over every attempt."""

    __tablename__ = "rule_runs"
    __table_args__ = (
        CheckConstraint(_RECORD_TYPES, name="record_type"),
        CheckConstraint("mode IN ('dry_run', 'apply')", name="mode"),
        CheckConstraint(f"status IN ({', '.join(repr(s) for s in RUN_STATUSES)})",
                        name="status"),
    )

    id: Mapped[str] = mapped_column(String(26), primary_key=True)  # a ULID
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    rule_id: Mapped[str] = mapped_column(ForeignKey("rules.id", ondelete="CASCADE"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    baseline_version: Mapped[int | None] = mapped_column(Integer)
    record_type: Mapped[str] = mapped_column(String(16))
    condition: Mapped[str | None] = mapped_column(Text)
    mode: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    as_of: Mapped[datetime.date] = mapped_column(Date)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    started_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    finished_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    total: Mapped[int | None] = mapped_column(Integer)
    done: Mapped[int] = mapped_column(Integer, server_default="0", default=0)
    matched: Mapped[int] = mapped_column(Integer, server_default="0", default=0)
    errors: Mapped[int] = mapped_column(Integer, server_default="0", default=0)
    effects: Mapped[int] = mapped_column(Integer, server_default="0", default=0)
    elapsed_seconds: Mapped[float] = mapped_column(Float, server_default="0", default=0.0)
    checkpoint: Mapped[str | None] = mapped_column(String(64))
    state: Mapped[bytes | None] = mapped_column(LargeBinary)
    summary: Mapped[dict | None] = mapped_column(JSON)
    impact: Mapped[dict | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text)
    cancel_requested: Mapped[bool] = mapped_column(Boolean, server_default="false",
                                                   default=False)
