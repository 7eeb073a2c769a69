"""/api/v2/settings/webhooks/: register, list, get, change, delete, rotate the secret, the
delivery log (pages, filter), redeliver and the catalogue; who may do what is the authorization
matrix's (tests/platform/security), the use cases' rules (limit, switching off and on, secrets,
cursors, redelivery) the fast tier's (test_service.py); this is what each route does."""

from __future__ import annotations

import datetime
import re
import time

import pytest
from sqlalchemy import text

from insureops.platform.webhooks.events import CATALOGUE
from insureops.platform.webhooks.outbox import publish
from tests.platform.accounts.conftest import FakeClock
from tests.platform.webhooks.conftest import run_payload
from tests.platform.workspaces import Member, Tenancy, start_tenancy

BASE = "/api/v2/settings/webhooks"
SECRET = re.compile(r"^whsec_[A-Za-z0-9+/]{43}=$")  # 32 bytes, base64


@pytest.fixture
async def service(aiohttp_client, settings) -> Tenancy:
    allowing = settings.model_copy(update={"webhook_allowed_networks": ("127.0.0.1/32",),
                                           "webhooks_per_workspace": 3, "jobs_in_serve": False})
    return await start_tenancy(aiohttp_client, allowing, FakeClock(time.time()))


async def register(service: Tenancy, member: Member, **body):
    return await service.client.post(f"{BASE}/", headers=member.headers, json={
        "url": "http://127.0.0.1:9/hook", "event_types": ["decision.made"], **body})


async def test_secret_is_shown_once_and_stored_encrypted_when_registered(service: Tenancy):
    ann = await service.owner("ann@example.com")
    response = await register(service, ann, event_types=["run.failed", "decision.made",
                                                          "run.failed"], description="CRM")
    assert response.status == 201
    created = await response.json()
    assert SECRET.match(created["secret"])
    assert created["event_types"] == ["decision.made", "run.failed"]  # sorted, once each
    assert (created["enabled"], created["disabled_reason"], created["description"]) == (
        True, None, "CRM")
    listed = await (await service.client.get(f"{BASE}/", headers=ann.headers)).json()
    got = await (await service.client.get(f"{BASE}/{created['id']}/",
                                          headers=ann.headers)).json()
    assert [item["id"] for item in listed["items"]] == [created["id"]]
    assert "secret" not in listed["items"][0] and "secret" not in got
    assert created["secret"] not in str(listed) + str(got)
    async with service.database.engine.connect() as connection:
        stored = (await connection.execute(text(
            "SELECT secret_encrypted FROM webhook_endpoints"))).scalar_one()
    assert created["secret"].removeprefix("whsec_") not in stored


async def test_a_member_reads_but_cannot_register_when_not_an_admin(service: Tenancy):
    ann = await service.owner("ann@example.com")
    zoe = await service.member(ann, "zoe@example.com")
    created = await (await register(service, ann)).json()
    assert (await register(service, zoe)).status == 403
    assert (await service.client.get(f"{BASE}/{created['id']}/", headers=zoe.headers)
            ).status == 200
    refused = await service.client.post(f"{BASE}/{created['id']}/rotate-secret/",
                                        headers=zoe.headers)
    assert refused.status == 403


async def test_registration_is_400_validation_error_when_the_body_is_wrong(service: Tenancy):
    ann = await service.owner("ann@example.com")
    response = await register(service, ann, event_types=[])
    assert response.status == 400
    assert (await response.json())["error"]["code"] == "validation_error"


async def test_registration_is_409_when_the_workspace_has_its_limit(service: Tenancy):
    ann = await service.owner("ann@example.com")
    bob = await service.owner("bob@example.com")  # the store counts each workspace's own
    for member in (ann, ann, bob, ann):
        assert (await register(service, member)).status == 201
    refused = await register(service, ann)
    assert refused.status == 409
    assert (await refused.json())["error"]["code"] == "webhook_limit_reached"


async def test_change_is_stored_and_answered_as_stored(service: Tenancy):
    ann = await service.owner("ann@example.com")
    created = await (await register(service, ann, description="CRM")).json()
    path = f"{BASE}/{created['id']}/"
    off = await (await service.client.patch(path, json={"enabled": False,
                                                        "event_types": ["task.opened"]},
                                            headers=ann.headers)).json()
    got = await (await service.client.get(path, headers=ann.headers)).json()
    assert off == got
    assert (got["enabled"], got["disabled_reason"], got["description"], got["event_types"]) == (
        False, "manual", "CRM", ["task.opened"])
    refused = await service.client.patch(path, json={"url": "http://10.0.0.1/"},
                                         headers=ann.headers)
    assert refused.status == 400
    assert (await refused.json())["error"]["code"] == "webhook_url_refused"


