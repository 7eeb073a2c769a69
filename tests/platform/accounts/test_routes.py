"""GET /api/auth/profile/: 401 without a session; the session principal's profile with one."""

from __future__ import annotations

from insureops.platform.auth.requirements import AuthKind, Membership, Principal, Role, UserIdentity


async def test_profile_is_401_json_when_there_is_no_session(client):
    response = await client.get("/api/auth/profile/")
    assert response.status == 401
    assert (await response.json())["error"]["code"] == "not_authenticated"


async def test_profile_lists_workspaces_and_the_active_one_when_a_session_is_found(
        make_client, settings):
    async def session(request) -> Principal:
        """Stand-in for the session lookup the accounts issue adds."""
        return Principal(
            AuthKind.SESSION, user=UserIdentity("01J0USER", "ann@example.com", "Ann Lee"),
            memberships=(Membership("01J0WS1", "Lee Agency", Role.OWNER),
                         Membership("01J0WS2", "Partner Brokers", Role.MEMBER)),
            active_workspace_id="01J0WS2")

    client = await make_client(settings, authenticators={AuthKind.SESSION: session})
    response = await client.get("/api/auth/profile/")
    assert response.status == 200
    assert await response.json() == {
        "user": {"id": "01J0USER", "email": "ann@example.com", "name": "Ann Lee",
                 "email_verified": True},
        "workspaces": [{"id": "01J0WS1", "name": "Lee Agency", "role": "owner"},
                       {"id": "01J0WS2", "name": "Partner Brokers", "role": "member"}],
        "active_workspace": {"id": "01J0WS2", "name": "Partner Brokers", "role": "member"},
    }
