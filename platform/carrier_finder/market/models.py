"""ORM models of the carrier market: carriers, products and the versioned appetites they point
at. `CarrierColumns` and `ProductColumns` are what a carrier and a product are: the market's
tables and a workspace's own (own/models.py) derive their columns from them, each adding only
its scope and links."""

from __future__ import annotations

import datetime
from decimal import Decimal

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Integer, Numeric, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from insureops.carrier_matching.market import Access, Product
from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base

# `workspace_id` null: the shared market every workspace sees; set: a workspace's own entries.


class CarrierColumns:
    """A carrier's columns, market or own: `slug` is its public id, the profile fields (type,
    access, territories, where to submit, guide dates) are null where unknown."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    slug: Mapped[str] = mapped_column(String(100), index=True)
    name: Mapped[str] = mapped_column(String(200))
    naic_code: Mapped[str | None] = mapped_column(String(5))
    rating: Mapped[str | None] = mapped_column(String(4))
    market: Mapped[str] = mapped_column(String(16))  # admitted or surplus_lines
    states: Mapped[list] = mapped_column(JSON)
    website: Mapped[str | None] = mapped_column(String(2048))
    active: Mapped[bool] = mapped_column(Boolean)
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    carrier_type: Mapped[str | None] = mapped_column(String(24))
    access: Mapped[str | None] = mapped_column(String(16))  # direct, wholesaler or mga
    via: Mapped[str | None] = mapped_column(String(100))  # an intermediary's slug
    territories: Mapped[list | None] = mapped_column(JSON)  # [{name, states, underwriter, ...}]
    submission_email: Mapped[str | None] = mapped_column(String(254))
    submission_portal: Mapped[str | None] = mapped_column(String(2048))
    quote_url: Mapped[str | None] = mapped_column(String(2048))
    guide_effective: Mapped[datetime.date | None] = mapped_column(Date)
    guide_reviewed: Mapped[datetime.date | None] = mapped_column(Date)


class ProductColumns:
    """A product's columns, market or own: one line of one carrier; `slug` (`carrier/code`)
    is its public id; `access` null: the carrier's."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
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
    access: Mapped[str | None] = mapped_column(String(16))
    via: Mapped[str | None] = mapped_column(String(100))
    quote_url: Mapped[str | None] = mapped_column(String(2048))

    def core(self, carrier_id: str, appetite: str) -> Product:
        """The product as the core matches it, its appetite at path `appetite`."""
        return Product(self.slug, carrier_id, self.line, self.name, self.description,
                       frozenset(self.states), amount(self.minimum_premium),
                       amount(self.max_limit), amount(self.max_aggregate), self.admitted,
                       appetite, self.active, self.strength,
                       Access(self.access, self.via) if self.access else None, self.quote_url)


def amount(value: Decimal | None) -> Decimal | None:
    """A stored amount as the core reads it: whole amounts without the column's scale."""
    if value is None:
        return None
    value = Decimal(value)
    return Decimal(int(value)) if value == value.to_integral_value() else value


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


class MarketCarrier(CarrierColumns, Base):
    """An insurer of the market; `slug` is its market folder's name. A manifest names its NAIC
    code and rating, so here they are never null."""

    __tablename__ = "carriers"

    workspace_id: Mapped[str | None] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    naic_code: Mapped[str] = mapped_column(String(5))
    rating: Mapped[str] = mapped_column(String(4))


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


class MarketProduct(ProductColumns, Base):
    """A market carrier's product, its appetite a stored market appetite."""

    __tablename__ = "products"

    workspace_id: Mapped[str | None] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    carrier_id: Mapped[int] = mapped_column(ForeignKey("carriers.id", ondelete="CASCADE"),
                                            index=True)
    appetite_id: Mapped[int] = mapped_column(ForeignKey("appetites.id"), index=True)
