"""ORM models of a workspace's own carriers and products, added over the API (POST /carriers/,
/products/). A product's appetite is a rule of the rule studio (kind appetite) of the same
workspace; its published version is what matching evaluates. Never deleted: deactivated."""

from __future__ import annotations

import datetime
from decimal import Decimal

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, Numeric, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base


class WorkspaceCarrier(Base):
    """A carrier a workspace is appointed with outside the market; `slug` is its public id."""

    __tablename__ = "workspace_carriers"
    __table_args__ = (
        UniqueConstraint("workspace_id", "slug", name="uq_workspace_carriers_workspace_id_slug"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    slug: Mapped[str] = mapped_column(String(100))
    name: Mapped[str] = mapped_column(String(200))
    naic_code: Mapped[str | None] = mapped_column(String(5))
    rating: Mapped[str | None] = mapped_column(String(4))
    market: Mapped[str] = mapped_column(String(16))  # admitted or surplus_lines
    states: Mapped[list] = mapped_column(JSON)
    website: Mapped[str | None] = mapped_column(String(2048))
    submission_email: Mapped[str | None] = mapped_column(String(254))  # migration 0011
    submission_portal: Mapped[str | None] = mapped_column(String(2048))
    quote_url: Mapped[str | None] = mapped_column(String(2048))
    active: Mapped[bool] = mapped_column(Boolean)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    updated_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)


class WorkspaceProduct(Base):
    """A product of a workspace carrier on one line; `slug` (`carrier/code`) is its public id;
    `appetite_rule_id` names the studio rule (kind appetite) that decides its appetite."""

    __tablename__ = "workspace_products"
    __table_args__ = (
        UniqueConstraint("workspace_id", "slug", name="uq_workspace_products_workspace_id_slug"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    carrier_id: Mapped[int] = mapped_column(
        ForeignKey("workspace_carriers.id", ondelete="CASCADE"), index=True)
    appetite_rule_id: Mapped[str] = mapped_column(
        ForeignKey("rules.id", ondelete="CASCADE"), index=True)
    slug: Mapped[str] = mapped_column(String(200))
    line: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text)
    states: Mapped[list] = mapped_column(JSON)
    minimum_premium: Mapped[Decimal] = mapped_column(Numeric(14, 2))
    max_limit: Mapped[Decimal] = mapped_column(Numeric(14, 2))
    max_aggregate: Mapped[Decimal | None] = mapped_column(Numeric(14, 2))
    admitted: Mapped[bool] = mapped_column(Boolean)
    strength: Mapped[str | None] = mapped_column(String(16))  # migration 0011
    quote_url: Mapped[str | None] = mapped_column(String(2048))
    active: Mapped[bool] = mapped_column(Boolean)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    updated_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
