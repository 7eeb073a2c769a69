"""Issue 32: a uw_submission started from a matched product, by the finder page's session
(POST /api/v1/carrier_finder/submissions/) and by an API key (POST /api/v2/mcp/uw_submissions/),
on the workspace's own database; a binding on uw_submission `created` scores it."""

from __future__ import annotations

import json

import pytest

from insureops.platform.auth.requirements import Scope
from tests.platform.carrier_finder.conftest import BASE, start_finder
from tests.platform.mcp.conftest import add_key, own_tenant_database, save_database_url
from tests.platform.rules_studio.conftest import Studio
from tests.platform.rules_studio.work_helpers import (
    bind,
    eventually,
    published,
    tenant_rows,
)

PRODUCT = "granite-trades/trades-gl"
BUSINESS = {"name": "Bright Spark Electric", "naics": "238210", "state": "AZ",
            "annual_revenue": 1750000, "years_in_business": 15, "lines_of_business": ["CGL"],
            "operations": {"subcontracted_percent": 10}}

SCORING = '''ruleset submissions.gl "GL submissions"
input uw_submission: UwSubmission
default decision accept

rule liability "A liability submission"
when uw_submission.lob == "liability"
then
    score += 20
    refer "Liability submission: review the class"
end

test "an auto submission is accepted"
given uw_submission = {"lob": "auto"}
expect decision == "accept"
end
'''


@pytest.fixture
def settings(settings, tmp_path):
    """Loopback tenant databases, SQLite tenant files, and the jobs (bindings) run in serve."""
    return settings.model_copy(update={
        "tenant_database_allowed_networks": ("127.0.0.1/32",),
        "tenant_sqlite_directory": tmp_path / "tenants", "jobs_in_serve": True,
        "rules_dispatch_seconds": 0.1})


@pytest.fixture
async def finder(aiohttp_client, settings):
    return await start_finder(aiohttp_client, settings)


@pytest.fixture
async def tenant_database(finder, test_databases, settings) -> str:
    url = own_tenant_database(test_databases, settings, finder.member.workspace_id)
    await save_database_url(finder.client, finder.member.workspace_id, url)
    return url


def _json(value):
    return value if isinstance(value, dict | list) or value is None else json.loads(value)


async def test_a_bound_rule_scores_the_submission_the_page_starts_for_a_new_client(
        finder, tenant_database):
    studio = Studio(finder.tenancy)
    rule = await published(studio, finder.member, SCORING)
    response = await bind(studio, finder.member, rule_id=rule["id"],
                          record_type="uw_submission", on=["created"])
    assert response.status == 201, await response.text()

    response = await finder.post("/submissions/", {
        "product_id": PRODUCT, "business": {**BUSINESS, "state": "arizona"},
        "answered": {"operations.subcontracted_percent": 10},
        "client": {"name": "Bright Spark Electric", "company": "Bright Spark Electric",
                   "external_ref": "carrier-finder:client:238210"}})
    assert response.status == 201, await response.text()
    created = await response.json()
    submission = created["submission"]
    assert submission["lob"] == "liability"
    assert submission["client_id"] == created["client"]["id"]
    assert created["product"] == {"id": PRODUCT, "name": "Trade Contractors General Liability",
                                  "line": "CGL"}
    assert created["submission_email"].startswith("submissions@granitetrades")
    answers = submission["answers"]
    assert (answers["source"], answers["carrier"]["id"], answers["product"]["id"]) == (
        "carrier-finder", "granite-trades", PRODUCT)
    assert (answers["business"]["naics"], answers["business"]["state"]) == ("238210", "AZ")
    assert any("AZ" in warning for warning in answers["read_as"])
    assert answers["answered"] == {"operations.subcontracted_percent": 10}

    scores = await eventually(lambda: tenant_rows(
        tenant_database, "SELECT submission_id, decision, score FROM uw_scores"))
    assert [(str(s["submission_id"]).replace("-", ""), s["decision"], float(s["score"]))
            for s in scores] == [(submission["id"].replace("-", ""), "refer", 20.0)]
    stored = tenant_rows(tenant_database, "SELECT lob, answers FROM uw_submissions")
    assert len(stored) == 1 and _json(stored[0]["answers"])["product"]["id"] == PRODUCT
    audit = tenant_rows(tenant_database, "SELECT entity_type, actor_email FROM audit_logs "
                        "WHERE entity_type IN ('client', 'uw_submission') ORDER BY entity_type")
    assert audit == [{"entity_type": "client", "actor_email": finder.member.email},
                     {"entity_type": "uw_submission", "actor_email": finder.member.email}]


