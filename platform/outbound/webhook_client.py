"""Webhook receivers: which URLs may be registered, and the HTTP client that posts deliveries.

Both apply the shared address policy (addresses.py) with `Settings.webhook_allowed_networks`:
public addresses, or ones inside an allowed network, never a cloud metadata address. The
check at registration resolves the name for an early answer; every delivery checks again,
connecting only to the addresses its CheckingResolver passed (DNS rebinding), never through
a proxy, never following a redirect, within `webhook_timeout_seconds`, reading at most
`webhook_max_response_bytes` of the answer.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Self

import aiohttp
from yarl import URL

from insureops.platform.config import Settings
from insureops.platform.outbound.addresses import (
    in_networks,
    literal_address,
    outbound_address_allowed,
    parse_address,
)
from insureops.platform.outbound.checked_resolver import CheckingResolver

MAX_URL_LENGTH = 2048
USER_AGENT = "insureops-webhooks/1"
RESOLVE_SECONDS = 5.0  # registration's look-up of the host; past it: host_unresolved


class WebhookUrlRefusedError(Exception):
    """The URL is malformed, or its host is (or resolves to) an address the policy refuses;
    `reason` is a stable word (docs/webhooks.md)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def parse_webhook_url(raw: str) -> URL:
    """The URL's form: http(s), a host, a valid port, no credentials or fragment."""
    raw = raw.strip()
    if not raw or len(raw) > MAX_URL_LENGTH or any(ch.isspace() or ord(ch) < 32 for ch in raw):
        raise WebhookUrlRefusedError("invalid_url", "The URL is empty, too long or holds "
                                     "white space.")
    try:
        url = URL(raw)
        port = url.port
    except (ValueError, TypeError, UnicodeError):
        raise WebhookUrlRefusedError("invalid_url", "The URL is malformed.") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise WebhookUrlRefusedError("invalid_url", "Use an http(s):// URL with a host.")
    if url.user is not None or url.password is not None or "@" in (url.raw_authority or ""):
        raise WebhookUrlRefusedError("invalid_url", "A URL with a user name or password is "
                                     "refused.")
    if url.fragment or port is None or not 0 < port < 65536:
        raise WebhookUrlRefusedError("invalid_url", "The URL takes no fragment and a valid port.")
    return url


async def _addresses(host: str, port: int) -> list[str]:
    literal = literal_address(host)
    if literal is not None:
        return [literal]
    try:
        async with asyncio.timeout(RESOLVE_SECONDS):
            infos = await asyncio.get_running_loop().getaddrinfo(host, port,
                                                                 type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError, TimeoutError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def check_webhook_url(raw: str, settings: Settings) -> str:
    """The URL as stored, or WebhookUrlRefusedError: every address of its host must pass the
    policy; plain http only when every one lies inside an allowed network (a receiver on the
    agency's own network), https otherwise."""
    url = parse_webhook_url(raw)
    host = (url.raw_host or "").rstrip(".")
    addresses = await _addresses(host, url.port or 443)
    allowed = settings.webhook_allowed_networks
    if not addresses:
        raise WebhookUrlRefusedError("host_unresolved", f"The host {host} does not resolve.")
    if not all(outbound_address_allowed(address, allowed) for address in addresses):
        raise WebhookUrlRefusedError(
            "address_refused", "The host is, or resolves to, a private, loopback, link-local or "
            "otherwise non-public address; such receivers need their network in "
            "INSUREOPS_WEBHOOK_ALLOWED_NETWORKS.")
    internal = all(in_networks(parse_address(address), allowed) for address in addresses)
    if url.scheme != "https" and not internal:
        raise WebhookUrlRefusedError("https_required", "Use https:// (plain http only on a "
                                     "network the operator allows).")
    return str(url)


class AddressRefusedError(Exception):
    """Raised by the resolver: a delivery's host resolved to an address the policy refuses."""


@dataclass(frozen=True)
class PostResult:
    """One attempt's outcome: `status` the receiver's HTTP status (None: no answer), `error` a
    stable word when it failed (docs/webhooks.md, "Delivery log"), `latency_ms` until the answer
    (or the failure)."""

    status: int | None
    latency_ms: int
    error: str | None

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def _resolver(allowed_networks: Iterable[str]) -> CheckingResolver:
    allowed = tuple(allowed_networks)
    return CheckingResolver(lambda address: outbound_address_allowed(address, allowed),
                            lambda host: AddressRefusedError(host))


class WebhookClient:
    """The HTTP client of deliveries. Use as `async with WebhookClient(settings)`; one per
    batch of deliveries (its connections are reused within it)."""

    def __init__(self, settings: Settings, monotonic: Callable[[], float] = time.monotonic,
                 ) -> None:
        self._settings = settings
        self._monotonic = monotonic
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Self:
        connector = aiohttp.TCPConnector(resolver=_resolver(self._settings.webhook_allowed_networks),
                                         use_dns_cache=False, limit=20, limit_per_host=4)
        self._session = aiohttp.ClientSession(
            connector=connector, trust_env=False, cookie_jar=aiohttp.DummyCookieJar(),
            timeout=aiohttp.ClientTimeout(total=self._settings.webhook_timeout_seconds),
            headers={"User-Agent": USER_AGENT})
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _literal_refused(self, url: URL) -> bool:
        literal = literal_address((url.raw_host or "").rstrip("."))
        return literal is not None and not outbound_address_allowed(
            literal, self._settings.webhook_allowed_networks)

    async def post(self, url: str, body: bytes, headers: dict[str, str]) -> PostResult:
        """POST `body` to `url`; never raises for what the receiver or the network does."""
        if self._session is None:
            raise RuntimeError("WebhookClient used outside `async with`")
        started = self._monotonic()

        def result(status: int | None, error: str | None) -> PostResult:
            return PostResult(status, max(0, round((self._monotonic() - started) * 1000)), error)

        target = URL(url)
        if self._literal_refused(target):
            return result(None, "address_refused")
        try:
            async with self._session.post(
                    target, data=body, allow_redirects=False,
                    headers={**headers, "Content-Type": "application/json"}) as response:
                await response.content.read(self._settings.webhook_max_response_bytes)
                status = response.status
        except AddressRefusedError:
            return result(None, "address_refused")
        except TimeoutError:
            return result(None, "timeout")
        except (aiohttp.ClientError, OSError, ValueError):
            return result(None, "connection_failed")
        if 300 <= status < 400:
            return result(status, "redirect_not_followed")
        return result(status, None if 200 <= status < 300 else "http_status")
