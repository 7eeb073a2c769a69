"""Fetching a business's website safely: checked addresses on every hop, bounded size and time.

A scan URL is user input the service fetches from its own network, so: http and https only, no
credentials in the URL; every address a host resolves to must be public
(platform/outbound/addresses.py) or inside `Settings.scan_allowed_networks`, and never a cloud metadata address; the connection
goes to the addresses that were checked (the resolver that checks them is the one the connector
uses, so a name cannot re-resolve elsewhere between check and connect); redirects are followed
by hand, at most MAX_REDIRECTS, each one checked again; the body is streamed and cut at
`scan_max_bytes`; the whole fetch has `scan_timeout_seconds`; only HTML is read.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import ClassVar, Self

import aiohttp
from yarl import URL

from insureops.platform.config import Settings
from insureops.platform.outbound.addresses import (
    outbound_address_allowed,
    parse_address,
)
from insureops.platform.outbound.checked_resolver import CheckingResolver

MAX_URL_LENGTH = 2048
MAX_REDIRECTS = 5
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
CHUNK_BYTES = 64 * 1024
USER_AGENT = "insureops-scan/1.0 (+carrier finder website scan)"


class ScanError(Exception):
    """A scan that cannot be done; `code` is stable (docs/errors.md), the message client-safe."""

    code: ClassVar[str] = "scan_failed"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ScanUrlInvalidError(ScanError):
    code = "scan_url_invalid"


class ScanAddressRefusedError(ScanError):
    code = "scan_address_refused"


class ScanTooLargeError(ScanError):
    code = "scan_too_large"


class ScanTimeoutError(ScanError):
    code = "scan_timeout"


class ScanFailedError(ScanError):
    code = "scan_failed"


class ScanNotHtmlError(ScanError):
    code = "scan_not_html"


SCAN_ERRORS: tuple[type[ScanError], ...] = (
    ScanUrlInvalidError, ScanAddressRefusedError, ScanTooLargeError, ScanTimeoutError,
    ScanFailedError, ScanNotHtmlError)


@dataclass(frozen=True, slots=True)
class FetchedPage:
    """The HTML a scan read: the final URL after redirects and the body's bytes."""

    url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes
    redirects: int

    @property
    def html(self) -> str:
        try:
            return self.body.decode(self.charset or "utf-8", errors="replace")
        except LookupError:  # a charset Python does not know
            return self.body.decode("utf-8", errors="replace")


def _refused(host: str) -> ScanAddressRefusedError:
    return ScanAddressRefusedError(
        f"The site's address ({host}) is not allowed: private, loopback, link-local, metadata "
        "and other non-public addresses are refused.")


def parse_scan_url(raw: str) -> URL:
    """Check a URL's form: http or https, a host, no credentials. A bare host name
    (`joesplumbing.com`) is read as https."""
    raw = raw.strip()
    if not raw or len(raw) > MAX_URL_LENGTH or any(ch.isspace() or ord(ch) < 32 for ch in raw):
        raise ScanUrlInvalidError("The URL is empty, too long or contains white space.")
    if "://" not in raw:
        raw = "https://" + raw
    try:
        url = URL(raw)
        port = url.port
    except (ValueError, TypeError, UnicodeError):
        raise ScanUrlInvalidError("The URL is malformed.") from None
    if url.scheme not in ("http", "https"):
        raise ScanUrlInvalidError("Only http:// and https:// URLs can be scanned.")
    if not url.host:
        raise ScanUrlInvalidError("The URL needs a host name.")
    if url.user is not None or url.password is not None or "@" in (url.raw_authority or ""):
        raise ScanUrlInvalidError("A URL with a user name or password cannot be scanned.")
    if port is None or not 0 < port < 65536:
        raise ScanUrlInvalidError("The URL's port is not valid.")
    return url.with_fragment(None)


