"""Loading a checked market into the platform database: idempotent, versioned, never deleting."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from insureops.carrier_matching.market import (
    Appetite,
    Carrier,
    Intermediary,
    Market,
    Product,
)
from insureops.platform.carrier_finder.market import repository
from insureops.platform.carrier_finder.market.models import (
    MarketAppetite,
    MarketCarrier,
    MarketIntermediary,
    MarketProduct,
)

Row = TypeVar("Row", MarketCarrier, MarketProduct, MarketIntermediary)


@dataclass
class LoadSummary:
    """What one load changed, per kind (`carriers`, `products`, `appetites`): rows created,
    updated (a new version, for appetites), deactivated and left unchanged."""

    created: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    updated: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    deactivated: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    unchanged: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))

    @property
    def changed(self) -> bool:
        return any(sum(counts.values()) for counts in (self.created, self.updated,
                                                        self.deactivated))

    def render(self) -> str:
        parts = []
        for kind in KINDS:
            parts.append(f"{kind}: {self.created[kind]} new, {self.updated[kind]} changed, "
                         f"{self.deactivated[kind]} deactivated, {self.unchanged[kind]} unchanged")
        return "; ".join(parts)


KINDS = ("carriers", "products", "appetites", "intermediaries")


async def store_market(session: AsyncSession, market: Market, *, now: datetime.datetime,
                       workspace_id: str | None = None) -> LoadSummary:
    """Make the stored market of `workspace_id` (None: the shared market) match `market`: an
    unchanged file is a no-op, a changed appetite gets a new version, carriers and products no
    longer in the market are deactivated, never deleted."""
    summary = LoadSummary()
    await _store_intermediaries(session, market.intermediaries, now, workspace_id, summary)
    appetite_ids = await _store_appetites(session, market.appetites, now, workspace_id, summary)
    carrier_ids = await _store_carriers(session, market.carriers, now, workspace_id, summary)
    await _store_products(session, market.products, carrier_ids, appetite_ids, now,
                          workspace_id, summary)
    return summary


async def _store_appetites(session: AsyncSession, appetites: tuple[Appetite, ...],
                           now: datetime.datetime, workspace_id: str | None,
                           summary: LoadSummary) -> dict[str, int]:
    current = {row.path: row for row in await repository.current_appetites(session,
                                                                             workspace_id)}
    ids: dict[str, int] = {}
    for appetite in appetites:
        row = current.get(appetite.path)
        if row is not None and row.content_hash == appetite.content_hash:
            summary.unchanged["appetites"] += 1
            ids[appetite.path] = row.id
            continue
        version = 1
        if row is not None:
            row.current = False
            version = row.version + 1
            summary.updated["appetites"] += 1
        else:
            summary.created["appetites"] += 1
        new = MarketAppetite(workspace_id=workspace_id, path=appetite.path, name=appetite.name,
                             title=appetite.title, source=appetite.source,
                             content_hash=appetite.content_hash, version=version, current=True,
                             created_at=now)
        await repository.add(session, new)
        ids[appetite.path] = new.id
    return ids


def _carrier_values(carrier: Carrier) -> dict:
    profile = carrier.profile
    return {"name": carrier.name, "naic_code": carrier.naic_code, "rating": carrier.rating,
            "market": carrier.market, "states": sorted(carrier.states),
            "website": carrier.website, "active": carrier.active,
            "carrier_type": profile.type if profile else None,
            "access": profile.access.path if profile else None,
            "via": profile.access.via if profile else None,
            "territories": [{"name": t.name, "states": sorted(t.states),
                             "underwriter": t.underwriter, "email": t.email, "phone": t.phone}
                            for t in profile.territories] if profile else None,
            "submission_email": profile.submission_email if profile else None,
            "submission_portal": profile.submission_portal if profile else None,
            "quote_url": profile.quote_url if profile else None,
            "guide_effective": profile.guide_effective if profile else None,
            "guide_reviewed": profile.guide_reviewed if profile else None}


def _product_values(product: Product, carrier_id: int, appetite_id: int) -> dict:
    return {"carrier_id": carrier_id, "appetite_id": appetite_id, "line": product.line,
            "name": product.name, "description": product.description,
            "states": sorted(product.states), "minimum_premium": product.minimum_premium,
            "max_limit": product.max_limit, "max_aggregate": product.max_aggregate,
            "admitted": product.admitted, "active": product.active,
            "strength": product.strength,
            "access": product.access.path if product.access else None,
            "via": product.access.via if product.access else None,
            "quote_url": product.quote_url}


def _intermediary_values(intermediary: Intermediary) -> dict:
    return {"name": intermediary.name, "kind": intermediary.kind,
            "states": sorted(intermediary.states), "contact": intermediary.contact,
            "email": intermediary.email, "phone": intermediary.phone,
            "portal": intermediary.portal, "active": True}


async def _store_intermediaries(session: AsyncSession, intermediaries: tuple[Intermediary, ...],
                                now: datetime.datetime, workspace_id: str | None,
                                summary: LoadSummary) -> None:
    await _store_rows(session, "intermediaries", MarketIntermediary,
                      await repository.intermediaries(session, workspace_id),
                      ((i.id, _intermediary_values(i)) for i in intermediaries),
                      now, workspace_id, summary, flush=False)


def _differs(row, values: Mapping) -> bool:
    return any(_comparable(getattr(row, key)) != _comparable(value)
               for key, value in values.items())


def _comparable(value):
    # Numeric columns come back with the column's scale (1250.00); compare by value
    return value.normalize() if hasattr(value, "normalize") else value


async def _store_carriers(session: AsyncSession, carriers: tuple[Carrier, ...],
                          now: datetime.datetime, workspace_id: str | None,
                          summary: LoadSummary) -> dict[str, int]:
    rows = await _store_rows(session, "carriers", MarketCarrier,
                             await repository.carriers(session, workspace_id),
                             ((c.id, _carrier_values(c)) for c in carriers),
                             now, workspace_id, summary, flush=True)
    return {slug: row.id for slug, row in rows.items()}


async def _store_products(session: AsyncSession, products: tuple[Product, ...],
                          carrier_ids: dict[str, int], appetite_ids: dict[str, int],
                          now: datetime.datetime, workspace_id: str | None,
                          summary: LoadSummary) -> None:
    await _store_rows(session, "products", MarketProduct,
                      await repository.products(session, workspace_id),
                      ((p.id, _product_values(p, carrier_ids[p.carrier_id],
                                              appetite_ids[p.appetite])) for p in products),
                      now, workspace_id, summary, flush=False)
    await session.flush()


async def _store_rows(session: AsyncSession, kind: str, model: type[Row], stored: list[Row],
                      wanted: Iterable[tuple[str, dict]], now: datetime.datetime,
                      workspace_id: str | None, summary: LoadSummary, *,
                      flush: bool) -> dict[str, Row]:
    """Make the stored rows of `kind` match `wanted` ((slug, column values) pairs): a new slug
    is added (flushed with `flush`, so that its id is known), a changed row updated, a row no
    longer wanted deactivated; the wanted rows by slug."""
    by_slug = {row.slug: row for row in stored}
    rows: dict[str, Row] = {}
    for slug, values in wanted:
        row = by_slug.pop(slug, None)
        if row is None:
            row = model(workspace_id=workspace_id, slug=slug, updated_at=now, **values)
            await repository.add(session, row, flush=flush)
            summary.created[kind] += 1
        elif _differs(row, values):
            for key, value in values.items():
                setattr(row, key, value)
            row.updated_at = now
            summary.updated[kind] += 1
        else:
            summary.unchanged[kind] += 1
        rows[slug] = row
    for row in by_slug.values():
        if row.active:
            row.active, row.updated_at = False, now
            summary.deactivated[kind] += 1
    return rows
