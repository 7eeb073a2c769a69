"""Webhooks and the outbound address policy: URLs refused at registration, and deliveries that
check again when they connect (a name now resolving to a refused address, an allowed network
withdrawn), follow no redirect, stop at the timeout and read at most the response cap."""

from __future__ import annotations

import dataclasses
import time

import pytest
from sqlalchemy import update

from insureops.platform.outbound.webhook_client import WebhookUrlRefusedError, check_webhook_url
from insureops.platform.webhooks.delivery import deliver_due
from insureops.platform.webhooks.models import WebhookEndpoint
from tests.platform.accounts.conftest import FakeClock
from tests.platform.webhooks.conftest import BASE, Hooks
from tests.platform.webhooks.receiver import Answer, Receiver
from tests.platform.workspaces import Tenancy, start_tenancy


@pytest.fixture
async def strict(aiohttp_client, settings) -> Tenancy:
    """The service as deployed: no private network allowed for webhooks."""
    return await start_tenancy(aiohttp_client, settings, FakeClock(time.time()))


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # refused before the database
@pytest.mark.parametrize(("url", "reason"), [
    ("http://127.0.0.1:9/hook", "address_refused"),  # loopback, no network allowed
    ("http://2130706433/hook", "address_refused"),  # 127.0.0.1 in inet_aton's legacy form
    ("http://[::ffff:127.0.0.1]/hook", "address_refused"),  # IPv4-mapped loopback
    ("http://10.1.2.3/hook", "address_refused"),
    ("http://169.254.169.254/latest/meta-data/", "address_refused"),
    ("https://localhost/hook", "address_refused"),  # a name resolving to loopback
    ("http://93.184.215.14/hook", "https_required"),  # public, but plain http
    ("ftp://example.com/hook", "invalid_url"),
    ("https://user:pw@example.com/hook", "invalid_url"),
    ("https://example.com/hook#part", "invalid_url"),
    ("https://no-such-host.invalid/hook", "host_unresolved"),
])
async def test_registration_is_refused_when_the_url_is_not_allowed(
        strict: Tenancy, url: str, reason: str):
    ann = await strict.owner("ann@example.com")
    response = await strict.client.post(f"{BASE}/", headers=ann.headers,
                                        json={"url": url, "event_types": ["run.completed"]})
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "webhook_url_refused"
    assert error["details"] == [{"field": "url", "message": reason}]
    assert (await strict.client.get(f"{BASE}/", headers=ann.headers)).status == 200


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # no database involved
async def test_metadata_address_is_refused_when_its_network_is_allowed(settings):
    allowing = settings.model_copy(update={"webhook_allowed_networks": ("169.254.0.0/16",)})
    with pytest.raises(WebhookUrlRefusedError) as refused:
        await check_webhook_url("http://169.254.169.254/latest/", allowing)
    assert refused.value.reason == "address_refused"
    assert await check_webhook_url("http://169.254.10.10/hook", allowing) == (
        "http://169.254.10.10/hook")  # plain http inside the allowed network


async def test_delivery_is_refused_when_the_allowed_network_was_withdrawn(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    await hooks.publish(ann.workspace_id)
    strict = dataclasses.replace(hooks.deps, settings=hooks.deps.settings.model_copy(
        update={"webhook_allowed_networks": ()}))
    assert await deliver_due(strict) == {"pending": 1}
    [logged] = await hooks.log(ann, endpoint["id"])
    assert (logged["error"], logged["response_status"]) == ("address_refused", None)
    assert receiver.received == []


async def test_delivery_is_refused_when_the_name_resolves_to_a_refused_address(
        hooks: Hooks, receiver: Receiver):
    """DNS rebinding: the name passed when registered, resolves to loopback when delivered;
    the connection goes only to addresses the resolver checked."""
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    port = receiver.url.rsplit(":", 1)[1].strip("/")
    async with hooks.tenancy.database.unit_of_work() as uow:
        await uow.session.execute(update(WebhookEndpoint).values(
            url=f"http://localhost:{port}/hook"))
    await hooks.publish(ann.workspace_id)
    strict = dataclasses.replace(hooks.deps, settings=hooks.deps.settings.model_copy(
        update={"webhook_allowed_networks": ()}))
    assert await deliver_due(strict) == {"pending": 1}
    [logged] = await hooks.log(ann, endpoint["id"])
    assert logged["error"] == "address_refused" and receiver.received == []
    assert await deliver_due(hooks.deps) == {}  # (the retry waits for its time)


async def test_redirect_is_not_followed_when_the_receiver_answers_one(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    receiver.script(Answer(location=receiver.at("/elsewhere")))
    await hooks.publish(ann.workspace_id)
    assert await deliver_due(hooks.deps) == {"pending": 1}
    [logged] = await hooks.log(ann, endpoint["id"])
    assert (logged["response_status"], logged["error"]) == (302, "redirect_not_followed")
    assert [r.path for r in receiver.received] == ["/hook"]


async def test_attempt_fails_at_the_timeout_when_the_receiver_stalls(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    receiver.script(Answer(200, delay=5))
    quick = dataclasses.replace(hooks.deps, settings=hooks.deps.settings.model_copy(
        update={"webhook_timeout_seconds": 0.3}))
    await hooks.publish(ann.workspace_id)
    started = time.monotonic()
    assert await deliver_due(quick) == {"pending": 1}
    assert time.monotonic() - started < 2
    [logged] = await hooks.log(ann, endpoint["id"])
    assert (logged["error"], logged["response_status"]) == ("timeout", None)
    assert 250 <= logged["latency_ms"] < 2000


async def test_only_the_response_cap_is_read_when_the_answer_never_ends(
        hooks: Hooks, receiver: Receiver):
    ann = await hooks.tenancy.owner("ann@example.com")
    endpoint = await hooks.register(ann, receiver.at())
    receiver.script(Answer(endless=True))
    await hooks.publish(ann.workspace_id)
    started = time.monotonic()
    assert await deliver_due(hooks.deps) == {"delivered": 1}
    assert time.monotonic() - started < hooks.deps.settings.webhook_timeout_seconds
    [logged] = await hooks.log(ann, endpoint["id"])
    assert logged["response_status"] == 200
