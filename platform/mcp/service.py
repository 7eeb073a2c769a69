"""Use cases of the tenant API that touch the platform database: the tenant's store, key, usage."""

from __future__ import annotations

import datetime

from sqlalchemy.engine import make_url

from insureops.platform.data.database import UnitOfWork
from insureops.platform.identity import Workspace
from insureops.platform.records.usage import UsageCount, record_usage
from insureops.platform.tenancy.workspaces import (  # noqa: F401 - the area's names for them
    TenantDatabaseNotConfiguredError,
    embedded_database_url,
    embedded_root,
    tenant_database_url,
    tenant_store,
)


def backend_of(url: str) -> str:
    """postgresql or sqlite (a saved `postgres://` URL is PostgreSQL too)."""
    return "sqlite" if make_url(url).get_backend_name() == "sqlite" else "postgresql"


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
