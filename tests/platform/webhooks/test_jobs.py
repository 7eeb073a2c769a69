"""Deliveries through the job engine: the service running its jobs (the embedded runner on
SQLite, procrastinate's worker on PostgreSQL) sends what was published, and a redelivery asked
for through the API, without the test calling the delivery job."""

from __future__ import annotations

import asyncio
import time

import pytest
from standardwebhooks.webhooks import Webhook

from insureops.platform.jobs import registry
from insureops.platform.jobs.kinds import load_job_kinds
from insureops.platform.webhooks.delivery import WebhookDeps
from insureops.platform.webhooks.jobs import SWEEP_SECONDS
from tests.platform.accounts.conftest import FakeClock
from tests.platform.webhooks.conftest import BASE, Hooks, run_payload
from tests.platform.webhooks.receiver import Receiver
from tests.platform.workspaces import start_tenancy


def test_the_webhook_jobs_are_registered_when_the_job_kinds_load():
    load_job_kinds()
    assert "webhooks.deliver" in registry.JOB_KINDS
    assert {"webhooks.deliver_due", "webhooks.purge"} <= set(registry.PERIODIC)


async def _arrivals(receiver: Receiver, count: int, within: float) -> None:
    deadline = time.monotonic() + within
    while len(receiver.received) < count:
        assert time.monotonic() < deadline, f"{len(receiver.received)} of {count} arrived"
        await asyncio.sleep(0.05)


@pytest.fixture
async def running(aiohttp_client, hook_settings) -> Hooks:
    """The service running its own jobs (jobs_in_serve), as `insureops serve` on SQLite and a
    worker on PostgreSQL do."""
    settings = hook_settings.model_copy(update={"jobs_in_serve": True})
    tenancy = await start_tenancy(aiohttp_client, settings, FakeClock(time.time()))
    return Hooks(tenancy, tenancy.clock, WebhookDeps.of_app(tenancy.client.app))


async def test_published_event_is_delivered_by_the_job_engine_when_jobs_run(
        running: Hooks, receiver: Receiver):
    ann = await running.tenancy.owner("ann@example.com")
    endpoint = await running.register(ann, receiver.at())
    event_id = await running.publish(ann.workspace_id, "run.completed", run_payload())
    await _arrivals(receiver, 1, within=SWEEP_SECONDS + 5)
    data = Webhook(endpoint["secret"]).verify(receiver.received[0].body,
                                              receiver.received[0].headers)
    assert data["type"] == "run.completed"
    assert receiver.received[0].headers["webhook-id"] == event_id

    [delivered] = await running.log(ann, endpoint["id"])
    response = await running.client.post(
        f"{BASE}/{endpoint['id']}/deliveries/{delivered['id']}/redeliver/", headers=ann.headers)
    assert response.status == 202
    await _arrivals(receiver, 2, within=SWEEP_SECONDS + 5)
    assert receiver.received[1].headers["webhook-id"] == event_id
    await asyncio.sleep(0.2)  # the attempt's outcome is written after the answer
    assert {d["status"] for d in await running.log(ann, endpoint["id"])} == {"delivered"}
