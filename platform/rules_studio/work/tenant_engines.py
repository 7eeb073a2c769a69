"""Sync engines on the workspaces' tenant databases for rules at work (the outbox, book runs,
effects), opened on the URL the pools would use and checked the same way (a SQLite file of the
workspace's own; a PostgreSQL host resolved, allowed and pinned with `hostaddr`).

A job process keeps a few (least recently used closed first); a request opens one for its one
statement and closes it. Their statements run in threads (`run`), never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from insureops.platform.data.database import Database
from insureops.platform.tenancy.book.errors import TenantDatabaseUnavailableError
from insureops.platform.tenancy.book.store import create_sqlite_tenant_engine
from insureops.platform.tenancy.engine import create_tenant_engine
from insureops.platform.tenancy.pools import PoolLimits, TenantPools, vetted_target
from insureops.platform.tenancy.workspaces import embedded_root, tenant_database_url

T = TypeVar("T")
MAX_ENGINES = 32
RECHECK_SECONDS = 30.0  # a workspace's saved URL and host are read and checked again after it


class TenantOutdatedError(Exception):
    """The tenant database lacks the outbox tables (saved before rules at work): run
    `insureops schema apply URL` on it once."""


async def _target(database: Database, fernet: Any, pools: TenantPools, settings: Any,
                  tenant_id: str) -> tuple[str, str | None]:
    async with database.unit_of_work() as uow:
        url, embedded = await tenant_database_url(uow, fernet, tenant_id,
                                                  embedded_root(settings))
    if embedded:
        await pools.prepare_once(url)  # the data model and its outbox, on first use
    limits = PoolLimits.from_settings(settings)
    return await vetted_target(url, tenant_id, settings, limits.connect_timeout)


def _engine(target: str, hostaddr: str | None, settings: Any) -> sa.Engine:
    limits = PoolLimits.from_settings(settings)
    if make_url(target).get_backend_name() == "sqlite":
        return create_sqlite_tenant_engine(target, pool_size=2, max_overflow=2,
                                           busy_timeout=limits.sqlite_busy_timeout)
    connect_args: dict[str, Any] = {"connect_timeout": max(1, round(limits.connect_timeout))}
    if hostaddr is not None:
        connect_args["hostaddr"] = hostaddr
    return create_tenant_engine(target, pool_size=2, max_overflow=2, pool_pre_ping=True,
                                connect_args=connect_args)


async def run(engine: sa.Engine, work: Callable[..., T], *args: Any) -> T:
    """`work(engine, *args)` in a thread; an unreachable database is
    TenantDatabaseUnavailableError, a missing outbox table TenantOutdatedError."""
    try:
        return await asyncio.to_thread(work, engine, *args)
    except (sa.exc.ProgrammingError, sa.exc.OperationalError) as exc:
        text = str(exc.orig)
        if any(table in text for table in ("insureops_outbox", "insureops_rule_effects",
                                           "insureops_event_outbox")):
            raise TenantOutdatedError(
                "The workspace's tenant database predates rules at work: run `insureops "
                "schema apply URL` on it once (it adds the outbox), then retry.") from None
        if isinstance(exc, sa.exc.OperationalError):
            raise TenantDatabaseUnavailableError(
                "The tenant database cannot be reached; retry shortly.") from None
        raise


class TenantEngines:
    """Engines of one process, per workspace (rebuilt when its URL changes), at most
    MAX_ENGINES open."""

    def __init__(self, database: Database, fernet: Any, pools: TenantPools,
                 settings: Any) -> None:
        self.database, self.fernet, self.pools, self.settings = database, fernet, pools, settings
        self._engines: OrderedDict[str, tuple[str, sa.Engine]] = OrderedDict()
        self._checked: dict[str, float] = {}

    async def engine(self, tenant_id: str) -> sa.Engine:
        """The workspace's engine; its URL is read (and its host resolved and checked) again
        at most every RECHECK_SECONDS: the dispatcher asks every half second."""
        found = self._engines.get(tenant_id)
        if found is not None and time.monotonic() - self._checked[tenant_id] < RECHECK_SECONDS:
            self._engines.move_to_end(tenant_id)
            return found[1]
        target, hostaddr = await _target(self.database, self.fernet, self.pools,
                                         self.settings, tenant_id)
        fingerprint = hashlib.sha256(f"{target}|{hostaddr}".encode()).hexdigest()
        if found is None or found[0] != fingerprint:
            if found is not None:
                found[1].dispose()
            self._engines[tenant_id] = (fingerprint, _engine(target, hostaddr, self.settings))
            while len(self._engines) > MAX_ENGINES:
                gone, (_, engine) = self._engines.popitem(last=False)
                self._checked.pop(gone, None)
                engine.dispose()
        self._checked[tenant_id] = time.monotonic()
        self._engines.move_to_end(tenant_id)
        return self._engines[tenant_id][1]

    def close(self) -> None:
        for _, engine in self._engines.values():
            engine.dispose()
        self._engines.clear()
        self._checked.clear()


@contextlib.asynccontextmanager
async def engine_for_call(database: Database, fernet: Any, pools: TenantPools, settings: Any,
                          tenant_id: str) -> AsyncIterator[sa.Engine]:
    """An engine opened for one request's work, disposed of after it."""
    target, hostaddr = await _target(database, fernet, pools, settings, tenant_id)
    engine = _engine(target, hostaddr, settings)
    try:
        yield engine
    finally:
        await asyncio.to_thread(engine.dispose)


async def with_engine(database: Database, fernet: Any, pools: TenantPools, settings: Any,
                      tenant_id: str, work: Callable[..., T], *args: Any) -> T:
    """`work(engine, *args)` on an engine opened for this call only (a request's one write)."""
    async with engine_for_call(database, fernet, pools, settings, tenant_id) as engine:
        return await run(engine, work, *args)
