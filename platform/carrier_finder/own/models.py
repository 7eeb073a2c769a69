"""ORM models of a workspace's own carriers and products, added over the API (POST /carriers/,
/products/): the market's carrier and product columns (market/models.py), scoped to one
workspace, with who changed them. A product's appetite is a rule of the rule studio (kind
appetite) of the same workspace; its published version is what matching evaluates. Never
deleted: deactivated."""

from __future__ import annotations

import datetime

from sqlalchemy import ForeignKey, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.carrier_finder.market.models import CarrierColumns, ProductColumns
from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base


class Edited:
    """Who added and last changed an own entry, and when it was added."""

    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    updated_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class WorkspaceCarrier(CarrierColumns, Edited, Base):
    """A carrier a workspace is appointed with outside the market (directly: `access` direct)."""

    __tablename__ = "workspace_carriers"
    __table_args__ = (
        UniqueConstraint("workspace_id", "slug", name="uq_workspace_carriers_workspace_id_slug"),
    )

    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)


class WorkspaceProduct(ProductColumns, Edited, Base):
    """A product of a workspace carrier; `appetite_rule_id` names the studio rule (kind
    appetite) that decides its appetite."""

    __tablename__ = "workspace_products"
    __table_args__ = (
        UniqueConstraint("workspace_id", "slug", name="uq_workspace_products_workspace_id_slug"),
    )

    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    carrier_id: Mapped[int] = mapped_column(
        ForeignKey("workspace_carriers.id", ondelete="CASCADE"), index=True)
    appetite_rule_id: Mapped[str] = mapped_column(
        ForeignKey("rules.id", ondelete="CASCADE"), index=True)
