"""The API-key authenticator: Bearer keys against stored digests, scopes, revocation, expiry."""

from __future__ import annotations

import datetime

import pytest
from ulid import ULID

from insureops.platform.app import AREAS, Area
from insureops.platform.auth.requirements import Auth, Scope
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.identity import Workspace
from insureops.platform.keys import DATABASE
from insureops.platform.records.api_keys import (
    KEY_PREFIX,
    ApiKey,
    hash_api_key,
    is_well_formed,
    new_api_key,
    normalise_scopes,
)
from tests.platform.accounts.conftest import FakeClock
from tests.platform.conftest import WhoAmI

NOW = datetime.datetime(2027, 1, 15, 8, 0, tzinfo=datetime.UTC)


def key_probe() -> RouteTable:
    table = RouteTable("key_probe")

    @table.get("/read/", response=WhoAmI, auth=Auth.api_key(Scope.READ), summary="Read")
    async def read(call: Call[None, None]) -> WhoAmI:
        return WhoAmI(user_id=call.principal.subject, role=call.principal.active_workspace_id)

    @table.post("/write/", response=WhoAmI, auth=Auth.api_key(Scope.WRITE), summary="Write")
    async def write(call: Call[None, None]) -> WhoAmI:
        return WhoAmI(user_id=call.principal.subject, role=call.principal.active_workspace_id)

    return table


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(NOW.timestamp())


@pytest.fixture
async def keyed(make_client, settings, clock):
    client = await make_client(settings, clock=clock,
                               areas=(*AREAS, Area("/api/kp", lambda: key_probe().build_app())))
    database = client.app[DATABASE]

    async def add_key(scopes=(Scope.READ, Scope.WRITE), expires_at=None, revoked_at=None,
                      workspace_id="01JWORKSPACE00000000000001") -> tuple[str, str]:
        key = new_api_key()
        key_id = str(ULID())
        async with database.unit_of_work() as uow:
            if await uow.session.get(Workspace, workspace_id) is None:
                uow.session.add(Workspace(tenant_id=workspace_id, name="Lee Agency",
                                          created_at=NOW))
                await uow.session.flush()
            uow.session.add(ApiKey(id=key_id, workspace_id=workspace_id, name="k",
                                   display_prefix=key[:11], key_hash=hash_api_key(key),
                                   scopes=normalise_scopes(scopes), created_at=NOW,
                                   expires_at=expires_at, revoked_at=revoked_at))
        return key, key_id

    client.add_key = add_key
    return client


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_new_keys_have_the_prefix_and_40_base62_characters_when_generated():
    keys = {new_api_key() for _ in range(50)}
    assert len(keys) == 50
    assert all(key.startswith(KEY_PREFIX) and len(key) == 45 and is_well_formed(key)
               for key in keys)
    assert not is_well_formed("iops_" + "-" * 40)


def test_write_scope_is_stored_with_read_when_normalised():
    assert normalise_scopes([Scope.WRITE]) == "read write"
    assert normalise_scopes([Scope.READ]) == "read"


async def test_key_authenticates_with_workspace_and_key_id_when_valid(keyed):
    key, key_id = await keyed.add_key()
    response = await keyed.get("/api/kp/read/", headers=bearer(key))
    assert response.status == 200
    assert await response.json() == {"user_id": key_id, "role": "01JWORKSPACE00000000000001"}
    written = await keyed.post("/api/kp/write/", headers=bearer(key))
    assert written.status == 200


async def test_last_used_is_recorded_when_a_key_authenticates(keyed, clock):
    key, key_id = await keyed.add_key()
    await keyed.get("/api/kp/read/", headers=bearer(key))
    async with keyed.app[DATABASE].unit_of_work() as uow:
        assert (await uow.session.get(ApiKey, key_id)).last_used_at == NOW
    clock.advance(3600)
    await keyed.get("/api/kp/read/", headers=bearer(key))
    async with keyed.app[DATABASE].unit_of_work() as uow:
        assert (await uow.session.get(ApiKey, key_id)).last_used_at == NOW + datetime.timedelta(
            hours=1)


async def test_read_key_is_403_insufficient_scope_when_it_writes(keyed):
    key, _ = await keyed.add_key(scopes=(Scope.READ,))
    assert (await keyed.get("/api/kp/read/", headers=bearer(key))).status == 200
    response = await keyed.post("/api/kp/write/", headers=bearer(key))
    assert response.status == 403
    assert (await response.json())["error"]["code"] == "insufficient_scope"


@pytest.mark.parametrize("header", [None, "Bearer", "Basic abc", "Bearer iops_short",
                                    "Bearer " + "iops_" + "A" * 40])
async def test_request_is_401_invalid_api_key_when_the_key_is_missing_or_unknown(keyed, header):
    await keyed.add_key()
    headers = {"Authorization": header} if header else {}
    response = await keyed.get("/api/kp/read/", headers=headers)
    assert response.status == 401
    assert (await response.json())["error"]["code"] == "invalid_api_key"


async def test_key_is_401_when_revoked_or_expired(keyed, clock):
    revoked, _ = await keyed.add_key(revoked_at=NOW)
    expiring, _ = await keyed.add_key(expires_at=NOW + datetime.timedelta(minutes=5))
    assert (await keyed.get("/api/kp/read/", headers=bearer(revoked))).status == 401
    assert (await keyed.get("/api/kp/read/", headers=bearer(expiring))).status == 200
    clock.advance(300)
    response = await keyed.get("/api/kp/read/", headers=bearer(expiring))
    assert response.status == 401
    assert (await response.json())["error"]["code"] == "invalid_api_key"
