"""Invitations: invite (e-mailed link, rate limit), list, accept with the token, revoke, resend."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from insureops.platform.team.invitations import hash_token
from tests.platform.team.conftest import BASE
from tests.platform.workspaces import PASSWORD

NEW_PASSWORD = "a long new password"
DAY = 24 * 3600


async def pending(team, admin) -> list[dict]:
    response = await team.client.get(f"{BASE}/invitations/", headers=admin.headers)
    assert response.status == 200
    return (await response.json())["invitations"]


async def login(team, email: str, password: str):
    return await team.client.post("/api/auth/login/", json={"email": email, "password": password})


async def test_invitation_is_emailed_and_listed_without_its_token_when_sent(team):
    ann = await team.tenancy.owner("ann@example.com", "Lee Agency")
    response = await team.invite(ann, "Zoe@Example.com", "admin")
    assert response.status == 201
    body = await response.json()
    assert body["email"] == "zoe@example.com" and body["role"] == "admin"
    assert body["status"] == "pending" and body["email_delivered"] is True
    invitation_id, token = team.last_link("zoe@example.com")
    assert invitation_id == body["id"] and len(token) == 43
    message = team.smtp.messages[-1]
    assert "Lee Agency" in message.message["Subject"] and "Ann" in message.text_body()
    listed = await pending(team, ann)
    assert [i["id"] for i in listed] == [body["id"]] and token not in str(listed)
    async with team.tenancy.database.engine.connect() as connection:
        stored = (await connection.execute(text("SELECT token_hash FROM invitations"))).all()
        logged = (await connection.execute(text("SELECT text_body FROM email_log"))).all()
    assert stored == [(hash_token(token),)]
    assert token not in str(logged) and "[redacted]" in logged[-1][0]


async def test_new_user_joins_with_name_and_password_when_accepting(team):
    ann = await team.tenancy.owner("ann@example.com", "Lee Agency")
    await team.invite(ann, "zoe@example.com", "admin")
    invitation_id, token = team.last_link("zoe@example.com")
    response = await team.accept(invitation_id, token=token, name="Zoe Park",
                                 password=NEW_PASSWORD)
    assert response.status == 200
    body = await response.json()
    assert body["workspace"] == {"id": ann.workspace_id, "name": "Lee Agency"}
    assert body["role"] == "admin" and body["new_user"] is True
    assert body["user"]["email"] == "zoe@example.com" and body["user"]["name"] == "Zoe Park"
    logged_in = await login(team, "zoe@example.com", NEW_PASSWORD)
    assert logged_in.status == 200
    profile = await logged_in.json()
    assert profile["active_workspace"] == {"id": ann.workspace_id, "name": "Lee Agency",
                                           "role": "admin"}
    assert [(m["email"], m["role"]) for m in await team.members(ann)] == [
        ("ann@example.com", "owner"), ("zoe@example.com", "admin")]
    assert await pending(team, ann) == []


async def test_existing_user_joins_with_the_token_alone_when_accepting(team):
    ann = await team.tenancy.owner("ann@example.com")
    bob = await team.tenancy.owner("bob@example.com", "Bob Brokers")
    await team.invite(ann, "bob@example.com")
    invitation_id, token = team.last_link("bob@example.com")
    response = await team.accept(invitation_id, token=token)
    assert response.status == 200
    body = await response.json()
    assert body["new_user"] is False and body["user"]["id"] == bob.user_id
    assert (await login(team, "bob@example.com", PASSWORD)).status == 200
    assert [m["email"] for m in await team.members(ann)] == ["ann@example.com",
                                                             "bob@example.com"]


@pytest.mark.parametrize(("body", "field"), [({}, "name"), ({"name": "Zoe"}, "password"),
                                             ({"name": "Zoe", "password": "short"}, "password")])
async def test_new_user_is_400_when_name_or_password_is_missing_or_weak(team, body, field):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, token = team.last_link("zoe@example.com")
    response = await team.accept(invitation_id, token=token, **body)
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "validation_error" and error["details"][0]["field"] == field
    assert await pending(team, ann) != []  # still open


async def test_accepting_twice_makes_one_membership_when_the_token_is_reused(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, token = team.last_link("zoe@example.com")
    first = await team.accept(invitation_id, token=token, name="Zoe", password=NEW_PASSWORD)
    assert first.status == 200
    second = await team.accept(invitation_id, token=token, name="Zoe", password=NEW_PASSWORD)
    assert second.status == 410
    assert (await second.json())["error"]["code"] == "invitation_used"
    assert [m["email"] for m in await team.members(ann)].count("zoe@example.com") == 1


@pytest.mark.parametrize("token", ["wrong", "A" * 43])
async def test_wrong_token_is_401_invalid_token_when_accepting(team, token):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, _ = team.last_link("zoe@example.com")
    response = await team.accept(invitation_id, token=token, name="Zoe", password=NEW_PASSWORD)
    assert response.status == 401
    assert (await response.json())["error"]["code"] == "invalid_token"
    unknown = await team.accept("01J00000000000000000000000", token=token)
    assert unknown.status == 401


async def test_token_of_one_invitation_is_refused_when_used_on_another(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    await team.invite(ann, "max@example.com")
    zoe_id, _ = team.last_link("zoe@example.com")
    _, max_token = team.last_link("max@example.com")
    response = await team.accept(zoe_id, token=max_token, name="Max", password=NEW_PASSWORD)
    assert response.status == 401


async def test_expired_invitation_is_410_and_unlisted_when_seven_days_passed(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, token = team.last_link("zoe@example.com")
    team.tenancy.clock.advance(7 * DAY)
    assert await pending(team, ann) == []
    response = await team.accept(invitation_id, token=token, name="Zoe", password=NEW_PASSWORD)
    assert response.status == 410
    assert (await response.json())["error"]["code"] == "invitation_expired"


async def test_revoked_invitation_is_410_when_accepted(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, token = team.last_link("zoe@example.com")
    revoked = await team.client.post(f"{BASE}/invitations/{invitation_id}/revoke/",
                                     headers=ann.headers)
    assert revoked.status == 200
    assert (await revoked.json())["status"] == "revoked"
    assert await pending(team, ann) == []
    response = await team.accept(invitation_id, token=token, name="Zoe", password=NEW_PASSWORD)
    assert response.status == 410
    assert (await response.json())["error"]["code"] == "invitation_revoked"
    again = await team.client.post(f"{BASE}/invitations/{invitation_id}/revoke/",
                                   headers=ann.headers)
    assert again.status == 409
    assert (await again.json())["error"]["code"] == "invalid_transition"


async def test_resend_issues_a_new_token_and_expiry_when_the_old_one_stops(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, old_token = team.last_link("zoe@example.com")
    first = (await pending(team, ann))[0]
    team.tenancy.clock.advance(6 * DAY)
    response = await team.client.post(f"{BASE}/invitations/{invitation_id}/resend/",
                                      headers=ann.headers)
    assert response.status == 200
    body = await response.json()
    assert body["send_count"] == 2 and body["expires_at"] > first["expires_at"]
    same_id, new_token = team.last_link("zoe@example.com")
    assert same_id == invitation_id and new_token != old_token
    assert (await team.accept(invitation_id, token=old_token, name="Zoe",
                              password=NEW_PASSWORD)).status == 401
    team.tenancy.clock.advance(2 * DAY)  # past the first expiry, within the new one
    accepted = await team.accept(invitation_id, token=new_token, name="Zoe",
                                 password=NEW_PASSWORD)
    assert accepted.status == 200
    resend_used = await team.client.post(f"{BASE}/invitations/{invitation_id}/resend/",
                                         headers=ann.headers)
    assert resend_used.status == 409


async def test_resend_revives_an_expired_invitation_when_asked(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, _ = team.last_link("zoe@example.com")
    team.tenancy.clock.advance(8 * DAY)
    response = await team.client.post(f"{BASE}/invitations/{invitation_id}/resend/",
                                      headers=ann.headers)
    assert (await response.json())["status"] == "pending"
    assert [i["id"] for i in await pending(team, ann)] == [invitation_id]


async def test_invite_is_409_when_the_address_is_a_member_or_already_invited(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.tenancy.member(ann, "max@example.com")
    member = await team.invite(ann, "MAX@example.com")
    assert member.status == 409
    assert (await member.json())["error"]["code"] == "already_member"
    assert (await team.invite(ann, "zoe@example.com")).status == 201
    twice = await team.invite(ann, "zoe@example.com")
    assert twice.status == 409
    assert (await twice.json())["error"]["code"] == "invitation_pending"


@pytest.mark.parametrize("body", [{"email": "not-an-address", "role": "member"},
                                  {"email": "zoe@example.com", "role": "owner"}])
async def test_invite_is_400_when_the_body_is_invalid(team, body):
    ann = await team.tenancy.owner("ann@example.com")
    response = await team.client.post(f"{BASE}/invite/", json=body, headers=ann.headers)
    assert response.status == 400
    assert (await response.json())["error"]["code"] == "validation_error"


async def test_invite_is_limited_to_10_per_hour_per_workspace_when_exceeded(team):
    ann = await team.tenancy.owner("ann@example.com")
    bob = await team.tenancy.owner("bob@example.com", "Bob Brokers")
    for number in range(10):
        response = await team.invite(ann, f"guest{number}@example.com")
        assert response.status == 201
        assert response.headers["X-RateLimit-Limit"] == "10"
        assert response.headers["X-RateLimit-Remaining"] == str(9 - number)
        assert int(response.headers["X-RateLimit-Reset"]) > team.tenancy.clock()
    refused = await team.invite(ann, "guest10@example.com")
    assert refused.status == 429
    assert (await refused.json())["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    assert (await team.invite(bob, "guest10@example.com")).status == 201  # its own count
    team.tenancy.clock.advance(3600)
    assert (await team.invite(ann, "guest10@example.com")).status == 201


@pytest.mark.parametrize("action", ["invite", "list", "revoke", "resend"])
async def test_invitation_admin_routes_are_403_when_the_caller_is_a_member(team, action):
    ann = await team.tenancy.owner("ann@example.com")
    max_ = await team.tenancy.member(ann, "max@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, _ = team.last_link("zoe@example.com")
    requests = {"invite": ("POST", "/invite/", {"email": "x@example.com", "role": "member"}),
                "list": ("GET", "/invitations/", None),
                "revoke": ("POST", f"/invitations/{invitation_id}/revoke/", None),
                "resend": ("POST", f"/invitations/{invitation_id}/resend/", None)}
    method, path, body = requests[action]
    response = await team.client.request(method, BASE + path, json=body, headers=max_.headers)
    assert response.status == 403
    assert (await response.json())["error"]["code"] == "permission_denied"


async def test_admin_manages_invitations_when_not_owner(team):
    ann = await team.tenancy.owner("ann@example.com")
    ada = await team.tenancy.member(ann, "ada@example.com", "admin")
    assert (await team.invite(ada, "zoe@example.com")).status == 201
    assert len(await pending(team, ada)) == 1


async def test_other_workspace_cannot_see_revoke_or_resend_when_it_knows_the_id(team):
    ann = await team.tenancy.owner("ann@example.com")
    bob = await team.tenancy.owner("bob@example.com", "Bob Brokers")
    await team.invite(ann, "zoe@example.com")
    invitation_id, token = team.last_link("zoe@example.com")
    assert await pending(team, bob) == []
    for action in ("revoke", "resend"):
        response = await team.client.post(f"{BASE}/invitations/{invitation_id}/{action}/",
                                          headers=bob.headers)
        assert response.status == 404
    assert len(team.links_for("zoe@example.com")) == 1
    accepted = await team.accept(invitation_id, token=token, name="Zoe", password=NEW_PASSWORD)
    assert (await accepted.json())["workspace"]["id"] == ann.workspace_id
    assert [m["email"] for m in await team.members(bob)] == ["bob@example.com"]


async def test_unverified_signup_is_taken_over_when_the_invitee_accepts(team):
    ann = await team.tenancy.owner("ann@example.com")
    squatter = await team.tenancy.add_user("zoe@example.com", "Not Zoe")
    async with team.tenancy.database.unit_of_work() as uow:
        await uow.session.execute(text("UPDATE users SET email_verified_at = NULL WHERE id = :id"),
                                  {"id": squatter})
    await team.invite(ann, "zoe@example.com")
    invitation_id, token = team.last_link("zoe@example.com")
    without_password = await team.accept(invitation_id, token=token)
    assert without_password.status == 400
    response = await team.accept(invitation_id, token=token, name="Zoe", password=NEW_PASSWORD)
    body = await response.json()
    assert body["new_user"] is True and body["user"]["id"] == squatter
    assert (await login(team, "zoe@example.com", PASSWORD)).status == 401
    assert (await login(team, "zoe@example.com", NEW_PASSWORD)).status == 200


async def test_simultaneous_accepts_make_one_user_and_one_membership_when_raced(team):
    ann = await team.tenancy.owner("ann@example.com")
    await team.invite(ann, "zoe@example.com")
    invitation_id, token = team.last_link("zoe@example.com")
    responses = await asyncio.gather(*(
        team.accept(invitation_id, token=token, name="Zoe", password=NEW_PASSWORD)
        for _ in range(2)))
    statuses = sorted(response.status for response in responses)
    assert statuses == [200, 410], statuses
    loser = next(r for r in responses if r.status == 410)
    assert (await loser.json())["error"]["code"] == "invitation_used"
    assert [m["email"] for m in await team.members(ann)].count("zoe@example.com") == 1
