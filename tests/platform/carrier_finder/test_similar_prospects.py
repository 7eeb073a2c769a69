"""POST /similar-businesses/ with the workspace's prospects: a prospect counts for a workspace when
the e-mail its owner's token verified is the verified e-mail of a member; never another's."""

from __future__ import annotations

import pytest
from aiohttp import web

from insureops.platform.carrier_finder.scan.service import reference_size
from insureops.platform.config import Settings
from tests.platform.carrier_finder.conftest import start_finder
from tests.platform.prospects.conftest import AUDIENCE, ISSUER, IdentityProvider

CLIENTS = "/api/v1/carrier_finder/clients"
QUERY = {"naics": "238220", "description": "emergency plumber fixing leaky pipes", "limit": 50}


@pytest.fixture
async def idp(aiohttp_server) -> IdentityProvider:
    provider = IdentityProvider(clock=lambda: 0.0)
    app = web.Application()
    app.router.add_get("/.well-known/jwks.json", provider.serve_jwks)
    provider.url = str((await aiohttp_server(app)).make_url("/.well-known/jwks.json"))
    return provider


def trusting(settings: Settings, idp: IdentityProvider) -> Settings:
    return settings.model_copy(
        update={"jwt_jwks_url": idp.url, "jwt_issuer": ISSUER, "jwt_audience": AUDIENCE}
    )


async def save_prospect(finder, idp: IdentityProvider, subject: str, **claims) -> dict:
    """`subject` accepts the terms and saves a plumber prospect with a token carrying `claims`."""
    fields = claims.pop("fields", {})
    headers = idp.headers(subject, **claims)
    accepted = await finder.client.post(
        f"{CLIENTS}/accept-terms/", json={"version": "2026-11-01"}, headers=headers
    )
    assert accepted.status == 200, await accepted.text()
    saved = await finder.client.post(
        f"{CLIENTS}/",
        headers=headers,
        json={
            "company_name": f"{subject} Plumbing",
            "naics": "238220",
            "state": "az",
            "notes": "emergency plumber, leaky pipes and water heaters",
            **fields,
        },
    )
    assert saved.status == 201, await saved.text()
    return await saved.json()


async def similar(finder, member) -> dict:
    response = await finder.client.post(
        "/api/v1/carrier_finder/similar-businesses/", json=QUERY, headers=member.headers
    )
    body = await response.json()
    assert response.status == 200, body
    return body


def prospect_ids(body: dict) -> set[str]:
    return {r["business"]["id"] for r in body["results"] if r["source"] == "prospect"}


async def test_similar_businesses_include_only_the_workspaces_own_prospects_when_saved(
    aiohttp_client, settings, idp
):
    finder = await start_finder(aiohttp_client, trusting(settings, idp), market=False)
    idp.clock = finder.tenancy.clock
    lee = finder.member  # lee@agency.test, owner of Lee Agency
    kim = await finder.tenancy.owner("kim@other.test", "Other Agency")
    lees = await save_prospect(finder, idp, "lee-sub", email="Lee@Agency.test", email_verified=True)
    kims = await save_prospect(finder, idp, "kim-sub", email="kim@other.test", email_verified=True)
    unverified = await save_prospect(
        finder, idp, "mallory-sub", email="lee@agency.test", email_verified=False
    )
    stranger = await save_prospect(
        finder, idp, "eve-sub", email="eve@elsewhere.test", email_verified=True
    )
    assert "owner_email" not in lees

    mine = await similar(finder, lee)
    assert prospect_ids(mine) == {lees["id"]} and mine["prospects"] == 1
    assert mine["considered"] == reference_size() + 1
    hit = next(r for r in mine["results"] if r["source"] == "prospect")
    assert hit["business"]["name"] == "lee-sub Plumbing" and hit["business"]["state"] == "AZ"
    assert hit["business"]["annual_revenue"] is None
    assert hit["reasons"][0] == "same NAICS industry 238220"
    assert {r["source"] for r in mine["results"]} == {"reference", "prospect"}

    theirs = await similar(finder, kim)
    assert prospect_ids(theirs) == {kims["id"]}
    for body in (mine, theirs):
        assert not prospect_ids(body) & {unverified["id"], stranger["id"]}


async def test_prospects_leave_the_workspace_when_the_owners_next_save_has_no_verified_email(
    aiohttp_client, settings, idp
):
    finder = await start_finder(aiohttp_client, trusting(settings, idp), market=False)
    idp.clock = finder.tenancy.clock
    first = await save_prospect(
        finder, idp, "lee-sub", email="lee@agency.test", email_verified="true"
    )
    assert prospect_ids(await similar(finder, finder.member)) == {first["id"]}
    await save_prospect(finder, idp, "lee-sub", fields={"company_name": "Second"})
    body = await similar(finder, finder.member)
    assert prospect_ids(body) == set() and body["prospects"] == 0
