"""Tenant database pools: one bounded store (one pool) per workspace and instance, made on use.

Stores are kept per tenant (at most `max_tenants`, least recently used closed first), rebuilt
when the saved URL changes and closed on app cleanup; a database that is down answers
TenantDatabaseUnavailableError within the connect timeout. Before a store is made the URL is
checked again as when it was saved (a SQLite file in the workspace's own directory; a PostgreSQL
host resolved, checked and pinned with `hostaddr`, so DNS rebinding cannot redirect it). One
TenantPools serves the whole instance (the tenant API and the rule studio's records alike).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from sqlalchemy.engine import make_url

from insureops.platform.compute.executors import BoundedExecutor
from insureops.platform.config import Settings
from insureops.platform.keys import TENANT_POOLS
from insureops.platform.tenancy.book.errors import TenantDatabaseUnavailableError
from insureops.platform.tenancy.book.store import TenantStore, open_tenant_store
from insureops.platform.tenancy.data_model import apply_data_model
from insureops.platform.tenancy.engine import create_tenant_engine
from insureops.platform.tenancy.urls import UrlRefusal, check_addresses, parse_url


@dataclass(frozen=True)
class PoolLimits:
    """Bounds of every tenant's pool and of the whole manager."""

    # One pool per tenant database and instance (PostgreSQL: the direct pool; SQLite: the
    # file's engine), every route's use cases on it: five connections kept open, no overflow
    # (overflow connections are opened and closed per use: a server process each, under
    # steady concurrency).
    pool_size: int = 5
    pool_timeout: float = 5.0  # waiting for a free connection of the pool
    connect_timeout: float = 3.0  # opening a new connection
    operation_timeout: float = 15.0  # one use case, end to end
    sqlite_busy_timeout: float = 10.0  # waiting for another process's SQLite write lock
    max_tenants: int = 100

    @classmethod
    def from_settings(cls, settings: Settings) -> PoolLimits:
        return cls(connect_timeout=settings.tenant_database_connect_timeout_seconds,
                   operation_timeout=settings.tenant_database_operation_timeout_seconds)


@dataclass(frozen=True)
class _Entry:
    fingerprint: str
    store: TenantStore


@dataclass(frozen=True)
class ResolvedUrl:
    """A workspace's decrypted tenant database URL and the saved token it came from (None: the
    embedded default, nothing saved)."""

    token: str | None
    url: str
    embedded: bool


def _apply(url: str) -> None:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database:
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_tenant_engine(url)
    try:
        apply_data_model(engine)
    finally:
        engine.dispose()


async def _vetted(url: str, tenant_id: str, settings: Settings,
                  timeout: float) -> tuple[str, str | None]:
    """What a store on `url` connects to: the checked URL (a SQLite file resolved inside the
    workspace's own directory) and, for PostgreSQL, the checked address it is pinned to.
    TenantDatabaseUnavailableError when the URL, its location or its host is refused."""
    parsed = parse_url(url, settings, tenant_id=tenant_id)
    if isinstance(parsed, UrlRefusal):
        raise TenantDatabaseUnavailableError(
            "The saved tenant database URL is refused by this service; an owner or admin saves "
            "it again under Settings -> Database.")
    if parsed.backend == "sqlite":
        return parsed.text, None
    try:
        async with asyncio.timeout(timeout):
            checked = await check_addresses(parsed, settings)
    except TimeoutError:
        raise TenantDatabaseUnavailableError(
            "The tenant database cannot be reached; retry shortly.") from None
    if isinstance(checked, UrlRefusal):
        # The same answer whatever the host resolved to: no map of the internal network.
        raise TenantDatabaseUnavailableError(
            "The tenant database host is refused by this service (private, loopback and "
            "link-local addresses are not allowed unless INSUREOPS_TENANT_DATABASE_ALLOWED_NETWORKS "
            "allows their network); an owner or admin can check the connection under "
            "Settings -> Database.")
    return url, checked.addresses[0]


async def vetted_target(url: str, tenant_id: str, settings: Settings,
                        timeout: float) -> tuple[str, str | None]:
    """What a connection to a workspace's saved `url` may go to, checked as the pools check
    it (for those who open an engine of their own: the background jobs of rules at work)."""
    return await _vetted(url, tenant_id, settings, timeout)


def _fingerprint(url: str) -> str:
    # The URL holds the password: keep only a digest to notice that it changed.
    return hashlib.sha256(url.encode()).hexdigest()


