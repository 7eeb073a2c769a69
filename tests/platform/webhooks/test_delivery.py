"""Deliveries to real receivers: signed the Standard Webhooks way (verified with the
`standardwebhooks` library), retried on the schedule with a moved clock, never sent twice at
once, switched off after failing for long; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import datetime
import json

import pytest
import sqlalchemy
from cryptography.fernet import Fernet
from sqlalchemy import select
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from insureops.platform.config import Settings
from insureops.platform.webhooks.delivery import (
    PER_ENDPOINT,
    WebhookDeps,
    attempt_delivery,
    deliver_due,
    due_deliveries,
    purge_finished,
)
from insureops.platform.webhooks.models import WebhookDelivery, WebhookEvent
from insureops.platform.webhooks.outbox import publish, publish_sync
from insureops.platform.webhooks.schedule import DisablePolicy, RetrySchedule
from tests.platform.webhooks.conftest import BASE, Hooks, run_payload
from tests.platform.webhooks.receiver import Answer, Receiver
from tests.platform.workspaces import start_tenancy


async def test_delivery_is_signed_and_verifies_with_standardwebhooks_when_sent(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    event_id = await hooks.publish(ann.workspace_id)
    assert await deliver_due(hooks.deps) == {"delivered": 1}

    [request] = receiver.received
    data = Webhook(endpoint["secret"]).verify(request.body, request.headers)
    assert data["type"] == "run.completed" and data["data"] == {
        **run_payload(), "at": "2026-11-27T17:00:00Z"}
    assert request.headers["webhook-id"] == event_id
    assert request.headers["Content-Type"] == "application/json"
    with pytest.raises(WebhookVerificationError):  # another secret does not verify it
        Webhook("whsec_" + "A" * 44).verify(request.body, request.headers)
    [logged] = await hooks.log(ann, endpoint["id"])
    assert logged["status"] == "delivered" and logged["attempts"] == 1
    assert logged["response_status"] == 204 and logged["latency_ms"] >= 0
    assert logged["next_attempt_at"] is None and logged["event_id"] == event_id


async def test_nothing_is_recorded_when_the_publishing_transaction_rolls_back(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    await hooks.register(ann, receiver.at())
    with pytest.raises(RuntimeError):
        async with hooks.tenancy.database.unit_of_work() as uow:
            await publish(uow.session, ann.workspace_id, "run.completed", run_payload())
            raise RuntimeError("the change that caused it failed")
    async with hooks.tenancy.database.unit_of_work() as uow:
        assert (await uow.session.execute(select(WebhookEvent))).all() == []
    assert await deliver_due(hooks.deps) == {} and receiver.received == []


async def test_publish_sync_records_in_the_callers_transaction_when_it_commits(
        hooks: Hooks, receiver: Receiver, platform_database_urls):
    """The synchronous variant, for work running in a thread on a plain connection."""
    ann = await hooks.tenancy.owner("ann@example.com")
    await hooks.register(ann, receiver.at())
    engine = sqlalchemy.create_engine(platform_database_urls.sync)

    def change(commit: bool) -> str | None:
        with engine.connect() as connection:
            event_id = publish_sync(connection, ann.workspace_id, "run.completed",
                                    run_payload(), now=hooks.now())
            if commit:
                connection.commit()
            else:
                connection.rollback()
            return event_id
    try:
        await asyncio.to_thread(change, False)
        committed = await asyncio.to_thread(change, True)
    finally:
        engine.dispose()
    assert await deliver_due(hooks.deps) == {"delivered": 1}
    assert [r.headers["webhook-id"] for r in receiver.received] == [committed]


async def test_only_enabled_endpoints_taking_the_type_get_it_when_published(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    takes = await hooks.register(ann, receiver.at("/takes"), ["run.completed", "run.failed"])
    await hooks.register(ann, receiver.at("/other"), ["decision.made"])
    off = await hooks.register(ann, receiver.at("/off"), ["run.completed"])
    await hooks.client.patch(f"{BASE}/{off['id']}/", json={"enabled": False},
                             headers=ann.headers)
    await hooks.publish(ann.workspace_id)
    await deliver_due(hooks.deps)
    assert [r.path for r in receiver.received] == ["/takes"]
    assert len(await hooks.log(ann, takes["id"])) == 1
    assert await hooks.publish(ann.workspace_id, "task.opened", {
        "task": {"id": "t1", "subject": "Review", "priority": "high", "status": "open"},
        "record": {"type": "policy", "id": "p1"},
        "ruleset": {"rule_id": "r1", "name": "renewal.review", "version": 1},
        "execution_id": "e1", "opened_at": "2026-11-27T17:00:00Z"}) is None


async def test_workspace_b_never_receives_what_a_publishes(hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    bob = await hooks.tenancy.owner("bob@example.com", "Bob Agency")
    await hooks.register(ann, receiver.at("/ann"))
    bobs = await hooks.register(bob, receiver.at("/bob"))
    await hooks.publish(ann.workspace_id)
    await deliver_due(hooks.deps)
    assert [r.path for r in receiver.received] == ["/ann"]
    assert await hooks.log(bob, bobs["id"]) == []


async def test_failed_attempts_are_retried_on_the_schedule_when_the_clock_moves(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    receiver.script(Answer(500), Answer(503))
    await hooks.publish(ann.workspace_id)
    schedule = hooks.deps.schedule

    assert await deliver_due(hooks.deps) == {"pending": 1}
    [logged] = await hooks.log(ann, endpoint["id"])
    assert (logged["attempts"], logged["response_status"], logged["error"]) == (
        1, 500, "http_status")
    due = datetime.datetime.fromisoformat(logged["next_attempt_at"])
    assert due == hooks.now() + datetime.timedelta(seconds=schedule.first_seconds)  # draw 0.5

    hooks.clock.advance(schedule.first_seconds - 1)
    assert await deliver_due(hooks.deps) == {}  # not yet due
    hooks.clock.advance(1)
    assert await deliver_due(hooks.deps) == {"pending": 1}
    [logged] = await hooks.log(ann, endpoint["id"])
    second = datetime.datetime.fromisoformat(logged["next_attempt_at"])
    assert second - hooks.now() == datetime.timedelta(
        seconds=schedule.first_seconds * schedule.factor)

    hooks.clock.advance(schedule.first_seconds * schedule.factor)
    assert await deliver_due(hooks.deps) == {"delivered": 1}
    [logged] = await hooks.log(ann, endpoint["id"])
    assert (logged["status"], logged["attempts"], logged["response_status"]) == (
        "delivered", 3, 204)
    assert len({r.headers["webhook-id"] for r in receiver.received}) == 1  # one message
    stamps = [int(r.headers["webhook-timestamp"]) for r in receiver.received]
    assert stamps == sorted(stamps) and stamps[0] < stamps[-1]  # each attempt signed anew


async def test_delivery_fails_for_good_when_the_schedule_runs_out(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    receiver.script(*[Answer(500)] * 3)
    deps = hooks.with_deps(schedule=RetrySchedule(first_seconds=10, attempts=3))
    await hooks.publish(ann.workspace_id)
    outcomes = []
    for _ in range(3):
        outcomes.append(await deliver_due(deps))
        hooks.clock.advance(3600)
    assert outcomes == [{"pending": 1}, {"pending": 1}, {"failed": 1}]
    [logged] = await hooks.log(ann, endpoint["id"], "?status=failed")
    assert logged["attempts"] == 3 and logged["next_attempt_at"] is None
    assert await deliver_due(deps) == {}


async def test_endpoint_is_switched_off_when_it_has_failed_for_long(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    receiver.script(*[Answer(500)] * 10)
    deps = hooks.with_deps(disable=DisablePolicy(failures=3,
                                                 failing_for=datetime.timedelta(hours=1)))
    for _ in range(3):  # three failures in a row, but within the hour: still on
        await hooks.publish(ann.workspace_id)
        await deliver_due(deps)
        hooks.clock.advance(5)  # before any retry is due
    info = await (await hooks.client.get(f"{BASE}/{endpoint['id']}/",
                                         headers=ann.headers)).json()
    assert info["enabled"] is True and info["consecutive_failures"] == 3
    hooks.clock.advance(3600)
    await hooks.publish(ann.workspace_id)
    await deliver_due(deps)
    info = await (await hooks.client.get(f"{BASE}/{endpoint['id']}/",
                                         headers=ann.headers)).json()
    assert (info["enabled"], info["disabled_reason"]) == (False, "failing")
    sent = len(receiver.received)
    assert await hooks.publish(ann.workspace_id) is None  # a switched-off endpoint gets nothing
    hooks.clock.advance(24 * 3600)
    assert await deliver_due(deps) == {}  # its pending retries end as failed
    assert len(receiver.received) == sent
    pending = await hooks.log(ann, endpoint["id"], "?status=pending")
    assert pending == []
    assert {d["error"] for d in await hooks.log(ann, endpoint["id"])} >= {"endpoint_disabled"}

    switched_on = await hooks.client.patch(f"{BASE}/{endpoint['id']}/", json={"enabled": True},
                                           headers=ann.headers)
    body = await switched_on.json()
    assert (body["enabled"], body["consecutive_failures"], body["failing_since"]) == (
        True, 0, None)


async def test_a_success_resets_the_failures_when_the_endpoint_recovers(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    receiver.script(Answer(500), Answer(500))
    for _ in range(3):
        await hooks.publish(ann.workspace_id)
    for delivery_id in await due_deliveries(hooks.deps):  # one after the other
        await attempt_delivery(hooks.deps, delivery_id)
    info = await (await hooks.client.get(f"{BASE}/{endpoint['id']}/",
                                         headers=ann.headers)).json()
    assert info["consecutive_failures"] == 0 and info["last_success_at"] is not None


async def test_failures_at_once_are_all_counted_when_an_endpoint_is_down(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    receiver.script(*[Answer(500, delay=0.05)] * 6)
    for _ in range(6):
        await hooks.publish(ann.workspace_id)
    # five attempts in flight at once: a batch takes at most PER_ENDPOINT of one endpoint
    assert await deliver_due(hooks.deps) == {"pending": PER_ENDPOINT}
    assert await deliver_due(hooks.deps) == {"pending": 1}
    info = await (await hooks.client.get(f"{BASE}/{endpoint['id']}/",
                                         headers=ann.headers)).json()
    assert info["consecutive_failures"] == 6


async def test_two_workers_send_a_delivery_once_when_they_attempt_it_together(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    await hooks.register(ann, receiver.at())
    receiver.script(Answer(200, delay=0.3))
    await hooks.publish(ann.workspace_id)
    async with hooks.tenancy.database.unit_of_work() as uow:
        [delivery_id] = (await uow.session.execute(select(WebhookDelivery.id))).scalars()
    outcomes = await asyncio.gather(*(attempt_delivery(hooks.deps, delivery_id)
                                      for _ in range(4)))
    assert sorted(map(str, outcomes)) == ["None", "None", "None", "delivered"]
    assert len(receiver.received) == 1


async def test_an_attempt_whose_lease_ran_out_does_not_overwrite_the_next(
        hooks: Hooks, receiver: Receiver):
    """A worker that took longer than its lease: another took the delivery over, and the
    first one's late outcome is dropped."""
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    receiver.script(Answer(500, delay=0.5))
    await hooks.publish(ann.workspace_id)
    async with hooks.tenancy.database.unit_of_work() as uow:
        [delivery_id] = (await uow.session.execute(select(WebhookDelivery.id))).scalars()
    slow = asyncio.create_task(attempt_delivery(hooks.deps, delivery_id))
    while not receiver.received:
        await asyncio.sleep(0.01)
    hooks.clock.advance(hooks.deps.settings.webhook_timeout_seconds + 31)  # the lease is over
    assert await attempt_delivery(hooks.deps, delivery_id) == "delivered"
    assert await slow == "lost"
    [logged] = await hooks.log(ann, endpoint["id"])
    assert (logged["status"], logged["attempts"]) == ("delivered", 1)


