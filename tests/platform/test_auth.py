"""Auth hook points: session requirement, roles, origins, and the kinds still without a backend."""

from __future__ import annotations

import pytest

from insureops.platform.app import Area
from insureops.platform.auth.requirements import (
    Auth,
    Authenticators,
    AuthKind,
    Principal,
    Role,
    Scope,
)
from insureops.platform.http.routing import Call, RouteTable

GUARDED = "/api/probe/guarded/"


async def test_guarded_route_is_401_when_there_is_no_session(probe):
    response = await probe.get(GUARDED)
    assert response.status == 401
    assert (await response.json())["error"]["code"] == "not_authenticated"


async def test_guarded_route_is_403_when_the_role_is_too_low(probe):
    response = await probe.get(GUARDED, headers={"X-Test-Role": "member"})
    assert response.status == 403
    assert (await response.json())["error"]["code"] == "permission_denied"


@pytest.mark.parametrize("role", ["admin", "owner"])
async def test_guarded_route_answers_when_the_role_is_admin_or_higher(probe, role):
    response = await probe.get(GUARDED, headers={"X-Test-Role": role})
    assert response.status == 200
    assert await response.json() == {"user_id": "u1", "role": role}


async def test_foreign_origin_is_403_when_a_session_route_is_called_unsafely(make_probe, settings):
    table = RouteTable("origin")

    @table.post("/act/", response=None, status=204, auth=Auth.SESSION, summary="Act")
    async def act(call: Call[None, None]) -> None:
        return None

    allowed = settings.model_copy(update={"allowed_origins": ("https://app.example.com",)})
    client = await make_probe(allowed, extra=(Area("/api/origin", table.build_app),))
    session = {"X-Test-Role": "member"}
    refused = await client.post("/api/origin/act/",
                                headers={**session, "Origin": "https://evil.example"})
    assert refused.status == 403
    assert (await refused.json())["error"]["code"] == "origin_not_allowed"
    allowed_call = await client.post("/api/origin/act/",
                                     headers={**session, "Origin": "https://app.example.com"})
    assert allowed_call.status == 204
    assert (await client.post("/api/origin/act/", headers=session)).status == 204


async def test_api_key_routes_answer_invalid_api_key_when_no_key_backend_exists(make_probe,
                                                                              settings):
    table = RouteTable("keys")

    @table.get("/read/", response=None, status=204, auth=Auth.api_key(Scope.READ), summary="R")
    async def read(call: Call[None, None]) -> None:
        return None

    client = await make_probe(settings, extra=(Area("/api/keys", table.build_app),))
    response = await client.get("/api/keys/read/", headers={"Authorization": "Bearer iops_x"})
    assert response.status == 401
    assert (await response.json())["error"]["code"] == "invalid_api_key"


def test_owner_satisfies_admin_checks_when_roles_are_compared():
    assert Role.OWNER.satisfies(Role.ADMIN)
    assert Role.ADMIN.satisfies(Role.MEMBER)
    assert not Role.MEMBER.satisfies(Role.ADMIN)
    assert not Role.ADMIN.satisfies(Role.OWNER)


def test_write_scope_implies_read_when_checking_a_key():
    writer = Principal(AuthKind.API_KEY, scopes=frozenset({Scope.WRITE}))
    reader = Principal(AuthKind.API_KEY, scopes=frozenset({Scope.READ}))
    assert writer.has_scope(Scope.READ) and writer.has_scope(Scope.WRITE)
    assert reader.has_scope(Scope.READ) and not reader.has_scope(Scope.WRITE)


def test_registering_is_refused_when_the_kind_needs_no_authenticator():
    async def anyone(request) -> Principal:
        return Principal(AuthKind.NONE)

    with pytest.raises(ValueError, match="need no authenticator"):
        Authenticators().register(AuthKind.TOKEN, anyone)