# Threads for the SQLite tenant databases' work, all workspaces together (each file's engine
# holds at most PoolLimits.pool_size connections of them).
SQLITE_THREADS = 8


class TenantPools:
    """The stores of the tenant databases one service instance talks to."""

    def __init__(self, limits: PoolLimits | None = None) -> None:
        self.limits = limits  # None: PoolLimits.from_settings of each call's settings
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._retired: set[asyncio.Task[None]] = set()
        self._prepared: set[str] = set()
        self._preparing = asyncio.Lock()
        self._urls: dict[str, ResolvedUrl] = {}
        # the SQLite files' statements and migrations run here, not on the loop's default
        # threads: other kinds of work cannot starve the tenant API, nor it them
        self._threads = BoundedExecutor("tenant-sqlite", SQLITE_THREADS)

    def resolved_url(self, tenant_id: str, token: str | None) -> ResolvedUrl | None:
        """The URL remembered for the workspace if it came from `token` (the saved token just
        read with the caller's key), else None: decrypt again."""
        resolved = self._urls.get(tenant_id)
        return resolved if resolved is not None and resolved.token == token else None

    def remember_url(self, tenant_id: str, resolved: ResolvedUrl) -> None:
        if len(self._urls) >= 4 * (self.limits or PoolLimits()).max_tenants:
            self._urls.clear()  # bounded; the next requests decrypt again
        self._urls[tenant_id] = resolved

    async def prepare_once(self, url: str) -> None:
        """Apply the data model to the database at `url` unless this instance already did
        (the embedded SQLite default: created on a workspace's first request)."""
        if url in self._prepared:
            return
        async with self._preparing:
            if url not in self._prepared:
                await self._threads.run(_apply, url)
                self._prepared.add(url)

    async def store_for(self, tenant_id: str, url: str, settings: Settings) -> TenantStore:
        """The tenant's store on `url`; a changed URL replaces (and closes) the old store.

        A new store is made only after the URL passed `parse_url` for this workspace (a SQLite
        file must be its own) and, for PostgreSQL, its host passed `check_addresses` under
        `settings` (its connections are pinned to the checked address);
        TenantDatabaseUnavailableError otherwise.
        """
        fingerprint = _fingerprint(url)
        entry = self._entries.get(tenant_id)
        if entry is not None and entry.fingerprint != fingerprint:
            self._retire(self._entries.pop(tenant_id))
            entry = None
        limits = self.limits or PoolLimits.from_settings(settings)
        if entry is None:
            target, hostaddr = await _vetted(url, tenant_id, settings, limits.connect_timeout)
            entry = self._entries.get(tenant_id)  # a concurrent request may have made it
            if entry is None or entry.fingerprint != fingerprint:
                if entry is not None:
                    self._retire(entry)
                entry = self._entry(fingerprint, target, hostaddr, limits)
                self._entries[tenant_id] = entry
                while len(self._entries) > limits.max_tenants:
                    self._retire(self._entries.popitem(last=False)[1])
        self._entries.move_to_end(tenant_id)
        return entry.store

    def _entry(self, fingerprint: str, target: str, hostaddr: str | None,
               limits: PoolLimits) -> _Entry:
        return _Entry(fingerprint, open_tenant_store(
            target, pool_size=limits.pool_size, pool_timeout=limits.pool_timeout,
            connect_timeout=limits.connect_timeout, operation_timeout=limits.operation_timeout,
            hostaddr=hostaddr, busy_timeout=limits.sqlite_busy_timeout, threads=self._threads))

    def __len__(self) -> int:
        return len(self._entries)

    def _retire(self, entry: _Entry) -> None:
        # Connections checked out right now finish their work; the pool closes them on return.
        task = asyncio.get_running_loop().create_task(_dispose(entry))
        self._retired.add(task)
        task.add_done_callback(self._retired.discard)

    async def dispose(self) -> None:
        """Close every pool (app cleanup)."""
        entries, self._entries = list(self._entries.values()), OrderedDict()
        self._urls.clear()
        await asyncio.gather(*(_dispose(entry) for entry in entries), *self._retired)
        self._threads.close()


async def _dispose(entry: _Entry) -> None:
    await entry.store.close()


async def tenant_pools_context(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx of an app holding TENANT_POOLS: close every tenant store on shutdown."""
    yield
    await app[TENANT_POOLS].dispose()