async def test_both_signatures_verify_while_the_previous_secret_lasts_when_rotated(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    rotated = await (await hooks.client.post(f"{BASE}/{endpoint['id']}/rotate-secret/",
                                             headers=ann.headers)).json()
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != endpoint["secret"]
    await hooks.publish(ann.workspace_id)
    await deliver_due(hooks.deps)
    request = receiver.received[-1]
    assert len(request.headers["webhook-signature"].split(" ")) == 2
    for secret in (endpoint["secret"], rotated["secret"]):
        Webhook(secret).verify(request.body, request.headers)

    hooks.clock.advance(24 * 3600 + 1)  # the previous secret has expired
    await hooks.publish(ann.workspace_id)
    await deliver_due(hooks.deps)
    request = receiver.received[-1]
    assert len(request.headers["webhook-signature"].split(" ")) == 1
    assert json.loads(request.body)["type"] == "run.completed"
    signature = Webhook(rotated["secret"]).sign(
        request.headers["webhook-id"],
        datetime.datetime.fromtimestamp(int(request.headers["webhook-timestamp"]),
                                        datetime.UTC), request.body.decode())
    assert request.headers["webhook-signature"] == signature


async def test_redelivery_sends_the_same_message_again_when_asked(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    await hooks.publish(ann.workspace_id)
    await deliver_due(hooks.deps)
    [first] = await hooks.log(ann, endpoint["id"])
    response = await hooks.client.post(
        f"{BASE}/{endpoint['id']}/deliveries/{first['id']}/redeliver/", headers=ann.headers)
    assert response.status == 202
    again = await response.json()
    assert again["event_id"] == first["event_id"] and again["status"] == "pending"
    await deliver_due(hooks.deps)
    assert [r.headers["webhook-id"] for r in receiver.received] == [first["event_id"]] * 2
    assert receiver.received[0].body == receiver.received[1].body


async def test_finished_deliveries_are_purged_when_past_the_retention(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    await hooks.register(ann, receiver.at())
    await hooks.publish(ann.workspace_id)
    await deliver_due(hooks.deps)
    hooks.clock.advance(29 * 86400)
    await hooks.publish(ann.workspace_id)  # a newer one stays
    assert await purge_finished(hooks.deps) == 0
    hooks.clock.advance(2 * 86400)
    assert await purge_finished(hooks.deps) == 1
    async with hooks.tenancy.database.unit_of_work() as uow:  # (the session has expired)
        kept = (await uow.session.execute(select(WebhookDelivery.status))).scalars().all()
        assert kept == ["pending"]
        assert len((await uow.session.execute(select(WebhookEvent.id))).all()) == 1


async def test_a_secret_no_key_decrypts_fails_its_deliveries_until_rotated(
        aiohttp_client, hooks: Hooks, receiver: Receiver):
    """A Fernet key removed before `rotate-keys` ran: the deliveries fail as
    secret_unreadable (not the whole batch), and a rotation starts afresh."""
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    other = await hooks.tenancy.owner("bob@example.com", "Bob Agency")
    await hooks.register(other, receiver.at("/bob"))
    keys = (Fernet.generate_key().decode(),)  # the service restarted with another key only
    restarted = await start_tenancy(aiohttp_client, Settings(**{
        **hooks.deps.settings.model_dump(), "fernet_keys": keys}), hooks.clock)
    deps = WebhookDeps.of_app(restarted.client.app, draw=lambda: 0.5)
    await hooks.publish(ann.workspace_id)
    await hooks.publish(other.workspace_id)
    assert await deliver_due(deps) == {}  # neither could be signed
    [logged] = await hooks.log(ann, endpoint["id"])
    assert (logged["status"], logged["error"]) == ("failed", "secret_unreadable")

    rotated = await (await restarted.client.post(f"{BASE}/{endpoint['id']}/rotate-secret/",
                                                 headers=ann.headers)).json()
    info = await (await restarted.client.get(f"{BASE}/{endpoint['id']}/",
                                             headers=ann.headers)).json()
    assert rotated["previous_secret_expires_at"] is None  # the unreadable one is not kept
    assert info["previous_secret_expires_at"] is None
    await hooks.publish(ann.workspace_id)
    assert await deliver_due(deps) == {"delivered": 1}
    Webhook(rotated["secret"]).verify(receiver.received[-1].body, receiver.received[-1].headers)