def check_literal_host(url: URL, allowed_networks: Iterable[str]) -> None:
    """Refuse a URL whose host is an IP address that is not allowed (the connector does not
    resolve literal addresses, so CheckingResolver never sees them)."""
    host = url.raw_host or ""
    try:
        address = str(parse_address(host))
    except ValueError:
        try:  # the legacy forms inet_aton reads: 127.1, 2130706433, 0x7f.0.0.1
            address = socket.inet_ntoa(socket.inet_aton(host))
        except (OSError, ValueError):
            return  # a name: the resolver checks what it resolves to
    if not outbound_address_allowed(address, allowed_networks):
        raise _refused(host)


def scan_resolver(allowed_networks: Iterable[str]) -> CheckingResolver:
    """The resolver of scans: every address of a name must pass `outbound_address_allowed`."""
    allowed = tuple(allowed_networks)
    return CheckingResolver(lambda address: outbound_address_allowed(address, allowed), _refused)


class ScanSession:
    """The HTTP client of scans: a ClientSession whose connector resolves through
    CheckingResolver, never a proxy from the environment. Use as `async with ScanSession(settings)`
    (one per app or per scan)."""

    def __init__(self, settings: Settings) -> None:
        self.allowed_networks = settings.scan_allowed_networks
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Self:
        connector = aiohttp.TCPConnector(resolver=scan_resolver(self.allowed_networks),
                                         use_dns_cache=False, limit=20)
        self._session = aiohttp.ClientSession(connector=connector, trust_env=False,
                                              cookie_jar=aiohttp.DummyCookieJar(),
                                              headers={"User-Agent": USER_AGENT})
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.close()

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    @property
    def client(self) -> aiohttp.ClientSession:
        if self._session is None:
            raise RuntimeError("ScanSession used outside `async with`")
        return self._session


async def fetch_page(raw_url: str, settings: Settings, session: ScanSession) -> FetchedPage:
    """Fetch the HTML page at `raw_url` under the scan rules; raises a ScanError subclass."""
    url = parse_scan_url(raw_url)
    try:
        async with asyncio.timeout(settings.scan_timeout_seconds):
            return await _follow(url, settings, session)
    except TimeoutError:
        raise ScanTimeoutError(f"The site did not answer within {settings.scan_timeout_seconds:g} "
                               "seconds.") from None


async def _follow(url: URL, settings: Settings, session: ScanSession) -> FetchedPage:
    for redirects in range(MAX_REDIRECTS + 1):
        check_literal_host(url, session.allowed_networks)
        try:
            async with session.client.get(url, allow_redirects=False,
                                          headers={"Accept": "text/html"}) as response:
                if response.status in REDIRECT_STATUSES:
                    location = response.headers.get("Location")
                    if not location:
                        raise ScanFailedError("The site redirected without a Location.")
                    url = parse_scan_url(str(url.join(URL(location))))
                    continue
                return await _read(response, url, redirects, settings.scan_max_bytes)
        except ScanError:
            raise
        except aiohttp.ServerTimeoutError:
            raise ScanTimeoutError("The site stopped answering.") from None
        except (aiohttp.ClientError, OSError, ValueError, UnicodeError):
            raise ScanFailedError("The site could not be reached or sent a broken answer.") \
                from None
    raise ScanFailedError(f"The site redirected more than {MAX_REDIRECTS} times.")


async def _read(response: aiohttp.ClientResponse, url: URL, redirects: int,
                max_bytes: int) -> FetchedPage:
    if response.status >= 400:
        raise ScanFailedError(f"The site answered HTTP {response.status}.")
    if response.content_type not in HTML_TYPES:
        raise ScanNotHtmlError(f"The site answered {response.content_type}, not an HTML page.")
    if response.content_length is not None and response.content_length > max_bytes:
        raise ScanTooLargeError(f"The page is larger than {max_bytes} bytes.")
    body = bytearray()
    async for chunk in response.content.iter_chunked(CHUNK_BYTES):
        body += chunk
        if len(body) > max_bytes:
            raise ScanTooLargeError(f"The page is larger than {max_bytes} bytes.")
    return FetchedPage(str(url), response.status, response.content_type, response.charset,
                       bytes(body), redirects)
