"""The session authenticator serves every area: a real login opens Session routes elsewhere."""

from __future__ import annotations

import re

from tests.platform.conftest import PROBE_PREFIX, probe_areas

PASSWORD = "correct horse battery"


async def logged_in_client(make_client, settings, capsys):
    client = await make_client(settings, areas=probe_areas())
    capsys.readouterr()
    await client.post("/api/auth/signup/", json={
        "email": "ann@example.com", "password": PASSWORD, "name": "Ann Lee"})
    code = re.search(r"\b(\d{6})\b", capsys.readouterr().out).group(1)  # the outbox printed it
    assert (await client.post("/api/auth/verify/", json={
        "email": "ann@example.com", "code": code})).status == 200
    assert (await client.post("/api/auth/login/", json={
        "email": "ann@example.com", "password": PASSWORD})).status == 200
    return client


async def test_owner_passes_an_admin_route_of_another_area_when_logged_in(
        make_client, settings, capsys):
    client = await logged_in_client(make_client, settings, capsys)

    response = await client.get(f"{PROBE_PREFIX}/guarded/")

    assert response.status == 200
    body = await response.json()
    assert body["role"] == "owner" and len(body["user_id"]) == 26


async def test_workspace_limit_counts_the_session_workspace_when_logged_in(
        make_client, settings, capsys):
    client = await logged_in_client(make_client, settings, capsys)

    answers = [await client.post(f"{PROBE_PREFIX}/limited-by-workspace/") for _ in range(3)]

    assert [r.status for r in answers] == [200, 200, 429]


async def test_other_area_route_is_401_when_logged_out(make_client, settings, capsys):
    client = await logged_in_client(make_client, settings, capsys)
    assert (await client.post("/api/auth/logout/")).status == 204

    response = await client.get(f"{PROBE_PREFIX}/guarded/")

    assert response.status == 401
    assert (await response.json())["error"]["code"] == "not_authenticated"
