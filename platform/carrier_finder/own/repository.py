"""Queries on a workspace's own carriers and products; each receives the session, none opens one."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.carrier_finder.own.models import WorkspaceCarrier, WorkspaceProduct


async def own_rows(session: AsyncSession, workspace_id: str
                   ) -> tuple[list[WorkspaceCarrier], list[WorkspaceProduct]]:
    """The workspace's carriers and products, by id (no products without a carrier)."""
    carriers = (await session.execute(
        select(WorkspaceCarrier).where(WorkspaceCarrier.workspace_id == workspace_id)
        .order_by(WorkspaceCarrier.slug))).scalars().all()
    if not carriers:
        return [], []
    products = (await session.execute(
        select(WorkspaceProduct).where(WorkspaceProduct.workspace_id == workspace_id)
        .order_by(WorkspaceProduct.slug))).scalars().all()
    return list(carriers), list(products)


async def carrier(session: AsyncSession, workspace_id: str, slug: str) -> WorkspaceCarrier | None:
    return (await session.execute(select(WorkspaceCarrier).where(
        WorkspaceCarrier.workspace_id == workspace_id, WorkspaceCarrier.slug == slug))
    ).scalar_one_or_none()


async def product(session: AsyncSession, workspace_id: str, slug: str) -> WorkspaceProduct | None:
    return (await session.execute(select(WorkspaceProduct).where(
        WorkspaceProduct.workspace_id == workspace_id, WorkspaceProduct.slug == slug))
    ).scalar_one_or_none()


async def carrier_of(session: AsyncSession, row: WorkspaceProduct) -> WorkspaceCarrier:
    return await session.get(WorkspaceCarrier, row.carrier_id)


async def add(session: AsyncSession, row: WorkspaceCarrier | WorkspaceProduct) -> bool:
    """Add the row; False when its id is taken (the unique constraint refused it)."""
    session.add(row)
    try:
        await session.flush()
    except IntegrityError:
        return False
    return True
