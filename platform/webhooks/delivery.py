"""The delivery job: attempt due deliveries, record each outcome, schedule retries, switch off
endpoints failing for long.

`attempt_delivery(deps, delivery_id)` is one attempt of one delivery; `deliver_due(deps)` runs
the attempts that are due (the periodic job the job engine runs, and what a worker on the
embedded default runs in the serve process). An attempt takes a lease on its row with one
conditional UPDATE and commits before it connects out, so two workers never send the same
delivery at once and no transaction stays open during the request; its outcome is written only
while the lease is still its own.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web
from cryptography.fernet import MultiFernet
from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.config import Settings
from insureops.platform.data.database import Database
from insureops.platform.keys import CLOCK, DATABASE, SECRET_KEYS, SETTINGS
from insureops.platform.outbound.webhook_client import PostResult, WebhookClient
from insureops.platform.webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from insureops.platform.webhooks.schedule import DISABLE, SCHEDULE, DisablePolicy, RetrySchedule
from insureops.platform.webhooks.signing import (
    WebhookSecretError,
    decrypt_secret,
    signed_headers,
)

logger = logging.getLogger("insureops.platform.webhooks")

LEASE_MARGIN_SECONDS = 30.0  # beyond the attempt's own timeout
BATCH = 100  # deliveries one deliver_due call attempts at most
PER_ENDPOINT = 5  # of which at most this many to one endpoint (a slow one holds no batch)
CONCURRENCY = 10  # attempts in flight at once per deliver_due call
RETENTION = datetime.timedelta(days=30)  # finished deliveries listed this long, then purged


@dataclass(frozen=True)
class WebhookDeps:
    """What the delivery job needs: the platform database, the Fernet keys (the secrets), the
    settings (address policy, timeout, response cap), the clock (Unix seconds; tests move it)
    and the random draw of the backoff's jitter."""

    database: Database
    fernet: MultiFernet
    settings: Settings
    clock: Callable[[], float]
    draw: Callable[[], float] = field(default=random.random)
    schedule: RetrySchedule = SCHEDULE
    disable: DisablePolicy = DISABLE

    def now(self) -> datetime.datetime:
        return datetime.datetime.fromtimestamp(self.clock(), tz=datetime.UTC)

    @classmethod
    def of_app(cls, app: web.Application, **options: object) -> WebhookDeps:
        """The deps of the service `app` (its database, keys, settings and clock)."""
        return cls(app[DATABASE], app[SECRET_KEYS].fernet, app[SETTINGS], app[CLOCK],
                   **options)  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Claimed:
    lease: datetime.datetime
    url: str
    message_id: str
    body: bytes
    secrets: tuple[str, ...]


def _due(now: datetime.datetime):
    return and_(WebhookDelivery.status == "pending", WebhookDelivery.next_attempt_at <= now,
                or_(WebhookDelivery.lease_until.is_(None), WebhookDelivery.lease_until <= now))


async def _claim(deps: WebhookDeps, delivery_id: str) -> _Claimed | None:
    now = deps.now()
    lease = now + datetime.timedelta(
        seconds=deps.settings.webhook_timeout_seconds + LEASE_MARGIN_SECONDS)
    async with deps.database.unit_of_work() as uow:
        taken = await uow.session.execute(
            update(WebhookDelivery).where(WebhookDelivery.id == delivery_id, _due(now))
            .values(lease_until=lease).execution_options(synchronize_session=False))
        if taken.rowcount != 1:
            return None  # not due, finished, or another worker holds it
        endpoint, body, message_id = (await uow.session.execute(
            select(WebhookEndpoint, WebhookEvent.body, WebhookEvent.id)
            .join(WebhookDelivery, WebhookDelivery.endpoint_id == WebhookEndpoint.id)
            .join(WebhookEvent, WebhookEvent.id == WebhookDelivery.event_id)
            .where(WebhookDelivery.id == delivery_id))).one()
        try:
            signing = _signing_secrets(deps, endpoint, now) if endpoint.enabled else None
        except WebhookSecretError:
            logger.error("webhook endpoint %s: its secret cannot be decrypted with the "
                         "configured Fernet keys (one was removed too early)", endpoint.id)
            signing = None
        if signing is None:  # nothing will be sent: the delivery ends here
            await uow.session.execute(
                update(WebhookDelivery).where(WebhookDelivery.id == delivery_id)
                .values(status="failed", next_attempt_at=None, lease_until=None,
                        error="endpoint_disabled" if not endpoint.enabled
                        else "secret_unreadable"))
            return None
    return _Claimed(lease, endpoint.url, message_id, body, signing)


def _signing_secrets(deps: WebhookDeps, endpoint: WebhookEndpoint,
                     now: datetime.datetime) -> tuple[str, ...]:
    """The endpoint's secret, and its previous one until that expires."""
    signing = [decrypt_secret(deps.fernet, endpoint.secret_encrypted)]
    if (endpoint.previous_secret_encrypted is not None
            and endpoint.previous_secret_expires_at is not None
            and endpoint.previous_secret_expires_at > now):
        signing.append(decrypt_secret(deps.fernet, endpoint.previous_secret_encrypted))
    return tuple(signing)


