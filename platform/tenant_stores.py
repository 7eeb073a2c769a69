"""A workspace's tenant database as a store: its URL (saved, or the embedded SQLite default)
and the pooled TenantStore, for every area that reads or writes tenant records."""

from __future__ import annotations

from pathlib import Path

from cryptography.fernet import MultiFernet

from insureops.platform.config import Settings
from insureops.platform.db import UnitOfWork
from insureops.platform.errors import RETRY_AFTER_SECONDS
from insureops.platform.routing import RouteTable
from insureops.platform.tenant_data.errors import TenantDatabaseUnavailableError
from insureops.platform.tenant_data.store import TenantStore
from insureops.platform.tenant_databases import load_tenant_database_url
from insureops.platform.tenant_pools import TenantPools
from insureops.platform.tenant_urls import workspace_directory


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
    raise TenantDatabaseNotConfiguredError(
        "This workspace has no tenant database yet: an owner or admin saves its connection "
        "under Settings -> Database (POST /api/v2/settings/database/), or the operator gives "
        "every workspace an embedded SQLite one (INSUREOPS_EMBEDDED_TENANT_DATABASES).")


async def tenant_store(uow: UnitOfWork, fernet: MultiFernet, pools: TenantPools,
                       tenant_id: str, settings: Settings) -> TenantStore:
    """The store of the workspace's own database, through its bounded pool; the embedded
    default is prepared (data model applied) on its first use. A saved PostgreSQL host is
    checked against `settings` (allowed networks) whenever the pool makes its engine."""
    url, embedded = await tenant_database_url(uow, fernet, tenant_id, embedded_root(settings))
    if embedded:
        await pools.prepare_once(url)
    return await pools.store_for(tenant_id, url, settings)
