"""The fast tier of the scan use cases: scan_website and scan_and_match end to end against the
local test site, the workspace's prospects on an in-memory fake of the scan store (fakes.py); no
database, no HTTP routes in between. Which prospects a workspace sees (a member's verified
e-mail) is the SQL's, the database tier's (test_similar_prospects.py)."""

from __future__ import annotations

import datetime

import pytest
from aiohttp.test_utils import TestServer

from insureops.carrier_matching.market import Market
from insureops.carrier_matching.sources import LayeredSource, MarketSource
from insureops.platform.carrier_finder.market import service as market_service
from insureops.platform.carrier_finder.scan import service
from insureops.platform.carrier_finder.scan.service import scan_website
from insureops.platform.carrier_finder.scan.website import ScanAddressRefusedError, ScanSession
from insureops.platform.carrier_finder.view import View
from insureops.platform.config import Settings
from insureops.platform.records.prospects import Prospect
from tests.carrier_matching.example_market import AS_OF, example_market
from tests.platform.carrier_finder.fakes import FakeScanProspects
from tests.platform.carrier_finder.site import build_site
from tests.platform.fakes import FakeUnitOfWork

LOCAL = Settings(scan_allowed_networks=("127.0.0.1/32",))
UOW = FakeUnitOfWork()
START = datetime.datetime(2026, 3, 1, 12, tzinfo=datetime.UTC)
QUERY = {"naics": "238220", "description": "emergency plumber fixing leaky pipes"}


async def inline(work):
    return work()


def prospect(number: int, **fields) -> Prospect:
    values = {"company_name": f"Prospect {number}", "naics": "238220", "state": "az",
              "notes": "emergency plumber, leaky pipes and water heaters", **fields}
    return Prospect(id=f"01HZZZZZZZZZZZZZZZZZZZZZ{number:02d}", owner_issuer="idp",
                    owner_subject="lee", status="new", created_at=START,
                    updated_at=START + datetime.timedelta(minutes=number), **values)


@pytest.fixture
async def site(aiohttp_server) -> TestServer:
    return await aiohttp_server(build_site(), host="127.0.0.1")


async def test_scan_describes_the_business_it_read_when_the_page_is_fetched(site):
    url = str(site.make_url("/pages/plumber"))
    async with ScanSession(LOCAL) as session:
        result = await scan_website(url, LOCAL, session)
    assert result.final_url == url and result.naics == "238220"
    assert result.business["naics"] == "238220" and result.business["website"] == url
    assert result.business["name"] == result.title
    assert result.business["description"].startswith("Family-owned plumbing contractor")
    assert len(result.excerpt) <= 501 and result.excerpt.startswith("Rivera Plumbing")
    assert [r.line for r in result.recommendations] == ["CGL", "WORK", "INMRC", "AUTOB"]


async def test_scan_raises_the_refusal_when_the_address_is_not_allowed(site):
    async with ScanSession(Settings()) as session:
        with pytest.raises(ScanAddressRefusedError):
            await scan_website(str(site.make_url("/pages/plumber")), Settings(), session)


async def test_scan_matches_the_business_it_read_on_the_lines_it_recommends(site):
    view = View(LayeredSource(MarketSource(example_market()), Market((), (), ())))

    async def market_view() -> View:
        return view
    result, carriers = await service.scan_and_match(
        str(site.make_url("/pages/plumber")), LOCAL, service.offline_classifier, market_view,
        inline, AS_OF)
    assert result.business["naics"] == "238220" and result.business["state"] == "AZ"
    lines = [r.line for r in result.recommendations]
    assert len(carriers) == service.SCAN_CARRIERS
    assert {c.product.line for c in carriers} <= set(lines)
    assert carriers[0].decision in ("accept", "refer") and carriers[0].reasons
    # the matcher of POST /match-carriers-detailed/, on the recommended lines
    report, _ = await market_service.match_business(
        inline, view.market, market_service.business_data(result.business), lines=lines,
        explain=False, limit=service.SCAN_CARRIERS, as_of=AS_OF)
    assert [(c.product.id, c.decision, c.score) for c in carriers] == [
        (r.product.id, r.decision, r.score) for r in report.results]


async def test_a_workspaces_prospects_are_businesses_to_compare_when_read():
    store = FakeScanProspects()
    store.rows["lee"] = [prospect(1), prospect(2, state="Arizona", naics="", notes=None)]
    store.rows["kim"] = [prospect(3)]
    assert await service.workspace_businesses(UOW, None, store=store) == []
    assert store.limits == []  # no workspace: nothing is read
    businesses = await service.workspace_businesses(UOW, "lee", store=store)
    assert store.limits == [service.MAX_PROSPECTS]
    assert [(b.name, b.naics, b.state, b.description, b.source) for b in businesses] == [
        ("Prospect 2", None, "Arizona", "", "prospect"),
        ("Prospect 1", "238220", "AZ", "emergency plumber, leaky pipes and water heaters",
         "prospect")]


async def test_a_prospect_is_ranked_among_the_reference_when_it_is_alike():
    store = FakeScanProspects()
    store.rows["lee"] = [prospect(1)]
    prospects = await service.workspace_businesses(UOW, "lee", store=store)
    results = service.find_similar_businesses(QUERY, 50, prospects)
    hit = next(r for r in results if r.business.source == "prospect")
    assert hit.business.id == prospect(1).id and hit.reasons[0] == "same NAICS industry 238220"
    assert {r.business.source for r in results} == {"reference", "prospect"}
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)
    assert all(r.business.source == "reference"
               for r in service.find_similar_businesses(QUERY, 50))
