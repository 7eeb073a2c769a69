"""POST /scan/ and POST /similar-businesses/ through HTTP, on a test area serving the scan
sub-area's table alone (carrier_finder/scan/routes.py)."""

from __future__ import annotations

import pytest
from aiohttp.test_utils import TestServer

from insureops.carrier_matching.pruning import index_market_appetites
from insureops.platform.app import Area
from insureops.platform.carrier_finder.market.store import MarketStore
from insureops.platform.carrier_finder.own.service import CompiledCache
from insureops.platform.carrier_finder.scan import routes as scan_routes
from insureops.platform.http.routing import RouteTable
from insureops.platform.keys import MARKET_STORE, OWN_APPETITES
from tests.platform.carrier_finder.site import build_site

PREFIX = "/api/scan-test"
SESSION = {"X-Test-Role": "member"}


def scan_area() -> Area:
    def create_app():
        routes = RouteTable("scan_test", "The scan routes, mounted as the lead mounts them.")
        routes.include(scan_routes.routes)
        app = routes.build_app()
        app[MARKET_STORE] = MarketStore(index_market_appetites)  # no market stored: no carriers
        app[OWN_APPETITES] = CompiledCache()  # the workspace's own appetites, as the area has
        return app
    return Area(PREFIX, create_app)


@pytest.fixture
async def site(aiohttp_server) -> TestServer:
    return await aiohttp_server(build_site(), host="127.0.0.1")


@pytest.fixture
async def api(make_probe, settings):
    """The service with the scan routes; the test site's 127.0.0.1 is allowed."""
    allowed = settings.model_copy(update={"scan_allowed_networks": ("127.0.0.1/32",),
                                          "scan_timeout_seconds": 2.0})
    return await make_probe(allowed, extra=(scan_area(),))


async def scan(api, url: str, headers=SESSION):
    response = await api.post(f"{PREFIX}/scan/", json={"url": url}, headers=headers)
    return response.status, await response.json()


def lines(body: dict) -> dict[str, list[str]]:
    return {r["line"]: r["reasons"] for r in body["recommendations"]}


async def test_plumber_site_is_classified_and_gets_contractor_lines_when_scanned(api, site):
    status, body = await scan(api, str(site.make_url("/pages/plumber")))
    assert status == 200, body
    assert body["title"].startswith("Rivera Plumbing & Drain")
    assert body["description"].startswith("Family-owned plumbing contractor")
    assert "We fix leaky pipes" in body["excerpt"] and "dataLayer" not in body["excerpt"]
    assert body["naics"] == "238220" and body["classification"][0]["naics"] == "238220"
    assert body["method"] == "offline" and len(body["classification"]) <= 5
    assert list(lines(body)) == ["CGL", "WORK", "INMRC", "AUTOB"]


async def test_restaurant_site_gets_package_comp_and_liquor_liability_when_scanned(api, site):
    status, body = await scan(api, str(site.make_url("/redirect?to=/pages/restaurant")))
    assert status == 200, body
    assert body["final_url"].endswith("/pages/restaurant")
    assert body["naics"] == "722511"
    recommended = lines(body)
    assert {"BOP", "WORK", "LIQUR"} <= set(recommended)
    assert any("liquor liability" in reason for reason in recommended["LIQUR"])


async def test_software_site_gets_errors_and_omissions_and_cyber_when_scanned(api, site):
    status, body = await scan(api, str(site.make_url("/pages/software")))
    assert status == 200, body
    assert body["naics"].startswith(("5132", "5415"))
    assert {"EO", "CYBER"} <= set(lines(body))


@pytest.mark.parametrize(("path", "code"), [
    ("/data.json", "scan_not_html"),
    ("/oversized", "scan_too_large"),
    ("/slow?seconds=5", "scan_timeout"),
    ("/missing", "scan_failed"),
    ("/redirect?to=http://169.254.169.254/latest/meta-data/", "scan_address_refused"),
])
async def test_scan_answers_400_with_its_code_when_the_site_is_refused(api, site, path, code):
    status, body = await scan(api, str(site.make_url(path)))
    assert status == 400 and body["error"]["code"] == code, body
    assert body["error"]["message"]


@pytest.mark.parametrize(("url", "code"), [
    ("file:///etc/passwd", "scan_url_invalid"),
    ("ftp://example.com/", "scan_url_invalid"),
    ("http://example.com@127.0.0.1/", "scan_url_invalid"),
    ("http://10.0.0.1/", "scan_address_refused"),
    ("http://169.254.169.254/", "scan_address_refused"),
    ("http://[::1]/", "scan_address_refused"),
    ("http://[64:ff9b::7f00:1]/", "scan_address_refused"),
])
async def test_scan_answers_400_when_the_url_is_refused(api, url, code):
    status, body = await scan(api, url)
    assert status == 400 and body["error"]["code"] == code, body


async def test_loopback_is_refused_when_no_network_is_allowed(make_probe, settings, site):
    strict = await make_probe(settings, extra=(scan_area(),))
    status, body = await scan(strict, str(site.make_url("/pages/plumber")))
    assert status == 400 and body["error"]["code"] == "scan_address_refused"
    status, body = await scan(strict, f"http://localhost:{site.port}/pages/plumber")
    assert status == 400 and body["error"]["code"] == "scan_address_refused"


async def test_scan_needs_a_session_when_called(api, site):
    status, body = await scan(api, str(site.make_url("/pages/plumber")), headers={})
    assert status == 401 and body["error"]["code"] == "not_authenticated"


async def test_similar_businesses_are_ranked_with_reasons_when_a_business_is_given(api):
    response = await api.post(f"{PREFIX}/similar-businesses/", headers=SESSION, json={
        "business": {"naics": "238220", "description": "We fix leaky pipes and water heaters",
                     "state": "AZ", "annual_revenue": 900000, "employee_count": 6},
        "limit": 3})
    body = await response.json()
    assert response.status == 200, body
    assert body["considered"] >= 300 and len(body["results"]) == 3
    top = body["results"][0]
    assert top["business"]["naics"] == "238220" and top["business"]["state"] == "AZ"
    assert top["reasons"][:1] == ["same NAICS industry 238220"] and "same state" in top["reasons"]
    assert 0 < top["score"] <= 1 and set(top["parts"]) == {"class", "description", "size", "location"}
    scores = [r["score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True)


async def test_similar_businesses_accept_naics_and_description_when_no_business_is_given(api):
    response = await api.post(f"{PREFIX}/similar-businesses/", headers=SESSION,
                              json={"naics": "722511", "description": "Italian restaurant"})
    body = await response.json()
    assert response.status == 200, body
    assert len(body["results"]) == 10
    assert all(r["business"]["naics"] == "722511" for r in body["results"][:5])
    assert body["results"][0]["business"]["naics_title"] == "Full-Service Restaurants"


@pytest.mark.parametrize("payload", [
    {}, {"description": "  "}, {"naics": "72x"},
    {"business": {"naics": "722511"}, "naics": "722511"},
    {"business": {"naics": "722511", "no_such_field": 1}},
    {"naics": "722511", "limit": 0},
])
async def test_similar_businesses_answer_400_when_the_query_is_unusable(api, payload):
    response = await api.post(f"{PREFIX}/similar-businesses/", headers=SESSION, json=payload)
    body = await response.json()
    assert response.status == 400 and body["error"]["code"] == "validation_error", body


async def test_scan_returns_no_carriers_when_the_market_is_empty(api, site):
    status, body = await scan(api, str(site.make_url("/pages/plumber")))
    assert status == 200 and body["carriers"] == [] and body["business"]["state"] == "AZ"
