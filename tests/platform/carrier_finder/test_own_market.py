"""A workspace's own carriers and products, their appetites published rules of the rule studio,
matched beside the market in that workspace only (issue 14); SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from tests.carrier_matching.test_matching import ELECTRICIAN

RULES = "/api/rules/rules"

APPETITE = '''ruleset appetite.mesa_county.gl "Mesa County Mutual: contractors liability"
input business: Business
default decision decline

rule electricians "Electrical contractors in Arizona"
when business.naics == "238210" and business.state == "AZ"
then
    score += 72
    accept "Mesa County Mutual writes electricians in Arizona"
end

test "an Arizona electrician is accepted"
given business = {"naics": "238210", "state": "AZ"}
expect decision == "accept"
end
'''
LOWER = APPETITE.replace("score += 72", "score += 20")
CARRIER = {"id": "mesa-county-mutual", "name": "Mesa County Mutual Insurance Company",
           "states": ["AZ", "NM"], "rating": "A-", "naic_code": "12345"}
PRODUCT_ID = "mesa-county-mutual/contractors-gl"


def product(rule_id: str, **fields) -> dict:
    return {"carrier_id": "mesa-county-mutual", "code": "contractors-gl", "line": "CGL",
            "name": "Contractors general liability", "max_limit": 1000000,
            "appetite_rule_id": rule_id, **fields}


class Agency:
    """A member of a workspace calling the finder and the studio."""

    def __init__(self, finder, member) -> None:
        self.client, self.headers = finder.client, member.headers

    async def call(self, method: str, path: str, body: dict | None = None):
        base = path if path.startswith("/api/") else f"/api/v1/carrier_finder{path}"
        return await self.client.request(method, base, json=body, headers=self.headers)

    async def ok(self, method: str, path: str, body: dict | None = None, status: int = 200):
        response = await self.call(method, path, body)
        assert response.status == status, await response.text()
        return await response.json() if status != 204 else None

    async def rule(self, source: str = APPETITE, kind: str = "appetite") -> str:
        return (await self.ok("POST", f"{RULES}/", {"source": source, "kind": kind}, 201))["id"]

    async def match(self, business: dict = ELECTRICIAN) -> dict:
        return await self.ok("POST", "/match-carriers-detailed/",
                             {"business": business, "lines": ["CGL"]})


@pytest.fixture
async def agency(finder) -> Agency:
    return Agency(finder, finder.member)


@pytest.fixture
async def stranger(finder) -> Agency:
    return Agency(finder, await finder.tenancy.owner("kim@other.test", "Other Agency"))


def ranked(body: dict) -> list[str]:
    return [r["product"]["id"] for r in body["results"]]


async def test_an_own_appetite_is_matched_among_the_market_when_its_rule_is_published(
        agency, stranger):
    rule_id = await agency.rule()
    carrier = await agency.ok("POST", "/carriers/", CARRIER, 201)
    assert carrier["own"] and carrier["active"] and carrier["rating"] == "A-"
    created = await agency.ok("POST", "/products/", product(rule_id), 201)
    assert created["id"] == PRODUCT_ID and created["appetite"]["status"] == "unpublished"
    assert created["states"] == ["AZ", "NM"] and created["admitted"]

    # a draft rule: listed, not matched, and the match says why
    body = await agency.match()
    assert PRODUCT_ID not in ranked(body)
    assert [(u["product"]["id"], u["appetite_status"]) for u in body["unmatched"]] == [
        (PRODUCT_ID, "unpublished")]
    listed = await agency.ok("GET", "/products/?carrier=mesa-county-mutual")
    assert [(p["id"], p["own"], p["appetite_status"]) for p in listed["items"]] == [
        (PRODUCT_ID, True, "unpublished")]

    # published: matched among the market, ranked by its score (72: after the 75s)
    await agency.ok("PATCH", f"{RULES}/{rule_id}/", {"published_version": 1})
    body = await agency.match()
    mine = next(r for r in body["results"] if r["product"]["id"] == PRODUCT_ID)
    assert (mine["decision"], mine["score"], mine["own"], mine["evaluated"]) == (
        "accept", 72, True, True)
    assert mine["reasons"] == ["Mesa County Mutual writes electricians in Arizona"]
    scores = [r["score"] for r in body["results"] if r["decision"] == "accept"]
    assert ranked(body).index(PRODUCT_ID) == sum(score > 72 for score in scores) > 0
    assert not any(r["own"] for r in body["results"] if r["product"]["id"] != PRODUCT_ID)
    assert body["unmatched"] == [] and body["considered"] > 1
    carriers = await agency.ok("GET", "/carriers/?limit=200")
    marks = {c["id"]: c["own"] for c in carriers["items"]}
    assert marks["mesa-county-mutual"] is True and marks["granite-trades"] is False
    detail = await agency.ok("GET", "/carriers/mesa-county-mutual/")
    assert [(p["id"], p["appetite_status"]) for p in detail["products"]] == [
        (PRODUCT_ID, "published")]

    # another workspace sees none of it, and its ids are 404 there
    theirs = await stranger.match()
    assert PRODUCT_ID not in ranked(theirs) and theirs["unmatched"] == []
    assert "mesa-county-mutual" not in {c["id"] for c in (
        await stranger.ok("GET", "/carriers/?limit=200"))["items"]}
    assert PRODUCT_ID not in {p["id"] for p in (
        await stranger.ok("GET", "/products/?limit=200&line=CGL"))["items"]}
    for method, path, payload in (("GET", "/carriers/mesa-county-mutual/", None),
                                  ("PATCH", "/carriers/mesa-county-mutual/", {"name": "X"}),
                                  ("DELETE", "/carriers/mesa-county-mutual/", None),
                                  ("PATCH", f"/products/{PRODUCT_ID}/", {"name": "X"}),
                                  ("DELETE", f"/products/{PRODUCT_ID}/", None)):
        response = await stranger.call(method, path, payload)
        assert response.status == 404, (method, path)

    # a new published version changes the match at once; rolling back restores it
    await agency.ok("PATCH", f"{RULES}/{rule_id}/", {"source": LOWER})
    await agency.ok("PATCH", f"{RULES}/{rule_id}/", {"published_version": 2})
    lowered = await agency.match()
    assert next(r["score"] for r in lowered["results"] if r["product"]["id"] == PRODUCT_ID) == 20
    await agency.ok("PATCH", f"{RULES}/{rule_id}/", {"published_version": 1})
    restored = await agency.match()
    assert next(r["score"] for r in restored["results"]
                if r["product"]["id"] == PRODUCT_ID) == 72

    # withdrawn, then archived: no longer matched, and the answer says why
    await agency.ok("PATCH", f"{RULES}/{rule_id}/", {"status": "draft"})
    assert [u["appetite_status"] for u in (await agency.match())["unmatched"]] == ["unpublished"]
    await agency.ok("PATCH", f"{RULES}/{rule_id}/", {"published_version": 1})
    await agency.ok("DELETE", f"{RULES}/{rule_id}/", status=204)
    archived = await agency.match()
    assert PRODUCT_ID not in ranked(archived)
    assert [(u["appetite_status"], u["appetite_rule_id"]) for u in archived["unmatched"]] == [
        ("archived", rule_id)]


async def test_own_carriers_and_products_are_403_when_a_member_changes_them(finder, agency):
    rule_id = await agency.rule()
    await agency.ok("POST", "/carriers/", CARRIER, 201)
    await agency.ok("POST", "/products/", product(rule_id), 201)
    member = Agency(finder, await finder.tenancy.member(finder.member, "max@agency.test"))
    for method, path, payload in (("POST", "/carriers/", dict(CARRIER, id="other-mutual")),
                                  ("PATCH", "/carriers/mesa-county-mutual/", {"name": "X"}),
                                  ("DELETE", "/carriers/mesa-county-mutual/", None),
                                  ("POST", "/products/", product(rule_id, code="other")),
                                  ("PATCH", f"/products/{PRODUCT_ID}/", {"name": "X"}),
                                  ("DELETE", f"/products/{PRODUCT_ID}/", None)):
        response = await member.call(method, path, payload)
        assert response.status == 403, (method, path, await response.text())
    # members read and match the workspace's own entries
    assert PRODUCT_ID in {p["id"] for p in (await member.ok("GET", "/products/?line=CGL"))["items"]}
    assert (await member.match())["unmatched"][0]["product"]["id"] == PRODUCT_ID
    admin = Agency(finder, await finder.tenancy.member(finder.member, "ada@agency.test", "admin"))
    await admin.ok("PATCH", "/carriers/mesa-county-mutual/", {"website": "https://prairie.test"})


async def test_a_product_is_422_appetite_rule_invalid_when_its_rule_is_another_workspaces(
        agency, stranger):
    # which rules may be an appetite is the fast tier's (test_own_service.py); here the
    # catalog's SQL keeps another workspace's rule out, and the error's shape
    await agency.ok("POST", "/carriers/", CARRIER, 201)
    theirs = await stranger.rule()
    for rule_id in (theirs, "01ARZ3NDEKTSV4RRFFQ69G5FAV"):
        response = await agency.call("POST", "/products/", product(rule_id))
        assert response.status == 422, await response.text()
        error = (await response.json())["error"]
        assert error["code"] == "appetite_rule_invalid"
        assert error["details"][0]["field"] == "appetite_rule_id"
        assert "in this workspace" in error["details"][0]["message"], error
    good = await agency.rule()
    await agency.ok("POST", "/products/", product(good), 201)
    response = await agency.call("PATCH", f"/products/{PRODUCT_ID}/",
                                 {"appetite_rule_id": theirs})
    assert (await response.json())["error"]["code"] == "appetite_rule_invalid"


async def test_ids_are_409_or_400_when_taken_or_unknown(agency):
    rule_id = await agency.rule()
    taken = await agency.call("POST", "/carriers/", dict(CARRIER, id="granite-trades"))
    assert (taken.status, (await taken.json())["error"]["code"]) == (409, "conflict")
    await agency.ok("POST", "/carriers/", CARRIER, 201)
    again = await agency.call("POST", "/carriers/", CARRIER)
    assert again.status == 409
    unknown = await agency.call("POST", "/products/", product(rule_id, carrier_id="granite-trades"))
    error = (await unknown.json())["error"]
    assert (unknown.status, error["code"], error["details"][0]["field"]) == (
        400, "validation_error", "carrier_id")
    await agency.ok("POST", "/products/", product(rule_id), 201)
    assert (await agency.call("POST", "/products/", product(rule_id))).status == 409
    nulls = await agency.call("PATCH", f"/products/{PRODUCT_ID}/", {"name": None})
    assert nulls.status == 400
    limits = await agency.call("PATCH", f"/products/{PRODUCT_ID}/", {"states": ["CA"]})
    error = (await limits.json())["error"]
    assert (limits.status, error["details"][0]["field"]) == (400, "states")
    bad_states = await agency.call("POST", "/carriers/", dict(CARRIER, id="x-mutual",
                                                               states=["ZZ"]))
    assert bad_states.status == 400


async def test_deactivated_entries_are_neither_listed_nor_matched_when_deleted(agency):
    rule_id = await agency.rule()
    await agency.ok("PATCH", f"{RULES}/{rule_id}/", {"published_version": 1})
    await agency.ok("POST", "/carriers/", CARRIER, 201)
    await agency.ok("POST", "/products/", product(rule_id), 201)
    assert PRODUCT_ID in ranked(await agency.match())
    await agency.ok("DELETE", f"/products/{PRODUCT_ID}/", status=204)
    assert PRODUCT_ID not in ranked(await agency.match())
    assert PRODUCT_ID not in {p["id"] for p in (await agency.ok("GET", "/products/?line=CGL"))[
        "items"]}
    back = await agency.ok("PATCH", f"/products/{PRODUCT_ID}/", {"active": True})
    assert back["active"] and PRODUCT_ID in ranked(await agency.match())
    await agency.ok("DELETE", "/carriers/mesa-county-mutual/", status=204)
    assert PRODUCT_ID not in ranked(await agency.match())
    assert (await agency.call("GET", "/carriers/mesa-county-mutual/")).status == 404


async def test_listings_search_and_appetites_read_the_published_rule_when_it_is_live(agency):
    rule_id = await agency.rule()
    await agency.ok("PATCH", f"{RULES}/{rule_id}/", {"published_version": 1})
    await agency.ok("POST", "/carriers/", CARRIER, 201)
    await agency.ok("POST", "/products/", product(rule_id, states=["AZ"]), 201)
    # the appetite names NAICS 238210: judged from its published source, as the market's are
    electric = await agency.ok("GET", "/products/?naics=238210&line=CGL&limit=200")
    assert PRODUCT_ID in {p["id"] for p in electric["items"]}
    food = await agency.ok("GET", "/products/?naics=722511&line=CGL&limit=200")
    assert PRODUCT_ID not in {p["id"] for p in food["items"]}
    found = await agency.ok("POST", "/search/", {"naics": "238210", "state": "AZ",
                                                 "lines": ["CGL"]})
    assert PRODUCT_ID in {r["product"]["id"] for r in found["results"]}
    appetites = await agency.ok("GET", "/appetites/?carrier=mesa-county-mutual")
    assert [(a["name"], a["carrier_id"], a["version"], a["products"]) for a in
            appetites["items"]] == [("appetite.mesa_county.gl", "mesa-county-mutual", 1,
                                     [PRODUCT_ID])]
    assert appetites["items"][0]["source"] == APPETITE
