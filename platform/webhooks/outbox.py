"""`publish`: record an event's deliveries in the transaction of the change that caused it.

The outbox pattern: the event and one pending delivery per subscribed, enabled endpoint of the
workspace are rows written with the caller's own session or connection, so they commit (or
roll back) with the change; the delivery job (delivery.py) sends them afterwards. Nothing is
sent here and nothing outside the transaction happens, so a rolled-back change never notifies
and a committed one always does (at least once: receivers dedupe on `webhook-id`).

`key` makes a publish idempotent (a relay that may publish again after a crash: the second
finds the key and writes nothing). `max_pending` bounds each endpoint's waiting deliveries: an
event beyond it is recorded for that endpoint as `failed`, error `queue_full` (docs/webhooks.md).
"""

from __future__ import annotations

import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm import Session
from ulid import ULID

from insureops.platform.webhooks.events import envelope
from insureops.platform.webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent

Payload = BaseModel | dict[str, Any]
DEFAULT_MAX_PENDING = 10_000  # the setting webhook_max_pending_per_endpoint's default
QUEUE_FULL = "queue_full"


def _subscribers(workspace_id: str):
    return select(WebhookEndpoint.id, WebhookEndpoint.event_types).where(
        WebhookEndpoint.workspace_id == workspace_id, WebhookEndpoint.enabled.is_(True))


def _rows(workspace_id: str, event_type: str, body: bytes, endpoints: list[str],
          full: set[str], now: datetime.datetime,
          key: str | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    event_id = str(ULID.from_timestamp(now.timestamp()))
    event = {"id": event_id, "workspace_id": workspace_id, "event_type": event_type,
             "body": body, "created_at": now, "dedupe_key": key}
    deliveries = []
    for endpoint_id in endpoints:
        row = {"id": str(ULID.from_timestamp(now.timestamp())), "workspace_id": workspace_id,
               "endpoint_id": endpoint_id, "event_id": event_id, "event_type": event_type,
               "status": "pending", "attempts": 0, "next_attempt_at": now, "created_at": now,
               "error": None}
        if endpoint_id in full:
            row.update(status="failed", next_attempt_at=None, error=QUEUE_FULL)
        deliveries.append(row)
    return event, deliveries


def _pending(endpoint_id: str, max_pending: int):
    """How many deliveries wait for the endpoint, counted up to `max_pending` at most."""
    waiting = (select(WebhookDelivery.id).where(WebhookDelivery.endpoint_id == endpoint_id,
                                                WebhookDelivery.status == "pending")
               .limit(max_pending).subquery())
    return select(func.count()).select_from(waiting)


def _event_insert(executor: Any, event: dict[str, Any]):
    if event["dedupe_key"] is None:
        return insert(WebhookEvent).values(event).returning(WebhookEvent.id)
    dialect = (executor.get_bind() if isinstance(executor, Session | AsyncSession)
               else executor).dialect.name
    statement = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(WebhookEvent)
    return (statement.values(event).on_conflict_do_nothing(index_elements=["dedupe_key"])
            .returning(WebhookEvent.id))


def _prepare(workspace_id: str, event_type: str, payload: Payload,
             now: datetime.datetime | None) -> tuple[bytes, datetime.datetime]:
    now = now or datetime.datetime.now(datetime.UTC)
    return envelope(event_type, payload, now), now


async def publish(executor: AsyncSession | AsyncConnection, workspace_id: str, event_type: str,
                  payload: Payload, *, now: datetime.datetime | None = None,
                  key: str | None = None, max_pending: int = DEFAULT_MAX_PENDING,
                  counts: dict[str, int] | None = None) -> str | None:
    """Record `event_type` with `payload` (the catalogue's model, or a dict of its shape) for
    every enabled endpoint of the workspace that takes it, in `executor`'s transaction. Answers
    the event id (the deliveries' `webhook-id`), or None when no endpoint takes it or an event
    with the same `key` was published already (nothing is written).

    `counts`: the endpoints' waiting deliveries as counted by an earlier publish in the same
    transaction (a relay publishing many events counts each endpoint once), kept up to date.

    Raises EventPayloadError (before writing anything) for an unknown type or a payload that
    is not its type's: a publisher's bug, which its tests should meet.
    """
    body, now = _prepare(workspace_id, event_type, payload, now)
    found = (await executor.execute(_subscribers(workspace_id))).all()
    endpoints = [row.id for row in found if event_type in row.event_types]
    if not endpoints:
        return None
    waiting = {} if counts is None else counts
    for endpoint_id in endpoints:
        if endpoint_id not in waiting:
            waiting[endpoint_id] = (await executor.execute(
                _pending(endpoint_id, max_pending))).scalar_one()
    full = {e for e in endpoints if waiting[e] >= max_pending}
    event, deliveries = _rows(workspace_id, event_type, body, endpoints, full, now, key)
    if (await executor.execute(_event_insert(executor, event))).first() is None:
        return None  # published before under this key
    await executor.execute(insert(WebhookDelivery), deliveries)
    for endpoint_id in set(endpoints) - full:
        waiting[endpoint_id] += 1
    return event["id"]


def publish_sync(executor: Session | Connection, workspace_id: str, event_type: str,
                 payload: Payload, *, now: datetime.datetime | None = None,
                 key: str | None = None,
                 max_pending: int = DEFAULT_MAX_PENDING) -> str | None:
    """`publish` for a synchronous SQLAlchemy session or connection (work running in a thread)."""
    body, now = _prepare(workspace_id, event_type, payload, now)
    found = executor.execute(_subscribers(workspace_id)).all()
    endpoints = [row.id for row in found if event_type in row.event_types]
    if not endpoints:
        return None
    full = {e for e in endpoints
            if executor.execute(_pending(e, max_pending)).scalar_one() >= max_pending}
    event, deliveries = _rows(workspace_id, event_type, body, endpoints, full, now, key)
    if executor.execute(_event_insert(executor, event)).first() is None:
        return None  # published before under this key
    executor.execute(insert(WebhookDelivery), deliveries)
    return event["id"]
