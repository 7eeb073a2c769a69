"""Roles and workspace confinement of the rule studio's routes."""

from __future__ import annotations

import pytest

from tests.platform.rules_studio.conftest import BASE, LOWERED, TRIAGE


async def test_members_read_and_check_when_they_are_not_admins(studio, owner):
    rule = await studio.created(owner)
    max_ = await studio.tenancy.member(owner, "max@example.com")
    assert (await studio.get(max_, "")).status == 200
    assert (await studio.get(max_, f"{rule['id']}/")).status == 200
    assert (await studio.get(max_, f"{rule['id']}/versions/")).status == 200
    checked = await studio.client.post(f"{BASE}/check/", json={"source": TRIAGE},
                                       headers=max_.headers)
    assert checked.status == 200


async def test_members_are_403_permission_denied_when_they_create_change_or_archive(
        studio, owner):
    rule = await studio.created(owner)
    max_ = await studio.tenancy.member(owner, "max@example.com")
    refused = [await studio.create(max_, TRIAGE.replace("triage.small", "x.y")),
               await studio.patch(max_, rule["id"], source=LOWERED),
               await studio.client.delete(f"{BASE}/{rule['id']}/", headers=max_.headers)]
    assert [r.status for r in refused] == [403, 403, 403]
    assert {(await r.json())["error"]["code"] for r in refused} == {"permission_denied"}


async def test_admins_create_and_change_when_they_are_not_owners(studio, owner):
    ada = await studio.tenancy.member(owner, "ada@example.com", "admin")
    rule = await studio.created(ada)
    assert (await studio.patch(ada, rule["id"], source=LOWERED)).status == 200


@pytest.mark.parametrize("method,path,body", [
    ("GET", "{id}/", None), ("GET", "{id}/versions/", None), ("PATCH", "{id}/", {"title": "x"}),
    ("DELETE", "{id}/", None), ("GET", "{id}/history/", None), ("GET", "{id}/executions/", None),
    ("GET", "{id}/approvals/", None), ("POST", "{id}/approvals/", {}),
    ("POST", "{id}/execute/", {"inputs": {"claim": {"amount": 1}}}),
    ("PATCH", "{id}/", {"published_version": 1})])
async def test_another_workspaces_rule_is_404_when_addressed(studio, owner, method, path, body):
    rule = await studio.created(owner)
    zoe = await studio.tenancy.owner("zoe@example.com", "Other Agency")
    response = await studio.client.request(method, f"{BASE}/{path.format(id=rule['id'])}",
                                           json=body, headers=zoe.headers)
    assert response.status == 404
    assert (await response.json())["error"]["code"] == "not_found"
    listed = await (await studio.get(zoe, "")).json()
    assert listed["items"] == []
    # the same ruleset name is free in the other workspace
    assert (await studio.create(zoe)).status == 201


async def test_routes_are_401_when_there_is_no_session(studio):
    response = await studio.client.get(f"{BASE}/")
    assert response.status == 401


async def test_a_fixed_path_is_405_not_404_when_called_with_another_method(studio, owner):
    response = await studio.client.patch(f"{BASE}/check/", json={}, headers=owner.headers)
    assert response.status == 405
    assert (await response.json())["error"]["code"] == "method_not_allowed"
