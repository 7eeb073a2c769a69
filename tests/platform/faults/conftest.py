"""Fixtures of the fault tests: PostgreSQL platform and tenant databases, a workspace whose
tenant database URL goes through a relay, and `insureops serve` processes on them."""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from cryptography.fernet import Fernet, MultiFernet
from sqlalchemy.engine import make_url

from insureops.platform.auth.requirements import Scope
from insureops.platform.data.database import Database
from insureops.platform.identity import Workspace, new_tenant_id
from insureops.platform.records.api_keys import ApiKey, hash_api_key, new_api_key, normalise_scopes
from insureops.platform.tenancy.databases import TenantDatabase, encrypt_url
from tests.conftest import require_postgres
from tests.databases import DatabaseUrls, Template
from tests.platform.faults.relay import TcpRelay
from tests.platform.faults.service import ServiceProcess

NOW = datetime.datetime(2026, 11, 23, 3, 0, tzinfo=datetime.UTC)


@pytest.fixture
def backend() -> str:
    """The fault tests run on PostgreSQL only (a relay sits in front of a TCP server)."""
    require_postgres()
    return "postgresql"


@pytest.fixture
def fernet_key() -> str:
    return Fernet.generate_key().decode()


@pytest.fixture
def platform_urls(test_databases) -> DatabaseUrls:
    """A migrated platform database of this test."""
    return test_databases.copy(Template.PLATFORM)


@pytest.fixture
def tenant_url(test_databases) -> str:
    """A tenant database of this test, prepared with the data model (its direct sync URL)."""
    return test_databases.copy(Template.TENANT).sync


def through(relay: TcpRelay, url: str) -> str:
    """`url` with its host and port replaced by the relay's."""
    return make_url(url).set(host="127.0.0.1", port=relay.port).render_as_string(
        hide_password=False)


def relay_to(url: str) -> TcpRelay:
    """A relay in front of the server of `url` (not started)."""
    parsed = make_url(url)
    return TcpRelay(parsed.host or "127.0.0.1", parsed.port or 5432)


@pytest.fixture
def add_workspace(platform_urls: DatabaseUrls,
                  fernet_key: str) -> Callable[[str], Awaitable[str]]:
    """`await add_workspace(tenant_database_url)`: a workspace with that saved tenant database
    URL (encrypted as the settings area saves it) and a read-write API key, which it returns."""
    async def add(database_url: str) -> str:
        tenant_id, key = new_tenant_id(NOW.timestamp()), new_api_key()
        database = Database.connect(platform_urls.async_)
        try:
            async with database.unit_of_work() as uow:
                uow.session.add(Workspace(tenant_id=tenant_id, name="Faults", created_at=NOW))
                await uow.session.flush()
                uow.session.add(ApiKey(id=new_tenant_id(NOW.timestamp()), workspace_id=tenant_id,
                                       name="load", display_prefix=key[:11],
                                       key_hash=hash_api_key(key), created_at=NOW,
                                       scopes=normalise_scopes((Scope.READ, Scope.WRITE))))
                uow.session.add(TenantDatabase(
                    workspace_id=tenant_id, backend="postgresql", saved_at=NOW,
                    url_encrypted=encrypt_url(MultiFernet([Fernet(fernet_key)]), database_url)))
        finally:
            await database.dispose()
        return key
    return add


@pytest.fixture
def service_environment(platform_urls: DatabaseUrls, fernet_key: str) -> dict[str, str]:
    """INSUREOPS_* of a service on the test's platform database (loopback tenant databases
    allowed, no embedded ones, no example market)."""
    return {
        "INSUREOPS_DATABASE_URL": platform_urls.async_,
        "INSUREOPS_SECRET_KEY": "fault-tests",
        "INSUREOPS_FERNET_KEYS": fernet_key,
        "INSUREOPS_TENANT_DATABASE_ALLOWED_NETWORKS": "127.0.0.1/32",
        "INSUREOPS_EMBEDDED_TENANT_DATABASES": "false",
        "INSUREOPS_LOAD_EXAMPLE_MARKET": "false",
        "INSUREOPS_MIGRATE_ON_START": "false",
        "INSUREOPS_LOG_LEVEL": "WARNING",
    }


@pytest.fixture
def make_service(service_environment: dict[str, str],
                 tmp_path: Path) -> Iterator[Callable[..., Awaitable[ServiceProcess]]]:
    """`await make_service(**INSUREOPS_overrides)`: a started `insureops serve` process (keyword
    names without the prefix, e.g. database_url=...); killed when the test ends."""
    started: list[ServiceProcess] = []

    async def make(**overrides: str) -> ServiceProcess:
        environment = {**service_environment,
                       **{f"INSUREOPS_{name.upper()}": value for name, value in overrides.items()}}
        service = ServiceProcess(environment, tmp_path / f"service-{len(started)}.log")
        started.append(service)
        return await service.start()

    yield make
    for service in started:
        service.kill()  # a graceful stop is not under test here, and costs seconds
