"""Fixtures of the tenant API tests: prepared tenant databases, workspaces with keys and URLs."""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient

from insureops.platform.auth.requirements import Scope
from insureops.platform.config import Settings
from insureops.platform.identity import Workspace, new_tenant_id
from insureops.platform.keys import API_KEY_CACHE, DATABASE, SECRET_KEYS
from insureops.platform.records.api_keys import ApiKey, hash_api_key, new_api_key, normalise_scopes
from insureops.platform.tenancy.databases import TenantDatabase, encrypt_url
from insureops.platform.tenancy.urls import workspace_directory
from tests.databases import Template

NOW = datetime.datetime(2026, 11, 22, 3, 0, tzinfo=datetime.UTC)


@pytest.fixture
def tenant_sqlite_root(tmp_path: Path) -> Path:
    """The SQLite tenant directory: each workspace's files in its own `<tenant_id>/` below."""
    return tmp_path / "tenants"


@pytest.fixture
def settings(settings: Settings, tenant_sqlite_root: Path) -> Settings:
    """The platform test settings with loopback tenant databases allowed (the test PostgreSQL is
    on 127.0.0.1, which the tenant pools otherwise refuse) and SQLite tenant databases on."""
    return settings.model_copy(update={"tenant_database_allowed_networks": ("127.0.0.1/32",),
                                       "tenant_sqlite_directory": tenant_sqlite_root})


def own_tenant_database(test_databases, settings: Settings, tenant_id: str | None = None) -> str:
    """A new database holding the data model for workspace `tenant_id`; its sync URL. On SQLite
    the file lies in that workspace's own directory under the settings' SQLite tenant root, as
    the service requires of a workspace's files."""
    directory = None
    if tenant_id is not None and test_databases.backend == "sqlite":
        directory = workspace_directory(settings.tenant_sqlite_root, tenant_id)
        directory.mkdir(parents=True, exist_ok=True)
    return test_databases.copy(Template.TENANT, directory=directory).sync


@pytest.fixture
def make_tenant_database(test_databases, settings: Settings) -> Callable[..., str]:
    """`make_tenant_database(tenant_id=None)`: a new database of the backend under test holding
    the data model (a copy of the worker's template), in the workspace's own directory when
    `tenant_id` is given; its sync URL, dropped when the test ends."""
    return lambda tenant_id=None: own_tenant_database(test_databases, settings, tenant_id)


@dataclass(frozen=True)
class Tenant:
    """A workspace with an API key and (optionally) a saved tenant database URL."""

    tenant_id: str
    key: str
    key_id: str
    database_url: str | None

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


async def add_key(client: TestClient, tenant_id: str,
                  scopes: tuple[Scope, ...] = (Scope.READ, Scope.WRITE)) -> tuple[str, str]:
    """A new API key of the workspace: (key, key id)."""
    key, key_id = new_api_key(), new_tenant_id(NOW.timestamp())
    async with client.app[DATABASE].unit_of_work() as uow:
        uow.session.add(ApiKey(id=key_id, workspace_id=tenant_id, name="test key",
                               display_prefix=key[:11], key_hash=hash_api_key(key),
                               scopes=normalise_scopes(scopes), created_at=NOW))
    return key, key_id


async def save_database_url(client: TestClient, tenant_id: str, url: str) -> None:
    """Store the workspace's tenant database URL as the settings area does (encrypted)."""
    async with client.app[DATABASE].unit_of_work() as uow:
        row = await uow.session.get(TenantDatabase, tenant_id)
        token = encrypt_url(client.app[SECRET_KEYS].fernet, url)
        if row is None:
            uow.session.add(TenantDatabase(workspace_id=tenant_id, url_encrypted=token,
                                           backend="sqlite" if url.startswith("sqlite") else "postgresql",
                                           saved_at=NOW))
        else:
            row.url_encrypted = token
    client.app[API_KEY_CACHE].forget_all()  # as the settings area does after saving


@pytest.fixture
def make_tenant(client: TestClient) -> Callable[..., Awaitable[Tenant]]:
    """`await make_tenant(database_url, scopes=..., tenant_id=...)`: a workspace, a key, the
    saved URL."""
    async def make(database_url: str | None, *,
                   scopes: tuple[Scope, ...] = (Scope.READ, Scope.WRITE),
                   name: str = "Agency", tenant_id: str | None = None) -> Tenant:
        tenant_id = tenant_id or new_tenant_id(NOW.timestamp())
        async with client.app[DATABASE].unit_of_work() as uow:
            uow.session.add(Workspace(tenant_id=tenant_id, name=name, created_at=NOW))
        key, key_id = await add_key(client, tenant_id, scopes)
        if database_url is not None:
            await save_database_url(client, tenant_id, database_url)
        return Tenant(tenant_id, key, key_id, database_url)
    return make


@pytest.fixture
def make_own_tenant(make_tenant, make_tenant_database) -> Callable[..., Awaitable[Tenant]]:
    """`await make_own_tenant(scopes=..., name=...)`: a workspace with its own prepared
    tenant database (a SQLite file can only ever be one workspace's)."""
    async def make(**options) -> Tenant:
        tenant_id = new_tenant_id(NOW.timestamp())
        return await make_tenant(make_tenant_database(tenant_id), tenant_id=tenant_id, **options)
    return make


@pytest.fixture
async def tenant(make_own_tenant) -> Tenant:
    """A workspace with a read-write key and its own prepared tenant database."""
    return await make_own_tenant()


@pytest.fixture
def save_url(client: TestClient) -> Callable[[str, str], Awaitable[None]]:
    """`await save_url(tenant_id, url)`: (re)save a workspace's tenant database URL."""
    async def save(tenant_id: str, url: str) -> None:
        await save_database_url(client, tenant_id, url)
    return save
