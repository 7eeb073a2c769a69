"""GET /workspace/, GET /members/, PATCH and DELETE /members/<id>/: roles and confinement."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from tests.platform.team.conftest import BASE


async def test_workspace_shows_owner_members_and_usage_when_read_by_a_member(team):
    ann = await team.tenancy.owner("ann@example.com", "Lee Agency")
    max_ = await team.tenancy.member(ann, "max@example.com")
    response = await team.client.get(f"{BASE}/workspace/", headers=max_.headers)
    assert response.status == 200
    body = await response.json()
    assert body["tenant_id"] == ann.workspace_id and len(body["tenant_id"]) == 26
    assert body["name"] == "Lee Agency" and body["member_count"] == 2
    assert body["owner"] == {"id": ann.user_id, "email": "ann@example.com", "name": "Ann"}
    assert body["usage"] == {"plan": "standard", "members": 2, "pending_invitations": 0,
                             "api_keys": 0, "tenant_database_configured": False,
                             "invitations_per_hour": 10}


async def test_usage_counts_invitations_and_keys_when_they_exist(team):
    ann = await team.tenancy.owner("ann@example.com")
    assert (await team.invite(ann, "zoe@example.com")).status == 201
    await team.client.post("/api/v2/settings/api-keys/", json={"name": "k"}, headers=ann.headers)
    body = await (await team.client.get(f"{BASE}/workspace/", headers=ann.headers)).json()
    assert body["usage"]["pending_invitations"] == 1 and body["usage"]["api_keys"] == 1


async def test_members_are_listed_with_roles_when_read(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.tenancy.member(ann, "ada@example.com", "admin")
    max_ = await team.tenancy.member(ann, "max@example.com")
    listed = await team.members(max_)
    assert [(m["email"], m["role"]) for m in listed] == [
        ("ann@example.com", "owner"), ("ada@example.com", "admin"), ("max@example.com", "member")]


async def test_owner_changes_roles_when_the_target_is_a_member(team):
    ann = await team.tenancy.owner("ann@example.com")
    max_ = await team.tenancy.member(ann, "max@example.com")
    response = await team.client.patch(f"{BASE}/members/{max_.user_id}/", json={"role": "admin"},
                                       headers=ann.headers)
    assert response.status == 200
    assert (await response.json())["role"] == "admin"
    assert [m["role"] for m in await team.members(ann)] == ["owner", "admin"]


@pytest.mark.parametrize("role", ["admin", "member"])
async def test_role_change_is_403_permission_denied_when_the_caller_is_not_owner(team, role):
    ann = await team.tenancy.owner("ann@example.com")
    caller = await team.tenancy.member(ann, "ada@example.com", role)
    max_ = await team.tenancy.member(ann, "max@example.com")
    response = await team.client.patch(f"{BASE}/members/{max_.user_id}/", json={"role": "admin"},
                                       headers=caller.headers)
    assert response.status == 403
    assert (await response.json())["error"]["code"] == "permission_denied"


async def test_last_owner_is_409_when_demoting_themselves(team):
    ann = await team.tenancy.owner("ann@example.com")
    response = await team.client.patch(f"{BASE}/members/{ann.user_id}/",
                                       json={"role": "admin"}, headers=ann.headers)
    assert response.status == 409
    assert (await response.json())["error"]["code"] == "last_owner"


async def test_ownership_moves_when_the_owner_promotes_another_then_steps_down(team):
    ann = await team.tenancy.owner("ann@example.com")
    max_ = await team.tenancy.member(ann, "max@example.com")
    promote = await team.client.patch(f"{BASE}/members/{max_.user_id}/", json={"role": "owner"},
                                      headers=ann.headers)
    assert promote.status == 200
    step_down = await team.client.patch(f"{BASE}/members/{ann.user_id}/",
                                        json={"role": "member"}, headers=ann.headers)
    assert step_down.status == 200
    assert [(m["email"], m["role"]) for m in await team.members(max_)] == [
        ("ann@example.com", "member"), ("max@example.com", "owner")]
    refused = await team.client.patch(f"{BASE}/members/{max_.user_id}/",
                                      json={"role": "member"}, headers=max_.headers)
    assert refused.status == 409
    # Ann is a member now: owner-only routes refuse her.
    again = await team.client.patch(f"{BASE}/members/{max_.user_id}/", json={"role": "member"},
                                    headers=ann.headers)
    assert again.status == 403


async def test_admin_removes_a_member_who_then_loses_access_when_deleted(team):
    ann = await team.tenancy.owner("ann@example.com")
    ada = await team.tenancy.member(ann, "ada@example.com", "admin")
    max_ = await team.tenancy.member(ann, "max@example.com")
    response = await team.client.delete(f"{BASE}/members/{max_.user_id}/", headers=ada.headers)
    assert response.status == 204
    assert [m["email"] for m in await team.members(ann)] == ["ann@example.com",
                                                             "ada@example.com"]
    locked_out = await team.client.get(f"{BASE}/members/", headers=max_.headers)
    assert locked_out.status == 403
    assert (await team.client.delete(f"{BASE}/members/{max_.user_id}/",
                                     headers=ada.headers)).status == 404


async def test_owner_cannot_be_removed_when_an_admin_or_owner_tries(team):
    ann = await team.tenancy.owner("ann@example.com")
    ada = await team.tenancy.member(ann, "ada@example.com", "admin")
    for caller in (ada, ann):
        response = await team.client.delete(f"{BASE}/members/{ann.user_id}/",
                                            headers=caller.headers)
        assert response.status == 409
        assert (await response.json())["error"]["code"] == "owner_cannot_be_removed"


async def test_member_removal_is_403_when_the_caller_is_a_member(team):
    ann = await team.tenancy.owner("ann@example.com")
    max_ = await team.tenancy.member(ann, "max@example.com")
    zoe = await team.tenancy.member(ann, "zoe@example.com")
    response = await team.client.delete(f"{BASE}/members/{zoe.user_id}/", headers=max_.headers)
    assert response.status == 403
    assert (await response.json())["error"]["code"] == "permission_denied"


async def test_other_workspace_is_invisible_and_unchangeable_when_ids_are_known(team):
    ann = await team.tenancy.owner("ann@example.com", "Lee Agency")
    max_ = await team.tenancy.member(ann, "max@example.com")
    bob = await team.tenancy.owner("bob@example.com", "Bob Brokers")
    assert [m["email"] for m in await team.members(bob)] == ["bob@example.com"]
    workspace = await (await team.client.get(f"{BASE}/workspace/", headers=bob.headers)).json()
    assert workspace["tenant_id"] == bob.workspace_id and workspace["member_count"] == 1
    for method, body in (("PATCH", {"role": "owner"}), ("DELETE", None)):
        response = await team.client.request(method, f"{BASE}/members/{max_.user_id}/",
                                             json=body, headers=bob.headers)
        assert response.status == 404
    assert [(m["email"], m["role"]) for m in await team.members(ann)] == [
        ("ann@example.com", "owner"), ("max@example.com", "member")]


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/workspace/"), ("GET", "/members/"), ("PATCH", "/members/01J00000000000000000000000/"),
    ("DELETE", "/members/01J00000000000000000000000/"), ("POST", "/invite/"),
    ("GET", "/invitations/"), ("POST", "/invitations/01J00000000000000000000000/revoke/"),
    ("POST", "/invitations/01J00000000000000000000000/resend/")])
async def test_team_routes_are_401_when_there_is_no_session(team, method, path):
    response = await team.client.request(method, BASE + path,
                                         json={"role": "member", "email": "a@b.co"})
    assert response.status == 401
    assert (await response.json())["error"]["code"] == "not_authenticated"


async def test_workspace_answers_without_owner_when_the_owner_account_was_deleted(team):
    ann = await team.tenancy.owner("ann@example.com")
    max_ = await team.tenancy.member(ann, "max@example.com")
    async with team.tenancy.database.unit_of_work() as uow:
        await uow.session.execute(text("DELETE FROM users WHERE id = :id"), {"id": ann.user_id})
    body = await (await team.client.get(f"{BASE}/workspace/", headers=max_.headers)).json()
    assert body["owner"] is None and body["owners"] == [] and body["member_count"] == 1
