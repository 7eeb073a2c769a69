"""Use cases of the webhook settings: register, list, change, delete, rotate the secret, read
the delivery log and redeliver. No aiohttp here.

A secret leaves the service twice only: in the answers to create and rotate. Each use case
reaches the store through its port (`store`: the SQL repository by default, a fake in memory
in the fast tests; repository.py).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from ulid import ULID

from insureops.platform.data.database import UnitOfWork
from insureops.platform.http import cursors
from insureops.platform.outbound.webhook_client import check_webhook_url
from insureops.platform.settings.service import SettingsDeps
from insureops.platform.settings.webhooks import repository
from insureops.platform.settings.webhooks.repository import WebhookSettingsRepository
from insureops.platform.webhooks.models import WebhookDelivery, WebhookEndpoint
from insureops.platform.webhooks.signing import (
    PREVIOUS_SECRET_SECONDS,
    WebhookSecretError,
    decrypt_secret,
    encrypt_secret,
    new_secret,
)

Store = WebhookSettingsRepository


class WebhookNotFoundError(Exception):
    """No such endpoint (or delivery of it) in the active workspace."""


class WebhookLimitReachedError(Exception):
    """The workspace has as many endpoints as the settings allow."""


class WebhookDisabledError(Exception):
    """A redelivery to an endpoint that is switched off."""


class DeliveryCursorInvalidError(Exception):
    """A delivery log cursor this listing did not issue."""


@dataclass(frozen=True)
class Created:
    row: WebhookEndpoint
    secret: str  # shown once


@dataclass(frozen=True)
class Page:
    rows: list[WebhookDelivery]
    next_cursor: str | None


def _id(now: datetime.datetime) -> str:
    return str(ULID.from_timestamp(now.timestamp()))


def _types(event_types: list[str]) -> list[str]:
    return sorted(set(event_types))


async def create(uow: UnitOfWork, deps: SettingsDeps, workspace_id: str, user_id: str,
                 url: str, event_types: list[str], description: str | None, *,
                 store: Store = repository) -> Created:
    """Register an endpoint (URL checked against the address policy) with a new secret. The
    workspace's row is held first, so two creations at once never pass the limit."""
    checked = await check_webhook_url(url, deps.settings)
    await store.hold_workspace(uow.session, workspace_id)
    if await store.count_endpoints(uow.session, workspace_id) >= deps.settings.webhooks_per_workspace:
        raise WebhookLimitReachedError(
            f"A workspace may register {deps.settings.webhooks_per_workspace} webhook endpoints; "
            "delete one first.")
    now, secret = deps.now(), new_secret()
    row = WebhookEndpoint(
        id=_id(now), workspace_id=workspace_id, url=checked, description=description,
        event_types=_types(event_types), secret_encrypted=encrypt_secret(deps.fernet, secret),
        enabled=True, consecutive_failures=0, created_by=user_id, created_at=now, updated_at=now)
    await store.add(uow.session, row)
    return Created(row, secret)


async def list_endpoints(uow: UnitOfWork, workspace_id: str, *,
                         store: Store = repository) -> list[WebhookEndpoint]:
    return await store.endpoints(uow.session, workspace_id)


async def get(uow: UnitOfWork, workspace_id: str, endpoint_id: str, *,
              store: Store = repository, fresh: bool = False) -> WebhookEndpoint:
    row = await store.endpoint(uow.session, workspace_id, endpoint_id, fresh=fresh)
    if row is None:
        raise WebhookNotFoundError("No such webhook in this workspace.")
    return row


