"""A workspace's tenant database as a store: its URL (saved, or the embedded SQLite default)
and the pooled TenantStore, for every area that reads or writes tenant records.

An API-key request already carries its workspace's saved token (read with the key, one query):
`request_tenant_store` decrypts it only when it differs from the one the pools last saw, so a
steady workspace costs no platform query and no decryption (docs/performance.md, "hot path").
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web
from cryptography.fernet import MultiFernet

from insureops.platform.config import Settings
from insureops.platform.data.database import UnitOfWork
from insureops.platform.http.errors import RETRY_AFTER_SECONDS
from insureops.platform.http.routing import RouteTable
from insureops.platform.keys import DATABASE, SAVED_CONNECTION, SECRET_KEYS, SETTINGS
from insureops.platform.tenancy.book.errors import TenantDatabaseUnavailableError
from insureops.platform.tenancy.book.store import TenantStore
from insureops.platform.tenancy.databases import (
    decrypt_url,
    load_tenant_database,
    load_tenant_database_url,
)
from insureops.platform.tenancy.pools import ResolvedUrl, TenantPools
from insureops.platform.tenancy.urls import workspace_directory


def map_tenant_database_errors(routes: RouteTable) -> None:
    """The one answer of every area that reads tenant records when the tenant database cannot
    be used: 503 tenant_database_unavailable with Retry-After."""
    routes.map_error(TenantDatabaseUnavailableError, 503, "tenant_database_unavailable",
                     headers={"Retry-After": RETRY_AFTER_SECONDS})


class TenantDatabaseNotConfiguredError(TenantDatabaseUnavailableError):
    """The workspace has saved no tenant database connection yet."""


def embedded_database_url(directory: Path, tenant_id: str) -> str:
    """The zero-set-up tenant database of a workspace: a SQLite file named by its tenant id, in
    the workspace's own directory under `directory`."""
    return f"sqlite:///{workspace_directory(directory, tenant_id) / f'{tenant_id}.sqlite3'}"


def embedded_root(settings: Settings) -> Path | None:
    """The directory of the embedded default tenant databases; None when the default is off."""
    return settings.tenant_sqlite_root if settings.embedded_tenants_on else None


async def tenant_database_url(uow: UnitOfWork, fernet: MultiFernet, tenant_id: str,
                              sqlite_directory: Path | None = None) -> tuple[str, bool]:
    """The workspace's decrypted tenant database URL (never log it), and whether it is the
    embedded default (no connection saved, `embedded_root` given)."""
    url = await load_tenant_database_url(uow, tenant_id, fernet)
    if url is not None:
        return url, False
    if sqlite_directory is not None:
        return embedded_database_url(sqlite_directory, tenant_id), True
    raise _not_configured()


def _not_configured() -> TenantDatabaseNotConfiguredError:
    return TenantDatabaseNotConfiguredError(
        "This workspace has no tenant database yet: an owner or admin saves its connection "
        "under Settings -> Database (POST /api/v2/settings/database/), or the operator gives "
        "every workspace an embedded SQLite one (INSUREOPS_EMBEDDED_TENANT_DATABASES).")


async def tenant_store(uow: UnitOfWork, fernet: MultiFernet, pools: TenantPools,
                       tenant_id: str, settings: Settings) -> TenantStore:
    """The store of the workspace's own database, through its bounded pool; the embedded
    default is prepared (data model applied) on its first use. A saved PostgreSQL host is
    checked against `settings` (allowed networks) whenever the pool makes its engine. The
    saved token is read (one query) and decrypted only when it differs from the one the pools
    last saw (the rules jobs ask every half second)."""
    row = await load_tenant_database(uow, tenant_id)
    return await _store(pools, fernet, tenant_id, None if row is None else row.url_encrypted,
                        settings)


async def _store(pools: TenantPools, fernet: MultiFernet, tenant_id: str, token: str | None,
                 settings: Settings) -> TenantStore:
    resolved = pools.resolved_url(tenant_id, token)
    if resolved is None:
        if token is not None:
            resolved = ResolvedUrl(token, decrypt_url(fernet, token), False)
        else:
            root = embedded_root(settings)
            if root is None:
                raise _not_configured()
            resolved = ResolvedUrl(None, embedded_database_url(root, tenant_id), True)
        if resolved.embedded:
            await pools.prepare_once(resolved.url)
        pools.remember_url(tenant_id, resolved)
    return await pools.store_for(tenant_id, resolved.url, settings)


async def request_tenant_store(request: web.Request, pools: TenantPools,
                               tenant_id: str) -> TenantStore:
    """`tenant_store` for a request: with the token its API key's query read for `tenant_id`,
    the URL is the one cached for that token (decrypted only when the token changed, on any
    instance); without one (another kind of caller), the row is read as `tenant_store` does."""
    config = request.config_dict
    saved = request.get(SAVED_CONNECTION)
    if saved is None or saved.workspace_id != tenant_id:
        async with config[DATABASE].unit_of_work() as uow:
            return await tenant_store(uow, config[SECRET_KEYS].fernet, pools, tenant_id,
                                      config[SETTINGS])
    return await _store(pools, config[SECRET_KEYS].fernet, tenant_id, saved.token,
                        config[SETTINGS])