async def test_delete_removes_the_endpoint_and_its_log_when_asked(service: Tenancy):
    ann = await service.owner("ann@example.com")
    created = await (await register(service, ann, event_types=["run.completed"])).json()
    await _publish(service, ann)
    path = f"{BASE}/{created['id']}/"
    assert (await service.client.delete(path, headers=ann.headers)).status == 204
    assert (await service.client.get(path, headers=ann.headers)).status == 404
    assert (await service.client.delete(path, headers=ann.headers)).status == 404
    async with service.database.engine.connect() as connection:
        left = (await connection.execute(text("SELECT count(*) FROM webhook_deliveries"))
                ).scalar_one()
    assert left == 0


async def test_rotation_answers_a_new_secret_once_when_asked(service: Tenancy):
    ann = await service.owner("ann@example.com")
    created = await (await register(service, ann)).json()
    rotated = await (await service.client.post(f"{BASE}/{created['id']}/rotate-secret/",
                                               headers=ann.headers)).json()
    assert SECRET.match(rotated["secret"]) and rotated["secret"] != created["secret"]
    got = await (await service.client.get(f"{BASE}/{created['id']}/",
                                          headers=ann.headers)).json()
    assert got["previous_secret_expires_at"] == rotated["previous_secret_expires_at"]


async def _publish(service: Tenancy, member: Member, count: int = 1) -> None:
    now = datetime.datetime.fromtimestamp(service.clock(), datetime.UTC)
    async with service.database.unit_of_work() as uow:
        for _ in range(count):
            await publish(uow.session, member.workspace_id, "run.completed", run_payload(),
                          now=now)


async def test_delivery_log_pages_newest_first_when_it_is_long(service: Tenancy):
    ann = await service.owner("ann@example.com")
    created = await (await register(service, ann, event_types=["run.completed"])).json()
    for _ in range(5):
        await _publish(service, ann)
        service.clock.advance(1)
    seen, cursor = [], None
    while True:
        query = "?limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = await (await service.client.get(f"{BASE}/{created['id']}/deliveries/{query}",
                                               headers=ann.headers)).json()
        seen += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == 5 and len({d["id"] for d in seen}) == 5
    assert [d["created_at"] for d in seen] == sorted((d["created_at"] for d in seen),
                                                     reverse=True)
    assert {d["status"] for d in seen} == {"pending"}
    filtered = await (await service.client.get(
        f"{BASE}/{created['id']}/deliveries/?status=delivered", headers=ann.headers)).json()
    assert filtered == {"items": [], "next_cursor": None}
    first = await (await service.client.get(
        f"{BASE}/{created['id']}/deliveries/?limit=2", headers=ann.headers)).json()
    foreign = await service.client.get(  # a cursor of the unfiltered listing, filtered
        f"{BASE}/{created['id']}/deliveries/?status=pending&cursor={first['next_cursor']}",
        headers=ann.headers)
    assert foreign.status == 400


async def test_redelivery_is_logged_as_a_new_pending_delivery_when_asked(service: Tenancy):
    ann = await service.owner("ann@example.com")
    created = await (await register(service, ann, event_types=["run.completed"])).json()
    await _publish(service, ann)
    log = f"{BASE}/{created['id']}/deliveries/"
    [delivery] = (await (await service.client.get(log, headers=ann.headers)).json())["items"]
    service.clock.advance(1)
    answer = await service.client.post(f"{log}{delivery['id']}/redeliver/", headers=ann.headers)
    assert answer.status == 202
    again = await answer.json()
    listed = (await (await service.client.get(log, headers=ann.headers)).json())["items"]
    assert [item["id"] for item in listed] == [again["id"], delivery["id"]]
    assert (again["status"], again["event_id"]) == ("pending", delivery["event_id"])


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the catalogue is code
async def test_catalogue_lists_every_event_type_with_its_schema(service: Tenancy):
    ann = await service.owner("ann@example.com")
    zoe = await service.member(ann, "zoe@example.com")
    listed = await (await service.client.get(f"{BASE}/event-types/", headers=zoe.headers)
                    ).json()
    assert [item["type"] for item in listed["items"]] == [str(t) for t in CATALOGUE]
    decision = listed["items"][0]
    assert decision["schema"]["title"] == "DecisionMade"
    assert {"ruleset", "record", "decision", "execution_id"} <= set(
        decision["schema"]["properties"])