async def test_the_page_starts_a_submission_for_an_existing_client_by_its_uuid(
        finder, tenant_database):
    key, _ = await add_key(finder.client, finder.member.workspace_id)
    response = await finder.client.post("/api/v2/mcp/clients/", json={"name": "Ann"},
                                        headers={"Authorization": f"Bearer {key}"})
    client = await response.json()
    response = await finder.post("/submissions/", {"product_id": PRODUCT, "business": BUSINESS,
                                                   "client_id": client["uuid"]})
    assert response.status == 201, await response.text()
    created = await response.json()
    assert created["client"] is None and created["submission"]["client_id"] == client["id"]
    # the tenant API lists it, by client
    listed = await finder.client.get("/api/v2/mcp/uw_submissions/list/",
                                     params={"client_id": client["id"]},
                                     headers={"Authorization": f"Bearer {key}"})
    assert [item["id"] for item in (await listed.json())["items"]] == [
        created["submission"]["id"]]


async def test_submissions_refuse_what_is_not_the_workspaces_in_the_spec_shape(
        finder, tenant_database):
    # another workspace's client (its own tenant database) is not found in this one
    other = await finder.tenancy.owner("kim@other.test", "Other Agency")
    key, _ = await add_key(finder.client, finder.member.workspace_id)
    response = await finder.client.post("/api/v2/mcp/clients/", json={"name": "Mine"},
                                        headers={"Authorization": f"Bearer {key}"})
    mine = await response.json()
    response = await finder.client.post(BASE + "/submissions/", json={
        "product_id": PRODUCT, "business": BUSINESS, "client_id": mine["id"]},
        headers=other.headers)
    assert response.status in (400, 503), await response.text()  # 503: it has no database
    assert set(await response.json()) == {"error"}

    missing = await finder.post("/submissions/", {
        "product_id": PRODUCT, "business": BUSINESS,
        "client_id": "0b4a6d1e-5c7f-4a3b-8e2d-1c0f9a8b7c6d"})
    body = await missing.json()
    assert missing.status == 400 and body["error"]["code"] == "validation_error"
    assert body["error"]["details"][0]["field"] == "client_id"

    unknown = await finder.post("/submissions/", {"product_id": "nobody/nothing",
                                                  "business": BUSINESS, "client_id": mine["id"]})
    assert unknown.status == 404 and (await unknown.json())["error"]["code"] == "not_found"
    both = await finder.post("/submissions/", {"product_id": PRODUCT, "business": BUSINESS,
                                               "client_id": mine["id"], "client": {"name": "X"}})
    assert both.status == 400 and (await both.json())["error"]["code"] == "validation_error"
    anonymous = await finder.client.post(BASE + "/submissions/", json={
        "product_id": PRODUCT, "business": BUSINESS, "client_id": mine["id"]})
    assert anonymous.status == 401
    assert tenant_rows(tenant_database, "SELECT id FROM uw_submissions") == []


async def test_an_api_key_creates_lists_and_reads_submissions_and_a_read_key_cannot_create(
        finder, tenant_database):
    key, _ = await add_key(finder.client, finder.member.workspace_id)
    headers = {"Authorization": f"Bearer {key}"}
    response = await finder.client.post("/api/v2/mcp/uw_submissions/", json={
        "lob": "CGL", "answers": {"product": PRODUCT}}, headers=headers)
    assert response.status == 201, await response.text()
    created = await response.json()
    assert (created["lob"], created["client_id"], created["answers"]) == (
        "liability", None, {"product": PRODUCT})
    got = await finder.client.get(f"/api/v2/mcp/uw_submissions/{created['id']}/",
                                  headers=headers)
    assert (await got.json())["id"] == created["id"]
    bad = await finder.client.post("/api/v2/mcp/uw_submissions/", json={"lob": "boats"},
                                   headers=headers)
    assert bad.status == 400 and (await bad.json())["error"]["details"][0]["field"] == "lob"
    reader, _ = await add_key(finder.client, finder.member.workspace_id, (Scope.READ,))
    refused = await finder.client.post("/api/v2/mcp/uw_submissions/", json={"lob": "auto"},
                                       headers={"Authorization": f"Bearer {reader}"})
    assert refused.status == 403