async def update(uow: UnitOfWork, deps: SettingsDeps, workspace_id: str, endpoint_id: str,
                 changes: dict[str, object], *, store: Store = repository) -> WebhookEndpoint:
    """Change the fields given. Switching on forgets the failures (a fresh start); switching
    off is `disabled_reason: manual`."""
    now = deps.now()
    values: dict[str, object] = {"updated_at": now}
    if changes.get("url") is not None:
        values["url"] = await check_webhook_url(str(changes["url"]), deps.settings)
    if changes.get("event_types") is not None:
        values["event_types"] = _types(changes["event_types"])  # type: ignore[arg-type]
    if "description" in changes:
        values["description"] = changes["description"]
    if changes.get("enabled") is True:
        values.update(enabled=True, disabled_reason=None, disabled_at=None,
                      consecutive_failures=0, failing_since=None)
    elif changes.get("enabled") is False:
        current = await get(uow, workspace_id, endpoint_id, store=store)
        if current.enabled:
            values.update(enabled=False, disabled_reason="manual", disabled_at=now)
    if not await store.change_endpoint(uow.session, workspace_id, endpoint_id, values):
        raise WebhookNotFoundError("No such webhook in this workspace.")
    return await get(uow, workspace_id, endpoint_id, store=store, fresh=True)


async def delete(uow: UnitOfWork, workspace_id: str, endpoint_id: str, *,
                 store: Store = repository) -> None:
    """Delete the endpoint and its delivery log; pending deliveries are never sent."""
    row = await get(uow, workspace_id, endpoint_id, store=store)
    await store.delete_endpoint(uow.session, row)


async def rotate_secret(uow: UnitOfWork, deps: SettingsDeps, workspace_id: str,
                        endpoint_id: str, *,
                        store: Store = repository) -> tuple[str, datetime.datetime | None]:
    """A new secret; the current one becomes the previous one, still signing deliveries for
    PREVIOUS_SECRET_SECONDS (a second rotation within them drops the oldest)."""
    row = await get(uow, workspace_id, endpoint_id, store=store)
    now, secret = deps.now(), new_secret()
    expires = now + datetime.timedelta(seconds=PREVIOUS_SECRET_SECONDS)
    try:  # a secret no configured key decrypts any more cannot sign: it is dropped
        decrypt_secret(deps.fernet, row.secret_encrypted)
        previous: str | None = row.secret_encrypted
    except WebhookSecretError:
        previous = None
    await store.change_endpoint(uow.session, workspace_id, endpoint_id, {
        "secret_encrypted": encrypt_secret(deps.fernet, secret),
        "previous_secret_encrypted": previous,
        "previous_secret_expires_at": expires if previous else None, "updated_at": now})
    return secret, expires if previous else None


async def deliveries(uow: UnitOfWork, workspace_id: str, endpoint_id: str, status: str | None,
                     cursor: str | None, limit: int, *, store: Store = repository) -> Page:
    await get(uow, workspace_id, endpoint_id, store=store)
    try:
        after = cursors.decode_cursor(cursor, status=status or "") if cursor else None
    except cursors.CursorInvalidError:
        raise DeliveryCursorInvalidError("The cursor is invalid.") from None
    rows = await store.deliveries(uow.session, workspace_id, endpoint_id, status, after, limit)
    more = len(rows) > limit
    rows = rows[:limit]
    next_cursor = cursors.encode_cursor(rows[-1].id, status=status or "") if more else None
    return Page(rows, next_cursor)


async def redeliver(uow: UnitOfWork, deps: SettingsDeps, workspace_id: str, endpoint_id: str,
                    delivery_id: str, *, store: Store = repository) -> WebhookDelivery:
    """A new delivery of the same event (same `webhook-id`) to the endpoint, due now."""
    endpoint = await get(uow, workspace_id, endpoint_id, store=store)
    original = await store.delivery(uow.session, workspace_id, endpoint_id, delivery_id)
    if original is None:
        raise WebhookNotFoundError("No such delivery of this webhook.")
    if not endpoint.enabled:
        raise WebhookDisabledError("The webhook is switched off; switch it on first.")
    now = deps.now()
    row = WebhookDelivery(id=_id(now), workspace_id=workspace_id, endpoint_id=endpoint_id,
                          event_id=original.event_id, event_type=original.event_type,
                          status="pending", attempts=0, next_attempt_at=now, created_at=now)
    await store.add(uow.session, row)
    return row
