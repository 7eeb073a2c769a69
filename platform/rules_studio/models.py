"""ORM models of the rule studio: rules (rulesets of a workspace) and their immutable versions."""

from __future__ import annotations

import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Date,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base

KINDS = ("appetite", "triage", "underwriting", "pricing", "other")
STATUSES = ("draft", "published", "archived")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Rule(Base):
    """A ruleset owned by a workspace. `name` is the ruleset's own name (unique in the
    workspace); `current_version` is the latest saved version, `published_version` the one
    `execute` runs (None until a version is published)."""

    __tablename__ = "rules"
    __table_args__ = (
        UniqueConstraint("workspace_id", "name", name="uq_rules_workspace_id_name"),
        CheckConstraint(_one_of("kind", KINDS), name="kind"),
        CheckConstraint(_one_of("status", STATUSES), name="status"),
    )

    id: Mapped[str] = mapped_column(String(26), primary_key=True)  # a ULID
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    title: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    current_version: Mapped[int] = mapped_column(Integer)
    published_version: Mapped[int | None] = mapped_column(Integer)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    updated_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)


class RuleVersion(Base):
    """One saved source of a rule, never changed after it is written: the check's warnings
    and the embedded tests' outcomes are those of the save."""

    __tablename__ = "rule_versions"

    rule_id: Mapped[str] = mapped_column(ForeignKey("rules.id", ondelete="CASCADE"),
                                         primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    source: Mapped[str] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(64))
    author_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    warnings: Mapped[list] = mapped_column(JSON)
    tests: Mapped[list] = mapped_column(JSON)
    tests_passed: Mapped[bool] = mapped_column(Boolean)


class RulePublication(Base):
    """One move of a rule's published pointer (append-only): who published or withdrew which
    version when. Rolling back is publishing an older version."""

    __tablename__ = "rule_publications"
    __table_args__ = (
        CheckConstraint("action IN ('published', 'unpublished')", name="action"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    rule_id: Mapped[str] = mapped_column(ForeignKey("rules.id", ondelete="CASCADE"), index=True)
    version: Mapped[int | None] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(16))
    actor_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)


class StudioSettings(Base):
    """A workspace's rule studio settings: `four_eyes` requires an admin other than a version's
    author to approve it before it is published. No row: the defaults (four eyes off)."""

    __tablename__ = "rule_studio_settings"

    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), primary_key=True)
    four_eyes: Mapped[bool] = mapped_column(Boolean)
    updated_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)


class RuleApproval(Base):
    """A request to publish one version under four eyes, and its decision (each with who and
    when). Approving publishes the version."""

    __tablename__ = "rule_approvals"
    __table_args__ = (
        CheckConstraint("status IN ('pending', 'approved', 'rejected')", name="status"),
    )

    id: Mapped[str] = mapped_column(String(26), primary_key=True)  # a ULID
    rule_id: Mapped[str] = mapped_column(ForeignKey("rules.id", ondelete="CASCADE"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    requested_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    requested_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    decided_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    decided_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    comment: Mapped[str | None] = mapped_column(Text)


class RuleExecution(Base):
    """One execution of a rule's published version, appended and never changed: who ran it
    when, on which version, a digest of the inputs (not the inputs: they may be personal
    data), and what it decided. `score` is the exact decimal's text; `error` the engine's
    code when the evaluation failed."""

    __tablename__ = "rule_executions"
    __table_args__ = (  # the log's filters (issue 34; migration 0014): one index range each
        Index("ix_rule_executions_rule_id_decision", "rule_id", "decision", "id"),
        Index("ix_rule_executions_rule_id_record_uuid", "rule_id", "record_uuid", "id"),
        Index("ix_rule_executions_rule_id_executed_at", "rule_id", "executed_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    rule_id: Mapped[str] = mapped_column(ForeignKey("rules.id", ondelete="CASCADE"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    executed_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    executed_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    input_digest: Mapped[str] = mapped_column(String(64))
    record_type: Mapped[str | None] = mapped_column(String(16))
    record_uuid: Mapped[str | None] = mapped_column(String(36))
    as_of: Mapped[datetime.date] = mapped_column(Date)
    decision: Mapped[str | None] = mapped_column(String(64))
    score: Mapped[str | None] = mapped_column(String(64))
    fired: Mapped[list] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(String(64))
    duration_us: Mapped[int] = mapped_column(Integer)


class RuleCaseSet(Base):
    """A named list of simulation cases saved with a rule (the shape of simulate's `cases`),
    so simulate and compare run on the same cases again, on the page, in the API and as a
    rule's cases file (`insureops rules pull`). `version` counts its saves, from 1: a change
    names the version it was based on (If-Match), as a rule's source does."""

    __tablename__ = "rule_case_sets"
    __table_args__ = (
        UniqueConstraint("rule_id", "name", name="uq_rule_case_sets_rule_id_name"),
    )

    id: Mapped[str] = mapped_column(String(26), primary_key=True)  # a ULID
    rule_id: Mapped[str] = mapped_column(ForeignKey("rules.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    version: Mapped[int] = mapped_column(Integer)
    cases: Mapped[list] = mapped_column(JSON)
    case_count: Mapped[int] = mapped_column(Integer)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    updated_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
