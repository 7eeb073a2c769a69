"""The webhook jobs, registered with the job engine (platform/jobs; docs/jobs.md).

- `webhooks.deliver_due`, every SWEEP_SECONDS in each process that runs jobs: the due
  deliveries (new ones, retries whose time came). Safe in several processes at once: each
  delivery is taken under a lease (delivery.py), so one of them sends it.
- `webhooks.deliver`: one delivery at once (a redelivery asked for through the API).
- `webhooks.purge`, hourly: finished deliveries past the retention.

Retries are not the engine's: a failed attempt is a row due later on the webhook schedule
(schedule.py), which the sweep picks up, so the schedule survives restarts on either engine.
"""

from __future__ import annotations

from insureops.platform.jobs import JobContext, every, job
from insureops.platform.webhooks.delivery import (
    WebhookDeps,
    attempt_delivery,
    deliver_due,
    purge_finished,
)

SWEEP_SECONDS = 2.0
PURGE_SECONDS = 3600.0


def deps_of(context: JobContext) -> WebhookDeps:
    services = context.services
    return WebhookDeps(services.database, services.secret_keys.fernet, services.settings,
                       services.clock)


@every("webhooks.deliver_due", SWEEP_SECONDS)
async def deliver_due_webhooks(context: JobContext) -> None:
    deps = deps_of(context)
    while not context.should_stop() and await deliver_due(deps):
        pass  # a full batch: there may be more due right now


@job("webhooks.deliver", queue="webhooks")
async def deliver_webhook(context: JobContext, *, delivery_id: str) -> None:
    await attempt_delivery(deps_of(context), delivery_id)


@every("webhooks.purge", PURGE_SECONDS)
async def purge_webhook_deliveries(context: JobContext) -> None:
    await purge_finished(deps_of(context))
