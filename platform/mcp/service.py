"""Use cases of the tenant API that touch the platform database: the tenant's store, key, usage."""

from __future__ import annotations

import datetime

from cryptography.fernet import MultiFernet
from sqlalchemy.engine import make_url

from insureops.platform.db import UnitOfWork
from insureops.platform.identity import Workspace
from insureops.platform.tenant_data.errors import TenantDatabaseUnavailableError
from insureops.platform.tenant_data.store import TenantStore
from insureops.platform.tenant_databases import load_tenant_database_url
from insureops.platform.tenant_pools import TenantPools
from insureops.platform.usage import UsageCount, record_usage


class TenantDatabaseNotConfiguredError(TenantDatabaseUnavailableError):
    """The workspace has saved no tenant database connection yet."""


async def tenant_database_url(uow: UnitOfWork, fernet: MultiFernet, tenant_id: str) -> str:
    """The workspace's decrypted tenant database URL (never log it)."""
    url = await load_tenant_database_url(uow, tenant_id, fernet)
    if url is None:
        raise TenantDatabaseNotConfiguredError(
            "This workspace has no tenant database yet: an owner or admin saves its connection "
            "under Settings -> Database (POST /api/v2/settings/database/).")
    return url


async def tenant_store(uow: UnitOfWork, fernet: MultiFernet, pools: TenantPools,
                       tenant_id: str) -> TenantStore:
    """The store of the workspace's own database, through its bounded pool."""
    url = await tenant_database_url(uow, fernet, tenant_id)
    return pools.store_for(tenant_id, url)


def backend_of(url: str) -> str:
    return make_url(url).get_backend_name()


async def workspace_name(uow: UnitOfWork, tenant_id: str) -> str:
    workspace = await uow.session.get(Workspace, tenant_id)
    return workspace.name if workspace is not None else ""


async def report_usage(uow: UnitOfWork, *, tenant_id: str, key_id: str,
                       counts: list[tuple[str, int]], period_start: datetime.datetime,
                       period_end: datetime.datetime, now: datetime.datetime) -> int:
    """Store a local server's usage report; counts of the same tool are added up first."""
    merged: dict[str, int] = {}
    for tool, count in counts:
        merged[tool] = merged.get(tool, 0) + count
    return await record_usage(
        uow, workspace_id=tenant_id, key_id=key_id,
        counts=[UsageCount(tool, count) for tool, count in merged.items()],
        period_start=period_start, period_end=period_end, now=now)
