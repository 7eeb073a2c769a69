"""Queries on the stored market (carriers, products, appetites); each receives the session.

A row with no `workspace_id` belongs to the shared market, one with it to that workspace's own
loaded market (`insureops market load --workspace`): `visible` is what a workspace sees, `scoped`
what one load replaces.
"""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.carrier_finder.market.models import (
    MarketAppetite,
    MarketCarrier,
    MarketIntermediary,
    MarketProduct,
)


def visible(column, workspace_id: str | None):
    """The shared market and, with `workspace_id`, the workspace's own entries."""
    if workspace_id is None:
        return column.is_(None)
    return or_(column.is_(None), column == workspace_id)


def scoped(column, workspace_id: str | None):
    """Exactly the entries of `workspace_id` (None: the shared market's)."""
    return column.is_(None) if workspace_id is None else column == workspace_id


async def visible_intermediaries(session: AsyncSession,
                                 workspace_id: str | None) -> list[MarketIntermediary]:
    """The active wholesalers and MGAs `workspace_id` sees (its own hide the shared ones of
    the same slug)."""
    rows = (await session.execute(
        select(MarketIntermediary).where(visible(MarketIntermediary.workspace_id, workspace_id),
                                         MarketIntermediary.active.is_(True))
        .order_by(MarketIntermediary.slug))).scalars().all()
    return list(rows)


async def visible_rows(session: AsyncSession, workspace_id: str | None) -> tuple[
        list[MarketAppetite], list[MarketCarrier], list[MarketProduct]]:
    """The current appetites, the carriers and the products `workspace_id` sees."""
    appetites = (await session.execute(
        select(MarketAppetite).where(visible(MarketAppetite.workspace_id, workspace_id),
                                     MarketAppetite.current.is_(True))
        .order_by(MarketAppetite.path))).scalars().all()
    carriers = (await session.execute(
        select(MarketCarrier).where(visible(MarketCarrier.workspace_id, workspace_id))
        .order_by(MarketCarrier.slug))).scalars().all()
    products = (await session.execute(
        select(MarketProduct).where(visible(MarketProduct.workspace_id, workspace_id))
        .order_by(MarketProduct.slug))).scalars().all()
    return list(appetites), list(carriers), list(products)


async def fingerprint(session: AsyncSession, workspace_id: str | None) -> tuple:
    """Row counts and last changes of what `workspace_id` sees: equal while nothing changed."""
    parts = []
    for model, changed in ((MarketCarrier, MarketCarrier.updated_at),
                           (MarketProduct, MarketProduct.updated_at),
                           (MarketAppetite, MarketAppetite.id),
                           (MarketIntermediary, MarketIntermediary.updated_at)):
        where = visible(model.workspace_id, workspace_id)
        parts.append(select(func.count()).select_from(model).where(where).scalar_subquery())
        parts.append(select(func.max(changed)).where(where).scalar_subquery())
    row = (await session.execute(select(*parts))).one()
    return tuple(row)


async def is_empty(session: AsyncSession) -> bool:
    """No carrier is stored at all (a fresh database)."""
    count = (await session.execute(select(func.count()).select_from(MarketCarrier))).scalar_one()
    return count == 0


async def current_appetites(session: AsyncSession,
                            workspace_id: str | None) -> list[MarketAppetite]:
    return list((await session.execute(select(MarketAppetite).where(
        scoped(MarketAppetite.workspace_id, workspace_id),
        MarketAppetite.current.is_(True)))).scalars())


async def carriers(session: AsyncSession, workspace_id: str | None) -> list[MarketCarrier]:
    return list((await session.execute(select(MarketCarrier).where(
        scoped(MarketCarrier.workspace_id, workspace_id)))).scalars())


async def products(session: AsyncSession, workspace_id: str | None) -> list[MarketProduct]:
    return list((await session.execute(select(MarketProduct).where(
        scoped(MarketProduct.workspace_id, workspace_id)))).scalars())


async def intermediaries(session: AsyncSession,
                         workspace_id: str | None) -> list[MarketIntermediary]:
    return list((await session.execute(select(MarketIntermediary).where(
        scoped(MarketIntermediary.workspace_id, workspace_id)))).scalars())


async def add(session: AsyncSession,
              row: MarketAppetite | MarketCarrier | MarketProduct | MarketIntermediary,
              *, flush: bool = True) -> None:
    """Add the row (flushed by default, so that its id is known)."""
    session.add(row)
    if flush:
        await session.flush()
