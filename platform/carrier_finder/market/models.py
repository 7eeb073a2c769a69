"""ORM models of the carrier market: carriers, products and the versioned appetites they point
at."""

from __future__ import annotations

import datetime
from decimal import Decimal

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Integer, Numeric, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base

# `workspace_id` null: the shared market every workspace sees; set: a workspace's own entries.


class MarketAppetite(Base):
    """One stored version of an appetite (a ruleset with `input business: Business`). A changed
    source is a new row with the next `version`; only the newest is `current`."""

    __tablename__ = "appetites"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    workspace_id: Mapped[str | None] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    path: Mapped[str] = mapped_column(String(300), index=True)  # carrier folder/file.rules
    name: Mapped[str] = mapped_column(String(200))  # the ruleset's name
    title: Mapped[str | None] = mapped_column(String(300))
    source: Mapped[str] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(64))
    version: Mapped[int] = mapped_column(Integer)
    current: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)


class MarketCarrier(Base):
    """An insurer; `slug` is its public id (its market folder's name)."""

    __tablename__ = "carriers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    workspace_id: Mapped[str | None] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    slug: Mapped[str] = mapped_column(String(100), index=True)
    name: Mapped[str] = mapped_column(String(200))
    naic_code: Mapped[str] = mapped_column(String(5))
    rating: Mapped[str] = mapped_column(String(4))
    market: Mapped[str] = mapped_column(String(16))  # admitted or surplus_lines
    states: Mapped[list] = mapped_column(JSON)
    website: Mapped[str | None] = mapped_column(String(2048))
    active: Mapped[bool] = mapped_column(Boolean)
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    # the manifest's profile (migration 0011; null on rows stored before it)
    carrier_type: Mapped[str | None] = mapped_column(String(24))
    access: Mapped[str | None] = mapped_column(String(16))  # direct, wholesaler or mga
    via: Mapped[str | None] = mapped_column(String(100))  # an intermediary's slug
    territories: Mapped[list | None] = mapped_column(JSON)  # [{name, states, underwriter, ...}]
    submission_email: Mapped[str | None] = mapped_column(String(254))
    submission_portal: Mapped[str | None] = mapped_column(String(2048))
    quote_url: Mapped[str | None] = mapped_column(String(2048))
    guide_effective: Mapped[datetime.date | None] = mapped_column(Date)
    guide_reviewed: Mapped[datetime.date | None] = mapped_column(Date)


class MarketIntermediary(Base):
    """A wholesaler or MGA of a market (its intermediaries.toml), through which agents reach
    some carriers; `slug` is the id a manifest's `via` names."""

    __tablename__ = "market_intermediaries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    workspace_id: Mapped[str | None] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    slug: Mapped[str] = mapped_column(String(100))
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))  # wholesaler or mga
    states: Mapped[list] = mapped_column(JSON)
    contact: Mapped[str] = mapped_column(String(200))
    email: Mapped[str] = mapped_column(String(254))
    phone: Mapped[str | None] = mapped_column(String(40))
    portal: Mapped[str | None] = mapped_column(String(2048))
    active: Mapped[bool] = mapped_column(Boolean)
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)


class MarketProduct(Base):
    """A carrier's product on one line; `slug` (`carrier/code`) is its public id."""

    __tablename__ = "products"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    workspace_id: Mapped[str | None] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    carrier_id: Mapped[int] = mapped_column(ForeignKey("carriers.id", ondelete="CASCADE"),
                                            index=True)
    appetite_id: Mapped[int] = mapped_column(ForeignKey("appetites.id"), index=True)
    slug: Mapped[str] = mapped_column(String(200), index=True)
    line: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text)
    states: Mapped[list] = mapped_column(JSON)
    minimum_premium: Mapped[Decimal] = mapped_column(Numeric(14, 2))
    max_limit: Mapped[Decimal] = mapped_column(Numeric(14, 2))
    max_aggregate: Mapped[Decimal | None] = mapped_column(Numeric(14, 2))
    admitted: Mapped[bool] = mapped_column(Boolean)
    active: Mapped[bool] = mapped_column(Boolean)
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    strength: Mapped[str | None] = mapped_column(String(16))  # preferred, standard, limited
    access: Mapped[str | None] = mapped_column(String(16))  # null: the carrier's
    via: Mapped[str | None] = mapped_column(String(100))
    quote_url: Mapped[str | None] = mapped_column(String(2048))
