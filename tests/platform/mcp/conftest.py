"""Fixtures of the tenant API tests: prepared tenant databases, workspaces with keys and URLs."""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from aiohttp.test_utils import TestClient

from insureops.platform.api_keys import ApiKey, hash_api_key, new_api_key, normalise_scopes
from insureops.platform.auth import Scope
from insureops.platform.config import Settings
from insureops.platform.identity import Workspace, new_tenant_id
from insureops.platform.keys import DATABASE, SECRET_KEYS
from insureops.platform.tenant_databases import TenantDatabase, encrypt_url
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


@pytest.fixture
<<<<<<< HEAD
def make_tenant_database(test_databases) -> Callable[[], str]:
    """`make_tenant_database()`: a new database of the backend under test holding the data
    model (a copy of the worker's template); its sync URL. Dropped when the test ends."""
    return lambda: test_databases.copy(Template.TENANT).sync
=======
def make_tenant_database(backend: str, tmp_path: Path,
                         tenant_sqlite_root: Path) -> Iterator[Callable[..., str]]:
    """`make_tenant_database(tenant_id=None)`: a new, prepared database of the backend under
    test; its URL (a PostgreSQL schema selected by search_path, dropped afterwards; or a SQLite
    file, in the workspace's own directory when `tenant_id` is given, as the service requires)."""
    schemas: list[str] = []

    def make(tenant_id: str | None = None) -> str:
        if backend == "sqlite":
            directory = tmp_path if tenant_id is None else tenant_sqlite_root / tenant_id
            directory.mkdir(parents=True, exist_ok=True)
            url = f"sqlite:///{directory / f'tenant-{uuid.uuid4().hex[:8]}.sqlite3'}"
        else:
            base = os.environ[POSTGRES_URL_VARIABLE]
            schema = f"tenant_{uuid.uuid4().hex[:16]}"
            with psycopg.connect(_plain(base), autocommit=True) as connection:
                connection.execute(f'CREATE SCHEMA "{schema}"')
            schemas.append(schema)
            separator = "&" if "?" in base else "?"
            url = f"{base}{separator}options={quote(f'-csearch_path={schema}')}"
        prepare_tenant_database(url)
        return url

    yield make
    if schemas:
        with psycopg.connect(_plain(os.environ[POSTGRES_URL_VARIABLE]),
                             autocommit=True) as connection:
            for schema in schemas:
                connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
>>>>>>> newcomer


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
