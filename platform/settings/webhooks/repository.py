"""Queries of the webhook settings; every function receives the session it works in and the
workspace, so no query reaches another workspace's endpoints or deliveries."""

from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.webhooks.models import WebhookDelivery, WebhookEndpoint


async def count_endpoints(session: AsyncSession, workspace_id: str) -> int:
    return (await session.execute(select(func.count()).select_from(WebhookEndpoint).where(
        WebhookEndpoint.workspace_id == workspace_id))).scalar_one()


async def endpoints(session: AsyncSession, workspace_id: str) -> list[WebhookEndpoint]:
    return list((await session.execute(
        select(WebhookEndpoint).where(WebhookEndpoint.workspace_id == workspace_id)
        .order_by(WebhookEndpoint.created_at, WebhookEndpoint.id))).scalars())


async def endpoint(session: AsyncSession, workspace_id: str, endpoint_id: str,
                   ) -> WebhookEndpoint | None:
    return (await session.execute(select(WebhookEndpoint).where(
        WebhookEndpoint.id == endpoint_id, WebhookEndpoint.workspace_id == workspace_id))
    ).scalar_one_or_none()


async def change_endpoint(session: AsyncSession, workspace_id: str, endpoint_id: str,
                          values: dict[str, object]) -> bool:
    result = await session.execute(
        update(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id,
                                      WebhookEndpoint.workspace_id == workspace_id)
        .values(**values).execution_options(synchronize_session=False))
    return result.rowcount == 1


async def deliveries(session: AsyncSession, workspace_id: str, endpoint_id: str,
                     status: str | None, after: str | None, limit: int) -> list[WebhookDelivery]:
    """The endpoint's deliveries, newest first, after the key `after`; one more than `limit`
    tells the caller there is a next page."""
    statement = select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id,
                                              WebhookDelivery.workspace_id == workspace_id)
    if status is not None:
        statement = statement.where(WebhookDelivery.status == status)
    if after is not None:
        statement = statement.where(WebhookDelivery.id < after)
    return list((await session.execute(
        statement.order_by(WebhookDelivery.id.desc()).limit(limit + 1))).scalars())


async def delivery(session: AsyncSession, workspace_id: str, endpoint_id: str,
                   delivery_id: str) -> WebhookDelivery | None:
    return (await session.execute(select(WebhookDelivery).where(
        WebhookDelivery.id == delivery_id, WebhookDelivery.endpoint_id == endpoint_id,
        WebhookDelivery.workspace_id == workspace_id))).scalar_one_or_none()
