"""Issue 31: one endpoint's waiting deliveries are bounded (webhook_max_pending_per_endpoint):
an event beyond the bound is recorded for it as failed, `queue_full`, visible in its log and
redeliverable; other endpoints still get it. And a keyed publish writes an event once."""

from __future__ import annotations

from sqlalchemy import func, select

from insureops.platform.webhooks.delivery import deliver_due
from insureops.platform.webhooks.models import WebhookDelivery, WebhookEvent
from insureops.platform.webhooks.outbox import publish
from tests.platform.webhooks.conftest import BASE, Hooks, run_payload
from tests.platform.webhooks.receiver import Receiver


async def _publish(hooks: Hooks, workspace_id: str, run_id: str, **options) -> str | None:
    async with hooks.tenancy.database.unit_of_work() as uow:
        return await publish(uow.session, workspace_id, "run.completed",
                             run_payload(run_id=run_id), now=hooks.now(), **options)


async def test_an_event_past_the_bound_is_failed_queue_full_for_that_endpoint_only(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    slow = await hooks.register(ann, receiver.at("/slow"))
    runs = [f"01JB0RUN00000000000000000{n}" for n in range(3)]
    for run_id in runs[:2]:
        await _publish(hooks, ann.workspace_id, run_id, max_pending=2)
    other = await hooks.register(ann, receiver.at("/other"))  # registered later: empty queue
    await _publish(hooks, ann.workspace_id, runs[2], max_pending=2)

    logged = await hooks.log(ann, slow["id"])
    assert [(d["status"], d["error"], d["attempts"]) for d in logged] == [
        ("failed", "queue_full", 0), ("pending", None, 0), ("pending", None, 0)]
    assert [(d["status"], d["error"]) for d in await hooks.log(ann, other["id"])] == [
        ("pending", None)]
    assert await deliver_due(hooks.deps) == {"delivered": 3}  # two to /slow, one to /other
    # the backlog went out: the refused one is redelivered on request
    response = await hooks.client.post(
        f"{BASE}/{slow['id']}/deliveries/{logged[0]['id']}/redeliver/", headers=ann.headers)
    assert response.status == 202, await response.text()


async def test_a_keyed_event_is_written_once_when_published_twice(hooks: Hooks,
                                                                 receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    await hooks.register(ann, receiver.at())
    first = await _publish(hooks, ann.workspace_id, "01JB0RUN000000000000000009", key="k:1")
    again = await _publish(hooks, ann.workspace_id, "01JB0RUN000000000000000009", key="k:1")
    assert first is not None and again is None
    async with hooks.tenancy.database.unit_of_work() as uow:
        counts = [(await uow.session.execute(select(func.count()).select_from(model)))
                  .scalar_one() for model in (WebhookEvent, WebhookDelivery)]
    assert counts == [1, 1]
