"""Fixtures of the webhook tests: the whole service with two workspaces' owners, real receivers
on 127.0.0.1 (allowed through INSUREOPS_WEBHOOK_ALLOWED_NETWORKS, the policy's documented
switch) and the delivery job's deps on the service's own database, keys and clock."""

from __future__ import annotations

import datetime
import time
from dataclasses import dataclass
from typing import Any

import pytest

from insureops.platform.config import Settings
from insureops.platform.webhooks.delivery import WebhookDeps
from insureops.platform.webhooks.outbox import publish
from insureops.platform.webhooks.schedule import DisablePolicy, RetrySchedule
from tests.platform.accounts.conftest import FakeClock
from tests.platform.webhooks.receiver import Receiver
from tests.platform.workspaces import Member, Tenancy, start_tenancy

BASE = "/api/v2/settings/webhooks"
RULE_ID = "01JB0RULE00000000000000001"


def run_payload(status: str = "completed", run_id: str = "01JB0RUN000000000000000001") -> dict:
    """A run event's payload, as the rules area publishes it."""
    return {"run": {"id": run_id, "rule_id": RULE_ID, "version": 2, "mode": "apply",
                    "record_type": "policy", "status": status, "total": 10, "done": 10,
                    "errors": 0},
            "summary": {"decisions": {"accept": 7, "refer": 3}}, "at": "2026-11-27T17:00:00Z"}


@dataclass
class Hooks:
    """The service, its clock, the delivery job's deps and helpers to drive them."""

    tenancy: Tenancy
    clock: FakeClock
    deps: WebhookDeps

    @property
    def client(self):
        return self.tenancy.client

    def now(self) -> datetime.datetime:
        return datetime.datetime.fromtimestamp(self.clock(), tz=datetime.UTC)

    async def register(self, member: Member, url: str, event_types=("run.completed",),
                       **extra: Any) -> dict:
        response = await self.client.post(f"{BASE}/", headers=member.headers, json={
            "url": url, "event_types": list(event_types), **extra})
        assert response.status == 201, await response.text()
        return await response.json()

    async def publish(self, workspace_id: str, event_type: str = "run.completed",
                      payload: dict | None = None) -> str | None:
        async with self.tenancy.database.unit_of_work() as uow:
            return await publish(uow.session, workspace_id, event_type,
                                 payload or run_payload(), now=self.now())

    async def log(self, member: Member, endpoint_id: str, query: str = "") -> list[dict]:
        response = await self.client.get(f"{BASE}/{endpoint_id}/deliveries/{query}",
                                         headers=member.headers)
        assert response.status == 200, await response.text()
        return (await response.json())["items"]

    def with_deps(self, **options: Any) -> WebhookDeps:
        return WebhookDeps.of_app(self.client.app, **{
            "draw": self.deps.draw, "schedule": self.deps.schedule,
            "disable": self.deps.disable, **options})


@pytest.fixture
def hook_settings(settings: Settings) -> Settings:
    """Receivers on loopback allowed; no jobs in the service (the tests run the delivery job
    themselves, at the moments they choose; test_jobs.py runs it through the engine)."""
    return settings.model_copy(update={"webhook_allowed_networks": ("127.0.0.1/32",),
                                       "webhook_timeout_seconds": 2.0, "jobs_in_serve": False})


@pytest.fixture
async def hooks(aiohttp_client, hook_settings: Settings) -> Hooks:
    clock = FakeClock(time.time())  # near the real time: receivers verify the timestamp
    tenancy = await start_tenancy(aiohttp_client, hook_settings, clock)
    deps = WebhookDeps.of_app(tenancy.client.app, draw=lambda: 0.5,
                              schedule=RetrySchedule(), disable=DisablePolicy())
    return Hooks(tenancy, clock, deps)


@pytest.fixture
async def receiver(aiohttp_server) -> Receiver:
    found = Receiver()
    server = await aiohttp_server(found.app())
    found.url = str(server.make_url("/"))
    return found
