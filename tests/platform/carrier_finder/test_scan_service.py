"""scan_website end to end against the local test site, without HTTP routes in between."""

from __future__ import annotations

import pytest
from aiohttp.test_utils import TestServer

from insureops.platform.carrier_finder.scan.service import scan_website
from insureops.platform.carrier_finder.scan.website import ScanAddressRefusedError, ScanSession
from insureops.platform.config import Settings
from tests.platform.carrier_finder.site import build_site

LOCAL = Settings(scan_allowed_networks=("127.0.0.1/32",))


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
