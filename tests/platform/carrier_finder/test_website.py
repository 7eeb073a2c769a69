"""Fetching a website for a scan: pages, redirects, limits and every refusal."""

from __future__ import annotations

import pytest
from aiohttp.test_utils import TestServer

from insureops.platform.carrier_finder.scan.website import (
    MAX_REDIRECTS,
    ScanAddressRefusedError,
    ScanFailedError,
    ScanNotHtmlError,
    ScanSession,
    ScanTimeoutError,
    ScanTooLargeError,
    ScanUrlInvalidError,
    fetch_page,
    scan_resolver,
)
from insureops.platform.config import Settings
from tests.platform.carrier_finder.site import build_site

LOCAL = Settings(scan_allowed_networks=("127.0.0.1/32",))  # the test site only
STRICT = Settings()  # the default: no private network allowed


@pytest.fixture
async def site(aiohttp_server) -> TestServer:
    return await aiohttp_server(build_site(), host="127.0.0.1")


async def fetch(url: str, settings: Settings = LOCAL):
    async with ScanSession(settings) as session:
        return await fetch_page(url, settings, session)


def at(site: TestServer, path: str) -> str:
    return str(site.make_url(path))


async def test_page_is_fetched_when_the_site_is_in_an_allowed_network(site):
    page = await fetch(at(site, "/pages/plumber"))
    assert page.status == 200 and page.content_type == "text/html" and page.redirects == 0
    assert "<title>Rivera Plumbing &amp; Drain" in page.html


async def test_redirects_are_followed_when_each_target_is_allowed(site):
    page = await fetch(at(site, "/redirect?to=/pages/restaurant"))
    assert page.url == at(site, "/pages/restaurant") and page.redirects == 1
    page = await fetch(at(site, f"/chain/{MAX_REDIRECTS - 1}"))
    assert page.redirects == MAX_REDIRECTS and "Rivera" in page.html


async def test_scan_fails_when_the_site_redirects_too_often(site):
    with pytest.raises(ScanFailedError, match="more than 5"):
        await fetch(at(site, f"/chain/{MAX_REDIRECTS}"))


@pytest.mark.parametrize("target", [
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/",
    "http://[::1]/",
    "http://[64:ff9b::7f00:1]/",
    "http://[::ffff:a9fe:a9fe]/",  # 169.254.169.254, IPv4-mapped
])
async def test_redirect_is_refused_when_it_leads_to_a_refused_address(site, target):
    with pytest.raises(ScanAddressRefusedError):
        await fetch(at(site, "/redirect?to=" + target))


async def test_redirect_is_refused_when_it_leads_to_another_scheme(site):
    with pytest.raises(ScanUrlInvalidError):
        await fetch(at(site, "/redirect?to=file:///etc/passwd"))


async def test_page_is_refused_when_it_streams_past_the_size_limit(site):
    with pytest.raises(ScanTooLargeError):
        await fetch(at(site, "/oversized"))


async def test_page_is_refused_when_it_declares_a_length_past_the_limit(site):
    with pytest.raises(ScanTooLargeError):
        await fetch(at(site, "/declared-oversized"))


async def test_page_is_refused_when_it_inflates_past_the_limit(site):
    with pytest.raises(ScanTooLargeError):
        await fetch(at(site, "/compressed-oversized"))


async def test_scan_times_out_when_the_site_is_slow(site):
    settings = Settings(scan_allowed_networks=("127.0.0.1/32",), scan_timeout_seconds=0.3)
    with pytest.raises(ScanTimeoutError):
        await fetch(at(site, "/slow?seconds=3"), settings)


async def test_response_is_refused_when_it_is_not_html(site):
    with pytest.raises(ScanNotHtmlError, match="application/json"):
        await fetch(at(site, "/data.json"))


async def test_scan_fails_when_the_site_answers_an_error(site):
    with pytest.raises(ScanFailedError, match="404"):
        await fetch(at(site, "/missing"))


async def test_scan_fails_when_nothing_listens():
    with pytest.raises(ScanFailedError):
        await fetch("http://127.0.0.1:9/")  # discard port: closed


async def test_loopback_site_is_refused_when_no_network_is_allowed(site):
    with pytest.raises(ScanAddressRefusedError):
        await fetch(at(site, "/pages/plumber"), STRICT)


async def test_host_name_is_refused_when_it_resolves_to_loopback(site):
    with pytest.raises(ScanAddressRefusedError):
        await fetch(f"http://localhost:{site.port}/pages/plumber", STRICT)


@pytest.mark.parametrize("url", [
    "http://10.1.2.3/", "http://192.168.0.1/", "http://169.254.169.254/latest/meta-data/",
    "http://[::1]/", "http://[fd00:ec2::254]/", "http://[64:ff9b::7f00:1]/",
    "http://[::ffff:127.0.0.1]/", "http://[2002:7f00:1::]/", "http://0.0.0.0/",
    "http://224.0.0.1/", "http://2130706433/", "http://127.1/",
])
async def test_address_is_refused_when_it_is_not_public(url):
    with pytest.raises(ScanAddressRefusedError):
        await fetch(url, STRICT)


async def test_host_name_is_fetched_through_the_checking_resolver_when_allowed(site):
    page = await fetch(f"http://localhost:{site.port}/pages/software")
    assert "Ledgerline" in page.html


async def test_resolver_returns_only_checked_addresses_when_a_name_resolves():
    results = await scan_resolver(("127.0.0.1/32",)).resolve("localhost", 80)
    assert {result["host"] for result in results} <= {"127.0.0.1"} and results
    with pytest.raises(ScanAddressRefusedError):
        await scan_resolver(()).resolve("localhost", 80)


async def test_metadata_address_is_refused_when_its_network_is_allowed():
    settings = Settings(scan_allowed_networks=("169.254.0.0/16",))
    with pytest.raises(ScanAddressRefusedError):
        await fetch("http://169.254.169.254/latest/meta-data/", settings)


@pytest.mark.parametrize("url", [
    "file:///etc/passwd", "ftp://example.com/", "gopher://example.com/", "javascript:alert(1)",
    "http://example.com@127.0.0.1/", "http://user:pass@example.com/", "http:///nohost",
    "http://exa mple.com/", "", "http://example.com:70000/",
])
async def test_url_is_refused_when_its_form_is_not_allowed(url):
    with pytest.raises(ScanUrlInvalidError):
        await fetch(url)
