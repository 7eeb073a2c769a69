"""The four-eyes workspace setting: request, approve (publishes), reject, each recorded."""

from __future__ import annotations

import pytest

from tests.platform.rules_studio.conftest import BASE, FAILING


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


async def test_patch_is_409_approval_required_when_four_eyes_is_on(studio, owner, governed):
    _, rule = governed
    response = await studio.patch(owner, rule["id"], published_version=1)
    assert response.status == 409
    assert (await response.json())["error"]["code"] == "approval_required"


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


async def test_approval_is_403_self_approval_when_the_author_approves(studio, owner, governed):
    _, rule = governed
    pending = await (await request(studio, owner, rule["id"])).json()
    response = await decide(studio, owner, rule["id"], pending["id"], "approve")
    assert response.status == 403
    assert (await response.json())["error"]["code"] == "self_approval"
    body = await (await studio.get(owner, f"{rule['id']}/")).json()
    assert body["published_version"] is None


async def test_a_rejected_request_cannot_be_approved_when_decided(studio, owner, governed):
    ada, rule = governed
    pending = await (await request(studio, owner, rule["id"])).json()
    rejected = await decide(studio, ada, rule["id"], pending["id"], "reject", comment="no")
    assert (await rejected.json())["status"] == "rejected"
    again = await decide(studio, ada, rule["id"], pending["id"], "approve")
    assert again.status == 409
    assert (await again.json())["error"]["code"] == "invalid_transition"


async def test_request_is_409_tests_failing_when_the_version_failed_its_tests(
        studio, owner, governed):
    _, rule = governed
    await studio.patch(owner, rule["id"], source=FAILING)
    response = await request(studio, owner, rule["id"], version=2)
    assert response.status == 409
    assert (await response.json())["error"]["code"] == "tests_failing"


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


async def test_a_member_is_403_when_requesting_approving_or_rejecting(studio, owner, governed):
    _, rule = governed
    max_ = await studio.tenancy.member(owner, "max@example.com")
    asked = await request(studio, owner, rule["id"], version=1)
    approval_id = (await asked.json())["id"]
    refused = [await request(studio, max_, rule["id"], version=1),
               await decide(studio, max_, rule["id"], approval_id, "approve"),
               await decide(studio, max_, rule["id"], approval_id, "reject")]
    assert [r.status for r in refused] == [403, 403, 403]
    listed = await studio.client.get(f"{BASE}/{rule['id']}/approvals/", headers=max_.headers)
    assert [a["status"] for a in (await listed.json())["approvals"]] == ["pending"]


async def test_approvals_are_409_rule_archived_when_the_rule_was_archived(studio, owner, governed):
    ada, rule = governed
    pending = await (await request(studio, owner, rule["id"], version=1)).json()
    assert (await studio.client.delete(f"{BASE}/{rule['id']}/",
                                       headers=owner.headers)).status == 204
    refused = [await decide(studio, ada, rule["id"], pending["id"], "approve"),
               await request(studio, owner, rule["id"], version=1)]
    assert [(r.status, (await r.json())["error"]["code"]) for r in refused] == [
        (409, "rule_archived"), (409, "rule_archived")]
    body = await (await studio.get(owner, f"{rule['id']}/")).json()
    assert (body["status"], body["published_version"]) == ("archived", None)


async def test_request_is_404_version_not_found_when_the_version_does_not_exist(
        studio, owner, governed):
    _, rule = governed
    response = await request(studio, owner, rule["id"], version=9)
    assert (response.status, (await response.json())["error"]["code"]) == (
        404, "version_not_found")


async def test_approval_is_403_self_approval_when_the_requester_approves_another_authors_version(
        studio, owner, governed):
    """Issue 34: four eyes are two people besides the author too: whoever asked for the
    approval cannot give it."""
    ada, rule = governed
    pending = await (await request(studio, ada, rule["id"])).json()
    response = await decide(studio, ada, rule["id"], pending["id"], "approve")
    assert response.status == 403
    assert "requested" in (await response.json())["error"]["message"]
    bea = await studio.tenancy.member(owner, "bea@example.com", "admin")
    approved = await decide(studio, bea, rule["id"], pending["id"], "approve")
    assert approved.status == 200