async def _record(deps: WebhookDeps, delivery_id: str, claimed: _Claimed,
                  result: PostResult) -> str:
    """Write the attempt's outcome while the lease is ours; answers the delivery's status
    ("lost" when the lease ran out and another worker took the delivery over)."""
    now = deps.now()
    ours = and_(WebhookDelivery.id == delivery_id, WebhookDelivery.lease_until == claimed.lease)
    async with deps.database.unit_of_work() as uow:
        session = uow.session
        found = (await session.execute(select(WebhookDelivery.attempts,
                                              WebhookDelivery.endpoint_id).where(ours))).first()
        if found is None:
            return "lost"
        attempts, endpoint_id = found.attempts + 1, found.endpoint_id
        values: dict[str, object] = {
            "attempts": attempts, "last_attempt_at": now, "lease_until": None,
            "response_status": result.status, "latency_ms": result.latency_ms,
            "error": result.error}
        delay = None if result.ok else deps.schedule.delay(attempts, deps.draw())
        status = "delivered" if result.ok else "pending" if delay is not None else "failed"
        values.update(status=status, next_attempt_at=None if delay is None
                      else now + datetime.timedelta(seconds=delay))
        if (await session.execute(update(WebhookDelivery).where(ours).values(**values)
                                  .execution_options(synchronize_session=False))).rowcount != 1:
            return "lost"
        if result.ok:
            await session.execute(update(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id)
                                  .values(consecutive_failures=0, failing_since=None,
                                          last_success_at=now))
        else:
            await _count_failure(deps, session, endpoint_id, now)
        return status


async def _count_failure(deps: WebhookDeps, session: AsyncSession, endpoint_id: str,
                         now: datetime.datetime) -> None:
    """One more failure in a row, counted by the UPDATE itself (attempts of one endpoint run
    at once); the endpoint is switched off when the policy says so."""
    counted = (await session.execute(
        update(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id)
        .values(consecutive_failures=WebhookEndpoint.consecutive_failures + 1,
                failing_since=func.coalesce(WebhookEndpoint.failing_since, now))
        .returning(WebhookEndpoint.consecutive_failures, WebhookEndpoint.failing_since,
                   WebhookEndpoint.enabled))).first()
    if counted is None or not counted.enabled:
        return
    since = counted.failing_since
    if deps.disable.disables(counted.consecutive_failures, since, now):
        await session.execute(update(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id)
                              .values(enabled=False, disabled_reason="failing",
                                      disabled_at=now, updated_at=now))
        logger.warning("webhook endpoint %s switched off: %d attempts failed since %s",
                       endpoint_id, counted.consecutive_failures, since.isoformat())


async def attempt_delivery(deps: WebhookDeps, delivery_id: str,
                           client: WebhookClient | None = None) -> str | None:
    """One attempt of one delivery, if it is due and no other worker holds it: answers the
    delivery's status afterwards (`delivered`, `pending` for a retry, `failed`), or None when
    there was nothing to attempt. `client`: a started WebhookClient to share."""
    claimed = await _claim(deps, delivery_id)
    if claimed is None:
        return None
    headers = signed_headers(claimed.secrets, claimed.message_id, deps.now(), claimed.body)
    if client is None:
        async with WebhookClient(deps.settings) as own:
            result = await own.post(claimed.url, claimed.body, headers)
    else:
        result = await client.post(claimed.url, claimed.body, headers)
    return await _record(deps, delivery_id, claimed, result)


async def due_deliveries(deps: WebhookDeps, limit: int = BATCH) -> list[str]:
    """Ids of due deliveries, oldest due first, at most PER_ENDPOINT of one endpoint."""
    async with deps.database.unit_of_work() as uow:
        rows = (await uow.session.execute(
            select(WebhookDelivery.id, WebhookDelivery.endpoint_id).where(_due(deps.now()))
            .order_by(WebhookDelivery.next_attempt_at, WebhookDelivery.id)
            .limit(limit * PER_ENDPOINT))).all()
    taken: dict[str, int] = {}
    chosen = []
    for delivery_id, endpoint_id in rows:
        if taken.get(endpoint_id, 0) < PER_ENDPOINT and len(chosen) < limit:
            taken[endpoint_id] = taken.get(endpoint_id, 0) + 1
            chosen.append(delivery_id)
    return chosen


async def deliver_due(deps: WebhookDeps, limit: int = BATCH) -> dict[str, int]:
    """Attempt the due deliveries (CONCURRENCY at a time); answers how many ended how."""
    ids = await due_deliveries(deps, limit)
    counts: dict[str, int] = {}
    if not ids:
        return counts
    gate = asyncio.Semaphore(CONCURRENCY)
    async with WebhookClient(deps.settings) as client:
        async def one(delivery_id: str) -> None:
            async with gate:
                try:
                    status = await attempt_delivery(deps, delivery_id, client)
                except Exception:  # noqa: BLE001 - one delivery's failure spares the batch
                    logger.exception("webhook delivery %s: the attempt failed", delivery_id)
                    status = "error"
            if status is not None:
                counts[status] = counts.get(status, 0) + 1
        await asyncio.gather(*(one(delivery_id) for delivery_id in ids))
    return counts


async def purge_finished(deps: WebhookDeps) -> int:
    """Delete deliveries finished more than RETENTION ago, and events left without any."""
    cutoff = deps.now() - RETENTION
    async with deps.database.unit_of_work() as uow:
        gone = await uow.session.execute(delete(WebhookDelivery).where(
            WebhookDelivery.status != "pending", WebhookDelivery.created_at < cutoff))
        await uow.session.execute(delete(WebhookEvent).where(
            WebhookEvent.created_at < cutoff,
            ~select(WebhookDelivery.id).where(WebhookDelivery.event_id == WebhookEvent.id)
            .exists()))
        return gone.rowcount
