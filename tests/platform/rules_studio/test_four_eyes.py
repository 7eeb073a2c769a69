"""The four-eyes workspace setting through its routes: request, approve (publishes), reject,
each recorded; who may approve and which requests are refused is the fast tier's
(test_service.py)."""

from __future__ import annotations

import pytest

from tests.platform.rules_studio.conftest import BASE


@pytest.fixture
async def governed(studio, owner):
    """A workspace with four eyes on, a second admin, and a rule written by the owner."""
    response = await studio.client.put(f"{BASE}/settings/", json={"four_eyes": True},
                                       headers=owner.headers)
    assert response.status == 200 and (await response.json()) == {"four_eyes": True}
    ada = await studio.tenancy.member(owner, "ada@example.com", "admin")
    rule = await studio.created(owner)
    return ada, rule


async def request(studio, member, rule_id: str, **body):
    return await studio.client.post(f"{BASE}/{rule_id}/approvals/", json=body,
                                    headers=member.headers)


async def decide(studio, member, rule_id: str, approval_id: str, verb: str, **body):
    return await studio.client.post(f"{BASE}/{rule_id}/approvals/{approval_id}/{verb}/",
                                    json=body, headers=member.headers)


async def test_another_admins_approval_publishes_when_four_eyes_is_on(studio, owner, governed):
    ada, rule = governed
    asked = await request(studio, owner, rule["id"], version=1)
    assert asked.status == 201
    pending = await asked.json()
    assert (pending["status"], pending["requested_by"]) == ("pending", owner.user_id)
    approved = await decide(studio, ada, rule["id"], pending["id"], "approve", comment="ok")
    assert approved.status == 200
    assert (await approved.json())["decided_by"] == ada.user_id
    body = await (await studio.get(owner, f"{rule['id']}/")).json()
    assert (body["status"], body["published_version"]) == ("published", 1)
    history = await (await studio.get(owner, f"{rule['id']}/history/")).json()
    assert [(e["version"], e["actor_id"]) for e in history["events"]] == [(1, ada.user_id)]
    listed = await (await studio.get(owner, f"{rule['id']}/approvals/")).json()
    assert [(a["status"], a["comment"]) for a in listed["approvals"]] == [("approved", "ok")]


async def test_a_rejected_request_cannot_be_approved_when_decided(studio, owner, governed):
    ada, rule = governed
    pending = await (await request(studio, owner, rule["id"])).json()
    rejected = await decide(studio, ada, rule["id"], pending["id"], "reject", comment="no")
    assert (await rejected.json())["status"] == "rejected"
    again = await decide(studio, ada, rule["id"], pending["id"], "approve")
    assert again.status == 409
    assert (await again.json())["error"]["code"] == "invalid_transition"


async def test_settings_are_403_when_an_admin_changes_them(studio, owner, governed):
    ada, _ = governed
    response = await studio.client.put(f"{BASE}/settings/", json={"four_eyes": False},
                                       headers=ada.headers)
    assert response.status == 403
    shown = await (await studio.client.get(f"{BASE}/settings/", headers=ada.headers)).json()
    assert shown == {"four_eyes": True}


async def test_another_workspaces_approval_is_404_when_addressed(studio, owner, governed):
    _, rule = governed
    pending = await (await request(studio, owner, rule["id"])).json()
    zoe = await studio.tenancy.owner("zoe@example.com", "Other Agency")
    response = await decide(studio, zoe, rule["id"], pending["id"], "approve")
    assert response.status == 404
